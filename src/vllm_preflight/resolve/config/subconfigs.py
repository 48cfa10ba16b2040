"""The sub-configs `EngineArgs.create_engine_config` builds from plain flags (issue 9): CacheConfig,
SchedulerConfig, LoadConfig, ObservabilityConfig, OffloadConfig and their validators.

pydantic checks each class's `Field(gt=/ge=/lt=/le=)` bounds as vLLM builds it and reports every
failing field, in declaration order, in one ValidationError; the bounded fields and the flag
each one is read from are data per release (releases/data/subconfig_fields.json, written by
tools/extract_subconfig_fields.py). The classes' own validators that refuse a deployment are
ported below, one small function each, keyed by first release.
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from itertools import pairwise
from typing import Any

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import Refusal, State


@lru_cache(maxsize=1)
def _data() -> dict:
    return data_file("subconfig_fields.json")["releases"]


def _number(limit: float) -> str:
    """A bound as pydantic-core prints it (Rust's Display: 1.0 is `1`)."""
    if isinstance(limit, float) and limit.is_integer():
        return str(int(limit))
    return str(limit)


# pydantic-core's order (le, lt, ge, gt): it shows for NaN, which fails every comparison
_WORDS = (("le", "less than or equal to", "less_than_equal", lambda v, b: v <= b),
          ("lt", "less than", "less_than", lambda v, b: v < b),
          ("ge", "greater than or equal to", "greater_than_equal", lambda v, b: v >= b),
          ("gt", "greater than", "greater_than", lambda v, b: v > b))


def _bound_error(value: Any, bounds: dict) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    for key, words, code, ok in _WORDS:
        if key in bounds and not ok(value, bounds[key]):
            return (f"Input should be {words} {_number(bounds[key])} [type={code}, input_value={value!r}, "
                    f"input_type={type(value).__name__}]")
    return None


def field_errors(state: State, cls: str, values: dict, given: dict | None = None) -> list[tuple[str, str]]:
    """(field, message) for each bounded field of `cls` whose value fails; `given` holds values
    vLLM computed itself (by field name) in place of the flag's."""
    rows = _data().get(state.release.version, {}).get(cls, [])
    out = []
    for field, dest, bounds, _typ in rows:
        value = given[field] if given and field in given else values.get(dest)
        if value is None:
            continue
        message = _bound_error(value, bounds)
        if message:
            out.append((field, message))
    return out


def raise_field_errors(cls: str, errors: list[tuple[str, str]]) -> None:
    if errors:
        n = len(errors)
        body = "\n".join(f"{field}\n  {message}" for field, message in errors)
        raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {cls}\n{body}")


def _pyd(cls: str, message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n  Value error, {message} [type=value_error]")


# ------------------------------------------------------------------ CacheConfig
def cache_config(state: State, values: dict) -> None:
    """CacheConfig, right after the dcp assert in create_engine_config (0.12.0 arg_utils.py:1392,
    0.33.0 :2307). 0.11.0 has no field bounds; its model validator refuses a negative CPU offload
    then a utilization above 1 (0.11.0 config/cache.py:162-172)."""
    if state.release.version == "0.11.0":
        offload = values.get("cpu_offload_gb")
        util = values.get("gpu_memory_utilization")
        if isinstance(offload, (int, float)) and offload < 0:
            raise _pyd("CacheConfig", f"CPU offload space must be non-negative, but got {offload}")
        if isinstance(util, (int, float)) and util > 1.0:
            raise _pyd("CacheConfig", f"GPU memory utilization must be less than 1.0. Got {util}.")
        return
    raise_field_errors("CacheConfig", field_errors(state, "CacheConfig", values))


# ------------------------------------------------------------------ SchedulerConfig
def scheduler_fields(state: State, values: dict, mnbt: int, mns: int) -> None:
    """SchedulerConfig's bounded fields, with the token and sequence budgets vLLM filled in; the
    diffusion and watermark configs are built just before it."""
    json_configs(state, values)
    raise_field_errors("SchedulerConfig", field_errors(state, "SchedulerConfig", values,
                                                       {"max_num_batched_tokens": mnbt, "max_num_seqs": mns}))


# (first release) of each SchedulerConfig.verify_max_model_len check beyond the two budgets
_ACTIVE_SEQS = (0, 31, 0)  # max_num_active_seqs <= max_num_seqs (0.31.0 config/scheduler.py)
_THRESHOLD_ALWAYS = (0, 27, 0)  # long_prefill_token_threshold <= max_model_len without partial prefills


def scheduler_post_init(state: State, values: dict, mns: int, max_model_len: int, encoder_decoder: bool) -> None:
    """SchedulerConfig.verify_max_model_len after its two budget checks (0.33.0 config/scheduler.py:
    336-360). Until 0.26.x the threshold is checked only with concurrent partial prefills, which
    _check_feature_supported refuses first; an encoder-decoder model's threshold is set to 0."""
    key = state.release.key
    active = values.get("max_num_active_seqs")
    if key >= _ACTIVE_SEQS and isinstance(active, int) and active > mns:
        raise _pyd("SchedulerConfig", f"max_num_active_seqs ({active}) cannot be greater than max_num_seqs ({mns}).")
    threshold = 0 if encoder_decoder else values.get("long_prefill_token_threshold") or 0
    if key >= _THRESHOLD_ALWAYS and isinstance(threshold, int) and threshold > max_model_len:
        raise _pyd("SchedulerConfig", f"long_prefill_token_threshold ({threshold}) cannot be greater than the "
                                      f"max_model_len ({max_model_len}).")


# ------------------------------------------------------------------ LoadConfig .. OffloadConfig
_VERSION = re.compile(r"""^\s*v?(?:(?:[0-9]+)!)?[0-9]+(?:\.[0-9]+)*
    (?:[-_\.]?(?:alpha|a|beta|b|preview|pre|c|rc)[-_\.]?[0-9]*)?
    (?:(?:-[0-9]+)|(?:[-_\.]?(?:post|rev|r)[-_\.]?[0-9]*))?
    (?:[-_\.]?dev[-_\.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_\.][a-z0-9]+)*)?\s*$""", re.VERBOSE | re.IGNORECASE)
# ObservabilityConfig's show_hidden_metrics_for_version validator (packaging's parse), first release
_HIDDEN_METRICS = (0, 11, 1)
_TRACES_NEED_ENDPOINT = (0, 11, 1)  # the model validator (0.11.0 has none)


def load_and_observability(state: State, values: dict) -> None:
    """The attention and Mamba flags, then LoadConfig and ObservabilityConfig, after LoRAConfig
    (0.12.0 arg_utils.py:1683-1700, 0.33.0 :2727-2830); OffloadConfig comes after the capture-size
    flags (`offload`)."""
    attention_backend(state, values)
    mamba_flags(state, values)
    raise_field_errors("LoadConfig", field_errors(state, "LoadConfig", values))
    observability(state, values)


def observability(state: State, values: dict) -> None:
    """ObservabilityConfig (0.12.0 config/observability.py:92-130, 0.33.0 :145-222): its bounded
    field and a version that packaging cannot parse are field errors; the model validator then
    wants an OTLP endpoint for detailed traces. Whether OpenTelemetry is installed (the
    endpoint's own validator) is the host's, not the deployment's: not checked."""
    key = state.release.key
    errors = []
    version = values.get("show_hidden_metrics_for_version")
    if key >= _HIDDEN_METRICS and isinstance(version, str) and version and not _VERSION.match(version):
        message = f"Value error, Invalid version: {version!r} [type=value_error, input_value={version!r}, input_type=str]"
        errors.append(("show_hidden_metrics_for_version", message))
    traces = values.get("collect_detailed_traces")
    if key >= _TRACES_NEED_ENDPOINT and isinstance(traces, list):
        # list[Literal["model", "worker", "all"]] checked before the validator that splits "a,b"
        errors += [(f"collect_detailed_traces.{i}", "Input should be 'model', 'worker' or 'all' [type=literal_error]")
                   for i, t in enumerate(traces) if t not in ("model", "worker", "all")]
    errors += field_errors(state, "ObservabilityConfig", values)
    buckets = values.get("custom_histogram_buckets")
    if isinstance(buckets, str):
        try:
            buckets = json.loads(buckets)
        except ValueError:
            buckets = None
    shape = _histogram_shape(state, buckets)
    problem = None if shape else _histogram_problem(state, buckets)
    errors += shape
    if problem:
        errors.append(("custom_histogram_buckets", f"Value error, {problem} [type=value_error]"))
    raise_field_errors("ObservabilityConfig", errors)
    if key >= _TRACES_NEED_ENDPOINT and traces and not values.get("otlp_traces_endpoint"):
        raise _pyd("ObservabilityConfig", "collect_detailed_traces requires `--otlp-traces-endpoint` to be set.")


_OFFLOAD_VALIDATOR = (0, 17, 0)  # OffloadConfig.validate_offload_config (0.17.0 config/offload.py)


def offload(state: State, values: dict) -> None:
    """OffloadConfig's nested UVA and prefetch configs (their bounds), then its model validator
    (0.33.0 config/offload.py:97-113): prefetch offloading (the backend or a group size) needs
    offload_num_in_group <= offload_group_size and a prefetch step of at least 1."""
    for cls in ("UVAOffloadConfig", "PrefetchOffloadConfig"):
        raise_field_errors(cls, field_errors(state, cls, values))
    if state.release.key < _OFFLOAD_VALIDATOR:
        return
    group = values.get("offload_group_size") or 0
    in_group = values.get("offload_num_in_group", 1)
    step = values.get("offload_prefetch_step", 1)
    if values.get("offload_backend") == "prefetch" or group > 0:
        if in_group > group:
            raise _pyd("OffloadConfig", f"offload_num_in_group ({in_group}) must be <= offload_group_size ({group})")
        if step < 1:
            raise _pyd("OffloadConfig", f"offload_prefetch_step ({step}) must be >= 1 when prefetch offloading is "
                                        "enabled (offload_group_size > 0)")


_KDA_PREFILL = (0, 30, 0)  # --kda-prefill-backend (0.30.0 arg_utils.py; 0.33.0 :2870-2878)


def kda_prefill_backend(state: State, values: dict) -> None:
    """After OffloadConfig: the KDA prefill backend must suit the platform (a CUDA GPU here)."""
    if state.release.key >= _KDA_PREFILL and values.get("kda_prefill_backend") == "fused":
        raise Refusal("ValueError", "--kda-prefill-backend=fused is only available on ROCm.")


# ------------------------------------------------------------------ attention / Mamba flags
def attention_backend(state: State, values: dict) -> None:
    """--attention-backend goes into the attention config after LoRA (0.13.0 arg_utils.py:1646,
    0.33.0 :2727-2737): refused next to --attention-config's backend, and a name that is not a
    member of the release's AttentionBackendEnum is its metaclass's ValueError ("auto" is no
    backend where the release's validator says so, 0.20.0+). The enum's names per release are
    read from json_options.json (AttentionConfig's backend field)."""
    name = values.get("attention_backend")
    if name is None or state.release.key < (0, 13, 0):
        return
    from vllm_preflight.resolve.parser import json_options

    cls = json_options.class_of("attention_config", state.release.version)
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


# MambaBackendEnum's members by first release (0.20.0 config/mamba.py; CPU from 0.27.0)
_MAMBA_BACKENDS = (((0, 20, 0), ("TRITON", "FLASHINFER")), ((0, 27, 0), ("TRITON", "FLASHINFER", "CPU")))
_SSU_ALGORITHM = (0, 27, 0)  # MambaConfig.validate_ssu_algorithm, called by create_engine_config


def mamba_flags(state: State, values: dict) -> None:
    """The Mamba config overrides after the attention config (0.20.0 arg_utils.py:2019, 0.33.0
    :2769-2786): --mamba-backend by enum name, then --mamba-ssu-algorithm only with FlashInfer."""
    key = state.release.key
    members = [m for first, m in _MAMBA_BACKENDS if key >= first]
    if not members:
        return
    backend = values.get("mamba_backend")
    if isinstance(backend, str) and backend.upper() not in members[-1]:
        raise Refusal("ValueError", f"Unknown Mamba SSU backend: '{backend.upper()}'. Valid options are: "
                                    f"{', '.join(members[-1])}")
    if key >= _SSU_ALGORITHM and values.get("mamba_ssu_algorithm") is not None \
            and str(backend or "triton").upper() != "FLASHINFER":
        raise Refusal("ValueError", "Mamba SSU algorithm selection is only supported with the FlashInfer backend. "
                                    "Please set `--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.")


# ------------------------------------------------------------------ custom histogram buckets
# vllm/v1/metrics/buckets.py BucketFamilyKey by first release (read by ObservabilityConfig, 0.32.0+)
_BUCKET_FAMILIES = (((0, 32, 0), ("request_latency", "time_to_first_token", "inter_token_latency",
                                  "iteration_tokens", "request_params_n", "request_num_preemptions",
                                  "request_tokens", "kv_cache_residency")),)


_UNPARSABLE = "Input should be a valid number, unable to parse string as a number [type=float_parsing]"


def _histogram_shape(state: State, value: Any) -> list[tuple[str, str]]:
    """pydantic's type errors for dict[str, list[float]] (after the boolean check passed)."""
    if not any(state.release.key >= first for first, _ in _BUCKET_FAMILIES) or value is None:
        return []
    loc = "custom_histogram_buckets"
    if not isinstance(value, dict):
        return [(loc, "Input should be a valid dictionary [type=dict_type]")]
    if any(isinstance(x, bool) for b in value.values() if isinstance(b, list) for x in b):
        return []
    out = []
    for family, buckets in value.items():
        if not isinstance(buckets, list):
            out.append((f"{loc}.{family}", "Input should be a valid list [type=list_type]"))
            continue
        for i, x in enumerate(buckets):
            if isinstance(x, str):
                try:
                    float(x.strip())
                except ValueError:
                    out.append((f"{loc}.{family}.{i}", _UNPARSABLE))
            elif not isinstance(x, (int, float)):
                out.append((f"{loc}.{family}.{i}", "Input should be a valid number [type=float_type]"))
    return out


def _histogram_problem(state: State, value: Any) -> str | None:
    """ObservabilityConfig's two custom_histogram_buckets validators (0.33.0 config/observability.py:
    167-214): booleans refused before pydantic coerces them, then known families, non-empty lists,
    finite positive bounds, strictly increasing. Values of another shape: not modelled."""
    families = [f for first, f in _BUCKET_FAMILIES if state.release.key >= first]
    if not families or not isinstance(value, dict):
        return None
    for family, buckets in value.items():
        if isinstance(buckets, list):
            for bound in buckets:
                if isinstance(bound, bool):
                    return f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be a number, not a boolean"
    if not all(isinstance(b, list) and all(isinstance(x, (int, float)) for x in b) for b in value.values()):
        return None
    for family, buckets in value.items():
        floats = [float(b) for b in buckets]
        if family not in families[-1]:
            return (f"custom_histogram_buckets: unknown bucket family {family!r}; known families: "
                    f"{sorted(families[-1])}")
        if not floats:
            return f"custom_histogram_buckets[{family!r}]: bucket list must not be empty"
        for bound in floats:
            if not math.isfinite(bound) or bound <= 0:
                return f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be finite and greater than 0"
        if any(a >= b for a, b in pairwise(floats)):
            return f"custom_histogram_buckets[{family!r}]: bounds {floats} must be strictly increasing"
    return None


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


_OFFLOADING_NEEDS_SIZE = ((0, 11, 1), (0, 14, 0))  # (first release, first release without)


def kv_offloading(state: State, values: dict) -> None:
    """VllmConfig._post_init_kv_transfer_config, near the end of VllmConfig.__post_init__ (0.12.0
    config/vllm.py:459-476): a KV offloading backend without a size is refused until 0.13.x;
    from 0.14.0 offloading simply stays off without a size."""
    first, until = _OFFLOADING_NEEDS_SIZE
    if first <= state.release.key < until and values.get("kv_offloading_backend") is not None \
            and values.get("kv_offloading_size") is None:
        raise _pyd("VllmConfig", "You must set kv_offloading_size when kv_offloading_backend is set.")


# ------------------------------------------------------------------ KernelConfig.set_platform_defaults
# (first release, MoE-EP megakernel backends, those checked against the model, architectures that have them)
_MOE_EP = (((0, 29, 0), ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl"), "all",
            ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel")),
           ((0, 30, 0), ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl"), "all",
            ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel", "DeepseekV41ForCausalLM")),
           ((0, 32, 0), ("flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm"),
            "flashinfer_moe_ep_mega_deep_gemm", ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel", "DeepseekV41ForCausalLM")))
_PASSTHROUGH = (0, 32, 0)  # bind_passthrough_all2all_backend (0.32.0 config/kernel.py)


def kernel_platform_defaults(state: State, values: dict) -> None:
    """KernelConfig.set_platform_defaults, inside VllmConfig.__post_init__ once the compilation mode
    is known (0.29.0; 0.33.0 config/kernel.py:451-459, config/vllm.py:1852): a FlashInfer MoE-EP
    megakernel backend needs a DeepSeek-V4 model; from 0.32.0 only the DeepGEMM one does, and
    the MoE-EP backends own their dispatch: a default all2all backend becomes `passthrough`,
    any other is refused."""
    key = state.release.key
    rows = [r for r in _MOE_EP if key >= r[0]]
    backend = values.get("moe_backend")
    if not rows or not isinstance(backend, str):
        return
    _, backends, checked, archs = rows[-1]
    facts = state.model
    raw = (facts.__dict__.get("_raw_config") or {}) if facts is not None else {}
    listed: list = raw["architectures"] if isinstance(raw.get("architectures"), list) else \
        ([facts.architecture] if facts is not None and facts.architecture else [])
    if backend in backends and (checked == "all" or backend == checked) and facts is not None \
            and not any(a in archs for a in listed):
        raise _pyd("VllmConfig", f"moe_backend={backend!r} is only supported for DeepSeek-V4 models "
                                 f"({sorted(archs)}), but the model is {list(listed)}.")
    if key < _PASSTHROUGH:
        return
    a2a = state.parallel.get("all2all_backend")
    if backend in backends:
        if a2a == "passthrough":
            return
        if a2a != "allgather_reducescatter":
            raise _pyd("VllmConfig", f"moe_backend={backend!r} dispatches and combines itself and cannot be paired "
                                     f"with all2all_backend={a2a!r}; leave --all2all-backend unset.")
        state.set("parallel.all2all_backend", "passthrough", "kernel.moe_ep_passthrough",
                  f"moe_backend={backend!r} dispatches and combines itself: all2all_backend 'passthrough'")
    elif a2a == "passthrough":
        raise _pyd("VllmConfig", f"all2all_backend={a2a!r} is only valid with a moe_backend that dispatches and "
                                 f"combines itself ({sorted(backends)}), got moe_backend={backend!r}.")


def ec_manager_post_init(cls: dict, cfg: dict) -> str | None:
    """EncoderCacheManagerConfig.__post_init__ (0.28.0; 0.33.0 config/ec_manager_config.py:20-24)."""
    if cfg.get("encoder_cache_manager_cls") is None and cfg.get("manager_config"):
        return "manager_config requires encoder_cache_manager_cls to be set."
    return None


def pooler_post_init(cls: dict, cfg: dict) -> str | None:
    """PoolerConfig.__post_init__ (0.14.0 config/pooler.py; 0.33.0 :139-150): a zero logit_sigma
    (wherever the class has the field, 0.20.0+), then pooling_type next to seq_/tok_pooling_type."""
    names = {f[0] for f in cls["fields"]}
    sigma = cfg.get("logit_sigma")
    if "logit_sigma" in names and sigma is not None and not isinstance(sigma, bool) and sigma == 0:
        return "logit_sigma cannot be 0 (division by zero)"
    if "seq_pooling_type" in names and cfg.get("pooling_type"):
        for other in ("seq_pooling_type", "tok_pooling_type"):
            if cfg.get(other) is not None:
                return f"Cannot set both `pooling_type` and `{other}`"
    return None


# ------------------------------------------------------------------ JSON options built with Cls(**value)
def json_configs(state: State, values: dict) -> None:
    """--diffusion-config (0.24.0+) and --watermark-config (0.30.0+) are plain JSON that
    create_engine_config passes as keywords (0.33.0 arg_utils.py:2182-2196, right after the
    speculative config): pydantic checks each field as for a JSON config option, a field without
    a default is `Field required`, then WatermarkConfig's model validator (philox keys fit in
    64 bits). A value that is not an object: not modelled."""
    from vllm_preflight.resolve.parser import json_options

    for dest, cls in sorted(_classes().get(state.release.version, {}).items()):
        value = values.get(dest)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                continue
        if isinstance(value, (list, int, float)):  # `Cls(**value)` (bool is an int)
            raise Refusal("TypeError", f"{_MODULES.get(cls['name'], 'vllm.config')}.{cls['name']}() argument after ** "
                                       f"must be a mapping, not {type(value).__name__}")
        if not isinstance(value, dict):
            continue
        errors: list = []
        cfg = json_options._fields(cls, value, "", errors)
        order = [f[0] for f in cls["fields"]]
        missing = [json_options._Error(name, "Field required") for name in cls.get("required", []) if name not in value]
        if missing:
            def rank(e, order: list = order) -> int:
                head = e.loc.split(".")[0]
                return order.index(head) if head in order else len(order)
            errors = sorted(errors + missing, key=rank)
        if errors:
            n = len(errors)
            body = "\n".join(f"{e.loc}\n  {e.message} [type={'missing' if e.message == 'Field required' else json_options._code(e.message)}]"
                             for e in errors)
            raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {cls['name']}\n{body}")
        key = cfg.get("key")
        if cls["name"] == "WatermarkConfig" and isinstance(key, int) and key > 2**64 - 1:
            raise _pyd("WatermarkConfig", "philox keys must fit in 64 bits")


_MODULES = {"WatermarkConfig": "vllm.config.watermarking", "DiffusionConfig": "vllm.config.diffusion"}


@lru_cache(maxsize=1)
def _classes() -> dict:
    return data_file("subconfig_fields.json").get("json_classes", {})
