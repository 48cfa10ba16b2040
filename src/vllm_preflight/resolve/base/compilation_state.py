"""Small readers of the compilation config in the state, shared by the compilation steps and the
platform update (below both)."""
from __future__ import annotations

from vllm_preflight.resolve.base.state import State

MOE_OPS = ("vllm::moe_forward", "vllm::moe_forward_shared")


def _mode_field(state: State) -> str:
    return "cc.level" if state.release.mode_field == "level" else "cc.mode"


def _mode(state: State) -> str | None:
    return state.cc["level"] if state.release.mode_field == "level" else state.cc["mode"]


def _cg(state: State) -> str:
    return state.cc["cudagraph_mode"]


def _is_custom_op_enabled(state: State, op: str) -> bool:
    ops = state.cc["custom_ops"]
    if "all" in ops:
        return f"-{op}" not in ops
    return f"+{op}" in ops


def _breakable(state: State) -> bool:
    return state.release.has_breakable_cudagraph and state.env.get("VLLM_USE_BREAKABLE_CUDAGRAPH") == "1"


def _event(field, before, after, rule, reason, level="info"):
    from vllm_preflight.model import Event

    return Event(field, before, after, rule, reason, level)


def _attention_ops(state: State) -> list[str]:
    return list(state.release.facts["attention_ops"])
