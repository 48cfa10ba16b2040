"""The multimodal options (`--limit-mm-per-prompt`, `--mm-*`, `--media-io-kwargs`,
`--video-pruning-*`, `--language-model-only`) as vLLM's ModelConfig and VllmConfig check them.

Where vLLM does it (0.12.0 / 0.33.0):

1. ModelConfig's own argument validation (pydantic, before its `__post_init__`): the
   multimodal keyword arguments are typed InitVars, so `--limit-mm-per-prompt`,
   `--media-io-kwargs` and `--mm-processor-kwargs` of the wrong JSON shape are refused for
   *every* model, text-only included (config/model.py `limit_mm_per_prompt: InitVar[...]`).
2. `ModelConfig.__post_init__` builds a MultiModalConfig only when the registry says the
   architecture is multimodal (0.12.0 config/model.py:665-696, 0.33.0 :830-905); every other
   multimodal option of a text-only model is ignored. MultiModalConfig is a pydantic config
   (config/multimodal.py): field constraints (counts and sizes of `limit_per_prompt`, cache
   sizes, the pruning rate, the encoder attention backend), then its model validator (the shm
   object size only with the shm cache; FP8 scale paths from 0.21.0). Its errors reach the
   caller as ModelConfig's. Then, still in ModelConfig: the video pruning method against the
   architecture (0.27.0+) and `--renderer-num-workers` with the processor cache (0.19.0+;
   pooling runners only from 0.27.0).
3. `VllmConfig.__post_init__`: an EC producer-only instance needs a multimodal model
   (0.29.0+), `--language-model-only` with `cudagraph_mm_encoder` (0.29.0+), `torch_shm`
   tensor IPC needs spawned workers (0.19.0+), and the processor device (0.28.0+).

Three steps of the registry (resolve/path.py), at vLLM's three points: `model_arguments` (ModelConfig's
argument validation), `model_config` (its __post_init__), `vllm_config` (VllmConfig.__post_init__).

Whether an architecture is multimodal comes from the release's recorded registry
(releases/architectures.py); where it is not recorded the MultiModalConfig checks are not
run and an Assumption says so. Release-dependent lists (the encoder attention backends, the
architectures with video pruning) are data: releases/data/multimodal.json.
"""
from __future__ import annotations

import json
import math
import os
import re
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from vllm_preflight.model import Assumption
from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json, validation_error

_SHM_DEFAULT_MB = 128
_INT_TEXT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?")
_NOT_DICT = "Input should be a valid dictionary"
_NOT_INT = "Input should be a valid integer"
# the dummy-data options each modality's limit may carry (field order), and whether other keys are
# refused (extra="forbid"); any other modality takes only a count and ignores the rest
_DUMMY_FIELDS: dict[str, tuple[tuple[str, ...], bool]] = {
    "image": (("count", "width", "height"), True),
    "video": (("count", "num_frames", "width", "height"), True),
    "audio": (("count", "length"), True),
}
_TORCH_DEVICE_TYPES = ("cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                       "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "xpu", "privateuseone", "ipu")


@lru_cache(maxsize=1)
def _data() -> dict:
    return data_file("multimodal.json")


@lru_cache(maxsize=256)
def _as_of(table: str, key: tuple) -> Any:
    """The entry of the data file's {first release: value} table `table` that holds for release `key`."""
    found = None
    for since, value in sorted(_data()[table].items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))):
        if tuple(int(x) for x in since.split(".")) <= key:
            found = value
    return found


# ------------------------------------------------------------------ pydantic's lax int
def _int_problem(x: Any) -> tuple[str, str] | None:
    """pydantic's (message, error type) when `x` is validated as an int (lax mode), or None
    when it passes."""
    if isinstance(x, int):  # bool included
        return None
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return "Input should be a finite number", "finite_number"
        if x != int(x):
            return "Input should be a valid integer, got a number with a fractional part", "int_from_float"
        if not -2.0 ** 63 <= x < 2.0 ** 63:
            return "Unable to parse input string as an integer, exceeded maximum size", "int_parsing_size"
        return None
    if isinstance(x, str):
        if _INT_TEXT.fullmatch(x.strip()):
            return None
        return "Input should be a valid integer, unable to parse string as an integer", "int_parsing"
    return _NOT_INT, "int_type"


def _as_int(x: Any) -> int:
    if isinstance(x, str):
        return int(x.strip().replace("_", "").split(".")[0])
    return int(x)


Error = tuple  # (loc or None, message, pydantic error type, input value)


def _refusal(cls: str, errors: list[Error]) -> Refusal:
    """pydantic's ValidationError text: the count, then each error (`loc` line, indented message
    with its type and input); an error without a location is a validator's ValueError."""
    n = len(errors)
    lines = [f"{n} validation error{'s' if n > 1 else ''} for {cls}"]
    for loc, msg, kind, value in errors:
        if loc is not None:
            lines.append(loc)
        lines.append(f"  {msg} [type={kind}, input_value={value!r}, input_type={type(value).__name__}]")
    return Refusal("ValidationError", "\n".join(lines))


def _value_error(message: str) -> Refusal:
    """A ValueError raised inside ModelConfig's validation (its model validators, __post_init__)."""
    return Refusal("ValidationError", f"1 validation error for ModelConfig\n  Value error, {message}")


# ------------------------------------------------------------------ ModelConfig arguments
def _mm_processor_kwargs(v: dict) -> Any:
    """`--mm-processor-kwargs` is read by argparse with json.loads (optional_type): text that is
    not JSON is an argparse error."""
    value = v.get("mm_processor_kwargs")
    if not isinstance(value, str):
        return value
    if value in ("", "None"):
        return None
    try:
        return json.loads(value)
    except ValueError:
        raise Refusal("ArgumentError", f"argument --mm-processor-kwargs: Value {value} cannot be converted to "
                                       f"{json.loads!r}.") from None


def _initvar_errors(key: tuple, limit: Any, media: Any, proc: Any) -> list[Error]:
    """ModelConfig's typed InitVars, checked for every model: limit_mm_per_prompt
    (`dict[str, int]` in 0.11.0, `dict[str, int | dict[str, int]]` from 0.11.1), media_io_kwargs
    (`dict[str, dict]`), mm_processor_kwargs (`dict`)."""
    errors: list[Error] = []
    if limit is not None:
        if not isinstance(limit, dict):
            errors.append(("limit_mm_per_prompt", _NOT_DICT, "dict_type", limit))
        else:
            for k, x in limit.items():
                at = f"limit_mm_per_prompt.{k}"
                if key < (0, 11, 1):
                    problem = _int_problem(x)
                    if problem:
                        errors.append((at, problem[0], problem[1], x))
                elif isinstance(x, dict):
                    inner = [(f"{at}.dict[str,int].{kk}", p[0], p[1], xx) for kk, xx in x.items()
                             if (p := _int_problem(xx)) is not None]
                    if inner:
                        errors += [(f"{at}.int", _NOT_INT, "int_type", x)] + inner
                else:
                    problem = _int_problem(x)
                    if problem:
                        errors += [(f"{at}.int", problem[0], problem[1], x),
                                   (f"{at}.dict[str,int]", _NOT_DICT, "dict_type", x)]
    if media is not None:
        if not isinstance(media, dict):
            errors.append(("media_io_kwargs", _NOT_DICT, "dict_type", media))
        else:
            errors += [(f"media_io_kwargs.{k}", _NOT_DICT, "dict_type", x) for k, x in media.items()
                       if not isinstance(x, dict)]
    if proc is not None and not isinstance(proc, dict):
        errors.append(("mm_processor_kwargs", _NOT_DICT, "dict_type", proc))
    return errors


# ------------------------------------------------------------------ MultiModalConfig
def _limit_errors(limit: dict) -> list[Error]:
    """MultiModalConfig turns each modality's limit into its dummy-data options class; the
    first modality whose options fail ends the validator with that class's errors."""
    for modality, x in limit.items():
        opts = {"count": _as_int(x)} if not isinstance(x, dict) else {k: _as_int(y) for k, y in x.items()}
        fields, forbid = _DUMMY_FIELDS.get(modality, (("count",), False))
        errors: list[Error] = []
        for name in fields:
            if name not in opts:
                continue
            at, n = f"limit_per_prompt.{name}", opts[name]
            if name == "count" and n < 0:
                errors.append((at, "Input should be greater than or equal to 0", "greater_than_equal", n))
            elif name != "count" and n <= 0:
                errors.append((at, "Input should be greater than 0", "greater_than", n))
        if forbid:
            errors += [(f"limit_per_prompt.{k}", "Unexpected keyword argument", "unexpected_keyword_argument", n)
                       for k, n in opts.items() if k not in fields]
        if errors:
            return errors
    return []


def _backend_error(key: tuple, name: str) -> str | None:
    upper = name.upper()
    if key >= (0, 12, 0) and upper == "XFORMERS":
        return ("Value error, Attention backend 'XFORMERS' has been removed (See PR #29262 for details). "
                "Please select a supported attention backend.")
    members = _as_of("encoder_attn_backends", key) or []
    if upper not in members:
        # 0.11.x lists each member's canonical name: CUSTOM is an alias of TORCH_SDPA (both ""); 0.12.0+
        # lists the names themselves
        shown = members if key >= (0, 12, 0) else ["TORCH_SDPA" if n == "CUSTOM" else n for n in members]
        return f"Value error, Unknown attention backend: '{upper}'. Valid options are: {', '.join(shown)}"
    return None


def _multimodal_config(state: State, v: dict, facts: ModelFacts, limit: Any, cache_gb: float) -> None:
    """MultiModalConfig(...) and what ModelConfig checks right after it."""
    key = state.release.key
    if key < (0, 11, 1):  # 0.11.0's MultiModalConfig has no constraints or validators
        return
    if key >= (0, 13, 0) and facts.is_encoder_decoder:  # no processor cache for encoder-decoder models
        cache_gb = 0
    shm_mb = v.get("mm_shm_cache_max_object_size_mb", _SHM_DEFAULT_MB)
    errors: list[Error] = []
    if isinstance(limit, dict):
        errors += _limit_errors(limit)
    if not cache_gb >= 0:  # NaN fails too
        errors.append(("mm_processor_cache_gb", "Input should be greater than or equal to 0", "greater_than_equal",
                       cache_gb))
    if shm_mb < 0:
        errors.append(("mm_shm_cache_max_object_size_mb", "Input should be greater than or equal to 0",
                       "greater_than_equal", shm_mb))
    backend = v.get("mm_encoder_attn_backend")
    if isinstance(backend, str) and backend != "":  # argparse reads "" as None
        problem = _backend_error(key, backend)
        if problem:
            errors.append(("mm_encoder_attn_backend", problem, "value_error", backend))
    margin = v.get("mm_encoder_fp8_scale_save_margin")
    if key >= (0, 21, 0) and margin is not None and not margin > 0:
        errors.append(("mm_encoder_fp8_scale_save_margin", "Input should be greater than 0", "greater_than", margin))
    rate = v.get("video_pruning_rate")
    if rate is not None:
        if rate < 0:
            errors.append(("video_pruning_rate", "Input should be greater than or equal to 0", "greater_than_equal",
                           rate))
        elif not rate < 1:  # NaN fails here
            errors.append(("video_pruning_rate", "Input should be less than 1", "less_than", rate))
    ipc_gb = v.get("mm_ipc_gpu_memory_gb")
    if key >= (0, 25, 0) and ipc_gb is not None and not ipc_gb >= 0:
        errors.append(("mm_ipc_gpu_memory_gb", "Input should be greater than or equal to 0", "greater_than_equal",
                       ipc_gb))
    if errors:
        raise _refusal("ModelConfig", errors)
    # its model validator
    if v.get("mm_processor_cache_type", "lru") != "shm" and shm_mb != _SHM_DEFAULT_MB:
        raise _value_error("'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' "
                           "is 'shm'.")
    if key >= (0, 21, 0):
        _fp8_scale_paths(state, v)
    # ModelConfig.__post_init__, after MultiModalConfig
    if key >= (0, 27, 0) and rate is not None and rate > 0:
        method = v.get("video_pruning_method", "evs")
        supported = (_as_of("video_pruning_methods", key) or {}).get(facts.architecture)
        if supported and method not in supported:
            # vLLM prints the registry's tuple as it reads it back from its model-info cache
            # (JSON: a list); only the very first inspection of the class on a machine shows a tuple
            raise _value_error(f"Video pruning method '{method}' is not supported by {facts.architecture} "
                               f"(supported methods: {list(supported)!r}).")
    workers = v.get("renderer_num_workers")
    if key >= (0, 19, 0) and workers is not None and workers > 1 and cache_gb > 0:
        if key < (0, 27, 0):
            raise _value_error("Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled. "
                               "The cache is not thread-safe and does not support concurrent renderer workers. "
                               "Please set --renderer-num-workers 1 (the default), or disable the cache with "
                               "--mm-processor-cache-gb 0.")
        if state.model_cfg.get("is_pooling"):
            raise _value_error("Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled "
                               "for pooling models. Pooling preprocessing runs on the renderer workers, and the "
                               "cache is not thread-safe. Please set --renderer-num-workers 1 (the default), or "
                               "disable the cache with --mm-processor-cache-gb 0.")


def _fp8_scale_paths(state: State, v: dict) -> None:
    """0.21.0+: the FP8 scale file options need `--mm-encoder-attn-dtype fp8` and exclude each
    other; then the scale file (or the save path's folder) must exist. vLLM looks on the serving
    machine; this looks on the machine it runs on, and says so."""
    fp8 = v.get("mm_encoder_attn_dtype") == "fp8"
    path, save = v.get("mm_encoder_fp8_scale_path"), v.get("mm_encoder_fp8_scale_save_path")
    if not fp8 and (path is not None or save is not None):
        raise _value_error("'mm_encoder_fp8_scale_path' and 'mm_encoder_fp8_scale_save_path' require "
                           "'mm_encoder_attn_dtype' to be 'fp8'.")
    if path is not None and save is not None:
        raise _value_error("'mm_encoder_fp8_scale_save_path' cannot be used with 'mm_encoder_fp8_scale_path' "
                           "(saving requires dynamic scaling).")
    if path is not None:
        if not os.path.isfile(path):
            raise Refusal("FileNotFoundError", f"FP8 scale file not found: {PurePath(path)}")
        state.assumptions.append(Assumption("node.mm_encoder_fp8_scale_path", path,
                                            "looked up on this machine: vLLM refuses to start (FileNotFoundError) "
                                            "if the serving machine does not have it"))
    if save is not None:
        parent = PurePath(save).parent
        if not os.path.isdir(parent):
            raise Refusal("FileNotFoundError", f"Parent directory for FP8 scale save path not found: {parent}")
        state.assumptions.append(Assumption("node.mm_encoder_fp8_scale_save_path", save,
                                            "its folder was looked up on this machine: vLLM refuses to start "
                                            "(FileNotFoundError) if the serving machine does not have it"))


def _is_multimodal(state: State, facts: ModelFacts, v: dict) -> bool | None:
    """The registry's answer for the model's architecture, None where it is not recorded."""
    from vllm_preflight.releases.architectures import arch_support

    if (v.get("model_impl") or "auto") not in ("auto", "vllm"):  # the Transformers/Terratorch backends
        return None
    support = arch_support(state.release.version, facts.architecture)
    if support is None or not support.registered:
        return None
    return support.is_multimodal


def _cache_gb(state: State, v: dict, log: bool = True) -> float:
    """The processor cache size create_model_config passes (0.11.x-0.12.x: the deprecated
    `--disable-mm-preprocessor-cache` and VLLM_MM_INPUT_CACHE_GIB, read for every model)."""
    cache_gb = v.get("mm_processor_cache_gb", 4)
    if state.release.key >= (0, 13, 0):
        return cache_gb
    if v.get("disable_mm_preprocessor_cache"):
        if log:
            state.log("warning", "`--disable-mm-preprocessor-cache` is deprecated and will be removed in v0.13. "
                                 "Please use `--mm-processor-cache-gb 0` instead.", once=True)
        return 0
    text = state.env.get("VLLM_MM_INPUT_CACHE_GIB")
    if text is None:
        return cache_gb
    try:
        env_gb = int(text)
    except ValueError:
        raise Refusal("ValueError", f"invalid literal for int() with base 10: {text!r}") from None
    if env_gb == 4:
        return cache_gb
    if log:
            state.log("warning", f"VLLM_MM_INPUT_CACHE_GIB` is deprecated and will be removed in v0.13. Please use "
                             f"`--mm-processor-cache-gb {env_gb}` instead.", once=True)
    return env_gb


@reads("disable_mm_preprocessor_cache", "limit_mm_per_prompt", "media_io_kwargs", "mm_processor_cache_gb", "mm_processor_kwargs", env=("VLLM_MM_INPUT_CACHE_GIB",))
def model_arguments(state: State, v: dict) -> None:
    """ModelConfig's validation of its typed multimodal arguments, for every model, before its
    __post_init__ runs (EngineArgs.create_model_config reads the deprecated cache spellings first)."""
    _cache_gb(state, v)
    errors = _initvar_errors(state.release.key, v.get("limit_mm_per_prompt"), v.get("media_io_kwargs"),
                             _mm_processor_kwargs(v))
    if errors:
        raise _refusal("ModelConfig", errors)


@reads(always=True)
def model_config(state: State, v: dict) -> None:
    """ModelConfig.__post_init__'s multimodal part: MultiModalConfig for a multimodal architecture,
    then the checks that follow it."""
    facts = state.facts
    mm = _is_multimodal(state, facts, v)
    state.model_cfg["is_multimodal"] = mm
    if mm is None:
        if any(k in v for k in _MM_DESTS):
            state.assumptions.append(Assumption(
                "model.is_multimodal", None,
                f"not checked: whether `{facts.architecture}` is multimodal in vLLM {state.release.version} is not "
                f"recorded (or --model-impl picks another class); the multimodal options' own checks "
                f"(MultiModalConfig) were not run"))
        return
    if mm:
        _multimodal_config(state, v, facts, v.get("limit_mm_per_prompt"), _cache_gb(state, v, log=False))


_MM_DESTS = ("limit_mm_per_prompt", "media_io_kwargs", "mm_processor_kwargs", "mm_processor_cache_gb",
             "mm_processor_cache_type", "mm_shm_cache_max_object_size_mb", "mm_encoder_attn_backend",
             "mm_encoder_tp_mode", "video_pruning_rate", "video_pruning_method", "mm_encoder_attn_dtype",
             "mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path", "mm_encoder_fp8_scale_save_margin",
             "mm_ipc_gpu_memory_gb", "renderer_num_workers", "mm_tensor_ipc", "language_model_only",
             "mm_processor_device", "disable_mm_preprocessor_cache")


# ------------------------------------------------------------------ VllmConfig.__post_init__
def _device_type(device: Any) -> str | None:
    """torch.device(device).type, or None when torch would refuse it."""
    if isinstance(device, bool):
        return None
    if isinstance(device, int):
        return "cuda" if device >= 0 else None
    if not isinstance(device, str):
        return None
    m = re.fullmatch(r"([a-z_]+)(?::(\d+))?", device)
    if m is None or m.group(1) not in _TORCH_DEVICE_TYPES:
        return None
    return m.group(1)


def _ec_encode_only(v: dict) -> bool:
    ec = option_json(v, "ec_transfer_config")
    if not isinstance(ec, dict) or ec.get("ec_connector") is None:
        return False
    return ec.get("ec_role") == "ec_producer"


@reads("ec_transfer_config", "language_model_only", "mm_processor_device", "mm_processor_kwargs", "mm_tensor_ipc", env=("VLLM_WORKER_MULTIPROC_METHOD",), model=("multimodal",))
def vllm_config(state: State, v: dict) -> None:
    """VllmConfig.__post_init__'s multimodal checks."""
    key = state.release.key
    mm = state.model_cfg.get("is_multimodal")
    if key >= (0, 29, 0) and _ec_encode_only(v) and mm is False:
        raise validation_error("An EC producer-only instance requires a multimodal model.")
    if not mm:
        return
    if key >= (0, 29, 0) and v.get("language_model_only") and state.cc.get("cudagraph_mm_encoder"):
        raise validation_error("--language-model-only is incompatible with cudagraph_mm_encoder=True, since it "
                               "disables all multimodal inputs and the multimodal encoder is never run. Please "
                               "disable one of them.")
    if key >= (0, 19, 0) and v.get("mm_tensor_ipc") == "torch_shm" and \
            state.env.get("VLLM_WORKER_MULTIPROC_METHOD") != "spawn":
        raise validation_error("torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn")
    if key >= (0, 28, 0):
        _processor_device(state, v)


def _processor_device(state: State, v: dict) -> None:
    """0.28.0+: `--mm-processor-device` folds into mm_processor_kwargs["device"]; a device torch
    does not know is refused, and the accelerator only on an encode-only (EC producer) instance."""
    kwargs = _mm_processor_kwargs(v) or {}
    flag = v.get("mm_processor_device")
    device = kwargs.get("device")
    if device is None and flag not in (None, "auto"):
        device = "cpu" if flag == "cpu" else "cuda"
    if device is None:
        return
    kind = _device_type(device)
    if kind is None:
        raise validation_error(f'Invalid "device" in mm_processor_kwargs: {device!r}. Expected a torch device such '
                               f'as "cpu", "cuda" or "cuda:0".')
    if kind == "cuda" and not _ec_encode_only(v):
        raise validation_error(
            f"Cannot run the multi-modal processor on {kind!r}: this instance also runs the language model. The "
            "processor would share the device with the model's forward pass, so its transform kernels contend "
            "with that compute, and because it runs in the API-server process its allocations are outside the "
            "memory the engine profiled for its KV cache -- risking OOM or a silently shrunken cache.\n"
            "Accelerator preprocessing is only supported on an encode-only instance of an encode/prefill/decode "
            "deployment (an EC producer that is not also a consumer), which runs no forward pass and allocates no "
            "KV cache.\n"
            'Use --mm-processor-device=cpu, or drop "device" from --mm-processor-kwargs.')
