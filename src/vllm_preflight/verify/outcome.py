"""Exit codes, check statuses and the check record: the vocabulary every tier reports in.

One owner for the exit code: `exit_code_for(checks)` (plus the three early exits below).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EXIT_PASS = 0          # every check passed (or nothing is captured)
EXIT_FAILED = 1        # a check failed, or a negative control was not caught
EXIT_CONFIG = 2        # usage error, unreadable input, or a config vLLM itself refuses
EXIT_UNAVAILABLE = 3   # the tier's hardware or package is missing on this machine
EXIT_INTERNAL = 4      # a bug in verify itself (never "hardware missing"): the record says what raised
EXIT_INTERRUPTED = 130  # Ctrl-C / SIGINT (SIGTERM: 143); children are stopped, temp trees removed

PASS, WARN, FAIL, SKIP = "pass", "warn", "fail", "skip"
# Reported for information: a classification or an accounting that cannot fail on its own.
INFO = "info"
# A negative control whose planted fault the mechanism caught: the good outcome for a control.
CAUGHT = "expected-fail-observed"
STATUSES = (PASS, WARN, FAIL, SKIP, CAUGHT, INFO)


class VerifyError(Exception):
    """Ends a verify run early with a documented exit code and one line for the user."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ConfigProblem(VerifyError):
    """The config cannot be verified as given (exit 2): vLLM refuses it, or it is malformed."""

    exit_code = EXIT_CONFIG


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: children were stopped and what the run created was removed.
    A BaseException, as KeyboardInterrupt is, so that no `except Exception` on the way out
    (torch's import, Dynamo's tracing, a probe of the environment) turns it into another error."""

    def __init__(self, signum: int = 2):
        name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, f"signal {signum}")
        self.message = f"interrupted by {name}: child processes stopped, temporary files removed"
        super().__init__(self.message)
        self.exit_code = 128 + signum


class Unavailable(VerifyError):
    """The tier needs hardware or a package this machine lacks (exit 3); says what is missing."""

    exit_code = EXIT_UNAVAILABLE

    def __init__(self, message: str, missing: list[str] | None = None):
        super().__init__(message)
        self.missing = list(missing or [])


@dataclass
class Check:
    """One check's outcome. `id` is stable (V1..V7, A1..A5, G1.., C1.., N1..); `detail` is one line."""

    id: str
    title: str
    status: str
    detail: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    graph: str | None = None  # "piecewise" | "full" | None (not tied to one graph kind)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown check status {self.status!r}")

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "status": self.status, "detail": self.detail,
                "graph": self.graph, "metrics": self.metrics}


def exit_code_for(checks: list[Check]) -> int:
    return EXIT_FAILED if any(c.failed for c in checks) else EXIT_PASS
