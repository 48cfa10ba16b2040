"""The terminal table: one colour per outcome (green on, yellow off, orange hazard, red refused).

Columns that read the same on every line move into one note under the table. Then:

- piped or written to a file: the table at its natural width, columns two spaces apart, no line
  padded past its last value, no value cut (`why` whole), never wrapped;
- on a terminal, when the table fits its width: the same table;
- on a terminal too narrow for it: each line stacked as a block, its outcome first, then
  `column value` pairs wrapped between words to the terminal's width (no word broken, no line
  wider than the terminal unless one word is).

Notes and the `--vs` / `--advise` lines wrap the same way on a terminal and stay whole piped.
Every text goes through safe_text.visible (in report.text_report.Out): shown, never obeyed.
"""
from __future__ import annotations

from collections.abc import Sequence

STYLES = {"on": "green", "off": "yellow", "hazard": "bold dark_orange", "refused": "red"}
KEEP = {"graphs", "why"}
GAP = "  "


def _constant_columns(t) -> list[int]:
    if len(t.lines) < 2:
        return []
    return [k for k, h in enumerate(t.headers)
            if h not in KEEP and len({line.cells[k] for line in t.lines}) == 1]


def _widths(t, shown: list[int]) -> list[int]:
    return [max([len(t.headers[k])] + [len(line.cells[k]) for line in t.lines]) for k in shown]


def table_lines(t, shown: list[int]) -> list[tuple[str, str | None]]:
    """(text, style) of the header, its rule and every line: columns aligned, the last one not
    padded."""
    widths = _widths(t, shown)

    def row(cells: list[str]) -> str:
        return GAP.join(c.ljust(w) for c, w in zip(cells[:-1], widths[:-1])) + (GAP if len(cells) > 1 else "") \
            + cells[-1]

    out: list[tuple[str, str | None]] = [(row([t.headers[k] for k in shown]).rstrip(), "bold"),
                                         (GAP.join("─" * w for w in widths), "dim")]
    out += [(row([line.cells[k] for k in shown]).rstrip(), STYLES.get(line.status)) for line in t.lines]
    return out


def stacked_lines(t, shown: list[int], status_column: int) -> list[list]:
    """Each line as a block: `release  outcome`, the other columns as `header: value` pairs (a
    pair is never split), then `why`."""
    from vllm_preflight.report.text_report import KEEP

    first = shown[0]
    out: list[list] = []
    for line in t.lines:
        head = [line.cells[first]] + ([line.cells[status_column]] if status_column in shown
                                      and status_column != first else [])
        out.append([(GAP.join(head), STYLES.get(line.status) or "bold")])
        rest = [k for k in shown if k not in (first, status_column) and t.headers[k] != "why"]
        pieces: list = [("    ", None)]
        for n, k in enumerate(rest):
            pieces.append((f"{t.headers[k]}: {line.cells[k]}" + (";" if n < len(rest) - 1 else ""), None, KEEP))
            if n < len(rest) - 1:
                pieces.append((" ", None))
        if rest:
            out.append(pieces)
        why = [line.cells[k] for k in shown if t.headers[k] == "why" and line.cells[k] not in ("", "-")]
        if why:
            out.append([("    why: " + why[0], "dim")])
    return out


def render(tables, console=None, extra_lines: Sequence[str] = (), *, width: int | None = None,
           out=None) -> None:
    """Write the tables (through `out`, a text_report.Out; by default standard output, coloured
    and wrapped as text_report.make_out decides). A rich `console` given instead: its width on a
    terminal, none piped."""
    from vllm_preflight.report.text_report import Out, make_out
    from vllm_preflight.safe_text import line_start

    if out is None:
        out = make_out(console) if console is not None else make_out()
    if width is not None:
        out = Out(out.console, out.stream, width=width)
    limit = out.width
    for t in tables:
        same = _constant_columns(t)
        shown = [k for k in range(len(t.headers)) if k not in same]
        # the title starts a line of the log (a CI runner reads `::command::` lines there)
        out.line((line_start(t.title, path=True), "bold"))
        lines = table_lines(t, shown)
        if limit is None or max(len(text) for text, _ in lines) <= limit:
            for text, style in lines:
                out.line((text, style) if style else text)
        else:  # too wide for the terminal: one block per line, wrapped between words
            for pieces in stacked_lines(t, shown, t.status_column):
                out.line(*pieces)
        if same:
            out.line(("every line: " + ", ".join(f"{t.headers[k]} {t.lines[0].cells[k]}" for k in same), "dim"))
        for n in t.notes:
            out.line((n, "dim"))
    for line in extra_lines:
        out.line(line)
