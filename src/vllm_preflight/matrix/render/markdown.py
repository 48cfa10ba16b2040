"""GitHub-flavoured Markdown: the folded table, for docs and pull requests. Every text goes
through safe_text.markdown (no raw HTML, link, image or entity from an input), the notes of
--vs/--advise in a code fence no line can close."""
from __future__ import annotations

from collections.abc import Sequence

from vllm_preflight.safe_text import fence
from vllm_preflight.safe_text import markdown as _cell


def render(tables, extra_lines: Sequence[str] = ()) -> str:
    out: list[str] = []
    for t in tables:
        out.append(f"### {_cell(t.title)}")
        out.append("")
        out.append("| " + " | ".join(_cell(h) for h in t.headers) + " |")
        out.append("|" + "|".join(" --- " for _ in t.headers) + "|")
        for line in t.lines:
            cells = list(line.cells)
            k = t.status_column
            cells[k] = f"**{cells[k]}**" if line.status != "on" else cells[k]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        out.append("")
        out += [f"_{_cell(n)}_" for n in t.notes]
        out.append("")
    if extra_lines:
        out += [*fence(extra_lines), ""]
    return "\n".join(out).rstrip() + "\n"
