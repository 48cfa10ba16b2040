"""The -O0..-O3 default tables (OPTIMIZATION_LEVEL_0x), as functions of the state.

Each returns {state path: value}; values apply only to fields still unset (None).
"""
from __future__ import annotations


def _custom_op_enabled(state, op: str) -> bool:
    ops = state.cc["custom_ops"]
    if "all" in ops:
        return f"-{op}" not in ops
    return f"+{op}" in ops


def enable_norm_fusion(state) -> bool:
    return _custom_op_enabled(state, "rms_norm") or _custom_op_enabled(state, "quant_fp8")


def enable_act_fusion(state) -> bool:
    return _custom_op_enabled(state, "silu_and_mul") or _custom_op_enabled(state, "quant_fp8")


CUDAGRAPH_BY_LEVEL = {0: "NONE", 1: "PIECEWISE", 2: "FULL_AND_PIECEWISE", 3: "FULL_AND_PIECEWISE"}


def levels_v0_12(state, level: int) -> dict:
    """0.12.0-0.16.x. IS_QUANTIZED and IS_DENSE are constant False in vLLM's tables."""
    on = level > 0
    return {
        "pass_config.eliminate_noops": on,
        "pass_config.fuse_norm_quant": on and enable_norm_fusion(state),
        "pass_config.fuse_act_quant": on and enable_act_fusion(state),
        "pass_config.fuse_allreduce_rms": False,
        "pass_config.fuse_attn_quant": False,
        "pass_config.enable_sp": False,
        "pass_config.fuse_gemm_comms": False,
        "cc.cudagraph_mode": CUDAGRAPH_BY_LEVEL[level],
        "cc.use_inductor_graph_partition": False,
    }


def enable_allreduce_rms_fusion(state) -> bool:
    """0.17.0+: on CUDA with TP>1, SM90 or SM100 family, flashinfer present, not batch-invariant."""
    if state.env_flag("VLLM_BATCH_INVARIANT"):
        return False
    major = state.gpu.capability[0]
    return state.parallel["tensor_parallel_size"] > 1 and major in (9, 10)


def levels_v0_17(state, level: int) -> dict:
    table = levels_v0_12(state, level)
    del table["pass_config.eliminate_noops"]  # a field default (True) from 0.17.0 on
    table["pass_config.fuse_allreduce_rms"] = level >= 2 and enable_allreduce_rms_fusion(state)
    return table
