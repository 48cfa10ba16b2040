"""What differs between two Resolutions of one deployment, in a deployer's words (pure).

Shared by the symbol dependence of load/bind.py and the unknown-model dependence of
model_kind.py: both resolve again under another value and report what changes.
"""
from __future__ import annotations


def flatten(value, prefix: str = "") -> dict[str, object]:
    """{"a": {"b": 1}} -> {"a.b": 1}."""
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): value}


def outcome_differences(base, other, ignore_dests) -> list[str]:
    """What differs between two Resolutions, leaving out fields the symbol feeds directly."""
    if (base.vllm_error is None) != (other.vllm_error is None):
        if other.vllm_error is not None:
            return [f"vLLM would refuse to start ({other.vllm_error.type}: {other.vllm_error.message})"]
        return ["vLLM would start"]
    if base.vllm_error is not None:
        if base.vllm_error.type != other.vllm_error.type:
            return [f"vLLM would refuse with {other.vllm_error.type} instead"]
        return []
    a, b = flatten(base.resolved or {}), flatten(other.resolved or {})
    diffs = []
    for key in sorted(set(a) | set(b)):
        if key.rsplit(".", 1)[-1] in ignore_dests:
            continue
        if a.get(key) != b.get(key):
            diffs.append(f"{key} is {_show(b.get(key))} instead of {_show(a.get(key))}")
    return diffs


def _show(v) -> str:
    if isinstance(v, list) and len(v) > 6:
        return f"[{', '.join(map(str, v[:3]))}, … {len(v)} items]"
    return str(v)
