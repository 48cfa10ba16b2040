"""The terminal table: rich, one colour per outcome (green on, yellow off/hazard, red refused)."""
from __future__ import annotations

STYLES = {"on": "green", "off": "yellow", "hazard": "bold yellow", "refused": "red"}


def render(tables, console=None, extra_lines: list[str] = ()) -> None:
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table as RichTable

    console = console or Console(highlight=False, soft_wrap=False)
    if not console.is_terminal:  # piped: the table at its natural width, never wrapped inside a cell
        console.width = 400
    for t in tables:
        rt = RichTable(title=escape(t.title), box=box.SIMPLE_HEAD, header_style="bold", title_justify="left",
                       pad_edge=False)
        for h in t.headers:
            rt.add_column(escape(h), no_wrap=True)
        for line in t.lines:
            rt.add_row(*(escape(c) for c in line.cells), style=STYLES.get(line.status))
        console.print(rt)
        for n in t.notes:
            console.print(escape(n), style="dim")
    for line in extra_lines:
        console.print(escape(line), soft_wrap=True)
