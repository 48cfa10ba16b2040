"""The JSON config options that vLLM's parser validates with pydantic (issue 9).

For an option whose type is a config class (`--eplb-config`, `--kv-events-config`,
`--ec-transfer-config`, `--attention-config`, `--kernel-config`, `--profiler-config`, ...)
vLLM's argparse type is `TypeAdapter(cls).validate_json(text)`, and a failure becomes
`argument OPTION: <the ValidationError>`. pydantic validates every field in declaration
order (types in its lax JSON mode, `Field` bounds, literals), reports unknown keys after them
where the class forbids extra keys, and runs the class's own validators only when the fields
passed. The classes' fields are data per release (releases/data/json_options.json, written by
tools/extract_json_options.py from each release's sources); a type the data marks "any" and
a field with its own field validator are not checked. The model validators that refuse are
ported below by first release.
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.config_classes import _data, class_of
from vllm_preflight.resolve.base.pydantic import lax_bool as _bool
from vllm_preflight.resolve.base.pydantic import lax_float as _float
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.compilation.compilation_config import ConfigInvalid, _int
from vllm_preflight.resolve.config.attention import attention_post_init, backend_per_kind_errors
from vllm_preflight.resolve.config.encoder_cache import ec_manager_post_init
from vllm_preflight.resolve.config.pooler import pooler_post_init


class _Error(Exception):
    def __init__(self, loc: str, message: str):
        super().__init__(message)
        self.loc = loc
        self.message = message


def _shown(value: Any) -> str:
    return repr(value)


def _literal_text(values: list) -> str:
    shown = [_shown(v) for v in values]
    if len(shown) == 1:
        return f"Input should be {shown[0]}"
    return "Input should be " + ", ".join(shown[:-1]) + f" or {shown[-1]}"


def _literal(values: list, value: Any) -> Any:
    for v in values:
        if type(v) is type(value) and v == value:
            return v
    for v in values:  # lax: an integral float or 0/1 for a bool-free int literal
        if isinstance(v, int) and not isinstance(v, bool) and isinstance(value, float) and value == v:
            return v
        if isinstance(v, bool) and isinstance(value, int) and not isinstance(value, bool) and value == v:
            return v
    raise ValueError(_literal_text(values))


def _bounds(value: Any, bounds: dict) -> None:
    if not bounds or not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    if "gt" in bounds and not value > bounds["gt"]:
        raise ValueError(f"Input should be greater than {bounds['gt']}")
    if "ge" in bounds and not value >= bounds["ge"]:
        raise ValueError(f"Input should be greater than or equal to {bounds['ge']}")
    if "lt" in bounds and not value < bounds["lt"]:
        raise ValueError(f"Input should be less than {bounds['lt']}")
    if "le" in bounds and not value <= bounds["le"]:
        raise ValueError(f"Input should be less than or equal to {bounds['le']}")


def _sized(value: Any, bounds: dict, what: str) -> None:
    n = len(value)
    lo, hi = bounds.get("min_length"), bounds.get("max_length")
    if lo is not None and n < lo:
        raise ValueError(f"{what} should have at least {lo} item{'s' if lo != 1 else ''} after validation, not {n}")
    if hi is not None and n > hi:
        raise ValueError(f"{what} should have at most {hi} item{'s' if hi != 1 else ''} after validation, not {n}")


def _value(typ: Any, value: Any, loc: str, errors: list[_Error], bounds: dict | None = None) -> Any:
    """Validate one value; appends its errors (pydantic reports all) and returns the value."""
    bounds = bounds or {}
    try:
        if typ == "any":
            return value
        if isinstance(typ, dict) and "opt" in typ:
            return None if value is None else _value(typ["opt"], value, loc, errors, bounds)
        if typ == "int":
            try:
                out: Any = _int(value, loc)
            except ConfigInvalid as e:
                raise ValueError(str(e).split(": ", 1)[1]) from None
            _bounds(out, bounds)
            return out
        if typ == "float":
            out = _float(value)
            if not math.isnan(out):
                _bounds(out, bounds)
            return out
        if typ == "bool":
            return _bool(value)
        if typ == "str":
            if not isinstance(value, str):
                raise ValueError("Input should be a valid string")
            return value
        if "lit" in typ:
            return _literal(typ["lit"], value)
        if "union" in typ:  # literals (or str): the first that matches, else one error per member
            failed = []
            for member in typ["union"]:
                if member == "str":  # Literal[...] | str: pydantic's smart mode takes any string
                    if isinstance(value, str):
                        return value
                    failed.append(_Error(f"{loc}.str", "Input should be a valid string"))
                    continue
                try:
                    return _literal(member["lit"], value)
                except ValueError as e:
                    tag = "literal[" + ",".join(_shown(x) for x in member["lit"]) + "]"
                    failed.append(_Error(f"{loc}.{tag}", str(e)))
            errors.extend(failed)
            return value
        if "list" in typ:
            if not isinstance(value, list):
                raise ValueError("Input should be a valid array")
            items = [_value(typ["list"], v, f"{loc}.{i}", errors) for i, v in enumerate(value)]
            _sized(items, bounds, "List")
            return items
        if "dict" in typ:
            if not isinstance(value, dict):
                raise ValueError("Input should be an object")
            out = {k: _value(typ["dict"], v, f"{loc}.{k}", errors) for k, v in value.items()}
            _sized(out, bounds, "Dictionary")
            return out
        if "cls" in typ:
            cls = _data()["classes"][typ["cls"]]
            return _fields(cls, value, f"{loc}.", errors)
    except ValueError as e:
        errors.append(_Error(loc, str(e)))
    return value


def _fields(cls: dict, raw: Any, prefix: str, errors: list[_Error]) -> dict:
    if not isinstance(raw, dict):
        raise ValueError("Input should be an object")  # noqa: TRY004 -- pydantic's validation error, not a TypeError
    out: dict = {}
    known = set()
    for name, typ, bounds, custom in cls["fields"]:
        known.add(name)
        if name not in raw:
            continue
        value = raw[name]
        if custom == "norm" and isinstance(value, str):  # its `before` validator: lower-case, dashes to underscores
            value = value.lower().replace("-", "_")
        if isinstance(custom, dict):  # an enum looked up by name (AttentionConfig's backends)
            out[name] = _enum_by_name(custom, value, prefix + name, errors)
        elif custom is True and cls["name"] == "IrOpPriorityConfig":
            out[name] = _ir_op_list(value, prefix + name, errors)
        elif custom is True and name == "backend_per_kind" and _STATE:  # AttentionConfig's (config/attention.py)
            enum = next((f[3] for f in cls["fields"] if f[0] == "backend"), None)
            errors += [_Error(prefix + name + at, problem) for at, problem in backend_per_kind_errors(
                _STATE[-1], value, enum if isinstance(enum, dict) else None)]
            out[name] = value
        elif custom is True or (custom == "none_ok" and value is None):
            out[name] = value  # its own validator: not modelled (or, wrapped, None passes)
        else:
            out[name] = _value(typ, value, prefix + name, errors, bounds)
    if cls["extra"] == "forbid":
        errors += [_Error(prefix + k, "Unexpected keyword argument") for k in raw if k not in known]
    return out


_CODES = (("Unexpected keyword", "unexpected_keyword_argument"), ("Assertion failed", "assertion_error"), ("Value error", "value_error"), ("Input should be greater than or equal", "greater_than_equal"),
          ("Input should be greater than", "greater_than"), ("Input should be less than or equal", "less_than_equal"),
          ("Input should be less than", "less_than"), ("Input should be a valid integer, unable", "int_parsing"),
          ("Input should be a valid integer, got", "int_from_float"), ("Input should be a valid integer", "int_type"),
          ("Input should be a valid number, unable", "float_parsing"), ("Input should be a valid number", "float_type"),
          ("Input should be a valid boolean, unable", "bool_parsing"), ("Input should be a valid boolean", "bool_type"),
          ("Input should be a valid string", "string_type"), ("Input should be a valid array", "list_type"),
          ("Input should be an object", "dict_type"), ("List should have at least", "too_short"),
          ("Dictionary should have at least", "too_short"), ("List should have at most", "too_long"),
          ("Dictionary should have at most", "too_long"))


def _code(message: str) -> str:
    """pydantic's error code, printed after each error (the comparison reads up to the first)."""
    return next((code for prefix, code in _CODES if message.startswith(prefix)), "literal_error")


class NotIterable(Exception):
    """A TypeError out of a field validator: pydantic lets it through, argparse words it."""


def _ir_op_list(value: Any, loc: str, errors: list[_Error]) -> Any:
    """IrOpPriorityConfig's `*` before-validator (0.20.0 config/kernel.py:58, 0.33.0 :66-73): a string is
    split at commas (spaces dropped), then every item must be a string (a bare assert)."""
    if isinstance(value, str):
        return value.replace(" ", "").split(",")
    if not isinstance(value, (list, dict)):
        raise NotIterable(loc)
    if not all(isinstance(v, str) for v in value):
        errors.append(_Error(loc, "Assertion failed, "))
        return value
    if isinstance(value, dict):
        errors.append(_Error(loc, "Input should be a valid array"))
    return value


def _enum_by_name(enum: dict, value: Any, loc: str, errors: list[_Error]) -> Any:
    """A string is an enum member's name (upper-cased; "auto" is None where the validator says
    so); anything else but None goes to pydantic's enum check by value."""
    if value is None:
        return None
    if isinstance(value, str):
        if enum["auto"] and value.lower() == "auto":
            return None
        if value.upper() in enum["enum_names"]:
            return value.upper()
        errors.append(_Error(loc, f"Value error, Unknown {enum['what']}: '{value.upper()}'. Valid options are: "
                                  f"{', '.join(enum['enum_names'])}"))
        return value
    if value not in enum["enum_values"]:
        errors.append(_Error(loc, _literal_text(enum["enum_values"])))
    return value


# ------------------------------------------------------------------ class validators
def _eplb_after(cls: dict, cfg: dict) -> str | None:
    """EPLBConfig's model validator (0.14.0; the communicator check from 0.24.0: present
    wherever the class has the field)."""
    names = {f[0] for f in cls["fields"]}
    use_async = cfg.get("use_async", False)
    if use_async and cfg.get("policy", "default") != "default":
        return "Async EPLB is only supported with the default policy."
    if "communicator" in names and use_async and cfg.get("communicator") in ("torch_nccl", "pynccl"):
        return (f"{cfg['communicator']} communicator is incompatible with async EPLB due to NCCL multi-stream "
                "conflicts. Use 'torch_gloo' or 'nixl' instead, or leave communicator unset for automatic "
                "selection.")
    if cfg.get("log_balancedness") and cfg.get("log_balancedness_interval", 1) <= 0:
        return "log_balancedness_interval must be greater than 0."
    return None


def _with_defaults(cls: dict, cfg: dict) -> dict:
    return {**cls.get("defaults", {}), **cfg}


def _engram_after(cls: dict, cfg: dict) -> str | None:
    """EngramConfig's model validator (0.30.0; the use_thp check with that field, 0.31.0)."""
    if cfg.get("dp_shared_memory") and not cfg.get("cpu_offload", True):
        return "dp_shared_memory requires cpu_offload=True"
    if cfg.get("use_thp") and (not cfg.get("cpu_offload", True) or cfg.get("dp_shared_memory")):
        return "use_thp requires cpu_offload=True and dp_shared_memory=False"
    return None


def _structured_outputs_after(cls: dict, cfg: dict) -> str | None:
    """StructuredOutputsConfig's backend-specific options (0.11.0 __post_init__, a model validator
    from 0.11.1; 0.33.0 config/structured_outputs.py:66). 0.11.x-0.17.x first check the reasoning
    parser against the registered ones: not modelled."""
    backend = cfg.get("backend", "auto")
    if _truthy(cfg.get("disable_any_whitespace")) and backend not in ("xgrammar", "guidance"):
        return "disable_any_whitespace is only supported for xgrammar and guidance backends."
    if _truthy(cfg.get("disable_additional_properties")) and backend != "guidance":
        return "disable_additional_properties is only supported for the guidance backend."
    return None


def _truthy(value: Any) -> bool:
    try:
        return _bool(value)
    except ValueError:
        return bool(value)


def _ec_transfer_post_init(cls: dict, cfg: dict) -> str | None:
    """ECTransferConfig.__post_init__ (0.12.0 config/ec_transfer.py:91, 0.33.0 :90): a connector
    needs a role; the roles as Python prints the Literal's arguments."""
    if cfg.get("ec_connector") is not None and cfg.get("ec_role") is None:
        typ = next((f[1] for f in cls["fields"] if f[0] == "ec_role"), None)
        inner = typ.get("opt", typ) if isinstance(typ, dict) else None
        if isinstance(inner, dict) and "lit" in inner:
            return f"Please specify ec_role when ec_connector is set, supported roles are {tuple(inner['lit'])}"
    return None


def _is_uri(path: str) -> bool:
    return "://" in path and len(path.split("://")[0]) > 1


def _profiler_after(cls: dict, cfg: dict) -> str | None:
    """ProfilerConfig's model validator (0.13.0 config/profiler.py:125; 0.33.0 :215-307). Each check
    exists wherever the class has its field: the proton options (0.28.0), proton_graph_attribution
    (0.30.0), torch_profiler_activities (0.31.0), capture_torch_profiler (0.26.0). 0.13.0-0.15.x
    first take the profiler from VLLM_TORCH_CUDA_PROFILE / VLLM_TORCH_PROFILER_DIR: not modelled."""
    names = {f[0] for f in cls["fields"]}
    profiler = cfg.get("profiler")
    activities = cfg.get("torch_profiler_activities")
    if "torch_profiler_activities" in names and activities is not None:
        if profiler != "torch":
            return "torch_profiler_activities is only applicable when profiler is set to 'torch'"
        if isinstance(activities, list) and len(activities) != len(set(activities)):
            return "torch_profiler_activities must not contain duplicates"
    torch_dir = cfg.get("torch_profiler_dir") or ""
    if torch_dir and profiler != "torch":
        return "torch_profiler_dir is only applicable when profiler is set to 'torch'"
    if profiler == "torch" and not torch_dir:
        return "torch_profiler_dir must be set when profiler is 'torch'"
    if "proton_profiler_dir" in names:
        proton = [("proton_profiler_dir", ""), ("proton_context", "shadow"), ("proton_data", "tree"),
                  ("proton_backend", None), ("proton_mode", None), ("proton_hook", None),
                  ("proton_output_format", None), ("proton_graph_attribution", False)]
        changed = [n for n, default in proton if n in names and cfg.get(n, default) != default]
        if profiler != "proton" and changed:
            return f"{', '.join(changed)} only applicable when profiler is set to 'proton'"
        proton_dir = cfg.get("proton_profiler_dir") or ""
        if profiler == "proton" and not proton_dir:
            return "proton_profiler_dir must be set when profiler is 'proton'"
        if proton_dir and _is_uri(proton_dir):
            return "proton_profiler_dir must be a local directory"
        if profiler == "proton":
            fmt, data, mode = cfg.get("proton_output_format"), cfg.get("proton_data", "tree"), cfg.get("proton_mode")
            if cfg.get("proton_graph_attribution"):
                if data != "tree":
                    return "proton_graph_attribution requires proton_data='tree'"
                if mode and str(mode).split(":", 1)[0].lower() == "periodic_flushing":
                    return ("proton_graph_attribution is incompatible with periodic_flushing: both manage "
                            "Proton data phases.")
            if fmt == "chrome_trace" and data != "trace":
                return "chrome_trace output requires proton_data='trace'"
            if fmt in ("hatchet", "hatchet_msgpack") and data != "tree":
                return f"{fmt} output requires proton_data='tree'"
    if "capture_torch_profiler" in names and cfg.get("capture_torch_profiler") and profiler != "torch":
        return "capture_torch_profiler is only applicable when profiler is set to 'torch'"
    return None


@lru_cache(maxsize=1)
def _reasoning_parsers() -> dict:
    return data_file("reasoning_parsers.json")["releases"]


def _reasoning_parser_problem(cfg: dict, state: State) -> str | None:
    """0.11.1-0.12.0 StructuredOutputsConfig's validator first checks reasoning_parser against the
    registered parsers (0.12.0 config/structured_outputs.py:69-82; a plugin is not modelled)."""
    names = _reasoning_parsers().get(state.release.version)
    parser = cfg.get("reasoning_parser", "")
    if names is None or not isinstance(parser, str) or parser == "" or parser in names:
        return None
    return f"invalid reasoning parser: {parser} (chose from {{ {','.join(names)} }})"


_AFTER = {("EPLBConfig", "_validate_eplb_config:after"): _eplb_after,
          ("ProfilerConfig", "_validate_profiler_config:after"): _profiler_after,
          ("ECTransferConfig", "__post_init__"): _ec_transfer_post_init,
          ("StructuredOutputsConfig", "_validate_structured_output_config:after"): _structured_outputs_after,
          ("StructuredOutputsConfig", "__post_init__"): _structured_outputs_after,
          ("EngramConfig", "_validate_shared_memory:after"): _engram_after,
          ("AttentionConfig", "__post_init__"): attention_post_init,
          ("EncoderCacheManagerConfig", "__post_init__"): ec_manager_post_init,
          ("PoolerConfig", "__post_init__"): pooler_post_init}


_STATE: list[State] = []  # the release being parsed, for field validators that differ by release


def problem(dest: str, value: Any, state: State) -> str | None:
    """pydantic's ValidationError text for an option's JSON value (None when it passes or the
    option's class is not recorded for this release)."""
    cls = class_of(dest, state.release.version)
    if cls is None:
        return None
    name = cls["name"]
    if "reject_removed_parameters:before" in cls["validators"] and isinstance(value, dict):
        removed = _removed_pooler_parameter(value, state)
        if removed:
            return f"1 validation error for {name}\n  Value error, {removed} [type=value_error]"
    errors: list[_Error] = []
    _STATE.append(state)
    try:
        cfg = _fields(cls, value, "", errors)
    except ValueError as e:
        return f"1 validation error for {name}\n  {e} [type=dataclass_type]"
    finally:
        _STATE.pop()
    if errors:
        n = len(errors)
        body = "\n".join(f"{e.loc}\n  {e.message} [type={_code(e.message)}]" for e in errors)
        return f"{n} validation error{'s' if n > 1 else ''} for {name}\n{body}"
    if name == "StructuredOutputsConfig":
        parser = _reasoning_parser_problem(cfg, state)
        if parser:
            return f"1 validation error for {name}\n  Value error, {parser} [type=value_error]"
    for validator in cls["validators"]:
        check = _AFTER.get((name, validator))
        if check is not None:
            message = check(cls, _with_defaults(cls, cfg))
            if message:
                return f"1 validation error for {name}\n  Value error, {message} [type=value_error]"
    return None


_REMOVED_POOLING_TASKS = {  # vllm/tasks.py (0.26.0+)
    "score": "`score` task was removed; use `classify` instead.",
    "encode": "`encode` task was removed; use `token_embed` or `token_classify` instead.",
}


def _removed_pooler_parameter(value: dict, state: State) -> str | None:
    """PoolerConfig's `reject_removed_parameters` (a before-validator, 0.26.0+ config/pooler.py):
    `normalize` is refused, then a removed `task`. The task error is a VLLMValidationError, a
    ValueError (pydantic wraps it) on 0.26-0.27 and a VLLMError from 0.28.0, which escapes both
    pydantic and argparse."""
    if "normalize" in value:
        return "Parameter `normalize` was removed; use `use_activation` instead."
    task = value.get("task")
    message = _REMOVED_POOLING_TASKS.get(task) if isinstance(task, str) else None
    if message is None:
        return None
    if state.release.key >= (0, 28, 0):
        raise Refusal("VLLMValidationError", f"{message} (parameter=task)")
    return f"{message} (parameter=task)"


# ------------------------------------------------------------------ the parser's call
# the options whose argparse type is vLLM's `union_dict_and_str` (a JSON object, else the text)
DESTS = frozenset({"hf_overrides", "additional_config", "model_loader_extra_config", "pt_load_map_location"})
_OBJECT_TEXT = re.compile(r"(?s)^\s*{.*}\s*$")
_JSON_LOADS = "<function loads at 0x7f0000000000>"  # json.loads as argparse prints it (its address varies)


def check(action, text: str, value: Any, state: State) -> None:
    """Called by the parser as it converts an option's value (resolve/parser/argument_parser.py)."""
    if action.dest in DESTS:
        if _OBJECT_TEXT.match(text):
            try:
                json.loads(text)
            except ValueError:
                # text that looks like an object is handed to json.loads (0.12.0 arg_utils.py:136-139)
                raise Refusal("ArgumentError", f"argument {action.display}: Value {text} cannot be converted "
                                               f"to {_JSON_LOADS}.") from None
        if action.dest == "hf_overrides" and not isinstance(value, dict):
            raise hf_overrides_refusal(text)
        return
    try:
        message = problem(action.dest, value, state)
    except NotIterable:  # argparse's wording for a TypeError out of its type function
        raise Refusal("ArgumentError", f"argument {action.display}: invalid parse_dataclass value: {text!r}") from None
    if message:
        raise Refusal("ArgumentError", f"argument {action.display}: {message}")


def hf_overrides_refusal(text: str) -> Refusal:
    """vLLM's parser keeps a --hf-overrides value that is not a JSON object as a string
    (`union_dict_and_str`); ModelConfig then refuses it, its union type naming both members
    (dict[str, Any] | Callable). Raised as the option is parsed: ModelConfig is the first
    config vLLM builds."""
    return Refusal("ValidationError", "2 validation errors for ModelConfig\nhf_overrides.dict[str,any]\n  Input "
                                      "should be a valid dictionary [type=dict_type, input_value="
                                      f"{text!r}, input_type=str]\nhf_overrides.callable\n  Input should be "
                                      "callable [type=callable_type, input_value="
                                      f"{text!r}, input_type=str]")


def not_an_object(action, fallback_name: str, state: State) -> Refusal:
    """A config option's JSON that is not an object (a number, a list, null)."""
    cls = class_of(action.dest, state.release.version)
    name = cls["name"] if cls else fallback_name
    return Refusal("ArgumentError", f"argument {action.display}: 1 validation error for {name}\n  Input should "
                                    f"be an object [type=dataclass_type]")


