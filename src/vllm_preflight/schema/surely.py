"""Per-key validation on the `check` path: is a command certainly valid against its release's schema?

Most commands are valid. Proving that needs neither the whole release schema (700 options, built
and compiled per release) nor the validator library: only the schema of each key the command
sets, generated alone from the release's option table (`generate.option_schema`, the function
the full schema is made of), and read here by a small interpreter that answers True only where
it is sure. Anything it does not fully understand (a keyword it does not read, a value whose
JSON reading is not plain, a string a pattern's ECMA and Python readings could disagree on)
answers False, and the caller validates with the full schema as before, so every finding,
message and place is the full validator's. tests/schema/test_surely.py compares both.
"""
from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

_IGNORED = frozenset(("description",))
_KNOWN = frozenset(("type", "enum", "anyOf", "pattern", "$ref", "items", "properties", "additionalProperties",
                    "minimum", "maximum")) | _IGNORED
_JSON_TYPES = {
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "integer": lambda v: type(v) is int,  # 1.0 (an integer to JSON Schema) is left to the validator
    "number": lambda v: type(v) is int or (type(v) is float and math.isfinite(v)),
    "object": lambda v: type(v) is dict and all(type(k) is str for k in v),
    "array": lambda v: type(v) is list,
}


@cache
def _pattern(text: str) -> re.Pattern:
    return re.compile(text)


def _plain_text(s: str) -> bool:
    """ASCII printable: `^ $ \\s [0-9]` read the same in ECMA and Python regexes."""
    return s.isascii() and s.isprintable()


def sure(schema: Any, value: Any, defs: dict, props: Any = None) -> bool:
    """True only when `value` is certainly valid against `schema` (Draft 2020-12)."""
    if schema is True or schema == {}:
        return True
    if type(schema) is not dict:
        return False
    for k in schema:
        if k not in _KNOWN:
            return False
    if "$ref" in schema:
        ref = schema["$ref"]
        if ref.startswith("#/$defs/") and ref[8:] in defs and len(schema) == 1 + ("description" in schema):
            return sure(defs[ref[8:]], value, defs, props)
        if ref.startswith("#/properties/") and props is not None and len(schema) == 1 + ("description" in schema):
            target = props(ref[13:])
            return target is not None and sure(target, value, defs, props)
        return False
    t = schema.get("type")
    if t is not None:
        types = [t] if isinstance(t, str) else t
        if not any(name in _JSON_TYPES and _JSON_TYPES[name](value) for name in types):
            return False
    if "enum" in schema and (type(value) not in (str, type(None)) or value not in schema["enum"]):
        return False
    if "pattern" in schema and type(value) is str and (
            not _plain_text(value) or _pattern(schema["pattern"]).search(value) is None):
        return False
    if type(value) in (int, float) and type(value) is not bool:
        if "minimum" in schema and not value >= schema["minimum"]:
            return False
        if "maximum" in schema and not value <= schema["maximum"]:
            return False
    if "items" in schema and type(value) is list:
        item = schema["items"]
        if not all(sure(item, v, defs, props) for v in value):
            return False
    if type(value) is dict and ("properties" in schema or "additionalProperties" in schema):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            if type(k) is not str:
                return False
            if k in properties:
                if not sure(properties[k], v, defs, props):
                    return False
            elif extra is False or not sure(extra, v, defs, props):
                return False
    return "anyOf" not in schema or any(sure(branch, value, defs, props) for branch in schema["anyOf"])


class _Keys:
    """The property schemas of one release's schema, each generated when first asked for."""

    def __init__(self, name: str) -> None:
        from vllm_preflight.releases import get_release, recorded_facts
        from vllm_preflight.schema.generate import compilation_config_schema, pass_config_schema

        release = get_release(name)
        facts = recorded_facts(release.version)
        self.defs = {"CompilationConfig": compilation_config_schema(facts), "PassConfig": pass_config_schema(facts)}
        # the keys of generate.release_schema, in its order of precedence: an option's first long
        # name, then its other long names, then the underscore spellings (each a $ref to the first)
        first: dict[str, Any] = {}
        alias: dict[str, str] = {}
        seen: set[int] = set()
        for opt in release.options.options.values():
            if id(opt) in seen or opt.kind == "help":
                continue
            seen.add(id(opt))
            longs = [s for s in opt.strings if s.startswith("--") and not s.startswith("--no-")]
            if not longs:
                continue
            key = longs[0][2:]
            first[key] = opt
            for other in longs[1:]:
                alias.setdefault(other[2:], key)
        for key in list(first) + list(alias):
            under = key.replace("-", "_")
            if under != key:
                alias.setdefault(under, key)
        self._first = first
        self._alias = {k: v for k, v in alias.items() if k not in first}
        self._schemas: dict[str, dict] = {}
        self.proven: set[tuple] = set()  # (key, type, value) found valid: commands repeat their values

    def __call__(self, key: str) -> dict | None:
        schema = self._schemas.get(key)
        if schema is None:
            opt = self._first.get(key)
            if opt is not None:
                from vllm_preflight.schema.generate import option_schema

                schema = option_schema(opt, {"compilation_config": "#/$defs/CompilationConfig"})
            elif key in self._alias:
                schema = {"$ref": f"#/properties/{self._alias[key]}"}
            else:
                return None
            self._schemas[key] = schema
        return schema


@cache
def keys_of(name: str) -> _Keys:
    return _Keys(name)


def surely_valid(instance: Any, name: str) -> bool:
    """True only when `instance` is certainly valid against `release_schema(name)`."""
    if type(instance) is not dict:
        return False
    keys = keys_of(name)
    proven = keys.proven
    for key, value in instance.items():
        if type(key) is not str:
            return False
        plain = type(value) in _HASHABLE
        if plain and (key, type(value), value) in proven:
            continue
        schema = keys(key)
        if schema is None or not sure(schema, value, keys.defs, keys):
            return False
        if plain and len(proven) < 65536:
            proven.add((key, type(value), value))  # the type too: True and 1 are equal keys
    return True


_HASHABLE = frozenset((str, int, float, bool, type(None)))
