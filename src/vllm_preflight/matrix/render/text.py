"""The terminal table: rich, one colour per outcome (green on, yellow off, orange hazard, red
refused). Columns that read the same on every line move into one note under the table, so
the lines fit a terminal; no value is cut short, only `why` at 60 characters. Every text goes
through safe_text.rich: shown, never obeyed (terminal escapes) nor applied (rich markup)."""
from __future__ import annotations

from collections.abc import Sequence

STYLES = {"on": "green", "off": "yellow", "hazard": "bold dark_orange", "refused": "red"}
KEEP = {"graphs", "why"}


def _constant_columns(t) -> list[int]:
    if len(t.lines) < 2:
        return []
    return [k for k, h in enumerate(t.headers)
            if h not in KEEP and len({line.cells[k] for line in t.lines}) == 1]


def render(tables, console=None, extra_lines: Sequence[str] = ()) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable

    from vllm_preflight.safe_text import line_start
    from vllm_preflight.safe_text import rich as escape

    console = console or Console(highlight=False, soft_wrap=False, emoji=False)  # `:warning:` stays text
    if not console.is_terminal:  # piped: the table at its natural width, never wrapped inside a cell
        console.width = 400
    for t in tables:
        same = _constant_columns(t)
        shown = [k for k in range(len(t.headers)) if k not in same]
        # the title starts a line of the log (a CI runner reads `::command::` lines there)
        rt = RichTable(title=escape(line_start(t.title, path=True)), box=box.SIMPLE_HEAD, header_style="bold", title_justify="left",
                       pad_edge=False)
        for k in shown:
            if t.headers[k] == "why":
                rt.add_column("why", no_wrap=True, overflow="ellipsis", max_width=60)
            else:
                rt.add_column(escape(t.headers[k]), no_wrap=True)
        for line in t.lines:
            rt.add_row(*(escape(line.cells[k]) for k in shown), style=STYLES.get(line.status))
        # a table wider than the terminal keeps every column whole (the terminal wraps the lines)
        # rather than squeezing values to "…"
        need = console.measure(rt, options=console.options.update_width(10_000)).maximum
        if need > console.width:
            saved, console.width = console.width, need
            console.print(rt)
            console.width = saved
        else:
            console.print(rt)
        if same:
            console.print(escape("every line: " + ", ".join(f"{t.headers[k]} {t.lines[0].cells[k]}" for k in same)),
                          style="dim")
        for n in t.notes:
            console.print(escape(n), style="dim")
    for line in extra_lines:
        console.print(escape(line), soft_wrap=True)
