"""What vLLM reads from a model that changes its compilation settings.

From a local model directory's config.json, or for a hub id (no network here) from a
small table of well-known architectures. `--assume model.FACT=VALUE` overrides either;
every fact not read from the model itself is reported as an assumption.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields, replace

from vllm_preflight.model import Assumption


@dataclass(frozen=True)
class ModelFacts:
    architecture: str = "LlamaForCausalLM"
    is_moe: bool = False
    is_pooling: bool = False  # vLLM's runner resolves to "pooling"
    is_encoder_decoder: bool = False
    is_mla: bool = False
    blocked_fp8: bool = False  # fp8 weights with weight_block_size: vLLM adds +quant_fp8
    max_position_embeddings: int = 8192
    hidden_size: int = 4096
    quantized: bool = False


# Hub ids we know without fetching anything: facts of their config.json.
KNOWN_MODELS: dict[str, ModelFacts] = {
    "deepseek-ai/DeepSeek-V3": ModelFacts("DeepseekV3ForCausalLM", True, False, False, True, True, 163840, 7168, True),
    "deepseek-ai/DeepSeek-V3-0324": ModelFacts("DeepseekV3ForCausalLM", True, False, False, True, True, 163840, 7168, True),
    "deepseek-ai/DeepSeek-R1": ModelFacts("DeepseekV3ForCausalLM", True, False, False, True, True, 163840, 7168, True),
    "deepseek-ai/DeepSeek-R1-0528": ModelFacts("DeepseekV3ForCausalLM", True, False, False, True, True, 163840, 7168, True),
    "deepseek-ai/DeepSeek-V2-Lite": ModelFacts("DeepseekV2ForCausalLM", True, False, False, True, False, 163840, 2048),
    "Qwen/Qwen3-30B-A3B": ModelFacts("Qwen3MoeForCausalLM", True, max_position_embeddings=40960, hidden_size=2048),
    "Qwen/Qwen3-235B-A22B": ModelFacts("Qwen3MoeForCausalLM", True, max_position_embeddings=40960, hidden_size=4096),
    "Qwen/Qwen3-0.6B": ModelFacts("Qwen3ForCausalLM", max_position_embeddings=40960, hidden_size=1024),
    "mistralai/Mixtral-8x7B-Instruct-v0.1": ModelFacts("MixtralForCausalLM", True, max_position_embeddings=32768),
    "meta-llama/Llama-3.1-8B-Instruct": ModelFacts("LlamaForCausalLM", max_position_embeddings=131072),
    "meta-llama/Llama-3.3-70B-Instruct": ModelFacts("LlamaForCausalLM", max_position_embeddings=131072, hidden_size=8192),
    "openai/gpt-oss-120b": ModelFacts("GptOssForCausalLM", True, max_position_embeddings=131072, hidden_size=2880, quantized=True),
    "moonshotai/Kimi-K2-Instruct": ModelFacts("DeepseekV3ForCausalLM", True, False, False, True, True, 131072, 7168, True),
    "openai/whisper-large-v3": ModelFacts("WhisperForConditionalGeneration", False, False, True, max_position_embeddings=448, hidden_size=1280),
    "BAAI/bge-m3": ModelFacts("XLMRobertaModel", False, True, max_position_embeddings=8194, hidden_size=1024),
    "Qwen/Qwen3-Embedding-8B": ModelFacts("Qwen3ForCausalLM", max_position_embeddings=40960),
}

_MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_experts_per_tok")
# vLLM serves these as pooling models by default; a bare decoder `XxxModel` stays "generate"
_POOLING_SUFFIXES = ("ForSequenceClassification", "ForRewardModel", "ForEmbedding", "ForTokenClassification")
_POOLING_ENCODERS = ("BertModel", "RobertaModel", "XLMRobertaModel", "ModernBertModel", "NomicBertModel",
                     "GteModel", "GteNewModel", "BertSpladeSparseEmbeddingModel")
_MLA_TYPES = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa")


def _bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def facts_from_config(cfg: dict) -> ModelFacts:
    arch = (cfg.get("architectures") or ["?"])[0]
    text_cfg = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else cfg
    n_experts = 0
    for k in _MOE_KEYS[:-1]:
        if isinstance(text_cfg.get(k), int):
            n_experts = max(n_experts, text_cfg[k])
    quant = cfg.get("quantization_config") or {}
    blocked = (quant.get("quant_method") == "fp8" and quant.get("weight_block_size") is not None)
    return ModelFacts(
        architecture=arch,
        is_moe=n_experts > 0,
        is_pooling=arch.endswith(_POOLING_SUFFIXES) or arch in _POOLING_ENCODERS,
        is_encoder_decoder=bool(cfg.get("is_encoder_decoder")),
        is_mla=text_cfg.get("model_type") in _MLA_TYPES and bool(text_cfg.get("kv_lora_rank")),
        blocked_fp8=blocked,
        max_position_embeddings=int(text_cfg.get("max_position_embeddings")
                                    or text_cfg.get("max_target_positions") or 2048),
        hidden_size=int(text_cfg.get("hidden_size") or text_cfg.get("d_model") or 4096),
        quantized=bool(quant),
    )


_CONFIG_CACHE: dict[str, tuple[float, ModelFacts | None]] = {}


def _facts_from_file(cfg_path: str) -> ModelFacts | None:
    """config.json facts, read once per file in a process (one run resolves many configs)."""
    hit = _CONFIG_CACHE.get(cfg_path)
    if hit is not None:
        return hit[1]
    try:
        mtime = os.stat(cfg_path).st_mtime
    except OSError:
        _CONFIG_CACHE[cfg_path] = (0.0, None)
        return None
    try:
        with open(cfg_path) as f:
            facts = facts_from_config(json.load(f))
    except (OSError, ValueError, TypeError, AttributeError):
        facts = None
    _CONFIG_CACHE[cfg_path] = (mtime, facts)
    return facts


def model_facts(model: str | None, base_dir: str | None, overrides: dict[str, str]
                ) -> tuple[ModelFacts, list[Assumption]]:
    """Facts for a model name as written in the command, plus what was assumed."""
    assumptions: list[Assumption] = []
    facts: ModelFacts | None = None
    if model:
        candidates = [model] if os.path.isabs(model) else [os.path.join(base_dir or os.getcwd(), model), model]
        for path in candidates:
            facts = _facts_from_file(os.path.join(path, "config.json"))
            if facts is not None:
                break
        if facts is None and model in KNOWN_MODELS:
            facts = KNOWN_MODELS[model]
            assumptions.append(Assumption("model", model, "table of well-known hub models (config.json not read)"))
    if facts is None:
        facts = ModelFacts()
        assumptions.append(Assumption("model", model or "(none)",
                                      "unknown model: assumed a dense decoder-only LLM; pin facts with --assume model.FACT=VALUE"))
    names = {f.name: f.type for f in fields(ModelFacts)}
    changes = {}
    for key, text in overrides.items():
        if key not in names:
            from vllm_preflight.errors import UsageProblem

            raise UsageProblem(f"--assume model.{key}: unknown model fact; known: {', '.join(names)}")
        cur = getattr(facts, key)
        try:
            value = _bool(text) if isinstance(cur, bool) else int(text) if isinstance(cur, int) else text
        except ValueError as e:
            from vllm_preflight.errors import UsageProblem

            raise UsageProblem(f"--assume model.{key}={text}: {e}") from None
        changes[key] = value
        assumptions.append(Assumption(f"model.{key}", value, "--assume"))
    if changes:
        facts = replace(facts, **changes)
    return facts, assumptions
