"""The schema findings of `check` (`schema.validate.validate_bound`), memoised per option value.

Why this is exact: a release's schema constrains the instance only through `properties` (one
subschema per option) and `additionalProperties: false`; jsonschema reports the errors of
`properties` option by option, in the schema's (sorted) key order, each error about one
option's value alone. So when every key of the instance is one of the schema's properties,
the errors of the whole instance are the errors of each `{key: value}` in sorted key order,
and those depend only on (the property's schema, key, value): a matrix asks the same few
values thousands of times, and most releases write a property the same way. Only the
properties a command uses are generated (with `schema.generate`'s own functions), not the
release's whole schema. The findings are then made from the errors exactly as `validate_bound`
makes them (locations and wording per cell). Anything else (a key outside the properties)
takes `validate_bound` itself. tests/matrix/test_matrix_exact.py checks both ways agree.
"""
from __future__ import annotations

import json
from functools import cache

from vllm_preflight.schema.generate import SCHEMA_DIALECT, compilation_config_schema, option_schema, pass_config_schema
from vllm_preflight.schema.validate import _findings_for, build_instance, validate_bound

_DEFS_FOR = {"compilation_config": "#/$defs/CompilationConfig"}
_errors: dict[tuple, list] = {}


def _schema_name(release) -> str:
    return release.label if release.target == "pr29558" else release.version


def _option(release, key: str):
    """The option `release_schema` writes as property `key` (its first long name, `--no-` forms
    aside), or None where the key is not such a property (aliases take `validate_bound`).
    argparse allows one option per option string, so `--key` finds the only candidate."""
    opt = release.options.options.get("--" + key)
    if opt is None or opt.kind == "help":
        return None
    longs = [s for s in opt.strings if s.startswith("--") and not s.startswith("--no-")]
    return opt if longs and longs[0][2:] == key else None


@cache
def _key_schema(name: str, key: str) -> str:
    """The property's schema as `release_schema(name)` writes it (with the config $defs it refers
    to), as canonical text: releases whose property reads the same share one validator."""
    from vllm_preflight.releases import get_release, recorded_facts

    opt = _option(get_release(name), key)
    schema = {"$schema": SCHEMA_DIALECT, "type": "object", "properties": {key: option_schema(opt, _DEFS_FOR)}}
    if opt.dest in _DEFS_FOR:
        facts = recorded_facts(get_release(name).version)
        schema["$defs"] = {"CompilationConfig": compilation_config_schema(facts),
                           "PassConfig": pass_config_schema(facts)}
    return json.dumps(schema)  # keyword order kept: jsonschema reports errors in it


@cache
def _validator(schema_text: str):
    from vllm_preflight.schema.engine import validator

    return validator(json.loads(schema_text))


def validate(bound, release) -> list:
    """Equal to `validate_bound(bound, release)`."""
    name = _schema_name(release)
    bound.release = release
    bound.release_label = getattr(release, "label", release.version)
    instance, entries, findings = build_instance(bound, release.options)
    if any(_option(release, k) is None for k in instance):
        return validate_bound(bound, release)
    bound.written = (instance, entries)  # as validate_bound: written_settings reads it, not the words again
    for key in sorted(instance):  # the schema's properties are in sorted key order
        value = instance[key]
        text = _key_schema(name, key)
        try:
            memo = (text, key, json.dumps(value))  # key order kept: errors list extra keys in it
        except (TypeError, ValueError):
            memo = None
        errors = _errors.get(memo) if memo is not None else None
        if errors is None:
            errors = list(_validator(text).iter_errors({key: value}))
            if memo is not None:
                _errors[memo] = errors
        for err in errors:
            findings += _findings_for(err, entries, bound, release)
    return findings
