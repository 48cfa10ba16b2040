"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,col=C,title=VP301::message` shows the message on line L of file F in the
pull request. Severities map to error / warning / notice. Values are escaped as the runner
expects: `%`, CR and LF in the message; also `:` and `,` in properties.
"""
from __future__ import annotations

from vllm_preflight.report._common import error_place, located, named_server
from vllm_preflight.safe_text import github_data, github_property

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def command(level: str, message: str, file: str, line: int, col: int, title: str) -> str:
    """One workflow command; its values pass through safe_text (a multi-line message keeps its
    lines, escaped as the runner expects; other control characters become visible escapes)."""
    props = ",".join(f"{k}={github_property(v)}" for k, v in
                     (("file", file), ("line", line), ("col", col), ("title", title)))
    return f"::{level} {props}::{github_data(message)}"


def lines(report) -> list[str]:
    out = [command(LEVEL.get(f.get("severity"), "error"), f.get("message", ""), file, line, col,
                   " · ".join(filter(None, (str(f.get("rule")), named_server(_r)))))
           for _r, f, file, line, col in located(report)]
    for err in report.errors:
        file, line, col = error_place(err)
        out.append(command("error", err.message, file, line, col, "input error"))
    return out


def render_github(report) -> str:
    return "\n".join(lines(report))
