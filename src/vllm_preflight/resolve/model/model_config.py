"""ModelConfig (vllm/config/model.py): the model's facts (config.json), the runner, the fields
create_model_config fills in, and EngineArgs._set_default_args' reading of them."""
from __future__ import annotations

from vllm_preflight import model_files
from vllm_preflight.modelfacts import TextConfigNotAConfig, model_facts
from vllm_preflight.releases import Release
from vllm_preflight.releases.versions import version_key
from vllm_preflight.resolve.base.pydantic import field_error, validator_error
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.engine.env_choices import choice_error
from vllm_preflight.resolve.model.max_model_len import verify_max_len
from vllm_preflight.resolve.parser.argument_parser import ParsedArgs

# ------------------------------------------------------------------ after the parser
# (first release, first release without): ModelConfig.is_chunked_prefill_supported lower-cases
# the given pooler config's pooling_type for a decoder model (0.12.0 config/model.py:1783),
# read by EngineArgs._set_default_chunked_prefill_and_prefix_caching_args (arg_utils.py:1884)
_POOLING_TYPE_LOWER = ("0.12.0", "0.14.0")


@reads("pooler_config")
def model_default_checks(state: State, values: dict) -> None:
    """Right after ModelConfig (EngineArgs._set_default_args): a --pooler-config without a
    pooling_type on a generative decoder model crashes vLLM 0.12.x-0.13.x (the pooling runner
    fills the type in first)."""

    pooler = values.get("pooler_config")
    first, until = _POOLING_TYPE_LOWER
    if not isinstance(pooler, dict) or not version_key(first) <= state.release.key < version_key(until):
        return
    if pooler.get("pooling_type") is None and not state.model_cfg.get("is_pooling") \
            and not getattr(state.model, "is_encoder_decoder", False):
        raise Refusal("AttributeError", "'NoneType' object has no attribute 'lower'")


def _experts_wanted(parsed, env: dict) -> str | None:
    """The flags that only make sense for a mixture-of-experts model, as the user wrote them."""
    values = {k: v for k, v in parsed.values.items() if k in parsed.given}
    if values.get("enable_expert_parallel"):
        return "--enable-expert-parallel"
    if values.get("all2all_backend"):
        return f"--all2all-backend {values['all2all_backend']}"
    if env.get("VLLM_ALL2ALL_BACKEND"):
        return f"VLLM_ALL2ALL_BACKEND={env['VLLM_ALL2ALL_BACKEND']}"
    return None


def _text_config_refusal(release: Release) -> Refusal:
    """ModelConfig's refusal of a `text_config` without `num_attention_heads`: an assertion up to
    0.12.0, a ValueError with a message from 0.13.0 (transformers_utils/config.py get_hf_text_config)."""
    if release.key < (0, 13, 0):
        return Refusal("ValidationError", "1 validation error for ModelConfig\n  Assertion failed, ")
    return Refusal("ValidationError", "1 validation error for ModelConfig\n  Value error, The text_config extracted "
                   "from the model config does not have `num_attention_heads` attribute. This indicates a mismatch "
                   "between the model config and vLLM's expectations. Please ensure that the model config is "
                   "compatible with vLLM.")


DEFAULT_MODEL = "Qwen/Qwen3-0.6B"


def model_name(args: ParsedArgs) -> str:
    return args.model_tag or args.values.get("model") or DEFAULT_MODEL


def read_model(state: State, values: dict) -> None:
    """create_model_config: the served model's config.json (or the built-in table), with
    --hf-overrides applied; a `text_config` that is no config is ModelConfig's refusal."""
    hf_overrides = values.get("hf_overrides")
    try:
        name = model_name(state.parsed)
        facts, assumed = model_facts(name, state.base_dir, state.model_assume,
                                     experts_wanted=_experts_wanted(state.parsed, state.env),
                                     hf_overrides=hf_overrides if isinstance(hf_overrides, dict) else None,
                                     request=model_files.request_of(name, values, state.env, state.base_dir,
                                                                    state.release.key))
    except TextConfigNotAConfig:
        raise _text_config_refusal(state.release) from None
    state.fact_assumptions = assumed
    state.model = facts


@reads("override_generation_config")
def override_generation_config(state: State, values: dict) -> None:
    """A ModelConfig dict field, validated by pydantic."""
    ogc = values.get("override_generation_config")
    if ogc is not None and not isinstance(ogc, dict):
        raise field_error("ModelConfig", "override_generation_config", "Input should be a valid dictionary")


@reads(always=True)
def model_fields(state: State, values: dict) -> None:
    """ModelConfig's max_model_len (get_and_verify_max_len, model/max_model_len.py) and the fields
    the later configs read: enforce_eager, the runner (`--runner auto` is pooling for a pooling
    architecture and, from 0.22.0, for any `--convert` other than auto/none: _get_runner_type; an
    explicit runner is kept as given), pooler_config, encoder-decoder, MoE, cascade attention."""
    v, facts, release = values, state.facts, state.release
    runner = v.get("runner", "auto")
    converts = v.get("convert") not in (None, "auto", "none") and release.rules.get("convert_implies_pooling", False)
    is_pooling = runner == "pooling" or (runner == "auto" and (facts.is_pooling or converts))
    state.model_cfg["is_pooling"] = is_pooling  # the tokenizer's length caps a pooling model's (max_model_len)
    max_model_len = verify_max_len(state, facts, v.get("max_model_len"), bool(v.get("disable_sliding_window", False)),
                                   v.get("hf_overrides"))
    state.model_cfg.update({
        "enforce_eager": bool(v.get("enforce_eager", False)),
        "max_model_len": max_model_len,
        "is_pooling": is_pooling,
        # ModelConfig.pooler_config: a pooling runner's default, or the one the user gave (kept for
        # a generative model too) -- VllmConfig turns full CUDA graphs off whenever it is set
        "has_pooler_config": is_pooling or v.get("pooler_config") is not None,
        "is_encoder_decoder": facts.is_encoder_decoder,
        "is_moe": facts.is_moe,
        "disable_cascade_attn": bool(v.get("disable_cascade_attn", False)),
        "performance_mode": v.get("performance_mode"),
    })


_ATTENTION_ENV_IN_MODEL_CONFIG = ((0, 11, 0), (0, 13, 0))  # 0.11.0 config/model.py:417, 0.12.0 :472


@reads(env=("VLLM_ATTENTION_BACKEND",))
def attention_backend_env(state: State, values: dict) -> None:
    """ModelConfig.__post_init__ (0.11.0-0.12.x) reads VLLM_ATTENTION_BACKEND through vLLM's
    choice-checking reader (the release's backend enum): a name it does not accept is a ValueError
    inside the pydantic dataclass (resolve/engine/env_choices.py)."""
    first, last = _ATTENTION_ENV_IN_MODEL_CONFIG
    if not first <= state.release.key < last:
        return
    problem = choice_error(state, "VLLM_ATTENTION_BACKEND")
    if problem:
        raise validator_error("ModelConfig", problem)


@reads(always=True)
def config_class_defaults(state: State, values: dict) -> None:
    """vLLM reads config.json through transformers' config class: a key the file lacks takes the
    class's default (NemotronHConfig's `n_routed_experts` is 8). The expert counts that make a model
    MoE are recorded per release from the transformers installed with it
    (releases/data/config_class_defaults.json, tools/extract_config_defaults.py) and applied when
    config.json names none (a model fact pinned with --assume wins)."""
    from dataclasses import replace

    from vllm_preflight.modelfacts import MOE_KEYS
    from vllm_preflight.releases import config_class_defaults as class_defaults

    facts = state.model
    if facts is None or facts.is_moe or "is_moe" in state.model_assume:
        return
    raw = facts.raw_config
    if not isinstance(raw, dict):
        return
    text = raw["text_config"] if isinstance(raw.get("text_config"), dict) else raw
    if any(k in text for k in MOE_KEYS):
        return
    found = class_defaults(state.release.version).get(str(text.get("model_type") or ""), {})
    if not any(found.get(k) for k in MOE_KEYS):
        return
    extra = dict(facts.__dict__)
    state.model = replace(facts, is_moe=True)
    for key in ("_raw_config", "_quantization"):
        if key in extra:
            object.__setattr__(state.model, key, extra[key])
