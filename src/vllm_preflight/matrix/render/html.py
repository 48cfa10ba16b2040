"""One self-contained HTML page (inline CSS, no script, nothing fetched): the grid coloured by
outcome, each line's reasons on hover (`title`), a legend, and the notes. Every text goes
through safe_text.html."""
from __future__ import annotations

from collections.abc import Sequence

from vllm_preflight.safe_text import html as escape

CSS = """
:root { --on:#dcf5e3; --on-ink:#145c2c; --off:#fff1c7; --off-ink:#6b4f00; --hazard:#ffd9a8;
        --hazard-ink:#7a3b00; --refused:#ffd6d6; --refused-ink:#8a1111; --line:#d6dae0; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color:#1f2328; margin: 24px 32px; background:#fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
p.sub { color:#57606a; margin: 0 0 16px; }
table { border-collapse: collapse; margin: 0 0 6px; }
th, td { border: 1px solid var(--line); padding: 5px 10px; text-align: left; vertical-align: top;
         white-space: nowrap; }
th { background:#f3f5f8; font-weight: 600; position: sticky; top: 0; }
td.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
tr.on td { background: var(--on); color: var(--on-ink); }
tr.off td { background: var(--off); color: var(--off-ink); }
tr.hazard td { background: var(--hazard); color: var(--hazard-ink); }
tr.refused td { background: var(--refused); color: var(--refused-ink); }
tr:hover td { filter: brightness(0.95); cursor: help; }
td.status { font-weight: 700; }
th.outcome, td.status { border-left: 3px solid #8c959f; }
.legend span { display:inline-block; padding: 2px 10px; margin-right: 8px; border-radius: 3px; }
.note { color:#57606a; font-size: 13px; margin: 2px 0 0; }
pre { background:#f6f8fa; border:1px solid var(--line); padding: 10px 12px; font-size: 12.5px;
      white-space: pre-wrap; }
footer { color:#8c959f; font-size: 12px; margin-top: 28px; }
"""

_MONO = {"cudagraph_mode", "compile mode", "hazards", "max capture", "vLLM"}


def render(tables, title: str, subtitle: str = "", extra_lines: Sequence[str] = ()) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>"]
    if subtitle:
        out.append(f'<p class="sub">{escape(subtitle)}</p>')
    out.append('<p class="legend">'
               '<span style="background:var(--on);color:var(--on-ink)">graphs on</span>'
               '<span style="background:var(--off);color:var(--off-ink)">graphs off</span>'
               '<span style="background:var(--hazard);color:var(--hazard-ink)">hazard (VP3xx)</span>'
               '<span style="background:var(--refused);color:var(--refused-ink)">vLLM refuses</span>'
               ' &nbsp;hover a line for its reasons</p>')
    for t in tables:
        if len(tables) > 1:
            out.append(f"<h2>{escape(t.title)}</h2>")
        out.append('<table class="matrix">')
        out.append("<thead><tr>" + "".join(f'<th class="outcome">{escape(h)}</th>' if k == t.status_column
                                           else f"<th>{escape(h)}</th>" for k, h in enumerate(t.headers))
                   + "</tr></thead>")
        out.append("<tbody>")
        for line in t.lines:
            tip = escape("\n".join(line.reasons) or "no change to what was written", keep_newlines=True)
            tds = []
            for k, c in enumerate(line.cells):
                cls = "status" if k == t.status_column else "mono" if t.headers[k] in _MONO else ""
                tds.append(f'<td class="{cls}">{escape(c)}</td>' if cls else f"<td>{escape(c)}</td>")
            out.append(f'<tr class="{escape(line.status)}" title="{tip}">' + "".join(tds) + "</tr>")
        out.append("</tbody></table>")
        for n in t.notes:
            out.append(f'<p class="note">{escape(n)}</p>')
    if extra_lines:
        out.append("<pre>" + escape("\n".join(extra_lines), keep_newlines=True) + "</pre>")
    out.append("<footer>vllm-preflight matrix · generated offline, "
               "nothing on this page is fetched</footer>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
