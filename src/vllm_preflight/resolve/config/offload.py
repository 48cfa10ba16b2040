"""OffloadConfig (vllm/config/offload.py): its nested UVA and prefetch configs' bounds and its model
validator (0.17.0+)."""
from __future__ import annotations

from vllm_preflight.resolve.base.field_bounds import bounded_dests, field_errors, raise_field_errors
from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State

_OFFLOAD_VALIDATOR = (0, 17, 0)  # OffloadConfig.validate_offload_config (0.17.0 config/offload.py)


@reads("offload_backend", *bounded_dests("UVAOffloadConfig", "PrefetchOffloadConfig"))
def offload(state: State, values: dict) -> None:
    """OffloadConfig's nested UVA and prefetch configs (their bounds), then its model validator
    (0.33.0 config/offload.py:97-113): prefetch offloading (the backend or a group size) needs
    offload_num_in_group <= offload_group_size and a prefetch step of at least 1."""
    for cls in ("UVAOffloadConfig", "PrefetchOffloadConfig"):
        raise_field_errors(cls, field_errors(state, cls, values))
    if state.release.key < _OFFLOAD_VALIDATOR:
        return
    group = values.get("offload_group_size") or 0
    in_group = values.get("offload_num_in_group", 1)
    step = values.get("offload_prefetch_step", 1)
    if values.get("offload_backend") == "prefetch" or group > 0:
        if in_group > group:
            raise _pyd("OffloadConfig", f"offload_num_in_group ({in_group}) must be <= offload_group_size ({group})")
        if step < 1:
            raise _pyd("OffloadConfig", f"offload_prefetch_step ({step}) must be >= 1 when prefetch offloading is "
                                        "enabled (offload_group_size > 0)")
