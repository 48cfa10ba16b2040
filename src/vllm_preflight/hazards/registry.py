"""The hazard rule functions by code; their metadata is in `findings.RULES`."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from vllm_preflight.findings import RULES

HAZARDS: dict[str, Callable] = {}


def hazard(code: str):
    """Register a rule function under a code that `findings.RULES` documents."""
    def register(fn: Callable[..., Iterable]) -> Callable:
        assert code in RULES, f"{code} has no entry in findings.RULES"
        HAZARDS[code] = fn
        return fn
    return register
