"""VllmConfig.__post_init__'s explicit async-scheduling block: PP, the speculative method, a drafter
without padded batches (0.33.0: on the V1 runner only)."""
from __future__ import annotations

from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.vllm_config.model_runner import uses_v2_runner


def _async_spec_refused(state: State) -> str | None:
    """The speculative method async scheduling does not take in this release (rules
    `async_spec_ok`: EAGLE/EAGLE3/MTP aliases and what each release added), or None."""
    ok = state.release.rules.get("async_spec_ok")
    method = state.speculative_method_resolved or state.speculative_method
    if not ok or not method:
        return None
    if method.endswith("_mtp") or method in ok:
        return None
    return method


@reads("async_scheduling", env=("VLLM_USE_V2_MODEL_RUNNER",))
def async_scheduling_checks(state: State, values: dict) -> None:
    """Async scheduling asked for explicitly: hard failures in VllmConfig.__post_init__ (PP, then
    the speculative method; 0.33.0: only on the V1 runner, the method first)."""
    if not values.get("async_scheduling"):
        return
    rule = state.release.rules.get("async_pp")
    pp = state.parallel["pipeline_parallel_size"] > 1
    # a speculative config with disable_padded_drafter_batch (0.11.1+, after the method check)
    padded_off = bool(state.speculative_method) and "no_padded_drafter" in state.model_cfg["v2_features"]
    if rule == "v1_runner":
        if uses_v2_runner(state):  # 0.33.0 config/vllm.py:1652-1680, ahead of the V1 runner's check
            return
        method = _async_spec_refused(state)
        if method:
            raise _pyd("VllmConfig", f"Async scheduling is not supported by the V1 model runner with "
                                     f"{method}-based speculative decoding.")
        if padded_off:  # 0.33.0 config/vllm.py:1663-1664
            raise _pyd("VllmConfig", "Async scheduling is not supported by the V1 model runner with "
                                     "disable_padded_drafter_batch=True.")
        if pp:
            raise _pyd("VllmConfig", "Async scheduling is not supported by the V1 model runner with "
                                     "pipeline parallelism.")
        return
    if pp and rule == "refuse":
        raise _pyd("VllmConfig", "Async scheduling is not yet compatible with pipeline_parallel_size > 1.")
    # (0.31.0-0.32.0 refuse PP later, by validate_v1_runner)
    if _async_spec_refused(state):
        raise _pyd("VllmConfig", state.release.rules["async_spec_message"])
    if padded_off and state.release.rules.get("async_spec_ok"):
        # 0.12.0 config/vllm.py:545-552 (sic: "Fasle"); 0.14.0-0.32.0 :577-581 (0.32.0 :1576-1580)
        raise _pyd("VllmConfig", "Async scheduling is not compatible with disable_padded_drafter_batch=True."
                   if state.release.key >= (0, 14, 0) else
                   "async scheduling for EAGLE/MTP kind of speculative decoding is enabled, but "
                   "disable_padded_drafter_batch=True disable_padded_drafter_batch=True is not supported for "
                   "this situation now. please set disable_padded_drafter_batch=Fasle")
