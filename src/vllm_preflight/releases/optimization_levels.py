"""The -O0..-O3 default tables (OPTIMIZATION_LEVEL_0x, 0.12.0+), as data per release.

Each table maps a PassConfig field to its value at O0..O3, written as a code: "F"/"T"
constants, or the name of the helper vLLM calls. The helpers are evaluated as they come
out on an NVIDIA GPU; those gated on ROCm AITER come out as None there (vLLM's
`rocm_aiter_ops.is_enabled()` returns None off ROCm), which vLLM stores as is. Values
apply only to fields the user left unset (None); fields a release lacks are skipped.
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


def _custom_op_enabled(state, op: str) -> bool:
    ops = state.cc["custom_ops"]
    if "all" in ops:
        return f"-{op}" not in ops
    return f"+{op}" in ops


def _uses_inductor(state) -> bool:
    return state.cc["backend"] == "inductor" and state.cc["mode"] != "NONE"


def enable_norm_fusion(state) -> bool:
    if _custom_op_enabled(state, "rms_norm") or _custom_op_enabled(state, "quant_fp8"):
        return True
    # 0.20.0+: without Inductor, vLLM's C rms_norm kernel is the first IR op priority
    return bool(state.release.norm_fusion_ir_priority) and not _uses_inductor(state)


def enable_act_fusion(state) -> bool:
    return _custom_op_enabled(state, "silu_and_mul") or _custom_op_enabled(state, "quant_fp8") \
        or (state.release.rules.get("act_fusion_nvfp4", False) and _nvfp4_quantized(state))


def _nvfp4_quantized(state) -> bool:
    """ModelConfig.is_nvfp4_quantized: a ModelOpt NVFP4 checkpoint, a compressed-tensors one in an
    nvfp4 format, and (0.32.0+) a ModelOpt mixed-precision one with any NVFP4 layer -- FP4 quant is
    always a custom op, so Inductor cannot fuse it."""
    method = state.model_cfg.get("quantization")
    quant = state.model_cfg.get("quant_config") or {}
    if method == "modelopt_fp4":
        return True
    if method == "modelopt_mixed" and state.release.rules.get("act_fusion_nvfp4_mixed", False):
        layers = quant.get("quantized_layers")
        return isinstance(layers, dict) and any(isinstance(info, dict) and info.get("quant_algo") == "NVFP4"
                                                for info in layers.values())
    if method != "compressed-tensors":
        return False
    fmt = quant.get("format", "")
    if not isinstance(fmt, str):  # `quant_config.get("format", "").lower()` (0.33.0 config/model.py:2319)
        from vllm_preflight.resolve.state import Refusal

        raise Refusal("AttributeError", f"'{'NoneType' if fmt is None else type(fmt).__name__}' object has no "
                                        "attribute 'lower'")
    return "nvfp4" in fmt.lower()


def enable_allreduce_rms_fusion(state) -> bool:
    """CUDA with TP>1 on SM90 or SM100 (flashinfer ships with vLLM); not with DP or PP on
    0.17-0.20 (broken combinations then), not batch-invariant from 0.30."""
    rel = state.release
    if rel.allreduce_fusion_batch_invariant and state.env.get("VLLM_BATCH_INVARIANT", "0") not in ("", "0"):
        return False
    par = state.parallel
    if rel.allreduce_fusion_single_dp_pp and (par["data_parallel_size"] != 1 or par["pipeline_parallel_size"] != 1):
        return False
    major, minor = state.gpu.capability
    return par["tensor_parallel_size"] > 1 and (major == 10 or (major, minor) == (9, 0))


def splitting_ops_contain_kv_cache_update(state) -> bool:
    cc = state.cc
    if not cc["use_inductor_graph_partition"] and cc["splitting_ops"] is None \
            and not state.pass_config.get("fuse_attn_quant"):
        return True  # the KV-cache update ops are about to be added as default split ops
    return cc["splitting_ops"] is not None and all(op in cc["splitting_ops"] for op in KV_CACHE_UPDATE_OPS)


def _value(code: str, state):
    if code == "F":
        return False
    if code == "T":
        return True
    if code == "aiter":
        return None
    if code == "norm":
        return enable_norm_fusion(state)
    if code == "act":
        return enable_act_fusion(state)
    if code == "allreduce":
        return enable_allreduce_rms_fusion(state)
    if code == "mla_cat":
        return bool(state.cc["use_inductor_graph_partition"]) or not splitting_ops_contain_kv_cache_update(state)
    raise KeyError(code)


def levels(state, level: int):
    """(state path, value) of the release's -O table at `level` for the fields still unset,
    in vLLM's order (a helper is evaluated only for a field it would fill)."""
    pc = state.pass_config
    for field, codes in table_for(state.release.key).items():
        if field in pc and pc[field] is None:
            value = _value(codes[level], state)
            if value is not None:
                yield f"pass_config.{field}", value
    if state.cc["cudagraph_mode"] is None:
        yield "cc.cudagraph_mode", CUDAGRAPH_BY_LEVEL[level]
    if state.cc["use_inductor_graph_partition"] is None:
        yield "cc.use_inductor_graph_partition", False
