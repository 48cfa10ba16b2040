"""Defaults and overrides of compile mode, custom ops and the -O level tables."""
from __future__ import annotations

from vllm_preflight.resolve.base.compilation_state import _breakable, _cg, _event, _mode, _mode_field
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.vllm_config.steps.level_defaults import levels


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


def breakable_cudagraph(state: State) -> None:
    """0.22.0+: VLLM_USE_BREAKABLE_CUDAGRAPH=1 runs piecewise graphs without torch.compile."""
    if _breakable(state):
        msg = state.release.breakable_message
        if msg:
            state.log("warning", msg, once=True)
        state.set("cc.mode", "NONE", "env.breakable_cudagraph", msg or
                  "VLLM_USE_BREAKABLE_CUDAGRAPH=1: piecewise CUDA graphs without torch.compile "
                  "(compile mode NONE)", "warning" if msg else "info")


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


_LEVEL_RULES = {n: (f"optimization_level.O{n}", f"default of optimization level O{n}") for n in range(4)}


def optimization_level_defaults(state: State) -> None:
    """0.12.0+: fill fields the user left unset from the -O level's table."""
    level = state.optimization_level or 0
    rule, reason = _LEVEL_RULES[level]
    for path, value in levels(state, level):
        state.set(path, value, rule, reason, "debug")


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
