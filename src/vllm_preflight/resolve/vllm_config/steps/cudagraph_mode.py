"""Rules that change cudagraph_mode: compile-mode compatibility, model kinds, eager mode, runners."""
from __future__ import annotations

from vllm_preflight.model import Event
from vllm_preflight.resolve.base import modes
from vllm_preflight.resolve.base.compilation_state import _breakable, _cg
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.vllm_config.model_runner import model_runner, uses_v2_runner


def piecewise_needs_compile_none(state: State) -> None:
    """0.12.0: any CUDA graph mode but NONE needs VLLM_COMPILE, else NONE."""
    if _cg(state) != "NONE" and state.cc["mode"] != "VLLM_COMPILE":
        msg = state.release.piecewise_needs_compile_message.format(
            cg=_cg(state), mode=modes.mode_value(state.cc["mode"]))
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "cudagraph_mode.needs_vllm_compile", msg)


def piecewise_needs_compile_piecewise_only(state: State) -> None:
    """0.13.0-0.29.x: only modes with piecewise graphs need VLLM_COMPILE."""
    if modes.requires_piecewise_compilation(_cg(state)) and state.cc["mode"] != "VLLM_COMPILE" \
            and not _breakable(state):
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
    elif state.has_model and _has_pooler_config(state):
        msg = "Pooling models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
    elif state.has_model and state.model_cfg["is_encoder_decoder"]:
        msg = "Encoder-decoder models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
    else:
        return
    state.log("warning", msg, once=True)
    state.set("cc.cudagraph_mode", "PIECEWISE", "cudagraph_mode.model_override", msg, "warning")


def _has_pooler_config(state: State) -> bool:
    """`model_config.pooler_config is not None` (0.11.1+ config/vllm.py): a pooling model, or a
    `--pooler-config` given for a generative one."""
    return bool(state.model_cfg.get("has_pooler_config", state.model_cfg["is_pooling"]))


def static_graph_overrides_v0_13(state: State) -> None:
    cg = _cg(state)
    if not state.has_model:
        return
    if _has_pooler_config(state) and modes.has_full_cudagraphs(cg):
        msg = "Pooling models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE."
        state.log("warning", msg, once=True)
        state.set("cc.cudagraph_mode", "PIECEWISE", "cudagraph_mode.pooling", msg, "warning")
    elif state.model_cfg["is_encoder_decoder"] and cg not in ("NONE", "FULL_DECODE_ONLY"):
        msg = (f"Encoder-decoder models do not support {cg}. "
               "Overriding cudagraph_mode to FULL_DECODE_ONLY.")
        state.log("info", msg, once=True)
        state.set("cc.cudagraph_mode", "FULL_DECODE_ONLY", "cudagraph_mode.encoder_decoder", msg)
    _kv_connector_piecewise(state)


def _kv_connector_piecewise(state: State) -> None:
    """0.17.0+: a KV connector doing layerwise async transfers needs PIECEWISE graphs (LMCache
    with `use_layerwise`; a MultiConnector when one of its children does)."""
    kv = state.kv_transfer
    if not state.release.rules.get("kv_connector_checked_in_config") or not kv:
        return
    if kv.get("kv_connector") is None or kv.get("kv_role") is None or not modes.has_full_cudagraphs(_cg(state)):
        return

    def layerwise(conf: dict) -> bool:
        extra = conf.get("kv_connector_extra_config") or {}
        if conf.get("kv_connector") == "LMCacheConnectorV1":
            return bool(extra.get("use_layerwise", False))
        if conf.get("kv_connector") == "MultiConnector":
            return any(layerwise(c) for c in extra.get("connectors", []) if isinstance(c, dict))
        return False

    if layerwise(kv):
        msg = (f"KV connector {kv['kv_connector']} requires PIECEWISE CUDA graph mode due to layerwise async "
               f"operations that cannot be captured in CUDA graphs. Overriding cudagraph_mode from "
               f"{_cg(state)} to PIECEWISE.")
        state.log("warning", msg, once=True)
        state.set("cc.cudagraph_mode", "PIECEWISE", "cudagraph_mode.kv_connector", msg, "warning")


def enforce_eager_cudagraphs(state: State) -> None:
    if state.has_model and state.enforce_eager:
        msg = "Cudagraph is disabled under eager mode"
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "enforce_eager.cudagraph_mode", msg)
        state.cc["max_cudagraph_capture_size"] = 0
        state.cc["cudagraph_capture_sizes"] = []


def cudagraph_sizes(state: State) -> None:
    from vllm_preflight.resolve.vllm_config.capture_sizes import set_cudagraph_sizes

    set_cudagraph_sizes(state)


def full_graph_cascade_v0_11_0(state: State) -> None:
    """0.11.0: FULL graphs turn cascade attention off (not a compilation output)."""
    if _cg(state) == "FULL" and state.has_model and not state.model_cfg["disable_cascade_attn"]:
        state.log("info", "CUDAGraphMode.FULL is not supported with cascade attention currently. "
                  "Disabling cascadeattention.")
        state.model_cfg["disable_cascade_attn"] = True


def v2_runner_stock_compile(state: State) -> None:
    """0.32.0+: Model Runner V2 captures no CUDA graphs around stock torch.compile."""
    if not uses_v2_runner(state):
        return
    if state.cc["mode"] != "STOCK_TORCH_COMPILE" or _cg(state) == "NONE":
        return
    msg = (f"CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding "
           f"cudagraph_mode {_cg(state)} to NONE.")
    state.log("info", msg, once=True)
    state.set("cc.cudagraph_mode", "NONE", "v2_runner.stock_compile", msg)
    state.cc["max_cudagraph_capture_size"] = 0
    state.cc["cudagraph_capture_sizes"] = []


def moonep_eager_only(state: State) -> None:
    """0.31.0+: the MoonEP integration runs eagerly."""
    par = state.parallel
    if par["all2all_backend"] == "moonep" and par["data_parallel_size"] > 1 and _cg(state) != "NONE":
        msg = "MoonEP: Disabling CUDA Graphs since the MoonEP integration is currently eager-only."
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "moonep.disable_cudagraphs", msg)


# the end of both switch-off warnings (data parallelism, a method the V1 runner cannot vary)
_DYNAMIC_SD_OFF = ("Disabling num_speculative_tokens_per_batch_size and falling back to static "
                   "num_speculative_tokens={n}.")


def dynamic_spec_decode(state: State) -> None:
    """0.24.0+: dynamic speculative decoding (resolve/speculative/dynamic_sd.py), right after the
    optimization-level defaults: off for DP > 1 (0.26.0+) or an unsupported method on the V1
    runner (0.33.0+); otherwise FULL-capable graph modes become PIECEWISE (0.25.0+: V1 only)."""
    rel = state.release
    if rel.dynamic_sd_piecewise is None or state.dynamic_sd_schedule is None:
        return
    n = state.num_speculative_tokens
    if rel.dynamic_sd_off_for_dp and state.parallel["data_parallel_size"] > 1:
        msg = ("Dynamic speculative decoding is not supported with data parallelism because data-parallel "
               "ranks can select different speculative-token counts, causing DP divergence and deadlocks. "
               + _DYNAMIC_SD_OFF.format(n=n))
        _dynamic_sd_off(state, "dynamic_sd.data_parallel", msg)
        return
    v1 = rel.dynamic_sd_piecewise == "always" or model_runner(state) == "V1"
    method = state.speculative_method_resolved
    if v1 and rel.dynamic_sd_v1_methods is not None and method not in rel.dynamic_sd_v1_methods:
        msg = (f"Dynamic speculative decoding is not supported with the '{method}' speculative method on "
               f"Model Runner V1. " + _DYNAMIC_SD_OFF.format(n=n))
        _dynamic_sd_off(state, "dynamic_sd.v1_method", msg)
        return
    if v1 and modes.has_full_cudagraphs(_cg(state)):
        msg = (f"Dynamic speculative decoding changes the target verification length at runtime. Overriding "
               f"cudagraph_mode from {_cg(state)} to PIECEWISE for reliability.{rel.dynamic_sd_hint}")
        state.log("warning", msg, once=True)
        state.set("cc.cudagraph_mode", "PIECEWISE", "dynamic_sd.piecewise", msg, "warning")


def _dynamic_sd_off(state: State, rule: str, msg: str) -> None:
    state.log("warning", msg, once=True)
    state.events.append(Event("speculative_config.num_speculative_tokens_per_batch_size",
                              [list(e) for e in state.dynamic_sd_schedule or []], None, rule, msg, "warning"))
    state.dynamic_sd_schedule = None


