"""Every CompilationConfig / PassConfig field's declared type, per release, and pydantic's check of
a given value against it.

vLLM validates `--compilation-config` JSON with `TypeAdapter(CompilationConfig).validate_json`
(pydantic's lax JSON mode): each field's annotation decides what a value may be and how it is
coerced ("1" for an int, "yes" for a bool, 8.0 for an int; a list for a bool is refused). The
annotations are read per release from vllm/config/compilation.py (releases/data/config_field_types.json,
tools/extract_config_types.py); fields whose `_skip_none_validation` wrap validator lets None
through are marked. Fields with their own parsing (the mode and CUDA-graph enums, the op lists,
the pass config itself) keep it (compilation_config.py); this checks the others.
"""
from __future__ import annotations

import ast
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from vllm_preflight.resolve.base.pydantic import ConfigInvalid, _int

_DATA = Path(__file__).resolve().parents[2] / "releases" / "data" / "config_field_types.json"
# types this check leaves to their own parsers or does not model (enums, nested configs, callables)
_OPAQUE = {"Any", "CompilationMode", "CUDAGraphMode", "PassConfig", "DynamicShapesConfig", "Counter", "set",
           "Callable", "InductorPass", "CallableInductorPass", "object", "tuple"}
_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


@cache
def _data() -> dict:
    with open(_DATA) as f:
        return json.load(f)


@cache
def declared(version: str, cls: str) -> dict[str, tuple[str, bool]]:
    """{field: (annotation, None skips validation)} of `cls` in `version` ({} when not recorded)."""
    from vllm_preflight.releases import PR29558, PR29558_BASE, _nearest_recorded

    releases = _data()["releases"]
    if version == PR29558:
        version = PR29558_BASE
    if version not in releases:
        version = _nearest_recorded(version, releases)
    key = releases[version].get(cls)
    return {f: (t, bool(skip)) for f, (t, skip) in _data()["classes"][key].items()} if key else {}


@lru_cache(maxsize=512)
def _parse(annotation: str) -> ast.expr:
    return ast.parse(annotation, mode="eval").body


class _Bad(Exception):
    def __init__(self, errors: list[tuple[str, str]]):
        super().__init__(errors)
        self.errors = errors  # (location, message), pydantic's order


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


def _members(node: ast.expr) -> list[ast.expr]:
    """The members of a union (`A | B`, `Optional[A]`, `Union[A, B]`), or [node]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    if isinstance(node, ast.Subscript) and _name(node.value) in ("Optional", "Union"):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = [m for e in inner for m in _members(e)]
        return out + ([ast.Constant(None)] if _name(node.value) == "Optional" else [])
    return [node]


def _args(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise _Bad([("", "Input should be a valid boolean, unable to interpret input")])
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        if value in (0, 1):
            return bool(value)
        raise _Bad([("", "Input should be a valid boolean, unable to interpret input")])
    raise _Bad([("", "Input should be a valid boolean")])


def _float(value: Any) -> float:
    if isinstance(value, (int, float)):  # a JSON boolean is a number here
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise _Bad([("", "Input should be a valid number, unable to parse string as a number")]) from None
    raise _Bad([("", "Input should be a valid number")])


def _check(node: ast.expr, value: Any) -> Any:
    members = _members(node)
    if len(members) > 1:
        rest = [m for m in members if _name(m) != "None"]
        if value is None and len(rest) < len(members):
            return None
        if len(rest) == 1:
            return _check(rest[0], value)
        errors: list[tuple[str, str]] = []
        for m in rest:  # smart mode: the first member that takes the value (exact types first)
            try:
                return _check(m, value)
            except _Bad as e:
                tag = ast.unparse(m)
                errors += [(f"{tag}{'.' + loc if loc else ''}", msg) for loc, msg in e.errors]
        raise _Bad(errors)
    name = _name(node)
    if name in _OPAQUE or not name:
        return value
    if name == "None":
        if value is None:
            return None
        raise _Bad([("", "Input should be None")])
    if name == "bool":
        return _bool(value)
    if name == "int":
        try:
            return _int(value, "")
        except ConfigInvalid as e:
            raise _Bad([("", str(e).partition(": ")[2])]) from None
    if name == "float":
        return _float(value)
    if name == "str":
        if isinstance(value, str):
            return value
        raise _Bad([("", "Input should be a valid string")])
    if name == "Path":
        if isinstance(value, str):
            return value
        raise _Bad([("", "Input is not a valid path for <class 'pathlib.Path'>")])
    if name == "Literal":
        allowed = [ast.literal_eval(a) for a in _args(node)]  # type: ignore[arg-type]
        if value in allowed and not isinstance(value, bool):
            return value
        shown = [repr(a) for a in allowed]
        text = ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]
        raise _Bad([("", f"Input should be {text}")])
    if name == "list":
        if not isinstance(value, list):
            raise _Bad([("", "Input should be a valid array")])
        inner = _args(node)[0] if isinstance(node, ast.Subscript) else None
        if inner is None:
            return value
        out, errors = [], []
        for i, item in enumerate(value):
            try:
                out.append(_check(inner, item))
            except _Bad as e:
                errors += [(f"{i}{'.' + loc if loc else ''}", msg) for loc, msg in e.errors]
        if errors:
            raise _Bad(errors)
        return out
    if name == "dict":
        if not isinstance(value, dict):
            raise _Bad([("", "Input should be an object")])
        if not isinstance(node, ast.Subscript):
            return value
        inner = _args(node)[-1]
        errors = []
        for k, item in value.items():
            try:
                _check(inner, item)
            except _Bad as e:
                errors += [(f"{k}{'.' + loc if loc else ''}", msg) for loc, msg in e.errors]
        if errors:
            raise _Bad(errors)
        return value
    return value


def check_field(version: str, cls: str, field: str, value: Any, where: str) -> Any:
    """`value` as pydantic leaves it for `cls.field` of `version`; ConfigInvalid (with the further
    errors of the same field in `others`) when pydantic refuses it. Unknown fields pass."""
    entry = declared(version, cls).get(field)
    if entry is None:
        return value
    annotation, skip_none = entry
    if value is None and skip_none:
        return None
    try:
        return _check(_parse(annotation), value)
    except _Bad as e:
        errs = [ConfigInvalid(f"{where}{'.' + loc if loc else ''}: {msg}") for loc, msg in e.errors]
        errs[0].others = errs[1:]
        raise errs[0] from None
