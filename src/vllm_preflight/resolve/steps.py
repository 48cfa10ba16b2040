"""The steps of `VllmConfig.__post_init__` that decide compilation and CUDA-graph settings.

Each step is a small function of the State; the release's `pipeline` (data) lists which
steps run and in which order, and its rule knobs choose between step variants. Every
change goes through `State.set` with a stable rule id and vLLM's own log message.
"""
from __future__ import annotations

from vllm_preflight.resolve import modes
from vllm_preflight.resolve.state import Refusal, State, validation_error

MOE_OPS = ("vllm::moe_forward", "vllm::moe_forward_shared")


def _mode_field(state: State) -> str:
    return "cc.level" if state.release.mode_field == "level" else "cc.mode"


def _mode(state: State) -> str | None:
    return state.cc["level"] if state.release.mode_field == "level" else state.cc["mode"]


def _cg(state: State) -> str:
    return state.cc["cudagraph_mode"]


def _is_custom_op_enabled(state: State, op: str) -> bool:
    ops = state.cc["custom_ops"]
    if "all" in ops:
        return f"-{op}" not in ops
    return f"+{op}" in ops


# ------------------------------------------------------------- defaults
def enforce_eager_level(state: State) -> None:
    """0.12.0-0.16.x: enforce_eager rewrites the optimization level to O0."""
    if state.optimization_level and state.optimization_level > 0 and state.enforce_eager:
        msg = "Enforce eager set, overriding optimization level to -O0"
        state.log("warning", msg)
        state.set("optimization_level", 0, "enforce_eager.optimization_level", msg, "warning")


def enforce_eager_direct(state: State) -> None:
    """0.17.0+: enforce_eager turns compilation and CUDA graphs off directly."""
    if state.enforce_eager:
        msg = state.release.enforce_eager_message
        state.log("warning", msg, once=True)
        state.set("cc.mode", "NONE", "enforce_eager.mode", msg, "warning")
        state.set("cc.cudagraph_mode", "NONE", "enforce_eager.cudagraph_mode", msg, "warning")


def torch_compile_disable(state: State) -> None:
    """0.20.0+: TORCH_COMPILE_DISABLE=1 means compile mode NONE."""
    if state.env.get("TORCH_COMPILE_DISABLE") == "1":
        msg = ("TORCH_COMPILE_DISABLE is set, disabling torch.compile. This is equivalent to setting "
               "-cc.mode=none")
        state.log("warning", msg)
        state.set("cc.mode", "NONE", "env.torch_compile_disable", msg, "warning")


def inductor_disabled_warning(state: State) -> None:
    mode = state.cc["mode"]
    if state.release.inductor_warning_skips_breakable and _breakable(state):
        return
    if state.cc["backend"] == "eager" or (mode is not None and mode != "VLLM_COMPILE"):
        state.log("warning", state.release.inductor_disabled_message, once=True)


def blocked_fp8_custom_op(state: State) -> None:
    """Block-quantized FP8 weights: vLLM enables the quant_fp8 custom op (faster on H100)."""
    if state.model is not None and state.model.blocked_fp8 and "-quant_fp8" not in state.cc["custom_ops"]:
        before = list(state.cc["custom_ops"])
        state.cc["custom_ops"].append("+quant_fp8")
        state.events.append(_event("compilation_config.custom_ops", before, list(state.cc["custom_ops"]),
                                   "quant.blocked_fp8_custom_op",
                                   "The model's FP8 weights are block-quantized: vLLM enables the "
                                   "quant_fp8 custom op (its CUDA kernel is faster on H100)"))


def default_mode_from_level(state: State) -> None:
    """0.12.0+: compile mode defaults from the optimization level."""
    if state.cc["mode"] is None:
        value = "VLLM_COMPILE" if (state.optimization_level or 0) > 0 else "NONE"
        state.set("cc.mode", value, "defaults.mode",
                  f"mode not set: -O{state.optimization_level} gives {value}", "debug")


def default_mode_from_model(state: State) -> None:
    """0.11.x: compile mode (level) defaults to VLLM_COMPILE (3) with a model, unless eager."""
    field = _mode_field(state)
    if _mode(state) is None:
        value = "VLLM_COMPILE" if (state.has_model and not state.enforce_eager) else "NONE"
        if state.release.mode_field == "level" and state.env.get("VLLM_USE_V1", "1") == "0":
            value = "NONE"
        state.set(field, value, "defaults.mode",
                  f"mode not set: {'a model without enforce_eager' if value != 'NONE' else 'enforce_eager'}"
                  f" gives {value}", "debug")


def default_custom_ops(state: State) -> None:
    ops = state.cc["custom_ops"]
    if "all" not in ops and "none" not in ops:
        mode = _mode(state)
        value = "none" if state.cc["backend"] == "inductor" and mode != "NONE" else "all"
        before = list(ops)
        ops.append(value)
        state.events.append(_event("compilation_config.custom_ops", before, list(ops), "defaults.custom_ops",
                                   f"custom_ops default: '{value}' (Inductor generates the kernels)"
                                   if value == "none" else "custom_ops default: 'all' (no Inductor)", "debug"))


def optimization_level_defaults(state: State) -> None:
    """0.12.0+: fill fields the user left unset from the -O level's table."""
    level = state.optimization_level or 0
    rule, reason = _LEVEL_RULES[level]
    for path, value in state.release.optimization_level_defaults(state, level):
        state.set(path, value, rule, reason, "debug")


_LEVEL_RULES = {n: (f"optimization_level.O{n}", f"default of optimization level O{n}") for n in range(4)}


def default_cudagraph_mode_v0_11_0(state: State) -> None:
    """0.11.0: FULL_AND_PIECEWISE under level 3 (PIECEWISE for pooling/encoder-decoder)."""
    if _cg(state) is None:
        if state.cc["level"] == "VLLM_COMPILE":
            special = state.has_model and (state.model_cfg["is_pooling"] or state.model_cfg["is_encoder_decoder"])
            value = "PIECEWISE" if special else "FULL_AND_PIECEWISE"
        else:
            value = "NONE"
        state.set("cc.cudagraph_mode", value, "defaults.cudagraph_mode",
                  f"cudagraph_mode not set: {value} for compilation level {state.cc['level']}", "debug")


def default_cudagraph_mode_v0_11_1(state: State) -> None:
    """0.11.1-0.11.2: FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE."""
    if _cg(state) is None:
        value = "FULL_AND_PIECEWISE" if state.cc["mode"] == "VLLM_COMPILE" else "NONE"
        state.set("cc.cudagraph_mode", value, "defaults.cudagraph_mode",
                  f"cudagraph_mode not set: {value} for compilation mode {state.cc['mode']}", "debug")


def piecewise_needs_compile_none(state: State) -> None:
    """0.12.0: any CUDA graph mode but NONE needs VLLM_COMPILE, else NONE."""
    if _cg(state) != "NONE" and state.cc["mode"] != "VLLM_COMPILE":
        msg = state.release.piecewise_needs_compile_message.format(
            cg=_cg(state), mode=modes.mode_value(state.cc["mode"]))
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "cudagraph_mode.needs_vllm_compile", msg)


def normalize_piecewise_cudagraph_mode(state: State) -> None:
    """0.30.0+: without VLLM_COMPILE, drop the piecewise half (FULL_AND_PIECEWISE keeps
    full decode graphs as FULL_DECODE_ONLY); sizes are cleared when nothing is left."""
    cg = _cg(state)
    if modes.requires_piecewise_compilation(cg) and state.cc["mode"] != "VLLM_COMPILE" and not _breakable(state):
        fallback = modes.without_piecewise(cg)
        msg = (f"Cudagraph mode {cg} is not compatible with compilation mode "
               f"{modes.mode_value(state.cc['mode'])}. Overriding to {fallback}.")
        state.log("info", msg, once=True)
        state.set("cc.cudagraph_mode", fallback, "cudagraph_mode.needs_vllm_compile", msg)
        if fallback == "NONE":
            state.cc["max_cudagraph_capture_size"] = 0
            state.cc["cudagraph_capture_sizes"] = []


def breakable_cudagraph(state: State) -> None:
    """0.22.0+: VLLM_USE_BREAKABLE_CUDAGRAPH=1 runs piecewise graphs without torch.compile."""
    if _breakable(state):
        msg = state.release.breakable_message
        if msg:
            state.log("warning", msg, once=True)
        state.set("cc.mode", "NONE", "env.breakable_cudagraph", msg or
                  "VLLM_USE_BREAKABLE_CUDAGRAPH=1: piecewise CUDA graphs without torch.compile "
                  "(compile mode NONE)", "warning" if msg else "info")


def v2_runner_stock_compile(state: State) -> None:
    """0.32.0+: Model Runner V2 captures no CUDA graphs around stock torch.compile."""
    if not _uses_v2_runner(state):
        return
    if state.cc["mode"] != "STOCK_TORCH_COMPILE" or _cg(state) == "NONE":
        return
    msg = (f"CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding "
           f"cudagraph_mode {_cg(state)} to NONE.")
    state.log("info", msg, once=True)
    state.set("cc.cudagraph_mode", "NONE", "v2_runner.stock_compile", msg)
    state.cc["max_cudagraph_capture_size"] = 0
    state.cc["cudagraph_capture_sizes"] = []


def _uses_v2_runner(state: State) -> bool:
    value = state.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if value is not None and value.strip() != "":
        return value.strip().lower() in ("1", "true")
    if not state.release.v2_runner_default:
        return False
    # the V2 runner does not take micro-batching (DBO) yet
    return not state.parallel.get("enable_dbo")


def moonep_eager_only(state: State) -> None:
    """0.31.0+: the MoonEP integration runs eagerly."""
    par = state.parallel
    if par["all2all_backend"] == "moonep" and par["data_parallel_size"] > 1 and _cg(state) != "NONE":
        msg = "MoonEP: Disabling CUDA Graphs since the MoonEP integration is currently eager-only."
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "moonep.disable_cudagraphs", msg)


def piecewise_needs_compile_piecewise_only(state: State) -> None:
    """0.13.0-0.29.x: only modes with piecewise graphs need VLLM_COMPILE."""
    if modes.requires_piecewise_compilation(_cg(state)) and state.cc["mode"] != "VLLM_COMPILE" \
            and not _breakable(state):
        msg = state.release.piecewise_needs_compile_message.format(
            cg=_cg(state), mode=modes.mode_value(state.cc["mode"]))
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "cudagraph_mode.needs_vllm_compile", msg)


def _breakable(state: State) -> bool:
    return state.release.has_breakable_cudagraph and state.env.get("VLLM_USE_BREAKABLE_CUDAGRAPH") == "1"


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


def full_graph_cascade_v0_11_0(state: State) -> None:
    """0.11.0: FULL graphs turn cascade attention off (not a compilation output)."""
    if _cg(state) == "FULL" and state.has_model and not state.model_cfg["disable_cascade_attn"]:
        state.log("info", "CUDAGraphMode.FULL is not supported with cascade attention currently. "
                  "Disabling cascadeattention.")
        state.model_cfg["disable_cascade_attn"] = True


def static_graph_overrides_v0_12(state: State) -> None:
    cg = _cg(state)
    if not modes.has_full_cudagraphs(cg):
        return
    par = state.parallel
    if par["decode_context_parallel_size"] > 1:
        msg = ("Decode context parallel (DCP) is enabled, which is incompatible with full CUDA graphs. "
               "Overriding cudagraph_mode to PIECEWISE.")
    elif par.get("prefill_context_parallel_size", 1) > 1 and state.release.pcp_override:
        msg = ("Prefill context parallel (PCP) is enabled, which is incompatible with full CUDA graphs. "
               "Overriding cudagraph_mode to PIECEWISE.")
    elif state.has_model and state.model_cfg["is_pooling"]:
        msg = "Pooling models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
    elif state.has_model and state.model_cfg["is_encoder_decoder"]:
        msg = "Encoder-decoder models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
    else:
        return
    state.log("warning", msg, once=True)
    state.set("cc.cudagraph_mode", "PIECEWISE", "cudagraph_mode.model_override", msg, "warning")


def static_graph_overrides_v0_13(state: State) -> None:
    cg = _cg(state)
    if not state.has_model:
        return
    if state.model_cfg["is_pooling"] and modes.has_full_cudagraphs(cg):
        msg = "Pooling models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
        state.log("warning", msg, once=True)
        state.set("cc.cudagraph_mode", "PIECEWISE", "cudagraph_mode.pooling", msg, "warning")
    elif state.model_cfg["is_encoder_decoder"] and cg not in ("NONE", "FULL_DECODE_ONLY"):
        msg = (f"Encoder-decoder models do not support {cg}. "
               "Overriding cudagraph_mode to FULL_DECODE_ONLY.")
        state.log("info", msg, once=True)
        state.set("cc.cudagraph_mode", "FULL_DECODE_ONLY", "cudagraph_mode.encoder_decoder", msg)


def enforce_eager_cudagraphs(state: State) -> None:
    if state.has_model and state.enforce_eager:
        msg = "Cudagraph is disabled under eager mode"
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "enforce_eager.cudagraph_mode", msg)
        state.cc["max_cudagraph_capture_size"] = 0
        state.cc["cudagraph_capture_sizes"] = []


def cudagraph_sizes(state: State) -> None:
    from vllm_preflight.resolve.capture_sizes import set_cudagraph_sizes

    set_cudagraph_sizes(state)


# ------------------------------------------------------------- DeepEP HT
def _deepep_message(state: State) -> str:
    return state.release.deepep_message


def deepep_ht_platform(state: State) -> None:
    """0.11.x-0.12.0: the CUDA platform turns CUDA graphs off for DeepEP HT with DP>1."""
    par = state.parallel
    if par["all2all_backend"] == "deepep_high_throughput" and par["data_parallel_size"] > 1 \
            and _cg(state) != "NONE":
        msg = _deepep_message(state)
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "deepep_ht.disable_cudagraphs", msg)


# ------------------------------------------------------------- splitting ops
def _attention_ops(state: State) -> list[str]:
    return list(state.release.facts["attention_ops"])


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


# ------------------------------------------------------------- final checks
def final_checks(state: State) -> None:
    cg = _cg(state)
    if modes.has_full_cudagraphs(cg) and state.has_model and not state.model_cfg["disable_cascade_attn"] \
            and not modes.has_piecewise_cudagraphs(cg) and state.release.cascade_message:
        state.log("warning", state.release.cascade_message, once=True)
    if modes.requires_piecewise_compilation(cg) and _mode(state) != "VLLM_COMPILE" and not _breakable(state):
        raise validation_error(state.release.piecewise_assert_message.format(cg=cg), "Assertion failed")


def dbo_backend_check(state: State) -> None:
    if not state.parallel["enable_dbo"]:
        return
    backend = state.parallel["all2all_backend"]
    allowed = state.release.dbo_backends
    if backend not in allowed:
        raise validation_error(state.release.dbo_message.format(backend=backend), "Assertion failed")


def log_enabled_passes(state: State) -> None:
    """0.18.0+: vLLM lists the custom fusion passes that ended up on."""
    names = []
    for field in state.release.facts["pass_config_order"]:
        if state.pass_config.get(field):
            for prefix in ("fuse_", "enable_"):
                if field.startswith(prefix):
                    names.append(field[len(prefix):])
    if names:
        state.log("info", "Enabled custom fusions: " + ", ".join(names), once=True)


def _event(field, before, after, rule, reason, level="info"):
    from vllm_preflight.model import Event

    return Event(field, before, after, rule, reason, level)


STEPS = {name: fn for name, fn in globals().items() if callable(fn) and not name.startswith("_")
         and fn.__module__ == __name__ and name not in ("Refusal", "State", "validation_error")}


def run(state: State) -> None:
    for name in state.release.pipeline:
        STEPS[name](state)


__all__ = ["STEPS", "run", "MOE_OPS", "Refusal"]
