"""`max_model_len` against the model's own limits, as ModelConfig derives and checks it.

ModelConfig.__post_init__ (get_and_verify_max_len) derives the model's maximum length from its
text config: the smallest of the position keys it knows (a truthy `model_max_length` wins over
them), the sliding window when `--disable-sliding-window`, 2048 when no key is present, then the
RoPE scaling factor. Without `--max-model-len` the derived length is the default (LongRoPE:
`original_max_position_embeddings`); a longer user value is refused unless
VLLM_ALLOW_LONG_MAX_MODEL_LEN is "1" or "true".

What changes across releases (each read in that release's vllm/config/model.py):
  0.14.0  -1 / "auto" ask for the derived length; the field is `ge=-1`; the derived length is
          held in a pydantic dataclass as a float, so messages show `8192.0` even without RoPE
          scaling.
  0.18.0  a null RoPE factor falls back to 1.0 with a warning (before: TypeError).
  0.19.0  `sliding_window: 0` means no sliding window (before: a window of 0; we read 0 as none
          in every release).
  0.23.0  after __post_init__ max_model_len must be a positive integer (0, or -1 with no position
          key, refused as ModelConfig's; before, the scheduler's bounds refuse them).
  0.30.0  YaRN (and deepseek_yarn, deepseek_llama_scaling) no longer scale: max_position_embeddings
          is taken as already scaled (before: original_max_position_embeddings * factor, and a
          KeyError when the RoPE parameters lack original_max_position_embeddings).
The tokenizer's model_max_length caps a pooling model with absolute position embeddings (after
the sliding window), and a sentence-transformers config's `max_seq_length` replaces the derived
length (after RoPE scaling): both files are read beside config.json (vllm_preflight.model_files).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from vllm_preflight import modelfacts
from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.resolve.base.state import Refusal, State

UNKNOWN = "?"  # ModelFacts.max_len_key of a model nothing was read of: nothing to check against

_LONG_WARNING = ("VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative "
                 "position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model "
                 "uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA "
                 "array out-of-bounds error.")
_POSSIBLE_KEYS = ["max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                  "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"]
_NOT_SCALED_BEFORE_030 = ("su", "longrope", "llama3")
_NOT_SCALED_030 = _NOT_SCALED_BEFORE_030 + ("yarn", "deepseek_yarn", "deepseek_llama_scaling")


def _pyd(message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for ModelConfig\n  Value error, {message}")


def _factor(text: str) -> Any:
    """The RoPE factor as the config holds it: absent (""), null, an int or a float."""
    if text == "":
        return None
    if text == "null":
        return "null"
    return float(text) if any(c in text for c in ".eE") else int(text)


# Transformers 4's DeepseekV3Config casts the RoPE factor to float (vLLM maps deepseek_v32 to it
# too): a derived length shows as `163840.0` (recorded on real 0.12.0 with DeepSeek-R1's config)
_FLOAT_FACTOR_TYPES = ("deepseek_v3", "deepseek_v32")


def _cast_factor(key_v: tuple, facts: ModelFacts, factor: Any) -> Any:
    if isinstance(factor, int) and facts.text_model_type in _FLOAT_FACTOR_TYPES and not transformers_v5(key_v):
        return float(factor)
    return factor


def transformers_v5(key_v: tuple) -> bool:
    """Whether the release installs Transformers 5: 0.11.0 (no upper bound), 0.11.1-0.19.x pin
    `transformers<5`, 0.20.0+ allow 5.x (their wheels' requirements; the oracle venvs hold
    4.57.6 for 0.12.0 and 0.16.0, 5.x for 0.11.0, 0.30.0, 0.31.0 and 0.33.0)."""
    return key_v < (0, 11, 1) or key_v >= (0, 20)


def verify_max_len(state: State, facts: ModelFacts, user: int | None, disable_sliding_window: bool,
                   hf_overrides: Any = None) -> int:
    """The max_model_len ModelConfig ends up with, or the Refusal it raises."""
    key_v = state.release.key
    if (0, 12) <= key_v < (0, 20) and isinstance(hf_overrides, dict) and "rope_scaling" in hf_overrides:
        facts = _rope_before_overrides(facts, hf_overrides)
    if key_v >= (0, 14) and user is not None and user < -1:
        raise Refusal("ValidationError", "1 validation error for ModelConfig\nmax_model_len\n  Input should be "
                      f"greater than or equal to -1 [type=greater_than_equal, input_value={user}, input_type=int]")
    if facts.max_len_key == UNKNOWN:  # an unknown model: vLLM would check against its config.json
        if user is None or (user == -1 and key_v >= (0, 14)):
            return _positive(key_v, facts.max_position_embeddings)
        return _positive(key_v, user)
    value = _derive(state, facts, user, disable_sliding_window)
    return _positive(key_v, value)


def _rope_before_overrides(facts: ModelFacts, hf_overrides: dict) -> ModelFacts:
    """Under Transformers 4 (0.12.0-0.19.x) vLLM turns rope_scaling into rope_parameters when it
    loads the config, before --hf-overrides: an overridden rope_scaling does not reach the
    derivation (recorded on 0.12.0). The RoPE facts are then the config.json's own."""
    rest = {k: v for k, v in hf_overrides.items() if k != "rope_scaling"}
    raw = facts.raw_config
    known = modelfacts.KNOWN_MODELS
    for cfg in list(modelfacts._RAW_CONFIGS.values()) + [known.config(n) for n in known]:
        if modelfacts.apply_hf_overrides(cfg, hf_overrides) == raw:
            own = modelfacts.facts_from_config(modelfacts.apply_hf_overrides(cfg, rest))
            return replace(facts, rope_type=own.rope_type, rope_factor=own.rope_factor,
                           rope_original_max_position_embeddings=own.rope_original_max_position_embeddings)
    return facts


def _positive(key_v: tuple, value: int) -> int:
    """0.23.0+: validate_model_config_after wants a positive int (0, or -1 left over when no
    position key exists, are refused; before, they reach the scheduler's checks)."""
    if key_v >= (0, 23) and value < 1:
        raise _pyd(f"max_model_len must be a positive integer, got int: {value}. Example: max_model_len=2048")
    return value


def _derive(state: State, facts: ModelFacts, user: int | None, disable_sliding_window: bool) -> int:
    key_v = state.release.key
    derived: Any = facts.max_len_value if facts.max_len_key else float("inf")
    key: str | None = facts.max_len_key or None
    if facts.model_max_length:
        derived, key = facts.model_max_length, "model_max_length"
    if key_v >= (0, 14) and derived != float("inf"):
        derived = float(derived)  # ModelArchitectureConfig (pydantic) holds it as a float
    window = facts.sliding_window or None
    if disable_sliding_window and window is not None and window < derived:
        key, derived = "sliding_window", window
    derived = _tokenizer_cap(state, facts, derived)  # (the 0.11 branch below shares this part)
    if derived == float("inf"):
        if user is not None:
            return user
        if key_v >= (0, 14):
            msg = ("The model's config.json does not contain any of the keys to determine the original maximum "
                   "length of the model. Assuming the model's maximum length is 2048.")
        else:
            msg = ("The model's config.json does not contain any of the following keys to determine the original "
                   f"maximum length of the model: {_POSSIBLE_KEYS}. Assuming the model's maximum length is 2048.")
        state.log("warning", msg)
        derived = 2048
    rope_type = facts.rope_type
    if key_v < (0, 12):
        return _derive_0_11(state, facts, user, disable_sliding_window, derived, key)
    if rope_type and "gemma3" not in facts.text_model_type:
        scaling: Any = 1.0
        if rope_type not in (_NOT_SCALED_030 if key_v >= (0, 30) else _NOT_SCALED_BEFORE_030):
            factor = _cast_factor(key_v, facts, _factor(facts.rope_factor))
            if factor is not None:
                scaling = None if factor == "null" else factor
            if key_v >= (0, 18) and scaling is None:
                state.log("warning", "The model's RoPE configuration has a null scaling factor which is "
                          "unexpected. This likely indicates a bug in the model's HuggingFace config.json. Please "
                          "notify the model vendor. Falling back the value to 1.0. ", once=True)
                scaling = 1.0
            if rope_type == "yarn" and key_v < (0, 30):
                derived = _yarn_original(key_v, facts)
        if scaling is None:
            raise Refusal("TypeError", f"unsupported operand type(s) for *=: '{type(derived).__name__}' and "
                          "'NoneType'")
        derived *= scaling
    if facts.encoder_max_seq_length:  # a sentence-transformers config's length replaces the derived one
        derived = facts.encoder_max_seq_length
    if user is None or (user == -1 and key_v >= (0, 14)):
        if rope_type == "longrope":
            return int(facts.original_max_position_embeddings or derived)
        return int(derived)
    if user > derived:
        mml = facts.model_max_length or None
        if mml is None or user > mml:
            _too_long(state, user, key, derived, mml)
    return int(user)


def _tokenizer_cap(state: State, facts: ModelFacts, derived: Any) -> Any:
    """A pooling model with absolute position embeddings is capped by its tokenizer's
    model_max_length (get_and_verify_max_len reads tokenizer_config.json only then)."""
    cap = facts.tokenizer_model_max_length
    if cap and state.model_cfg.get("is_pooling") and facts.config_value("position_embedding_type") == "absolute":
        return min(derived, cap)
    return derived


def _derive_0_11(state: State, facts: ModelFacts, user: int | None, disable_sliding_window: bool,
                 derived: Any, key: str | None) -> int:
    """0.11.x reads `rope_scaling` (None unless config.json sets it) instead of the RoPE
    parameters every RoPE config has, refuses --disable-sliding-window next to a scaling RoPE
    type or an allowing model_max_length (NotImplementedError), and only from 0.11.1 defaults
    LongRoPE models to original_max_position_embeddings."""
    rope_type = facts.rope_type
    # `rope_scaling`: what config.json sets under Transformers 4; under 5 an alias of the RoPE
    # parameters every RoPE config has
    scaled = rope_type != "" if transformers_v5(state.release.key) else \
        (rope_type not in ("", "default") or facts.rope_factor != "")
    if scaled and "gemma3" not in facts.text_model_type and rope_type not in _NOT_SCALED_BEFORE_030:
        if disable_sliding_window:
            raise Refusal("NotImplementedError", "Disabling sliding window is not supported for models with "
                          "rope_scaling. Please raise an issue so we can investigate.")
        factor = _cast_factor(state.release.key, facts, _factor(facts.rope_factor))
        scaling: Any = 1.0 if factor is None else None if factor == "null" else factor
        if rope_type == "yarn":
            derived = _yarn_original(state.release.key, facts)
        if scaling is None:
            raise Refusal("TypeError", f"unsupported operand type(s) for *=: '{type(derived).__name__}' and "
                          "'NoneType'")
        derived *= scaling
    if facts.encoder_max_seq_length:  # as from 0.12.0 (the sentence-transformers rule predates 0.11)
        derived = facts.encoder_max_seq_length
    if user is None:
        if scaled and rope_type == "longrope" and state.release.key >= (0, 11, 1):
            return int(facts.original_max_position_embeddings or derived)
        return int(derived)
    if user > derived:
        mml = facts.model_max_length or None
        if mml is not None and user <= mml:
            if disable_sliding_window:
                raise Refusal("NotImplementedError", "Disabling sliding window is not supported for models "
                              "model_max_length in the config. Please raise an issue so we can investigate.")
        else:
            _too_long(state, user, key, derived, mml)
    return int(user)


def _yarn_original(key_v: tuple, facts: ModelFacts) -> int:
    """YaRN's original_max_position_embeddings, which Transformers 5 fills in from
    max_position_embeddings; without it Transformers 4 leaves a KeyError."""
    if facts.rope_original_max_position_embeddings:
        return facts.rope_original_max_position_embeddings
    if transformers_v5(key_v):
        return facts.max_position_embeddings
    raise Refusal("KeyError", "'original_max_position_embeddings'")


def _too_long(state: State, user: int, key, derived, mml) -> None:
    """A length above the derived one: refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN, then warned."""
    msg = (f"User-specified max_model_len ({user}) is greater than the derived max_model_len "
           f"({key}={derived} or model_max_length={mml} in model's config.json).")
    if state.env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0").strip().lower() not in ("1", "true"):
        raise _pyd(f"{msg} To allow overriding this maximum, set the env var "
                   f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. {_LONG_WARNING}")
    state.log("warning", f"{msg} {_LONG_WARNING}", once=True)
