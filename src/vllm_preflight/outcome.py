"""What a `check` run amounts to: the findings that count, the summary line, the exit code.

Exit codes (README "Use in CI"):
  0  clean: no finding at or above `--fail-on`
  1  a finding at or above `--fail-on` (a vLLM refusal is always an error finding)
  2  usage error, unreadable input, or no vLLM server in what was given
  3  internal error

Pure functions over an `api.Report`; the CLI turns them into output and `sys.exit`.
"""
from __future__ import annotations

SEVERITIES = ("error", "warning", "info")  # most severe first
RANK = {"info": 0, "warning": 1, "error": 2}
FAIL_ON = ("error", "warning", "info", "never")
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
REFUSES = "VP300"  # "vllm-refuses": the hazard rules add it; ensure_refusal() makes sure


def refusal_finding(result) -> dict:
    """VP300 at the server command: vLLM would refuse to start."""
    err = result.vllm_error
    first = (err.message or "").splitlines()[0] if err.message else ""
    return {"rule": REFUSES, "severity": "error",
            "message": f"vLLM {result.vllm_version} would refuse to start: {err.type}: {first}".rstrip(": "),
            "location": result.extra.get("location")}


def ensure_refusal(result) -> None:
    """A refusal is an error finding whatever the hazard rules did (or did not yet) add."""
    findings = result.extra.setdefault("findings", [])
    if not result.starts and not any(f.get("rule") == REFUSES for f in findings):
        findings.insert(0, refusal_finding(result))


def findings_of(result) -> list[dict]:
    return result.extra.get("findings") or []


def counts(report) -> dict[str, int]:
    out = dict.fromkeys(SEVERITIES, 0)
    for r in report.results:
        for f in findings_of(r):
            out[f.get("severity", "error")] = out.get(f.get("severity", "error"), 0) + 1
    return out


def fails(severity: str, fail_on: str) -> bool:
    """Whether a finding of `severity` fails a run with `--fail-on fail_on`."""
    return fail_on != "never" and RANK.get(severity, 2) >= RANK[fail_on]


def failing(report, fail_on: str) -> bool:
    if fail_on == "never":
        return False
    # a refusal counts even if the VP300 finding was dropped somewhere on the way
    return any(not r.starts for r in report.results) or any(
        fails(f.get("severity", "error"), fail_on) for r in report.results for f in findings_of(r))


def exit_code(report, fail_on: str = "error", *, require_servers: bool = True) -> int:
    if any(getattr(e, "internal", False) for e in report.errors):
        return EXIT_INTERNAL  # the tool failed on an input: a bug, not the input's fault
    if report.errors:
        return EXIT_USAGE
    if not report.results and require_servers:
        return EXIT_USAGE
    return EXIT_FINDINGS if failing(report, fail_on) else EXIT_OK


def summary(report, fail_on: str = "error", *, require_servers: bool = True) -> dict:
    """The JSON `summary` object."""
    c = counts(report)
    return {"deployments": len(report.results),
            "refused": sum(1 for r in report.results if not r.starts),
            "findings": c,
            "ignored": getattr(report, "ignored", 0),
            "skipped": len(getattr(report, "skipped", ())),
            "input_errors": len(report.errors),
            "fail_on": fail_on,
            "exit_code": exit_code(report, fail_on, require_servers=require_servers)}


def counted(n: int, severity: str) -> str:
    """`1 error`, `2 errors`, `2 warnings`; `info` is a mass noun (`3 info`)."""
    return f"{n} {severity}" if n == 1 or severity == "info" else f"{n} {severity}s"


def summary_line(report, fail_on: str = "error") -> str:
    """One line for the end of `concise` output: counts by severity, and what fails the run."""
    c = counts(report)
    n = len(report.results)
    servers = f"{n} server{'s' if n != 1 else ''}"
    total = sum(c.values())
    if not total:
        text = f"no findings in {servers}"
    else:
        parts = ", ".join(counted(c[s], s) for s in SEVERITIES if c[s])
        text = f"{total} finding{'s' if total != 1 else ''} in {servers} ({parts})"
    ignored = getattr(report, "ignored", 0)
    if ignored:
        text += f"; {ignored} ignored"
    if report.errors:
        text += f"; {len(report.errors)} input{'s' if len(report.errors) != 1 else ''} not checked"
    return text
