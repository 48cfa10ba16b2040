"""Sequence parallelism (and async TP) and what it requires."""
from __future__ import annotations

from vllm_preflight.resolve.base import modes
from vllm_preflight.resolve.base.compilation_state import _event
from vllm_preflight.resolve.base.state import Refusal, State


def sequence_parallel_custom_op(state: State) -> None:
    """Async TP is built on sequence parallelism. SP then wants the rms_norm custom op
    (0.11.0, 0.12-0.16), is turned off at TP=1 (0.16+) and for models too small for its
    token threshold (0.17+)."""
    rel, pc = state.release, state.pass_config
    if pc.get(rel.async_tp_name):
        state.set(f"pass_config.{rel.sp_name}", True, "sp.async_tp_needs_sp",
                  "async TP is built on top of sequence parallelism", "debug")
    if not pc.get(rel.sp_name):
        return
    tp = state.parallel["tensor_parallel_size"]
    if rel.sp_tp1_disable and tp == 1:
        msg = "Sequence Parallelism requires TP>1, disabling"
        state.log("warning", msg)
        state.set("pass_config.enable_sp", False, "sp.needs_tp", msg, "warning")
        state.set("pass_config.fuse_gemm_comms", False, "sp.needs_tp", msg, "warning")
        return
    if rel.sp_threshold and pc.get("sp_min_token_num") is None:
        threshold = _sp_threshold(state)
        if threshold is None:
            msg = ("Model hidden_size too small for the SP threshold heuristic, disabling. To force SP, "
                   "set pass_config.sp_min_token_num manually.")
            state.log("warning", msg)
            state.set("pass_config.enable_sp", False, "sp.threshold", msg, "warning")
            state.set("pass_config.fuse_gemm_comms", False, "sp.threshold", msg, "warning")
            return
        state.set("pass_config.sp_min_token_num", threshold, "sp.threshold",
                  "token threshold for sequence parallelism from hidden size and TP", "debug")
    if rel.sp_rms_norm is None:
        return
    if rel.sp_rms_norm == "unless_disabled" and "-rms_norm" in state.cc["custom_ops"]:
        state.log("warning", "RMS norm force disabled, sequence parallelism might break")
        return
    before = list(state.cc["custom_ops"])
    state.cc["custom_ops"].append("+rms_norm")
    state.events.append(_event("compilation_config.custom_ops", before, list(state.cc["custom_ops"]),
                               "sp.rms_norm_custom_op", "sequence parallelism needs the rms_norm custom op",
                               "debug"))


def _sp_threshold(state: State) -> int | None:
    """SP pays off only for large hidden sizes: vLLM has thresholds for SM90 only."""
    if state.gpu.capability != (9, 0) or state.model is None:
        return None
    hidden = state.model.hidden_size
    if hidden < 8192:
        return None
    return int(8 * 1024 * 1024 * state.parallel["tensor_parallel_size"] // (hidden * 2))


def sequence_parallel_followup(state: State) -> None:
    """0.11.1-0.31.x: with SP, rms_norm must be a custom op when the graph is split or PP>1."""
    if not state.release.sp_followup or not state.pass_config.get(state.release.sp_name):
        return
    if state.release.key >= (0, 12) and state.cc["mode"] != "VLLM_COMPILE":
        state.log("warning", f"Sequence parallelism is enabled, but running in wrong vllm compile mode: "
                  f"{modes.mode_value(state.cc['mode'])}.")
    if state.cc["splitting_ops"] is None and not state.cc["use_inductor_graph_partition"]:
        # 0.11.x leaves splitting_ops None without VLLM_COMPILE, and vLLM takes its len()
        raise Refusal("TypeError", "object of type 'NoneType' has no len()")
    ops = state.cc["splitting_ops"] or []
    is_fullgraph = bool(state.cc["use_inductor_graph_partition"]) or len(ops) == 0
    if state.release.sp_followup == "pp_only":
        is_fullgraph = True  # 0.20.0+: SP forces a full graph; only PP needs the custom op
    if state.parallel["pipeline_parallel_size"] > 1 or not is_fullgraph:
        if "-rms_norm" not in state.cc["custom_ops"]:
            if "+rms_norm" not in state.cc["custom_ops"] or state.release.sp_followup_appends_twice:
                before = list(state.cc["custom_ops"])
                state.cc["custom_ops"].append("+rms_norm")
                state.events.append(_event("compilation_config.custom_ops", before,
                                           list(state.cc["custom_ops"]), "sp.rms_norm_custom_op",
                                           "sequence parallelism with a split graph needs the rms_norm "
                                           "custom op", "debug"))
        else:
            regime = "Dynamo partition" if not is_fullgraph else "pipeline parallelism"
            state.log("warning", "Sequence parallelism not supported withnative rms_norm when using "
                      f"{regime}, this will likely lead to an error.", once=True)
