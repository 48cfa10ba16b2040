"""`--format concise`: one line per finding, `path:line:col: severity RULE message`, the message
ending with ` [SERVER]` (identity.server_name) where the server's name says more than its file.

Never wrapped and free of control characters, so editors and CI problem matchers can read it
(`^(.+):(\\d+):(\\d+): (error|warning|info) (VP\\d+) (.*)$`). The last line counts them.
"""
from __future__ import annotations

from vllm_preflight.outcome import summary_line
from vllm_preflight.report._common import located, named_server
from vllm_preflight.safe_text import line_start, visible


def _suffix(result) -> str:
    name = named_server(result)
    return f" [{visible(name)}]" if name else ""


def lines(report, fail_on: str = "error") -> list[str]:
    out = [f"{line_start(file, path=True)}:{line}:{col}: {f.get('severity')} {f.get('rule')} {visible(f.get('message', ''))}{_suffix(_r)}"
           for _r, f, file, line, col in located(report)]
    out.append(summary_line(report, fail_on))
    return out


def render_concise(report, fail_on: str = "error") -> str:
    return "\n".join(lines(report, fail_on))
