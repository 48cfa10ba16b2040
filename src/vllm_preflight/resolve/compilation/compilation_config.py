"""Building a release's CompilationConfig (and its PassConfig) from what the user wrote.

This is what happens when `--compilation-config`/`-cc` JSON is validated: field names of
that release (unknown keys ignored until 0.12.0, rejected from 0.13.0), enum parsing of
`mode`/`level` and `cudagraph_mode`, deprecated PassConfig names (mapped on 0.12.0),
custom-op syntax and the piecewise backend check. Errors raised here reach the caller as
argparse errors when the config came from the command line.
"""
from __future__ import annotations

from typing import Any

from vllm_preflight.resolve.base.modes import COMPILATION_MODES, CUDAGRAPH_INT, CUDAGRAPH_VALUES
from vllm_preflight.resolve.base.pydantic import _FALSE as _BOOL_FALSE
from vllm_preflight.resolve.base.pydantic import _TRUE as _BOOL_TRUE
from vllm_preflight.resolve.base.pydantic import ConfigInvalid, _int, _int_list, _str_list
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.compilation.field_types import check_field, declared
from vllm_preflight.resolve.engine.env_choices import choice_error

# 0.12.0 keeps the pre-0.12 PassConfig names as deprecated aliases.
DEPRECATED_PASS_NAMES = {
    "enable_fusion": ["fuse_norm_quant", "fuse_act_quant"],
    "enable_attn_fusion": ["fuse_attn_quant"],
    "enable_sequence_parallelism": ["enable_sp"],
    "enable_async_tp": ["fuse_gemm_comms"],
    "enable_fi_allreduce_fusion": ["fuse_allreduce_rms"],
    "enable_noop": ["eliminate_noops"],
}


def _bool(value: Any, where: str) -> bool:
    """pydantic's lax bool from JSON: 0/1 (also 0.0/1.0) and its word list, case-insensitive,
    not stripped (tests/unit/test_coercions.py holds pydantic itself as the oracle)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _BOOL_TRUE | _BOOL_FALSE:
        return value.lower() in _BOOL_TRUE
    if isinstance(value, (str, int)) or (isinstance(value, float) and value.is_integer()):
        raise ConfigInvalid(f"{where}: Input should be a valid boolean, unable to interpret input")
    raise ConfigInvalid(f"{where}: Input should be a valid boolean")


def parse_cudagraph_mode(value: Any, release) -> str:
    if isinstance(value, str):
        name = value.upper()
        if name not in CUDAGRAPH_VALUES:
            # vLLM looks the name up with CUDAGraphMode[...]: a KeyError that pydantic
            # does not wrap, so it escapes argparse and vLLM itself
            raise ConfigInvalid(repr(name), release.cudagraph_mode_bad_name_error)
        return name
    if isinstance(value, float) and value.is_integer():  # lax mode: an integral number is the int
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in CUDAGRAPH_INT:
        return CUDAGRAPH_INT[value]
    raise ConfigInvalid(f"cudagraph_mode: Input should be 0, 1 or 2 [input_value={value!r}]")


def parse_mode(value: Any, release, field_name: str) -> str:
    if isinstance(value, str) and release.mode_accepts_names and field_name == "mode":
        name = value.upper()
        if name not in COMPILATION_MODES:
            raise ConfigInvalid(  # the field's before-validator: pydantic names the field
                f"mode: Value error, Invalid compilation mode: {value}. Valid modes are: {', '.join(COMPILATION_MODES)}")
        return name
    try:
        n = _int(value, field_name)
    except ConfigInvalid:
        if field_name == "mode":  # an IntEnum field: pydantic names the members
            raise ConfigInvalid("mode: Input should be 0, 1, 2 or 3") from None
        raise
    if not 0 <= n <= 3:
        raise ConfigInvalid(f"{field_name}: Input should be 0, 1, 2 or 3")
    return COMPILATION_MODES[n]


def _pass_config(raw: Any, release, state: State) -> dict:
    fields = release.facts["pass_config_fields"]
    out = {k: fields[k] for k in release.facts["pass_config_order"]}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigInvalid("pass_config: Input should be a dictionary or an instance of PassConfig")
    unexpected = [ConfigInvalid(f"pass_config.{key}: Unexpected keyword argument")
                  for key in raw if key not in fields and release.config_extra == "forbid"]
    if unexpected:  # pydantic reports every unknown key at once
        unexpected[0].others = unexpected[1:]
        raise unexpected[0]
    errors: list[ConfigInvalid] = []
    for key, value in raw.items():
        if key not in fields:
            continue
        default = fields[key]
        if declared(release.version, "PassConfig").get(key):  # the release's declared type
            try:
                out[key] = check_field(release.version, "PassConfig", key, value, f"pass_config.{key}")
            except ConfigInvalid as e:
                errors += [e] + list(e.others)
        elif value is None:
            out[key] = None
        elif isinstance(default, bool) or default is None and key.startswith(("fuse_", "enable_", "eliminate_")):
            out[key] = _bool(value, f"pass_config.{key}")
        elif isinstance(default, int) and not isinstance(default, bool):
            out[key] = _int(value, f"pass_config.{key}")
        else:
            out[key] = value
        state.cc_given.add("pass_config." + key)
    if errors:  # pydantic reports every field's error at once
        errors[0].others = errors[1:]
        raise errors[0]
    if release.pass_config_deprecated_names:
        for old, new in DEPRECATED_PASS_NAMES.items():
            if old in out and out[old] is not None:
                for n in new:
                    out[n] = out[old]
                    state.cc_given.add("pass_config." + n)
                news = ", ".join(new)
                state.log("warning", f"{old} is deprecated and will be removed in v0.13.0 or "
                          f"v1.0.0, whichever is sooner. Use {news} instead.")
            if old in out:
                out[old] = None
    noop_field, warnings = release.pass_config_noop_warnings or (None, ())
    if noop_field and not out.get(noop_field):
        # PassConfig.__post_init__ runs before the -O defaults fill the no-op elimination flag
        for fields_on, message in warnings:
            if any(out.get(f) for f in fields_on):
                state.log("warning", message, once=True)
    # PassConfig.__post_init__ switches ROCm-only passes off on CUDA (wherever the field exists)
    for field_name, message in ROCM_ONLY_PASSES:
        if out.get(field_name) and field_name in release.facts["pass_config_fields"]:
            state.log("warning", message, once=True)
            out[field_name] = False
    return out


ROCM_ONLY_PASSES = (  # (PassConfig field, vLLM's warning), in PassConfig.__post_init__'s order (0.33.0)
    ("fuse_act_padding", "Padding fusion enabled but the current platform is not ROCm. The fusion will be disabled."),
    ("fuse_mla_dual_rms_norm", "MLA dual RMS norm fusion requires ROCm/AITER. The fusion will be disabled."),
    ("fuse_rope_kvcache", "KV cache fusion currently only enabled on ROCm. The fusion will be disabled."),
    ("fuse_qk_norm_rope_kvcache", "QK-Norm+RoPE+KVCache fusion requires ROCm with AITER. The fusion will be disabled."),
)


def _field(key: str, value: Any, release) -> Any:
    if value is None:  # null where the declared type takes none (and no wrap validator skips it) is refused
        check_field(release.version, "CompilationConfig", key, value, key)
    if key in ("mode", "level"):
        return None if value is None else parse_mode(value, release, key)
    if key == "cudagraph_mode":
        return None if value is None else parse_cudagraph_mode(value, release)
    if key == "custom_ops" or (key in ("splitting_ops", "cudagraph_capture_sizes") and value is not None):
        value = check_field(release.version, "CompilationConfig", key, value, key)  # the declared list type first
    if key == "splitting_ops":
        return None if value is None else _str_list(value, key)
    if key == "custom_ops":
        return _str_list(value, key)
    if key in ("use_inductor_graph_partition", "use_cudagraph", "full_cuda_graph"):
        return None if value is None else _bool(value, key)
    if key == "cudagraph_capture_sizes":
        return None if value is None else _int_list(value, key)
    if key == "max_cudagraph_capture_size":
        return None if value is None else _int(value, key)
    if key == "backend" and not isinstance(value, str):
        raise ConfigInvalid("backend: Input should be a valid string")
    return check_field(release.version, "CompilationConfig", key, value, key)  # the release's declared type


def build(raw: dict | None, release, state: State) -> None:
    """Fill state.cc / state.pass_config from a user dict (None: all defaults)."""
    fields = set(release.facts["compilation_fields"])
    defaults = release.facts["compilation_defaults"]
    cc: dict[str, Any] = {
        "mode": None, "level": None, "cudagraph_mode": None, "splitting_ops": None,
        "use_inductor_graph_partition": defaults.get("use_inductor_graph_partition"),
        "custom_ops": [], "backend": "", "cudagraph_capture_sizes": None,
        "max_cudagraph_capture_size": None, "use_cudagraph": True, "full_cuda_graph": False,
    }
    if raw is not None and not isinstance(raw, dict):
        raise ConfigInvalid("compilation_config: Input should be an object")
    raw = dict(raw or {})
    given = set()
    pass_raw = raw.pop("pass_config", None)
    errors: list[ConfigInvalid] = []  # pydantic validates every field, then reports
    for key, value in raw.items():
        if key not in fields:
            if release.config_extra == "forbid":
                errors.append(ConfigInvalid(f"{key}: Unexpected keyword argument"))
            continue
        given.add(key)
        try:
            cc[key] = _field(key, value, release)
        except ConfigInvalid as e:
            if e.exc_type != "ValidationError":
                raise  # not a validation error: it escapes pydantic at once
            errors += [e] + list(e.others)
    try:
        state.pass_config = _pass_config(pass_raw, release, state)
    except ConfigInvalid as e:
        errors += [e] + list(e.others)
    if errors:
        errors[0].others = errors[1:]
        raise errors[0]
    state.cc_given |= given
    state.cc = cc
    _post_init(release, state)


def _post_init(release, state: State) -> None:
    """CompilationConfig.__post_init__: the parts that matter for our outputs."""
    cc = state.cc
    if release.mode_field == "level":  # 0.11.0
        if not cc.get("use_cudagraph", True):
            state.log("warning", "use_cudagraph is deprecated, use cudagraph_mode=NONE instead.")
            if cc["cudagraph_mode"] is not None:
                raise ConfigInvalid("use_cudagraph and cudagraph_mode are mutually exclusive, "
                                    "prefer cudagraph_mode since use_cudagraph is deprecated.")
            cc["cudagraph_mode"] = "NONE"
        if cc.get("full_cuda_graph"):
            state.log("warning", "full_cuda_graph is deprecated, use cudagraph_mode=FULL instead.")
            if cc["cudagraph_mode"] is not None:
                raise ConfigInvalid("full_cuda_graph and cudagraph_mode are mutually exclusive, "
                                    "prefer cudagraph_mode since full_cuda_graph is deprecated.")
            cc["cudagraph_mode"] = "FULL"
    elif cc.get("level") is not None and release.has_level_alias:
        state.log("warning", "Level is deprecated and will be removed in the next release,either 0.12.0 "
                  "or 0.11.2 whichever is soonest.Use mode instead.If both level and mode are given,"
                  "only mode will be used.")
        if cc["mode"] is None:
            cc["mode"] = cc["level"]
    ops = cc["custom_ops"]
    if release.rules.get("custom_ops_conflicts", False):  # 0.33.0: syntax, one base mode, no +x with -x
        for op in ops:
            if op not in ("all", "none") and (len(op) < 2 or op[0] not in "+-"):
                raise ConfigInvalid(f"Invalid syntax '{op}' for custom op, must be 'all', 'none', "
                                    "'+op' or '-op' (where 'op' is the registered op name)")
        if sum(op in ("all", "none") for op in ops) > 1:
            raise ConfigInvalid("custom_ops can contain only one base mode: 'all' or 'none'")
        both = sorted({op[1:] for op in ops if op[:1] == "+"} & {op[1:] for op in ops if op[:1] == "-"})
        if both:
            raise ConfigInvalid("custom_ops cannot both enable and disable the same operation(s): "
                                f"{', '.join(both)}. Remove either the '+' or '-' directive")
    if ops.count("none") + ops.count("all") > 1:
        raise ConfigInvalid("Can only specify 'none' or 'all'", "ValidationError", "Assertion failed")
    if state.pass_config.get("enable_qk_norm_rope_fusion"):
        ops.append("+rotary_embedding")
    for op in ops:
        if op[:1] not in ("+", "-") and op not in ("all", "none"):
            raise ConfigInvalid(f"Invalid syntax '{op}' for custom op, must be 'all', 'none', "
                                "'+op' or '-op' (where 'op' is the registered op name)")
    if cc.get("use_inductor_graph_partition") and not release.torch_has_inductor_partition:
        # the torch this release pins (0.11.0: 2.8) predates inductor graph partition
        raise ConfigInvalid("use_inductor_graph_partition is only supported with torch>=2.9.0.dev. Set "
                            "use_inductor_graph_partition=False instead.")
    mode = cc["mode"] if release.mode_field == "mode" else cc["level"]
    if release.check_piecewise_backend and mode == "VLLM_COMPILE" and cc["backend"] not in ("", "eager", "inductor"):
        raise ConfigInvalid(f"Invalid backend for piecewise compilation: {cc['backend']}")
    if cc["backend"] == "":
        cc["backend"] = "inductor"


def refusal_from(e: ConfigInvalid, via_cli: bool, option: str = "--compilation-config") -> Refusal:
    """Where the config came from decides what the caller sees: argparse's type check wraps
    pydantic's message in "argument OPTION: ..."."""
    if e.exc_type != "ValidationError":
        return Refusal(e.exc_type, str(e))
    if via_cli:
        return Refusal("ArgumentError", f"argument {option}: {e.pydantic_text()}")
    return Refusal("ValidationError", e.pydantic_text())


# a release's default CompilationConfig and PassConfig (they read nothing of a deployment): built once
_DEFAULTS: dict[str, tuple[dict, dict]] = {}


@reads(always=True)
def default_config(state: State, values: dict) -> None:
    """No --compilation-config given: the release's CompilationConfig defaults (a given one was
    built as the parser read it)."""
    if state.cc:
        return
    hit = _DEFAULTS.get(state.release.label)
    if hit is None:
        scratch = State(release=state.release, gpu=state.gpu, env={}, model=None)
        build(None, state.release, scratch)
        hit = (scratch.cc, scratch.pass_config)
        if scratch.logs or scratch.events or scratch.cc_given:  # nothing to share: build it every time
            build(None, state.release, state)
            return
        _DEFAULTS[state.release.label] = hit
    cc, pass_config = hit
    state.cc = {**cc, "custom_ops": list(cc["custom_ops"])}
    state.pass_config = dict(pass_config)


_SAVE_FORMAT_ENV = (0, 12, 0)  # CompilationConfig.compile_cache_save_format's default (0.12.0 compilation.py:425)


@reads(env=("VLLM_COMPILE_CACHE_SAVE_FORMAT",))
def compile_cache_save_format_env(state: State, values: dict) -> None:
    """CompilationConfig's default compile_cache_save_format is VLLM_COMPILE_CACHE_SAVE_FORMAT read
    through vLLM's choice-checking reader (0.12.0+). vLLM builds the default CompilationConfig while
    it builds its parser, so a value it does not accept is a plain ValueError before any option is
    read (resolve/engine/env_choices.py)."""
    if state.release.key < _SAVE_FORMAT_ENV:
        return
    problem = choice_error(state, "VLLM_COMPILE_CACHE_SAVE_FORMAT")
    if problem:
        raise Refusal("ValueError", problem)
