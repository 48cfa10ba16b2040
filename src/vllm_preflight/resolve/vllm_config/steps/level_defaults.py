"""The -O level defaults (VllmConfig._apply_optimization_level_defaults, 0.12.0+): the release's
table (releases/optimization_levels.py) evaluated over the state.

The helpers are evaluated as they come out on an NVIDIA GPU; those gated on ROCm AITER come out
as None there (vLLM's `rocm_aiter_ops.is_enabled()` returns None off ROCm), which vLLM stores as
is. Values apply only to fields the user left unset (None); fields a release lacks are skipped.
"""
from __future__ import annotations

from vllm_preflight.releases.optimization_levels import CUDAGRAPH_BY_LEVEL, KV_CACHE_UPDATE_OPS, table_for
from vllm_preflight.resolve.base.state import Refusal


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
