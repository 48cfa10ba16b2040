"""The Mistral format's params.json as the config vLLM builds from it (MistralConfigParser and
transformers_utils/configs/mistral.py adapt_config_dict, read in 0.33.0): Mistral's key names
turned into Hugging Face ones, the architecture from its MoE / MLA / vision / audio sections,
its quantization and YaRN sections, then config.json's keys for whatever params.json leaves out.

Kept to what the resolver reads; an adaptation vLLM would refuse (an unknown quantization, a
Large-3 config without its llama_4_scaling section) gives None, and the facts are not read.
"""
from __future__ import annotations

from typing import Any

_RENAMED = {"dim": "hidden_size", "norm_eps": "rms_norm_eps", "n_kv_heads": "num_key_value_heads",
            "n_layers": "num_hidden_layers", "n_heads": "num_attention_heads", "hidden_dim": "intermediate_size"}
_MOE_KEYS = {"route_every_n": "moe_layer_freq", "first_k_dense_replace": "first_k_dense_replace",
             "num_experts_per_tok": "num_experts_per_tok", "num_experts": "n_routed_experts",
             "expert_hidden_dim": "moe_intermediate_size", "routed_scale": "routed_scaling_factor",
             "num_shared_experts": "n_shared_experts", "num_expert_groups": "n_group",
             "num_expert_groups_per_tok": "topk_group"}
DEFAULT_MAX_POSITIONS = 128_000  # _maybe_retrieve_max_pos_from_hf's default


def config_of_params(params: dict, hf_config: dict | None) -> dict | None:
    """The HF-style config of a params.json (None: vLLM would refuse to adapt it)."""
    cfg: dict[str, Any] = dict(params)
    defaults = hf_config or {}
    if cfg.get("max_position_embeddings") is None:
        cfg["max_position_embeddings"] = defaults.get("max_position_embeddings") or DEFAULT_MAX_POSITIONS
    for old, new in _RENAMED.items():
        if old in cfg:
            cfg[new] = cfg.pop(old)
    for new, (old, default) in {"model_type": ("model_type", "transformer"), "hidden_act": ("activation", "silu"),
                                "tie_word_embeddings": ("tied_embeddings", False),
                                "max_seq_len": ("max_seq_len", cfg.get("max_position_embeddings", DEFAULT_MAX_POSITIONS)),
                                "max_position_embeddings": ("max_position_embeddings", DEFAULT_MAX_POSITIONS),
                                "dtype": ("dtype", cfg.get("dtype"))}.items():
        cfg[new] = cfg.pop(old, default)
    window = cfg.get("sliding_window")
    if isinstance(window, list):
        cfg["sliding_window"] = next((w for w in window if w is not None), None)
    if cfg.get("quantization"):
        q = cfg.pop("quantization")
        if q.get("qformat_weight") == "fp8_e4m3":
            cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme":
                                          "dynamic" if q.get("qscheme_act") == "NO_SCALES" else "static"}
        elif str(q.get("quant_method", "")).lower().replace("_", "-") == "compressed-tensors":
            cfg["quantization_config"] = {**q, "quant_method": "compressed-tensors"}
        else:
            return None
    moe = cfg.get("moe")
    if cfg.get("qk_nope_head_dim") and not moe:  # MLA without experts: one dense "expert" section
        moe = cfg["moe"] = {"num_experts": 1, "first_k_dense_replace": cfg.get("num_hidden_layers")}
    if cfg.get("model_type") == "mamba":
        cfg["architectures"] = ["Mamba2ForCausalLM"]
    elif moe and (moe.get("num_shared_experts") or 0) > 0:  # Mistral Large 3: DeepSeek-V3's layout
        if not isinstance(cfg.get("llama_4_scaling"), dict):
            return None
        cfg.update({new: moe[old] for old, new in _MOE_KEYS.items() if old in moe})
        cfg.update({"model_type": "deepseek_v3", "architectures": ["MistralLarge3ForCausalLM"]})
    elif moe:
        cfg["architectures"] = ["MixtralForCausalLM"]
        cfg["num_local_experts"] = moe.get("num_experts")
    else:
        cfg["architectures"] = ["MistralForCausalLM"]
    if cfg.get("yarn"):
        yarn = cfg["yarn"]
        cfg["rope_parameters"] = {"rope_type": "yarn", "factor": yarn.get("factor"),
                                  "original_max_position_embeddings": yarn.get("original_max_position_embeddings")}
    multimodal = cfg.get("multimodal") or {}
    vision = multimodal.get("vision_encoder_args") or cfg.get("vision_encoder")
    audio = (multimodal.get("whisper_model_args") or {}).get("encoder_args") or {}
    if vision or audio:  # the language model moves under text_config
        text = {k: v for k, v in cfg.items() if k not in ("multimodal", "vision_encoder")}
        cfg = {"model_type": "pixtral" if vision else "voxtral", "text_config": text,
               "architectures": ["PixtralForConditionalGeneration"] if vision else
               ["VoxtralRealtimeGeneration" if audio.get("causal") else "VoxtralForConditionalGeneration"]}
        if text.get("quantization_config"):
            cfg["quantization_config"] = text["quantization_config"]
    for k, v in defaults.items():
        cfg.setdefault(k, v)
    return cfg
