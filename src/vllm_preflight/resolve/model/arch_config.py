"""ModelConfig's reading of the architecture: the model_arch_config convertor (0.14.0+, before
max_model_len) and ModelConfig.is_hybrid (the release's registry, then the config's layer types)."""
from __future__ import annotations

from vllm_preflight.releases.architectures import registry_is_hybrid
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.model.max_model_len import transformers_v5

# (first release) of the rules read here
_SINCE = {
    "hybrid_layer_types_check": (0, 11, 1),  # all-attention layer_types: not hybrid (granite-4.0-micro)
    "hybrid_full_attention_layers": (0, 29, 0),  # ... "full_attention" counts as attention too
    "arch_config_convertor": (0, 14, 0),
    "arch_config_heads_default": (0, 18, 0),
}


def _since(state: State, first: tuple) -> bool:
    return state.release.key >= first


def _is_hybrid(state: State, arch: str) -> bool:
    """ModelConfig.is_hybrid: the class is IsHybrid in this release's registry, unless the
    config's layer_types are all attention (0.11.1+: "attention"; 0.29.0+ also "full_attention").
    Transformers 5 (the releases of max_model_len.transformers_v5) renames the legacy layer types
    as it loads the config ("attention" -> "full_attention"), so 0.20.0-0.28.x see a legacy
    all-"attention" list as hybrid (real 0.28.0 does; 0.33.0 does not)."""
    if not registry_is_hybrid(state.release.key, arch):
        return False
    if _since(state, _SINCE["hybrid_layer_types_check"]) and state.model is not None:
        layer_types = state.model.config_value("layer_types")
        if isinstance(layer_types, list) and transformers_v5(state.release.key):
            layer_types = [_LEGACY_LAYER_TYPES.get(t, t) if isinstance(t, str) else t for t in layer_types]
        attention = ("attention", "full_attention") if _since(state, _SINCE["hybrid_full_attention_layers"]) \
            else ("attention",)
        if isinstance(layer_types, list) and all(t in attention for t in layer_types):
            return False
    return True


# Transformers 5's remap of legacy layer type names (configuration_utils._LEGACY_LAYER_TYPE_REMAP)
_LEGACY_LAYER_TYPES = {"mamba": "linear_attention", "attention": "full_attention"}


# model types whose transformers config class has neither num_attention_heads nor a kv-heads
# key, and no convertor of their own (0.14.0 transformers_utils/model_arch_config_convertor.py:383-400)
_NO_HEADS_CONFIGS = {"mamba2": "Mamba2Config"}


_KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num")


@reads(model=("architecture",))
def arch_config_convertor(state: State, values: dict) -> None:
    """ModelConfig.__post_init__ builds its model_arch_config (0.14.0 config/model.py:498):
    0.14.0-0.17.1 count the kv heads falling back to hf_text_config.num_attention_heads read
    as an attribute (model_arch_config_convertor.py:79, 0.16.0-0.17.1 :99), an AttributeError
    for a config without it; 0.18.0 falls back to get_total_num_attention_heads (0 if absent)."""
    if not (_since(state, _SINCE["arch_config_convertor"]) and state.release.key < _SINCE["arch_config_heads_default"]):
        return
    cfg = getattr(state.model, "raw_config", None)
    if not isinstance(cfg, dict):
        return
    text = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg
    cls = _NO_HEADS_CONFIGS.get(str(text.get("model_type") or ""))
    if cls and "num_attention_heads" not in text and not any(k in text for k in _KV_HEAD_KEYS):
        raise Refusal("AttributeError", f"'{cls}' object has no attribute 'num_attention_heads'")
