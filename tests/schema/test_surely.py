"""schema/surely.py says "certainly valid" only where the full release schema finds no error.

The check path skips the validator when `surely_valid` is True, so a True where the full schema
has an error would lose a finding. Compared here on every golden command of three releases and
pr29558, the bundled examples, and generated values for every key of a release's schema.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vllm_preflight.load import deployment_from_words
from vllm_preflight.load.bind import bind
from vllm_preflight.releases import get_release
from vllm_preflight.schema import validate as v
from vllm_preflight.schema.engine import validator
from vllm_preflight.schema.generate import release_schema
from vllm_preflight.schema.surely import keys_of, surely_valid

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "data"
NAMES = ("0.11.0", "0.13.0", "0.20.2", "0.33.0", "pr29558")


@cache
def _full(name: str):
    return validator(release_schema(name))


def _agrees(instance, name: str) -> bool:
    """surely_valid implies no error of the full schema."""
    return not surely_valid(instance, name) or _full(name).is_valid(instance)


def test_golden_commands_and_how_often_it_is_sure():
    sure = total = 0
    for name in NAMES:
        release = get_release(name)
        path = GOLDEN / f"{release.version}.jsonl"
        for line in path.read_text().splitlines()[:400]:
            g = json.loads(line)
            try:
                d = deployment_from_words(list(g["argv"]))
            except Exception:  # noqa: BLE001, S112 - a golden command that is not a plain server command
                continue
            bound = bind(d, release)
            instance, _, _ = v.build_instance(bound, release.options)
            assert _agrees(instance, name), (name, instance)
            total += 1
            sure += surely_valid(instance, name)
    assert total > 500
    assert sure > total // 3  # the skip is worth having: most valid commands are proven valid


def test_every_key_schema_is_the_full_schemas():
    for name in NAMES:
        full = release_schema(name)
        keys = keys_of(name)
        for key, schema in full["properties"].items():
            assert keys(key) == schema, (name, key)
        assert keys("no-such-option-anywhere") is None
        assert keys.defs == full["$defs"]


values = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True)
                      | st.sampled_from(["8", " 8 ", "1k", "auto", "FULL", "full_and_piecewise", "piecewise",
                                         "NONE", "3", "true", "no", "x", "1.5", "-1", "8\n", "\u00a08", "\x1c8"])
                      | st.text(max_size=4),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["cudagraph_mode", "mode", "level", "pass_config",
                                                         "splitting_ops", "fuse_norm_quant", "custom_ops",
                                                         "cudagraph_capture_sizes", "nope"]), inner, max_size=3),
                      max_leaves=8)
KEYS = ["tensor-parallel-size", "compilation-config", "max-num-batched-tokens", "enable-expert-parallel",
        "all2all-backend", "data_parallel_size", "cudagraph-capture-sizes", "kv-transfer-config", "dtype",
        "max-model-len", "quantization", "enforce-eager", "gpu-memory-utilization", "no-such-key", "tp"]


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(NAMES), st.dictionaries(st.sampled_from(KEYS), values, max_size=3))
def test_generated_values(name, instance):
    assert _agrees(instance, name), (name, instance)
