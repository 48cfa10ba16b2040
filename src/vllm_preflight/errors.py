"""Errors the tool reports to its user (never as tracebacks)."""
from __future__ import annotations

from dataclasses import dataclass

from vllm_preflight.model import Location


class UsageProblem(Exception):
    """The tool was called wrongly (exit 2): unknown version, no input, bad --assume..."""


@dataclass(frozen=True)
class InputError:
    """An input that could not be read: one line naming the file, the place and the problem."""

    source: str
    message: str
    location: Location | None = None

    def render(self) -> str:
        where = self.source
        if self.location and self.location.line is not None:
            where += f":{self.location.line}"
            if self.location.column is not None:
                where += f":{self.location.column}"
        return f"{where}: {self.message}"

    def to_json(self) -> dict:
        return {"source": self.source, "message": self.message,
                "location": self.location.to_json() if self.location else None}


class InputFailure(Exception):
    """Raised by a loader; carries the InputError to report."""

    def __init__(self, error: InputError):
        super().__init__(error.render())
        self.error = error
