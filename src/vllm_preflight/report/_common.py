"""What the machine formats share: each finding with the place to show it at."""
from __future__ import annotations

from vllm_preflight.outcome import findings_of
from vllm_preflight.safe_text import visible  # noqa: F401  (the renderers' one neutraliser)

COMMAND_LINE = "<command line>"  # the file of a server given after `--`


def server_name(result) -> str:
    """The server's one human name (identity.server_name, computed once by api.check_deployment)."""
    return result.extra.get("name") or result.source


def named_server(result) -> str:
    """The server's name where it says more than its file (a resource, a role, a line): the
    line formats append it; '' for a file's only server, whose place already names it."""
    name = server_name(result)
    file = (result.extra.get("location") or {}).get("file")
    return "" if name in (file, result.source, COMMAND_LINE) else name


def place(finding: dict, result) -> tuple[str, int, int]:
    """(file, line, column) to show a finding at: its own location, else its server command's,
    else line 1 of its file (editors and problem matchers need a line); a server given after
    `--` has no file and is shown as `<command line>`."""
    loc = finding.get("location") or {}
    server = result.extra.get("location") or {}
    file = loc.get("file") or server.get("file") or COMMAND_LINE
    if loc.get("file") and loc.get("line"):
        return file, loc["line"], loc.get("column") or 1
    if file == server.get("file") and server.get("line"):
        return file, server["line"], server.get("column") or 1
    return file, 1, 1


def located(report):
    """(result, finding, file, line, column) for every finding, in report order."""
    for r in report.results:
        for f in findings_of(r):
            yield (r, f, *place(f, r))


def error_place(err) -> tuple[str, int, int]:
    loc = err.location
    if loc is not None and loc.line:
        return loc.file or err.source, loc.line, loc.column or 1
    return err.source, 1, 1
