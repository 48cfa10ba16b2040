"""A rule's example input (its docs and tests run it): below the rule catalogue and its docs."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    """An input for `explain` and the rule tests: a shell script, checked with `options`."""

    script: str
    options: tuple[str, ...] = ()
    file: str = "serve.sh"  # the example's file name (its format is detected from name and content)
    extra: tuple[tuple[str, str], ...] = ()  # other files beside it: (name, text)
