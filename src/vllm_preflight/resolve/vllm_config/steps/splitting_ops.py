"""set_splitting_ops_for_v1 by release, and the PR #29558 design's variant."""
from __future__ import annotations

from vllm_preflight.resolve.base import modes
from vllm_preflight.resolve.base.compilation_state import MOE_OPS, _attention_ops, _cg
from vllm_preflight.resolve.base.state import State, validation_error
from vllm_preflight.resolve.platform.cuda import _deepep_message


def _empty_splitting_ops_downgrade(state: State) -> None:
    cg = _cg(state)
    _, to_none, to_full = state.release.empty_splitting_messages
    if cg == "PIECEWISE":
        state.log("warning", to_none, once=True)
        state.set("cc.cudagraph_mode", "NONE", "splitting_ops.empty_piecewise", to_none, "warning")
    elif cg == "FULL_AND_PIECEWISE":
        state.log("warning", to_full, once=True)
        state.set("cc.cudagraph_mode", "FULL", "splitting_ops.empty_full_and_piecewise", to_full, "warning")


def _attn_fusion_splitting(state: State) -> None:
    cc = state.cc
    name = state.release.attn_fusion_name
    if cc["splitting_ops"] is None:
        state.set("cc.splitting_ops", [], "splitting_ops.attn_fusion",
                  f"{name} fuses attention with quantization, so attention cannot be split out", "debug")
        if modes.has_piecewise_cudagraphs(_cg(state)):
            msg = (f"{name} is incompatible with piecewise cudagraph when use_inductor_graph_partition is "
                   "off. In this case, splitting_ops will be set to empty list, and cudagraph_mode will be "
                   "set to FULL. Please ensure you are using attention backends that support cudagraph or "
                   "set cudagraph_mode to NONE explicitly if encountering any problems.")
            state.log("warning", msg, once=True)
            state.set("cc.cudagraph_mode", "FULL", "splitting_ops.attn_fusion_full", msg, "warning")
    if cc["splitting_ops"] is not None and all(op in cc["splitting_ops"] for op in _attention_ops(state)):
        raise validation_error(f"attention ops should not be in splitting_ops when {name} is True",
                               "Assertion failed")


def _default_splitting_ops(state: State) -> list[str]:
    return _attention_ops(state) + list(state.release.extra_default_split_ops)


def splitting_ops_v0_11_0(state: State) -> None:
    cc = state.cc
    if cc["level"] != "VLLM_COMPILE":
        return
    msg_partition = ("When use_inductor_graph_partition=True, splitting_ops are ignored and set to an "
                     "empty list. Instead, \"tags=(torch._C.Tag.cudagraph_unsafe, ),\" is used to annotate "
                     "custom ops for graph partition.")
    if cc["splitting_ops"] is None:
        if cc["use_inductor_graph_partition"]:
            state.log("warning", msg_partition, once=True)
            state.set("cc.splitting_ops", [], "splitting_ops.inductor_partition", msg_partition, "warning")
        else:
            state.set("cc.splitting_ops", _attention_ops(state), "splitting_ops.default",
                      "default splitting ops: the attention ops", "debug")
    elif len(cc["splitting_ops"]) == 0:
        state.log("warning", "Using piecewise compilation with empty splitting_ops and "
                  f"use_inductor_graph_partition={cc['use_inductor_graph_partition']}.", once=True)
        if _cg(state) == "PIECEWISE" and not cc["use_inductor_graph_partition"]:
            msg = ("When compilation level is piecewise with empty splitting_ops, PIECEWISE cudagraph_mode "
                   "will be treated as FULL cudagraph_mode. Please ensure you are using attention backends "
                   "that support cudagraph or set cudagraph_mode to NONE explicitly if encountering any "
                   "problems.")
            state.log("warning", msg, once=True)
            state.set("cc.cudagraph_mode", "FULL", "splitting_ops.empty_piecewise", msg, "warning")
        state.cc["splitting_ops"] = []
    elif cc["use_inductor_graph_partition"]:
        state.log("warning", msg_partition, once=True)
        state.set("cc.splitting_ops", [], "splitting_ops.inductor_partition", msg_partition, "warning")


def splitting_ops_v0_11_1(state: State) -> None:
    """0.11.1-0.12.0: set_splitting_ops_for_v1 (called only under VLLM_COMPILE on 0.11.x)."""
    cc = state.cc
    if state.cc["mode"] != "VLLM_COMPILE":
        if state.release.splitting_ops_empty_without_compile and cc["splitting_ops"] is None:
            state.set("cc.splitting_ops", [], "splitting_ops.no_vllm_compile",
                      "compile mode is not VLLM_COMPILE: no graph to split", "debug")
        return
    if cc["use_inductor_graph_partition"]:
        if cc["splitting_ops"] is None:
            state.set("cc.splitting_ops", _attention_ops(state), "splitting_ops.default",
                      "default splitting ops: the attention ops (inductor graph partition)", "debug")
        return
    if state.pass_config.get(state.release.attn_fusion_name):
        _attn_fusion_splitting(state)
        return
    if cc["splitting_ops"] is None:
        state.set("cc.splitting_ops", _default_splitting_ops(state), "splitting_ops.default",
                  "default splitting ops: the attention ops", "debug")
    elif len(cc["splitting_ops"]) == 0:
        state.log("warning", state.release.empty_splitting_messages[0], once=True)
        _empty_splitting_ops_downgrade(state)


def splitting_ops_v0_13(state: State) -> None:
    """0.13.0+: set_splitting_ops_for_v1(all2all_backend, dp) — inductor partition shares the
    common path, and the DeepEP-HT rule lives here (still: CUDA graphs off)."""
    cc, rel = state.cc, state.release
    if cc["mode"] != "VLLM_COMPILE":
        if cc["splitting_ops"] is None:
            state.set("cc.splitting_ops", [], "splitting_ops.no_vllm_compile",
                      "compile mode is not VLLM_COMPILE: no graph to split", "debug")
        return  # the DeepEP-HT rule below is not reached without VLLM_COMPILE
    partition = cc["use_inductor_graph_partition"]
    if state.pass_config.get("fuse_attn_quant") and not partition:
        _attn_fusion_splitting(state)
    elif cc["splitting_ops"] is None:
        ops = _attention_ops(state)
        if not partition:
            for name in rel.rope_kvcache_fusion_guards:
                if state.pass_config.get(name):
                    msg = rel.rope_kvcache_messages[name]
                    state.log("warning", msg, once=True)
                    state.set(f"pass_config.{name}", False, "splitting_ops.rope_kvcache_fusion_off", msg,
                              "warning")
            ops += list(rel.extra_default_split_ops)
        state.set("cc.splitting_ops", ops, "splitting_ops.default",
                  "default splitting ops: the attention ops" + (" and the KV-cache update ops"
                                                                if rel.extra_default_split_ops and not partition
                                                                else ""), "debug")
    elif len(cc["splitting_ops"]) == 0:
        if _cg(state) in ("PIECEWISE", "FULL_AND_PIECEWISE"):
            state.log("warning", rel.empty_splitting_messages[0], once=True)
        _empty_splitting_ops_downgrade(state)
    pc = state.pass_config
    if rel.sp_full_graph_rule and not partition and (pc.get("enable_sp") or pc.get("fuse_gemm_comms")) \
            and cc["splitting_ops"]:
        msg = ("Sequence parallelism requires full-graph compilation when use_inductor_graph_partition is "
               "off. Setting splitting_ops to an empty list to preserve SP and async TP.")
        state.log("warning", msg, once=True)
        state.set("cc.splitting_ops", [], "sp.full_graph", msg, "warning")
        if modes.has_piecewise_cudagraphs(_cg(state)):
            msg = ("Sequence parallelism is incompatible with piecewise cudagraph when "
                   "use_inductor_graph_partition is off. Setting cudagraph_mode to FULL.")
            state.log("warning", msg, once=True)
            state.set("cc.cudagraph_mode", "FULL", "sp.full_graph_cudagraph", msg, "warning")
    par = state.parallel
    dp = par["data_parallel_size"]
    if rel.deepep_effective_dp and state.has_model and not state.model_cfg["is_moe"]:
        dp = 1  # 0.14.0+: dense models keep their graphs
    if par["all2all_backend"] == "deepep_high_throughput" and dp > 1 and _cg(state) != "NONE":
        msg = _deepep_message(state)
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "deepep_ht.disable_cudagraphs", msg)


def splitting_ops_pr29558(state: State) -> None:
    """The PR #29558 design (seed, 7 of 11 commits) on 0.12.0: MoE ops split out of the
    piecewise graphs for DeepEP HT with DP>1, instead of turning CUDA graphs off."""
    cc = state.cc
    if cc["mode"] != "VLLM_COMPILE":
        if cc["splitting_ops"] is None:
            state.set("cc.splitting_ops", [], "splitting_ops.no_vllm_compile",
                      "compile mode is not VLLM_COMPILE: no graph to split", "debug")
        return
    fusion = state.pass_config.get("fuse_attn_quant")
    partition = cc["use_inductor_graph_partition"]
    added_default = False
    if fusion and not partition:
        _attn_fusion_splitting(state)
    elif partition:
        if cc["splitting_ops"] is None:
            added_default = True
            state.set("cc.splitting_ops", _attention_ops(state), "splitting_ops.default",
                      "default splitting ops: the attention ops (inductor graph partition)", "debug")
    elif cc["splitting_ops"] is None:
        state.set("cc.splitting_ops", _attention_ops(state), "splitting_ops.default",
                  "default splitting ops: the attention ops", "debug")
        added_default = True
    elif len(cc["splitting_ops"]) == 0:
        state.log("warning", "Using piecewise compilation with empty splitting_ops", once=True)
        _empty_splitting_ops_downgrade(state)
    par = state.parallel
    need = (par["all2all_backend"] == "deepep_high_throughput" and par["data_parallel_size"] > 1
            and not (fusion and not partition))
    if need and cc["splitting_ops"] is not None:
        if added_default:
            ops = list(cc["splitting_ops"]) + [op for op in MOE_OPS if op not in cc["splitting_ops"]]
            state.set("cc.splitting_ops", ops, "pr29558.split_moe_ops",
                      "PR #29558 design: DeepEP high-throughput with data parallel > 1 keeps CUDA graphs "
                      "and splits the MoE ops (vllm::moe_forward, vllm::moe_forward_shared) out of the "
                      "piecewise graphs, so the all2all runs eagerly between captured pieces")
        if not any(op in cc["splitting_ops"] for op in MOE_OPS):
            raise validation_error(
                "DeepEP high throughput backend with data_parallel_size > 1 requires splitting MoE ops "
                "from cudagraphs. Please ensure 'vllm::moe_forward' or 'vllm::moe_forward_shared' are "
                "present in CompilationConfig.splitting_ops.")
