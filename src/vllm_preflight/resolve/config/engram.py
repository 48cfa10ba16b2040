"""EngramConfig (vllm/config/engram.py) against the model, and the AuxOutput config's routed-experts
flag, checked by VllmConfig once ParallelConfig is built."""
from __future__ import annotations

from vllm_preflight.releases.versions import version_key
from vllm_preflight.resolve.base.pydantic import lax_bool as _bool
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State

# (first release): VllmConfig refuses an Engram config for a model without n-gram embeddings
# (0.30.0 config/engram.py:19, 0.33.0 :16 and config/vllm.py:1487); the architectures that have them
_ENGRAM = ("0.30.0", {"DeepseekV41ForCausalLM": "engram_layer_ids", "Qwen4ExpForCausalLM": "ple_layer_ids",
                      "Qwen4ExpForConditionalGeneration": "ple_layer_ids"})


# its message by first release (config/engram.py verify_model_config)
_ENGRAM_MESSAGES = (("0.30.0", ("EngramConfig requires a model with supported Engram embeddings, non-empty n-gram "
                                "layer ids, and CUDA.")),
                    ("0.31.0", ("EngramConfig requires a model with supported Engram embeddings, non-empty n-gram "
                                "layer ids, and a CUDA-alike device (CUDA or ROCm).")),
                    ("0.32.0", ("EngramConfig requires a model with supported Engram embeddings and non-empty "
                                "n-gram layer ids.")))


# VllmConfig._verify_aux_output_compatibility (0.31.0 config/vllm.py:1160, 0.33.0 :1187)
_AUX_OUTPUT = "0.31.0"


@reads("engram_config", "aux_output_config", "enable_return_routed_experts")
def after_parallel(state: State, values: dict) -> None:
    """The checks on JSON options that run once ParallelConfig is built: its redundant-experts
    check, then VllmConfig's checks of the Engram and AuxOutput configs."""

    facts = state.model
    key = state.release.key
    if isinstance(values.get("engram_config"), dict) and key >= version_key(_ENGRAM[0]) and facts is not None:
        field = _ENGRAM[1].get(facts.architecture)
        raw = facts.__dict__.get("_raw_config") or {}
        text: dict = raw["text_config"] if isinstance(raw.get("text_config"), dict) else raw
        if field is None or not text.get(field):
            message: str | None = [m for first, m in _ENGRAM_MESSAGES if key >= version_key(first)][-1]
            raise Refusal("ValidationError", f"1 validation error for VllmConfig\n  Value error, {message} "
                                             f"[type=value_error]")
    aux = values.get("aux_output_config")
    flag = bool(values.get("enable_return_routed_experts"))  # EngineArgs copies it in (0.31.0 arg_utils.py:853-854)
    if (isinstance(aux, dict) or flag) and key >= version_key(_AUX_OUTPUT) and facts is not None:
        try:
            enabled = flag or _bool((aux if isinstance(aux, dict) else {}).get("enable_return_routed_experts", False))
        except ValueError:
            return
        # checked late in __post_init__, once the model runner is known (vllm_config/post_init_late.aux_output)
        state.model_cfg["aux_output_enabled"] = enabled
