"""The schema findings of `check` (`schema.validate.validate_bound`), memoised per option value.

Why this is exact: a release's schema constrains the instance only through `properties` (one
subschema per option) and `additionalProperties: false`; jsonschema reports the errors of
`properties` option by option, in the schema's (sorted) key order, each error about one
option's value alone. So when every key of the instance is one of the schema's properties,
the errors of the whole instance are the errors of each `{key: value}` in sorted key order,
and those depend only on (release schema, key, value): a matrix asks the same few values
thousands of times. The findings are then made from the errors exactly as `validate_bound`
makes them (locations and wording per cell). Anything else (a key outside the properties)
takes `validate_bound` itself. tests/matrix/test_exact.py checks both ways agree.
"""
from __future__ import annotations

import json
from functools import lru_cache

from vllm_preflight.schema.generate import release_schema
from vllm_preflight.schema.validate import _findings_for, build_instance, validate_bound

_errors: dict[tuple, list] = {}


def _schema_name(release) -> str:
    return release.label if release.target == "pr29558" else release.version


@lru_cache(maxsize=None)
def _key_validator(name: str, key: str):
    from vllm_preflight.schema.engine import validator

    full = release_schema(name)
    mini = {"$schema": full["$schema"], "type": "object", "properties": {key: full["properties"][key]},
            "$defs": full["$defs"]}
    return validator(mini)


def validate(bound, release) -> list:
    """Equal to `validate_bound(bound, release)`."""
    name = _schema_name(release)
    props = release_schema(name)["properties"]
    bound.release = release
    bound.release_label = getattr(release, "label", release.version)
    instance, entries, findings = build_instance(bound, release.options)
    if any(k not in props for k in instance):
        return validate_bound(bound, release)
    for key in sorted(instance):  # the schema's properties are in sorted key order
        value = instance[key]
        try:
            memo = (name, key, json.dumps(value))  # key order kept: errors list extra keys in it
        except (TypeError, ValueError):
            memo = None
        errors = _errors.get(memo) if memo is not None else None
        if errors is None:
            errors = list(_key_validator(name, key).iter_errors({key: value}))
            if memo is not None:
                _errors[memo] = errors
        for err in errors:
            findings += _findings_for(err, entries, bound, release)
    return findings
