"""The compressed-tensors library's pydantic models that vLLM validates while it builds
CompressedTensorsConfig at config time, per pinned library version.

vLLM's `CompressedTensorsConfig.from_config` calls `QuantizationArgs.model_validate` on each
config group's `weights`, `input_activations` (and, from 0.23.0, `output_activations`), and
`SparsityCompressionConfig.model_validate` on `sparsity_config`. The library is pinned per
vLLM release (releases/data/compressed_tensors.json: 0.11.0 for vLLM 0.11.0, 0.12.2 for
0.11.1-0.13.0, 0.13.0 for 0.14.0-0.18.1, 0.14.0.1 for 0.19.0, 0.15.0.1 for 0.19.1-0.22.1,
0.17.0 from 0.23.0). A ValidationError raised there surfaces inside VllmConfig's own
validation, so pydantic reports its errors (same locations and messages) as errors "for
VllmConfig"; a TypeError or NotImplementedError out of a validator passes through unchanged.

QuantizationArgs (compressed_tensors/quantization/quant_args.py), in field order: num_bits
(int), type (a `before` validator lower-cases a string into QuantizationType), symmetric
(bool), group_size (a `before` validator refuses < -1, comparing any other type raises a
TypeError), strategy (lower-cased into QuantizationStrategy), block_structure ("RxC" text or
a list of two ints), dynamic (DynamicType "local" or a bool), actorder (a bool reads as
group/None, a string as ActivationOrdering), from library 0.13.0 scale_dtype / zp_dtype
(torch dtype names), observer (str), observer_kwargs (dict); extra keys are forbidden. Then
its `after` model validator infers the strategy from the group size and checks the
strategy/group size/block structure/activation ordering/dynamic combinations (the checks and
messages vary by library version, below). pydantic's python (lax) coercions are ported here
as this module needs them: ints from integral floats and numeric text, bools from 0/1 and
yes/no text.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import Refusal
from vllm_preflight.resolve.parser.json_options import _bool as lax_bool


@lru_cache(maxsize=1)
def _data() -> dict:
    return data_file("compressed_tensors.json")


def _vt(version: str) -> tuple:
    return tuple(int(x) for x in version.split("."))


def library_version(v: tuple) -> tuple:
    """The compressed-tensors version a vLLM release pins (as a tuple)."""
    lib = (0, 11, 0)
    for first, version in _data()["library_by_first_release"].items():
        if v >= _vt(first):
            lib = _vt(version)
    return lib


class _Errors(Exception):
    def __init__(self, errors: list[tuple[str, str, str]]):
        super().__init__(errors)
        self.errors = errors


def refusal(errors: list[tuple[str, str, str]], owner: str = "VllmConfig") -> Refusal:
    """pydantic's ValidationError text: one `loc` line (none for the model itself) and the
    message with its error type, per error."""
    n = len(errors)
    lines = []
    for loc, message, code in errors:
        if loc:
            lines.append(loc)
        lines.append(f"  {message} [type={code}]")
    return Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {owner}\n" + "\n".join(lines))


# --------------------------------------------------------------- pydantic's lax coercions


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise _Errors([("", "Input should be a finite number", "finite_number")])
        if not value.is_integer():
            raise _Errors([("", "Input should be a valid integer, got a number with a fractional part",
                            "int_from_float")])
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                f = float(text)
            except ValueError:
                f = None
            if f is not None and f.is_integer() and "." in text:
                return int(f)
            raise _Errors([("", "Input should be a valid integer, unable to parse string as an integer",
                            "int_parsing")]) from None
    raise _Errors([("", "Input should be a valid integer", "int_type")])


def _bool(value: Any) -> bool:
    """json_options' lax bool (pydantic's), with pydantic's error type beside its message."""
    try:
        return lax_bool(value)
    except ValueError as e:
        code = "bool_parsing" if "unable to interpret" in str(e) else "bool_type"
        raise _Errors([("", str(e), code)]) from None


def _choices(values: tuple) -> str:
    shown = [f"'{v}'" for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" or {shown[-1]}"


def _enum_name(cls: str, value: str, values: tuple) -> str:
    """The `before` validators' `Enum(value.lower())`: the value, or Python's ValueError."""
    low = value.lower()
    if low not in values:
        raise _Errors([("", f"Value error, {low!r} is not a valid {cls}", "value_error")])
    return low


def _union_tag(cls: str) -> str:
    # a str-Enum member of a Union, with use_enum_values (pydantic's tag for that schema)
    return f"`function-after[operator.attrgetter('value')(), str-enum[{cls}]]`"


# --------------------------------------------------------------- QuantizationArgs
_TYPES = ("int", "float")
_ORDERS = ("group", "weight", "dynamic", "static")
_GROUPISH = ("group", "tensor_group")
_DYNAMIC_STRATEGIES = ("(<QuantizationStrategy.TOKEN: 'token'>, <QuantizationStrategy.TENSOR: 'tensor'>, "
                       "<QuantizationStrategy.TENSOR_GROUP: 'tensor_group'>, <QuantizationStrategy.GROUP: 'group'>)")


def _strategies(lib: tuple) -> tuple:
    base = ("tensor", "channel", "group", "block", "token", "tensor_group")
    return base + (("attn_head",) if lib >= (0, 13, 0) else ())


def _fields(lib: tuple) -> tuple:
    dtypes = ("scale_dtype", "zp_dtype") if lib >= (0, 13, 0) else ()
    return ("num_bits", "type", "symmetric", "group_size", "strategy", "block_structure", "dynamic", "actorder") \
        + dtypes + ("observer", "observer_kwargs")


def _block_structure(value: Any, lib: tuple) -> list:
    wording = "ints" if lib >= (0, 12, 2) else "two ints"
    bad = _Errors([("", f"Value error, Invalid block_structure '{value}'. Must be a list of {wording} [rows, cols].",
                    "value_error")])
    if isinstance(value, str):
        try:
            return [int(x) for x in value.split("x")]
        except ValueError:
            raise bad from None
    if isinstance(value, list):
        if len(value) != 2 or not all(isinstance(v, int) for v in value):
            raise bad
        return [int(v) for v in value]
    raise bad


def _torch_dtype(value: Any, field: str) -> str:
    """TorchDtype: a torch dtype named as `torch.xxx` or `xxx` (its repr, `torch.<canonical>`)."""
    tag = f"{field}.chain[str,function-plain[validate_from_str()]]"
    inst = (f"{field}.is-instance[dtype]", "Input should be an instance of dtype", "is_instance_of")
    if not isinstance(value, str):
        raise _Errors([inst, (tag, "Input should be a valid string", "string_type")])
    name = value.removeprefix("torch.")
    canonical = _data()["torch_dtypes"].get(name)
    if canonical is None:
        raise _Errors([inst, (tag, f"Value error, No such torch dtype `torch.{name}`", "value_error")])
    return f"torch.{canonical}"


class _Repr(str):
    """A value shown as written (a torch dtype or an enum member in the model's repr)."""

    def __repr__(self) -> str:
        return str(self)


def _field(name: str, value: Any, lib: tuple) -> Any:
    """One field's `before` validator then its type, as stored (use_enum_values: enum values)."""
    if name == "num_bits":
        return _int(value)
    if name == "type":
        if isinstance(value, str):
            return _enum_name("QuantizationType", value, _TYPES)
        raise _Errors([("", f"Input should be {_choices(_TYPES)}", "enum")])
    if name == "symmetric":
        return _bool(value)
    if name == "group_size":
        if value is None:
            return None
        if not isinstance(value, (int, float)):
            raise Refusal("TypeError", f"'<' not supported between instances of '{type(value).__name__}' and 'int'")
        if value < -1:
            message = (f"Value error, Invalid group size {value}. Use group_size > 0 for strategy='group' and "
                       "group_size = -1 for 'channel'")
            raise _Errors([("", message, "value_error")])
        return _int(value)
    if name == "strategy":
        if value is None:
            return None
        if isinstance(value, str):
            return _enum_name("QuantizationStrategy", value, _strategies(lib))
        raise _Errors([("", f"Input should be {_choices(_strategies(lib))}", "enum")])
    if name == "block_structure":
        return None if value is None else _block_structure(value, lib)
    if name == "dynamic":
        if isinstance(value, str):
            return _enum_name("DynamicType", value, ("local",))
        return _union_bool(value, "DynamicType", ("local",))
    if name == "actorder":
        if isinstance(value, bool):
            return "group" if value else None
        if isinstance(value, str):
            return _enum_name("ActivationOrdering", value, _ORDERS)
        if value is None:
            return None
        return _union_bool(value, "ActivationOrdering", _ORDERS)
    if name in ("scale_dtype", "zp_dtype"):
        return None if value is None else _Repr(_torch_dtype(value, name))
    if name == "observer":
        if value is None or isinstance(value, str):
            return value
        raise _Errors([("", "Input should be a valid string", "string_type")])
    if name == "observer_kwargs":
        if isinstance(value, dict):
            return value
        raise _Errors([("", "Input should be a valid dictionary", "dict_type")])
    return value


def _union_bool(value: Any, cls: str, values: tuple) -> bool:
    """`Enum | bool` for a value that is no string: the bool it reads as, or one error per member."""
    try:
        return _bool(value)
    except _Errors as e:
        _, message, code = e.errors[0]
        raise _Errors([(_union_tag(cls), f"Input should be {_choices(values)}", "enum"),
                       ("bool", message, code)]) from None


_DEFAULTS: dict[str, Any] = {"num_bits": 8, "type": _Repr("<QuantizationType.INT: 'int'>"), "symmetric": True,
                             "group_size": None, "strategy": None, "block_structure": None, "dynamic": False,
                             "actorder": None, "scale_dtype": None, "zp_dtype": None, "observer": None,
                             "observer_kwargs": {}}


def quantization_args(raw: Any, v: tuple) -> dict:
    """QuantizationArgs.model_validate(raw) under the library vLLM release `v` pins: the
    validated fields (enum values as strings, `type` "int" when defaulted), or a Refusal."""
    lib = library_version(v)
    if not isinstance(raw, dict):
        raise refusal([("", "Input should be a valid dictionary or instance of QuantizationArgs", "model_type")])
    fields = _fields(lib)
    out = {f: _DEFAULTS[f] for f in fields}
    errors: list[tuple[str, str, str]] = []
    for name in fields:
        if name not in raw:
            continue
        try:
            out[name] = _field(name, raw[name], lib)
        except _Errors as e:
            for loc, message, code in e.errors:
                errors.append((f"{name}.{loc}" if loc and not loc.startswith(name + ".") else loc or name,
                               message, code))
    errors += [(k, "Extra inputs are not permitted", "extra_forbidden") for k in raw if k not in fields]
    if errors:
        raise refusal(errors)
    _after(out, lib)
    if out["type"] != "float":
        out["type"] = "int"
    return out


def _model_repr(m: dict) -> str:
    return " ".join(f"{k}={m[k]!r}" for k in m)


def _after(m: dict, lib: tuple) -> None:
    """QuantizationArgs.validate_model_after (`after` model validator)."""
    def fail(message: str) -> None:
        raise refusal([("", f"Value error, {message}", "value_error")])

    strategy, group, order, dynamic = m["strategy"], m["group_size"], m["actorder"], m["dynamic"]
    if strategy is None:
        if group is None:
            strategy = "tensor"
        elif group > 0:
            strategy = "group"
        elif group == -1:
            strategy = "channel"
        else:
            fail(f"Invalid group size {group}. Use group_size > 0 for strategy='group' and group_size = -1 for "
                 "'channel'")
    if lib >= (0, 13, 0) and strategy == "token" and not dynamic:
        fail("Cannot perform static token quantization, please use `dynamic=True`")
    if strategy in (_GROUPISH if lib >= (0, 13, 0) else ("group",)) and (group is None or group <= 0):
        fail(f"strategy {strategy} requires group_size to be set to a positive value")
    if group is not None and group > 0 and strategy not in _GROUPISH:
        fail("group_size requires strategy to be set to 'group'")
    if lib >= (0, 13, 0):
        has_block, has_structure = strategy == "block", m["block_structure"] is not None
        if has_block and not has_structure:
            fail(f"Block strategy requires block structure\n{_model_repr(m)}")
        if has_structure and not has_block:
            fail(f"Block structure requires block strategy\n{_model_repr(m)}")
    if lib >= (0, 17, 0):
        if order in ("group", "dynamic") and strategy not in _GROUPISH:  # Aliasable: dynamic == group
            fail("Must use group or tensor_group quantization strategy in order to apply group activation ordering")
    elif lib >= (0, 14, 0):
        if order is not None and strategy not in _GROUPISH:
            fail("Must use group or tensor_group quantization strategy in order to apply activation ordering")
    elif order is not None and strategy != "group":
        fail("Must use group quantization strategy in order to apply activation ordering")
    if dynamic:
        if strategy not in ("token", "tensor", "tensor_group", "group"):
            fail(f"One of {_DYNAMIC_STRATEGIES} must be used for dynamic "
                 + ("quant." if lib >= (0, 12, 2) else "quantization"))
        if dynamic == "local" and strategy != "tensor_group":
            fail("local is only supported for strategy tensor_group")
    if lib >= (0, 13, 0) and m["zp_dtype"] is None and m["type"] == "float" and m["num_bits"] not in (4, 8):
        # zp_dtype from pytorch_dtype(): float types other than 8 bits (4 is FP8's) raise
        raise Refusal("NotImplementedError", "Only num_bits in (8) are supported")
    m["strategy"] = strategy


# --------------------------------------------------------------- SparsityCompressionConfig
def sparsity_targets(raw: Any) -> list | None:
    """SparsityCompressionConfig.model_validate(raw) (compressed_tensors/config/base.py, the same
    in every pinned version: format str required, targets/ignore optional lists of str,
    global_sparsity optional float, sparsity_structure optional str; extra keys ignored): its
    targets, or a Refusal."""
    if not isinstance(raw, dict):
        raise refusal([("", "Input should be a valid dictionary or instance of SparsityCompressionConfig",
                        "model_type")])
    errors: list[tuple[str, str, str]] = []
    if "format" not in raw:
        errors.append(("format", "Field required", "missing"))
    elif not isinstance(raw["format"], str):
        errors.append(("format", "Input should be a valid string", "string_type"))
    for name in ("targets", "ignore"):
        value = raw.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            errors.append((name, "Input should be a valid list", "list_type"))
            continue
        errors += [(f"{name}.{i}", "Input should be a valid string", "string_type")
                   for i, x in enumerate(value) if not isinstance(x, str)]
    value = raw.get("global_sparsity")
    if value is not None and not isinstance(value, (int, float)):
        if isinstance(value, str):
            try:
                float(value.strip())
            except ValueError:
                message = "Input should be a valid number, unable to parse string as a number"
                errors.append(("global_sparsity", message, "float_parsing"))
        else:
            errors.append(("global_sparsity", "Input should be a valid number", "float_type"))
    value = raw.get("sparsity_structure")
    if value is not None and not isinstance(value, str):
        errors.append(("sparsity_structure", "Input should be a valid string", "string_type"))
    if errors:
        raise refusal(errors)
    return raw.get("targets")


# --------------------------------------------------------------- TransformConfig
_LOCATIONS = ("input", "weight_input", "weight_output", "output", "k_cache", "q_attn")


def _str_list(value: Any, loc: str, errors: list, wrap: bool) -> None:
    if wrap and isinstance(value, str):  # TransformArgs' `before` validator: a single name
        return
    if not isinstance(value, list):
        errors.append((loc, "Input should be a valid list", "list_type"))
        return
    errors += [(f"{loc}.{i}", "Input should be a valid string", "string_type")
               for i, x in enumerate(value) if not isinstance(x, str)]


def _model(raw: Any, loc: str, cls: str, errors: list) -> dict | None:
    if isinstance(raw, dict):
        return raw
    errors.append((loc, f"Input should be a valid dictionary or instance of {cls}", "model_type"))
    return None


def _check_fields(raw: dict, loc: str, fields: dict, errors: list) -> None:
    """One pydantic model's fields in declaration order (`fields`: name -> (required, check)),
    then its forbidden extra keys."""
    at = f"{loc}." if loc else ""
    for name, (required, check) in fields.items():
        if name not in raw:
            if required:
                errors.append((at + name, "Field required", "missing"))
            continue
        try:
            check(raw[name], at + name, errors)
        except _Errors as e:
            errors += [(at + name if not sub else sub, message, code) for sub, message, code in e.errors]
    errors += [(at + k, "Extra inputs are not permitted", "extra_forbidden") for k in raw if k not in fields]


def _plain(fn):
    def check(value: Any, loc: str, errors: list) -> None:
        fn(value)
    return check


def _location(value: Any) -> None:
    if not (isinstance(value, str) and value in _LOCATIONS):
        raise _Errors([("", f"Input should be {_choices(_LOCATIONS)}", "enum")])


def _args(raw: Any, loc: str, errors: list) -> None:
    args = _model(raw, loc, "TransformArgs", errors)
    if args is not None:
        _check_fields(args, loc, {
            "targets": (True, lambda x, at, errs: _str_list(x, at, errs, True)),
            "location": (True, _plain(_location)),
            "inverse": (False, _plain(_bool)),
            "ignore": (False, lambda x, at, errs: _str_list(x, at, errs, True)),
        }, errors)


def _apply(value: Any, loc: str, errors: list) -> None:
    if not isinstance(value, list):
        errors.append((loc, "Input should be a valid list", "list_type"))
        return
    for i, item in enumerate(value):
        _args(item, f"{loc}.{i}", errors)


def _precision(value: Any, loc: str, errors: list) -> None:
    try:
        _torch_dtype(value, loc)
    except _Errors as e:
        errors += e.errors


def _head_dim(value: Any) -> None:
    if value is not None:
        _int(value)


def _string(value: Any) -> None:
    if not isinstance(value, str):
        raise _Errors([("", "Input should be a valid string", "string_type")])


def _scheme(raw: Any, loc: str, errors: list) -> None:
    scheme = _model(raw, loc, "TransformScheme", errors)
    if scheme is not None:
        _check_fields(scheme, loc, {
            "type": (True, _plain(_string)), "apply": (False, _apply), "randomize": (False, _plain(_bool)),
            "requires_grad": (False, _plain(_bool)), "head_dim": (False, _plain(_head_dim)),
            "precision": (False, _precision),
        }, errors)


def _groups(value: Any, loc: str, errors: list) -> None:
    if not isinstance(value, dict):
        errors.append((loc, "Input should be a valid dictionary", "dict_type"))
        return
    for key, scheme in value.items():
        _scheme(scheme, f"{loc}.{key}", errors)


def transform_config(raw: Any) -> None:
    """TransformConfig.model_validate(raw) (compressed_tensors/transform/, the same rules in
    every pinned version): config_groups maps names to TransformSchemes (type str, apply a list
    of TransformArgs: targets and location required, location one of the TransformLocation
    values; randomize / requires_grad bools, head_dim int, precision a torch dtype); extra
    keys are forbidden at every level. A Refusal when it fails."""
    errors: list[tuple[str, str, str]] = []
    cfg = _model(raw, "", "TransformConfig", errors)
    if cfg is not None:
        _check_fields(cfg, "", {"config_groups": (True, _groups)}, errors)
    if errors:
        raise refusal(errors)
