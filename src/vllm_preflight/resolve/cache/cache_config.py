"""CacheConfig (vllm/config/cache.py): field bounds (0.11.0: its model validator), the KV-cache dtype
(0.33.0: validated by CacheConfig, no argparse choices), and enable_prefix_caching as
create_engine_config leaves it."""
from __future__ import annotations

from vllm_preflight.resolve.base.field_bounds import bounded_dests, field_errors, raise_field_errors
from vllm_preflight.resolve.base.pydantic import field_error as _field
from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.base.value_facts import value_facts


# ------------------------------------------------------------------ CacheConfig
@reads(*bounded_dests("CacheConfig"))
def cache_config(state: State, values: dict) -> None:
    """CacheConfig, right after the dcp assert in create_engine_config (0.12.0 arg_utils.py:1392,
    0.33.0 :2307). 0.11.0 has no field bounds; its model validator refuses a negative CPU offload
    then a utilization above 1 (0.11.0 config/cache.py:162-172)."""
    if state.release.version == "0.11.0":
        offload = values.get("cpu_offload_gb")
        util = values.get("gpu_memory_utilization")
        if isinstance(offload, (int, float)) and offload < 0:
            raise _pyd("CacheConfig", f"CPU offload space must be non-negative, but got {offload}")
        if isinstance(util, (int, float)) and util > 1.0:
            raise _pyd("CacheConfig", f"GPU memory utilization must be less than 1.0. Got {util}.")
        return
    raise_field_errors("CacheConfig", field_errors(state, "CacheConfig", values))


def prefix_caching(state: State, values: dict) -> bool | None:
    """CacheConfig.enable_prefix_caching as create_engine_config leaves it: the flag, else the
    model's default (ModelConfig.is_prefix_caching_supported; off with prefill context
    parallelism). None where this port does not know the default (pooling models)."""
    given = values.get("enable_prefix_caching")
    if given is not None:
        return bool(given)
    if (values.get("prefill_context_parallel_size") or 1) > 1 and state.release.key >= (0, 12, 0):
        return False
    if state.model_cfg.get("is_pooling"):
        return None
    from vllm_preflight.resolve.vllm_config.model_hooks import _MAMBA_ARCHS, _is_hybrid

    arch = state.model.architecture if state.model is not None else ""
    if arch in _MAMBA_ARCHS:  # attention-free: on only while 0.11.x defaults to "not hybrid"
        return not state.release.key >= (0, 12, 0)
    if _is_hybrid(state, arch):
        # off by default until 0.28.0 (0.11.1 arg_utils.py:1847, 0.12.0-0.25.x
        # is_prefix_caching_supported, 0.26.0-0.27.x "opt-in for now"; 0.28.0 arg_utils.py:2650)
        return state.release.key >= (0, 28, 0)
    return True


@reads("kv_cache_dtype")
def cache_dtype_check(state: State, values: dict) -> None:
    """From 0.33.0 --kv-cache-dtype has no argparse choices; CacheConfig validates it."""
    rec = value_facts(state)
    dtype = values.get("kv_cache_dtype")
    if dtype is None or not rec or not rec.get("kv_cache_dtypes"):
        return
    if dtype not in rec["kv_cache_dtypes"]:
        raise _field("CacheConfig", "cache_dtype", f"Value error, Invalid kv_cache_dtype: {dtype!r}. "
                                                   f"Valid values are: {rec['kv_cache_dtypes']}")
