"""JSON Schema validation on the `check` path: jsonschema-rs, behind a small adapter.

jsonschema-rs (a Rust validator, one abi3 wheel) imports in ~15 ms and validates a command
in a few µs; python-jsonschema takes ~50 ms to import and ~90 µs per command. The finding
code was written against python-jsonschema's error objects, so the adapter gives each
error the same attributes (`absolute_path`, `validator`, `validator_value`, `schema`,
`instance`, `context`, `message`), with python-jsonschema's wording for the keywords our
schemas use. tests/schema/test_schema_engines.py checks that both libraries give the same
findings; python-jsonschema stays a test dependency for that second opinion.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SchemaError", "Validator", "validator"]


@dataclass
class SchemaError:
    """One failed keyword, shaped like python-jsonschema's ValidationError."""

    absolute_path: tuple
    validator: str  # the failing keyword: "type", "anyOf", "additionalProperties", ...
    validator_value: Any
    schema: dict  # the (sub)schema holding the keyword
    instance: Any
    message: str
    context: list[SchemaError] = field(default_factory=list)
    relative_schema_path: tuple = ()  # in a context: starts with the index of the anyOf/oneOf branch

    @property
    def path(self) -> tuple:
        return self.absolute_path


class Validator:
    """A compiled schema; `iter_errors(instance)` yields SchemaErrors."""

    def __init__(self, schema: dict) -> None:
        import jsonschema_rs

        self.schema = schema
        self._rs = jsonschema_rs.Draft202012Validator(schema)

    def is_valid(self, instance: Any) -> bool:
        return bool(self._rs.is_valid(instance))

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        if self._rs.is_valid(instance):  # the common case: no error objects built at all
            return
        for err in self._rs.iter_errors(instance):
            yield _adapt(err, self.schema, original=instance)


def validator(schema: dict) -> Validator:
    return Validator(schema)


def _at(root: dict, path) -> Any:
    node: Any = root
    for part in path:
        node = node[part]
    return node


def _adapt(err, root: dict, branch: int | None = None, original: Any = None) -> SchemaError:
    spath = list(err.schema_path)
    keyword = str(spath[-1]) if spath else ""
    kind = err.kind
    instance = err.instance
    if instance is None and original is not None:  # rs hands inf and nan back as JSON's null
        try:
            instance = _at(original, err.instance_path)
        except (KeyError, IndexError, TypeError):
            pass
    if kind.name == "propertyNames":  # rs reports the object; the failing name is the instance
        keyword = str(spath[-1])
        inner = getattr(kind, "error", None)
        if inner is not None:
            instance = inner.instance
    try:
        schema = _at(root, spath[:-1])
        value = schema.get(keyword) if isinstance(schema, dict) else None
    except (KeyError, IndexError, TypeError):
        schema, value = {}, None
    context: list[SchemaError] = []
    if kind.name in ("anyOf", "oneOfNotValid"):
        for index, errors in enumerate(kind.context or ()):
            context += [_adapt(e, root, index, original) for e in errors]
    if keyword == "oneOf" and kind.name == "oneOfMultipleValid":
        context = []
    if keyword == "required" and getattr(kind, "property", None) is not None:
        message = f"{kind.property!r} is a required property"  # rs: one error per missing property
    else:
        message = _message(keyword, value, instance, schema, err.message)
    return SchemaError(tuple(err.instance_path), keyword, value, schema if isinstance(schema, dict) else {},
                       instance, message, context, () if branch is None else (branch,))


# python-jsonschema's message for each keyword that takes one value
_WORDING = {
    "enum": "{instance!r} is not one of {value!r}",
    "const": "{value!r} was expected",
    "pattern": "{instance!r} does not match {value!r}",
    "minimum": "{instance!r} is less than the minimum of {value!r}",
    "maximum": "{instance!r} is greater than the maximum of {value!r}",
    "exclusiveMinimum": "{instance!r} is less than or equal to the minimum of {value!r}",
    "exclusiveMaximum": "{instance!r} is greater than or equal to the maximum of {value!r}",
}


def _message(keyword: str, value: Any, instance: Any, schema: Any, fallback: str) -> str:
    """python-jsonschema's wording, so messages do not change with the engine."""
    if keyword == "type":
        types = value if isinstance(value, list) else [value]
        return f"{instance!r} is not of type {', '.join(repr(t) for t in types)}"
    if keyword in _WORDING:
        return _WORDING[keyword].format(instance=instance, value=value)
    if keyword == "minItems":
        return f"{instance!r} should be non-empty" if value == 1 else f"{instance!r} is too short"
    if keyword == "maxItems":
        return f"{instance!r} is expected to be empty" if value == 0 else f"{instance!r} is too long"
    if keyword in ("anyOf", "oneOf") and "more than one" not in fallback:
        return f"{instance!r} is not valid under any of the given schemas"
    if keyword == "additionalProperties" and isinstance(instance, dict) and isinstance(schema, dict):
        props = schema.get("properties") or {}
        extras = sorted((k for k in instance if k not in props), key=str)
        verb = "was" if len(extras) == 1 else "were"
        return f"Additional properties are not allowed ({', '.join(map(repr, extras))} {verb} unexpected)"
    return fallback
