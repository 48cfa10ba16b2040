"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,col=C,title=VP301::message` shows the message on line L of file F in the
pull request. Severities map to error / warning / notice. Values are escaped as the runner
expects: `%`, CR and LF in the message; also `:` and `,` in properties.
"""
from __future__ import annotations

from vllm_preflight.report._common import error_place, located, visible

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, file: str, line: int, col: int, title: str) -> str:
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in
                     (("file", file), ("line", line), ("col", col), ("title", title)))
    # newlines stay (escaped) so a multi-line message reads as lines; other controls become escapes
    return f"::{level} {props}::{escape_data(visible_lines(message))}"


def visible_lines(text: str) -> str:
    from vllm_preflight.safe_text import visible as _visible

    return _visible(str(text), keep_newlines=True)


def lines(report) -> list[str]:
    out = [command(LEVEL.get(f.get("severity"), "error"), f.get("message", ""), visible(file), line, col,
                   str(f.get("rule")))
           for _r, f, file, line, col in located(report)]
    for err in report.errors:
        file, line, col = error_place(err)
        out.append(command("error", err.message, visible(file), line, col, "input error"))
    return out


def render_github(report) -> str:
    return "\n".join(lines(report))
