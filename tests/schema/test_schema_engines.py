"""jsonschema-rs (the `check` path) and python-jsonschema (a second opinion) give the same findings.

The finding code reads python-jsonschema's error objects; `schema.engine` adapts jsonschema-rs
errors to that shape. If the adapter drops a path, a keyword, a branch of an anyOf or a word of
a message, the findings differ here.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vllm_preflight.load import deployment_from_words
from vllm_preflight.load.bind import bind
from vllm_preflight.releases import get_release
from vllm_preflight.schema import validate as v
from vllm_preflight.schema.engine import validator as rs_validator
from vllm_preflight.schema.generate import release_schema

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "data"
RELEASES = ("0.11.0", "0.13.0", "0.33.0")


def _findings(errors, entries, bound, release) -> list[tuple]:
    out = []
    for err in errors:
        out += v._findings_for(err, entries, bound, release)
    return sorted((f.rule, f.severity, f.message, str(f.location)) for f in out)


@cache
def _validators(label: str):
    schema = release_schema(label)
    return rs_validator(schema), jsonschema.Draft202012Validator(schema)


def _both(bound, release, instance, entries):
    rs, py = _validators(release.label)
    return (_findings(rs.iter_errors(instance), entries, bound, release),
            _findings(py.iter_errors(instance), entries, bound, release))


def _bound(argv: list[str], release):
    b = bind(deployment_from_words(argv), release)
    b.release = release
    b.release_label = release.label
    return b


@cache
def _plain_bound(version: str):
    return _bound(["vllm", "serve", "m"], get_release(version))


def _golden_argvs(version: str, n: int) -> list[list[str]]:
    path = GOLDEN / f"{version}.jsonl"
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    step = max(1, len(lines) // n)
    return [json.loads(line)["argv"] for line in lines[::step]]


@pytest.mark.parametrize("version", RELEASES)
def test_same_findings_on_golden_commands(version):
    release = get_release(version)
    argvs = _golden_argvs(version, 60)
    if not argvs:
        pytest.skip(f"no goldens for {version}")
    compared = 0
    for argv in argvs:
        b = _bound(argv, release)
        instance, entries, _ = v.build_instance(b, release.options)
        rs, py = _both(b, release, instance, entries)
        assert rs == py, argv
        compared += 1
    assert compared >= 30


# values a --config file or -cc JSON may hold, right and wrong
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-5, 600), st.floats(-2, 2, allow_nan=False),
                    st.sampled_from(["", "1", "1.0", "-2", "full", "FULL", "piecewise", "NONE", "auto", "1k",
                                     "vllm::moe_forward", "true", "x"]))
_value = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(["a", "mode", "fuse_x"]),
                                                                       inner, max_size=2)), max_leaves=6)


def _cc_keys(release) -> list[str]:
    return sorted(release.facts.get("compilation_fields") or []) + ["not_a_field", "enable_attn_fusion"]


@pytest.mark.parametrize("version", ("0.11.0", "0.33.0"))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_same_findings_on_generated_config_files(version, data):
    release = get_release(version)
    options = ["max-model-len", "tensor-parallel-size", "data-parallel-size", "enforce-eager",
               "all2all-backend", "kv-cache-dtype", "max-num-seqs", "gpu-memory-utilization", "no-such-flag"]
    instance = data.draw(st.dictionaries(st.sampled_from(options), _value, max_size=4))
    cc = data.draw(st.dictionaries(st.sampled_from(_cc_keys(release)), _value, max_size=4))
    pc = data.draw(st.dictionaries(st.sampled_from(sorted(release.facts.get("pass_config_fields") or ["x"])
                                                   + ["enable_fusion"]), _value, max_size=3))
    if pc and data.draw(st.booleans()):
        cc["pass_config"] = pc
    if cc:
        instance["compilation-config"] = cc
    rs, py = _both(_plain_bound(version), release, instance, {})
    assert rs == py


def test_valid_and_invalid_agree_on_every_release_schema_shape():
    """A quick cross-check of the compiled schemas themselves: same verdict on a few instances."""
    for version in RELEASES + ("pr29558",):
        schema = release_schema(version)
        for instance in ({}, {"tensor-parallel-size": 2}, {"compilation-config": {"cudagraph_mode": "full"}},
                         {"compilation-config": {"cudagraph_capture_sizes": [1, -2]}}, {"nope": 1}):
            py = jsonschema.Draft202012Validator(schema).is_valid(instance)
            assert rs_validator(schema).is_valid(instance) == py, (version, instance)
