"""AttentionConfig (vllm/config/attention.py): --attention-backend folded in (0.13.0+), the
backend_per_kind validator (0.26.0+), __post_init__ (0.33.0)."""
from __future__ import annotations

from typing import Any

from vllm_preflight.resolve.base.config_classes import class_of
from vllm_preflight.resolve.base.pydantic import validator_error
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.engine.env_choices import choice_error


# ------------------------------------------------------------------ attention / Mamba flags
@reads("attention_backend", "attention_config")
def attention_backend(state: State, values: dict) -> None:
    """--attention-backend goes into the attention config after LoRA (0.13.0 arg_utils.py:1646,
    0.33.0 :2727-2737): refused next to --attention-config's backend, and a name that is not a
    member of the release's AttentionBackendEnum is its metaclass's ValueError ("auto" is no
    backend where the release's validator says so, 0.20.0+). The enum's names per release are
    read from json_options.json (AttentionConfig's backend field)."""
    name = values.get("attention_backend")
    if name is None or state.release.key < (0, 13, 0):
        return
    cls = class_of("attention_config", state.release.version)
    enum = next((f[3] for f in cls["fields"] if f[0] == "backend"), None) if cls else None
    given = values.get("attention_config")
    if isinstance(given, dict) and given.get("backend") is not None:
        given_backend = given["backend"]
        auto = isinstance(enum, dict) and enum["auto"] and isinstance(given_backend, str) \
            and given_backend.lower() == "auto"
        if not auto:
            raise Refusal("ValueError", "attention_backend and attention_config.backend are mutually exclusive")
    if not isinstance(enum, dict) or not isinstance(name, str):
        return
    if enum["auto"] and name.lower() == "auto":
        return
    if name.upper() not in enum["enum_names"]:
        raise Refusal("ValueError", f"Unknown {enum['what']}: '{name.upper()}'. Valid options are: "
                                    f"{', '.join(enum['enum_names'])}")


# ------------------------------------------------------------------ --attention-config's own validators
_KV_SPEC_KINDS = ((0, 26, 0), ("chunked_local_attention", "cross_attention", "encoder_only_attention",
                               "full_attention", "mamba", "mla_attention", "sink_full_attention", "sliding_window",
                               "sliding_window_mla", "unknown"))  # vllm/v1/kv_cache_interface.py KVCacheSpecKind


def backend_per_kind_errors(state: State, value: Any, enum: dict | None) -> list[tuple[str, str]]:
    """AttentionConfig.backend_per_kind (0.26.0; 0.33.0 config/attention.py:240-264): its before-validator
    wants each key a KVCacheSpecKind value and each string value an AttentionBackendEnum name
    (upper-cased), a ValueError worded for pydantic; then pydantic's dict[str, AttentionBackendEnum]
    (an object; a value that is no name is checked against the enum's values). (loc suffix, message)."""
    first, kinds = _KV_SPEC_KINDS
    if state.release.key < first:
        return []
    if not isinstance(value, dict):
        return [("", "Input should be an object")]
    for kind, backend in value.items():
        if kind not in kinds:
            message = (f"Value error, Unknown KV cache group kind '{kind}' in backend_per_kind. Valid kinds are: "
                       f"{', '.join(sorted(kinds))}.")
            return [("", message)]
        if isinstance(backend, str) and enum and backend.upper() not in enum["enum_names"]:
            message = (f"Value error, Unknown {enum['what']}: '{backend.upper()}'. Valid options are: "
                       f"{', '.join(enum['enum_names'])}")
            return [("", message)]
    if not enum:
        return []
    shown = [repr(v) for v in enum["enum_values"]]
    text = "Input should be " + (", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0])
    return [(f".{kind}", text) for kind, backend in value.items() if not isinstance(backend, str)]


def attention_post_init(cls: dict, cfg: dict) -> str | None:
    """AttentionConfig.__post_init__ (0.33.0 config/attention.py:172-196): the MiniMax-M3 indexer
    context parallelism needs a bf16 or fp8 e4m3 index cache (wherever the class has the field)."""
    names = {f[0] for f in cls["fields"]}
    dtype = cfg.get("indexer_kv_dtype", "auto")
    if "minimax_m3_indexer_cp" in names and _truthy(cfg.get("minimax_m3_indexer_cp")) \
            and dtype not in ("auto", "bf16", "fp8", "fp8_e4m3"):
        return ("minimax_m3_indexer_cp requires a bf16 or fp8 e4m3 index cache (indexer_kv_dtype 'auto', 'bf16', "
                f"'fp8' or 'fp8_e4m3'), got {dtype!r}")
    return None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "t", "yes", "y", "on")
    return bool(value)


_ATTENTION_ENV_IN_ATTENTION_CONFIG = ((0, 13, 0), (0, 15, 0))  # 0.13.0 config/attention.py:93 (until 0.14.x)


@reads(env=("VLLM_ATTENTION_BACKEND",))
def attention_config_env(state: State, values: dict) -> None:
    """AttentionConfig.__post_init__ (0.13.0-0.14.x) takes VLLM_ATTENTION_BACKEND (deprecated) through
    vLLM's choice-checking reader: a name it does not accept is a ValueError inside the pydantic
    dataclass. vLLM builds the default AttentionConfig while it builds its parser, so this comes
    before any option is read (resolve/engine/env_choices.py)."""
    first, last = _ATTENTION_ENV_IN_ATTENTION_CONFIG
    if not first <= state.release.key < last:
        return
    problem = choice_error(state, "VLLM_ATTENTION_BACKEND")
    if problem:
        raise validator_error("AttentionConfig", problem)
