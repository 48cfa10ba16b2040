"""JSON Schemas of `vllm serve` options, one per release, generated from the release data.

The instance a schema describes is what a vLLM `--config` YAML file holds: long option
names (dash spelling; the underscore spelling is an alias) mapped to values of the type
that release's argument parser converts to, with its choices. `compilation-config` is
described field by field from the release's CompilationConfig and PassConfig (field
names, cudagraph_mode and compilation mode names, accepted in any case as vLLM upper-cases
them). Nothing here is copied by hand from vLLM: option names, converters, choices and
config fields all come from `releases` (recorded from each release's own code).

Choices are standard `enum`s, so editors complete them: argparse's choices are
case-sensitive and are an `enum` alone; names vLLM upper-cases (cudagraph_mode,
compilation mode) are an `enum` of vLLM's spelling next to a case-insensitive pattern, so
validators accept any case and editors still offer the names.
"""
from __future__ import annotations

import re
from functools import cache

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# `$id`s name the files shipped in the package (schema/json/), at the repository's raw address
REPOSITORY = "https://github.com/vllm-preflight/vllm-preflight"
SCHEMA_BASE = "https://raw.githubusercontent.com/vllm-preflight/vllm-preflight/main/src/vllm_preflight/schema/json"


def ci_pattern(names) -> str:
    """A case-insensitive regex for enum names that JSON Schema validators all read."""
    def ci(name: str) -> str:
        return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in name)

    return "^(" + "|".join(ci(n) for n in names) + ")$"


def _integer_text() -> dict:
    return {"type": "string", "pattern": r"^\s*[-+]?[0-9]+\s*$", "description": "an integer"}


def any_case(names) -> list[dict]:
    """Branches for names vLLM reads in any case: the names (for editors), then any case."""
    return [{"enum": list(names)}, {"type": "string", "pattern": ci_pattern(names)}]


def _base(converter: str) -> dict:
    if converter == "int":
        return {"anyOf": [{"type": "integer"}, _integer_text()]}
    if converter == "float":
        return {"anyOf": [{"type": "number"}, {"type": "string", "pattern": r"^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$",
                                               "description": "a number"}]}
    if converter in ("hint", "hint_auto"):
        pattern = r"^\s*([0-9]+(\.[0-9]+)?[kKmMgGtT]?)\s*$" if converter == "hint" else \
            r"^\s*([0-9]+(\.[0-9]+)?[kKmMgGtT]?|-1|[Aa][Uu][Tt][Oo])\s*$"
        what = "an integer (1k, 2M ...)" if converter == "hint" else "an integer (1k, 2M ...), -1 or auto"
        return {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": pattern, "description": what}]}
    if converter == "bool":
        return {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": "^([Tt]rue|[Ff]alse|1|0|yes|no)$",
                                                "description": "true or false"}]}
    if converter in ("json", "dict_or_str"):
        return {}
    if converter in ("json_obj", "config"):
        return {"type": ["object", "string"]}
    return {"type": "string"}


def option_schema(opt, defs_for: dict) -> dict:
    kind = opt.kind
    if kind in ("store_true", "store_false", "boolopt", "store_const", "help"):
        return {"type": "boolean", "description": opt.display}
    if kind == "count":
        return {"type": ["integer", "boolean"], "description": opt.display}
    conv = opt.converter
    optional = conv.startswith("opt:")
    base_conv = conv[4:] if optional else conv
    if opt.dest in defs_for:
        schema: dict = {"anyOf": [{"$ref": defs_for[opt.dest]}, {"type": "string"}]}
    elif opt.choices:
        values = [c for c in opt.choices if c != "None"]
        schema = {"enum": values}
        optional = optional or "None" in opt.choices
    else:
        schema = _base(base_conv)
    if optional:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if opt.nargs in ("+", "*") or isinstance(opt.nargs, int) or kind == "append":
        schema = {"anyOf": [schema, {"type": "array", "items": schema}]}
    schema["description"] = opt.display
    return schema


def _bool_or_null() -> dict:
    return {"type": ["boolean", "null"]}


def pass_config_schema(facts: dict) -> dict:
    props = {}
    for name, default in sorted((facts.get("pass_config_fields") or {}).items()):
        if isinstance(default, bool) or name.startswith(("enable_", "fuse_", "eliminate_")):
            props[name] = _bool_or_null()
        elif isinstance(default, (int, float)) or name.endswith(("_mb", "_size", "_threshold")):
            props[name] = {"type": ["number", "null"]}
        else:
            props[name] = {}
    return {"type": "object", "properties": props, "additionalProperties": False,
            "description": "PassConfig: the fields of this release"}


def compilation_config_schema(facts: dict) -> dict:
    modes = facts.get("cudagraph_modes") or []
    cmodes = facts.get("compilation_modes") or []
    known = {
        "mode": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": max(len(cmodes) - 1, 3)},
                           *any_case(cmodes), {"type": "null"}]},
        "level": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 3}, {"type": "null"}]},
        "cudagraph_mode": {"anyOf": [*any_case(modes), {"type": "integer", "minimum": 0, "maximum": 2},
                                     {"type": "null"}]},
        "splitting_ops": {"type": ["array", "null"], "items": {"type": "string"}},
        "custom_ops": {"type": "array", "items": {"type": "string"}},
        # no `minimum`: real vLLM 0.13.0, 0.20.2 and 0.33.0 accept [1, -2] (resolving to [-2, 1])
        # and a negative cudagraph_num_of_warmups; the schema says what vLLM's config accepts
        "cudagraph_capture_sizes": {"type": ["array", "null"], "items": {"type": "integer"}},
        "compile_sizes": {"type": ["array", "null"], "items": {"type": ["integer", "string"]}},
        "max_cudagraph_capture_size": {"type": ["integer", "null"], "minimum": 0},
        "use_inductor_graph_partition": _bool_or_null(),
        "use_inductor": _bool_or_null(),
        "use_cudagraph": _bool_or_null(),
        "full_cuda_graph": _bool_or_null(),
        "cudagraph_num_of_warmups": {"type": "integer"},
        "cudagraph_copy_inputs": _bool_or_null(),
        "backend": {"type": "string"},
        "pass_config": {"anyOf": [{"$ref": "#/$defs/PassConfig"}, {"type": "null"}]},
    }
    props = {name: known.get(name, {}) for name in sorted(facts.get("compilation_fields") or [])}
    return {"type": "object", "properties": props, "additionalProperties": False,
            "description": "CompilationConfig: the fields of this release"}


@cache
def release_schema(name: str) -> dict:
    """The schema of `vllm serve` options for a release (or `pr29558`)."""
    from vllm_preflight.releases import get_release, recorded_facts

    release = get_release(name)
    table = release.options
    facts = recorded_facts(release.version)
    label = getattr(release, "label", name)
    defs = {"CompilationConfig": compilation_config_schema(facts), "PassConfig": pass_config_schema(facts)}
    defs_for = {"compilation_config": "#/$defs/CompilationConfig"}
    props: dict = {}
    seen: set[int] = set()
    for opt in table.options.values():
        if id(opt) in seen or opt.kind == "help":
            continue
        seen.add(id(opt))
        longs = [s for s in opt.strings if s.startswith("--") and not s.startswith("--no-")]
        if not longs:
            continue
        key = longs[0][2:]
        props[key] = option_schema(opt, defs_for)
        for alias in longs[1:]:
            props.setdefault(alias[2:], {"$ref": f"#/properties/{key}"})
    for key in list(props):
        under = key.replace("-", "_")
        if under != key:
            props.setdefault(under, {"$ref": f"#/properties/{key}"})
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"{SCHEMA_BASE}/vllm-serve-{label}.json",
        "title": f"vllm serve options, vLLM {label}",
        "description": "A vLLM --config YAML file (or the flags of one `vllm serve` command), as this release's "
                       "argument parser reads it. Generated by vllm-preflight from the release's own option "
                       "table and config classes.",
        "type": "object",
        "properties": dict(sorted(props.items())),
        "additionalProperties": False,
        "$defs": defs,
    }
