"""The -O0..-O3 default tables (OPTIMIZATION_LEVEL_0x, 0.12.0+), as data per release.

Each table maps a PassConfig field to its value at O0..O3, written as a code: "F"/"T"
constants, or the name of the helper vLLM calls (evaluated over the resolver's state by
resolve/vllm_config/steps/level_defaults.py). Data only: nothing here reads a deployment.
"""
from __future__ import annotations

from functools import cache

from vllm_preflight.releases.versions import version_key as _version_key

CUDAGRAPH_BY_LEVEL = {0: "NONE", 1: "PIECEWISE", 2: "FULL_AND_PIECEWISE", 3: "FULL_AND_PIECEWISE"}
KV_CACHE_UPDATE_OPS = ("vllm::unified_kv_cache_update", "vllm::unified_mla_kv_cache_update")

_BASE = {  # 0.12.0
    "eliminate_noops": ("F", "T", "T", "T"),
    "fuse_norm_quant": ("F", "norm", "norm", "norm"),
    "fuse_act_quant": ("F", "act", "act", "act"),
    "fuse_allreduce_rms": ("F", "F", "F", "F"),
    "fuse_attn_quant": ("F", "F", "F", "F"),  # IS_QUANTIZED: a constant False
    "enable_sp": ("F", "F", "F", "F"),  # IS_DENSE: a constant False
    "fuse_gemm_comms": ("F", "F", "F", "F"),
}
_V0_16 = {**_BASE, "fuse_act_padding": ("F", "F", "F", "F")}  # gated on VLLM_ROCM_USE_AITER env
_V0_17 = {**{k: v for k, v in _V0_16.items() if k != "eliminate_noops"},
          "fuse_allreduce_rms": ("F", "F", "allreduce", "allreduce"),
          "fuse_act_padding": ("F", "aiter", "aiter", "aiter"),
          "fuse_rope_kvcache": ("F", "aiter", "aiter", "aiter")}
_V0_19 = {**_V0_17, "fuse_rope_kvcache": ("F", "F", "aiter", "aiter")}
_V0_20 = {**_V0_19, "fuse_mla_dual_rms_norm": ("F", "aiter", "aiter", "aiter")}
# 0.21.0: norm+pad fusion follows the kernel config's IR op priority, which is not "aiter" on CUDA
# (recorded on 0.21.0: fuse_act_padding False at every level)
_V0_21 = {**_V0_20, "fuse_act_padding": ("F", "F", "F", "F")}
_V0_22 = {**_V0_21, "fuse_rope_kvcache_cat_mla": ("F", "F", "mla_cat", "mla_cat")}
_V0_26 = {**_V0_22, "enable_qk_norm_rope_fusion": ("F", "F", "F", "F"),
          "fuse_qk_norm_rope_kvcache": ("F", "F", "F", "F")}
_V0_32 = {k: v for k, v in _V0_26.items() if k not in ("enable_sp", "fuse_gemm_comms")}

TABLES = (("0.12.0", _BASE), ("0.16.0", _V0_16), ("0.17.0", _V0_17), ("0.19.0", _V0_19),
          ("0.20.0", _V0_20), ("0.21.0", _V0_21), ("0.22.0", _V0_22), ("0.26.0", _V0_26), ("0.32.0", _V0_32))


@cache
def table_for(version_key: tuple[int, ...]) -> dict:
    chosen = None
    for since, table in TABLES:
        if _version_key(since) <= version_key:
            chosen = table
    return chosen or {}
