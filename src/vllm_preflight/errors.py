"""Errors the tool reports to its user (never as tracebacks)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_preflight.model import Location


class UsageProblem(Exception):
    """The tool was called wrongly (exit 2): unknown version, no input, bad --assume..."""


@dataclass(frozen=True)
class InputError:
    """An input that could not be read: one line naming the file, the place and the problem."""

    source: str
    message: str
    location: Location | None = None
    internal: bool = False  # a bug of the tool met while checking this input (exit 3), not bad input

    @classmethod
    def from_bug(cls, source: str, exc: BaseException, location: Location | None = None) -> InputError:
        """A failure of the tool itself on one input, reported for that input alone."""
        what = ("the input is too complex (nested too deeply)" if isinstance(exc, RecursionError)
                else "the input is too large to check" if isinstance(exc, MemoryError)
                else f"{type(exc).__name__}: {exc}")
        return cls(source, f"internal error: {what}", location, internal=True)

    def render(self) -> str:
        """`FILE:LINE:COL: message`, exact (terminal output passes it through safe_text.visible)."""
        where = self.source
        if self.location and self.location.line is not None:
            where += f":{self.location.line}"
            if self.location.column is not None:
                where += f":{self.location.column}"
        return f"{where}: {self.message}"

    def to_json(self) -> dict:
        out: dict[str, Any] = {"source": self.source, "message": self.message,
               "location": self.location.to_json() if self.location else None}
        if self.internal:
            out["internal"] = True
        return out


class InputFailure(Exception):
    """Raised by a loader; carries the InputError to report."""

    def __init__(self, error: InputError):
        super().__init__(error.render())
        self.error = error
