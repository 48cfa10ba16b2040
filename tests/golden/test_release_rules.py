"""Issue 9 release rules against real vLLM: async scheduling with pipeline parallelism and the
model runner that decides it (V1 refuses it late from 0.31.0, up front on 0.33.0), the V1 runner's
own refusals (0.29.0+), V2's stock-compile rule, and the KV connector lookups (any KV-transfer config
without a hybrid-KV-cache-manager preference from 0.22.0; with full CUDA graphs from 0.17.0).

The cases (llama-dense and mixtral-moe; default, VLLM_USE_V2_MODEL_RUNNER=0 and =1) were recorded
with the oracle on 0.12.0, 0.30.0, 0.31.0 and 0.33.0 (tests/golden/data/release_rules/). Agreement
must be 100%: whether vLLM refuses, the exception type and message, and the compared settings.
tools/record_release_rules.py re-asks a file's cases and adds the axes `v2_forced` (the V2 runner
taken with a feature it lacks), `async_spec` (async scheduling with a non-EAGLE/MTP method) and
`pcp` (0.12.0's ParallelConfig refusal); those were recorded on 0.12.0, pr29558, 0.30.0 and 0.33.0.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import deployment_of, mismatches, target_of

from vllm_preflight.resolve import resolve

DATA = Path(__file__).parent / "data" / "release_rules"
FILES = sorted(DATA.glob("*.jsonl"))
REQUIRED = ["0.12.0", "0.30.0", "0.31.0", "0.33.0"]


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_required_release_rule_goldens_are_present():
    assert [r for r in REQUIRED if r not in {p.stem for p in FILES}] == []


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_release_rule_agreement(path: Path):
    cases = _load(path)
    assert len(cases) >= 45 and all(c["oracle"]["platform_is_cuda"] for c in cases)
    bad = []
    for g in cases:
        mm = mismatches(g, resolve(deployment_of(g), target_of(g)))
        if mm:
            bad.append((g["id"], g["axes"][0], mm[0], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)}/{len(cases)} disagree; first: " + "\n".join(map(repr, bad[:8]))


def test_the_rules_change_where_the_sources_say():
    """async + PP on the V1 runner: accepted on 0.30.0, refused late on 0.31.0 and up front on
    0.33.0; an unknown connector without full graphs: looked up on 0.30.0+ only without an HMA
    preference."""
    def outcome(version, axis, argv_tail, env):
        for g in _load(DATA / f"{version}.jsonl"):
            if g["axes"][0] == axis and g["argv"][3:] == argv_tail and g["env"] == env:
                return (g["expected"]["vllm_error"] or {}).get("message")
        raise AssertionError((version, argv_tail, env))

    v1 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    tail = ["-pp", "2", "--async-scheduling"]
    assert outcome("0.30.0", "async_pp", tail, v1) is None
    assert "Model Runner V1 does not support: pipeline parallelism with async scheduling" in \
        outcome("0.31.0", "async_pp", tail, v1)
    assert "Async scheduling is not supported by the V1 model runner" in outcome("0.33.0", "async_pp", tail, v1)
    kv = ["--kv-transfer-config", '{"kv_connector": "NoSuchConnector", "kv_role": "kv_both"}', "--enforce-eager"]
    assert "Unsupported connector type: NoSuchConnector" in outcome("0.33.0", "kv_connector", kv, {})
    assert outcome("0.33.0", "kv_connector", kv + ["--disable-hybrid-kv-cache-manager"], {}) is None
    assert outcome("0.12.0", "kv_connector", kv, {}) is None


def test_the_config_time_refusals_change_where_the_sources_say():
    """V2 forced with ngram: refused on 0.30.0 (V2 lacks it), taken on 0.33.0; async scheduling +
    ngram: refused on 0.12.0 and 0.30.0 whatever the runner, only on 0.33.0's V1 runner (other
    wording); -pcp 2: refused by 0.12.0's ParallelConfig only."""
    def outcome(version, axis, argv_tail, env):
        for g in _load(DATA / f"{version}.jsonl"):
            if g["axes"][0] == axis and g["argv"][3:] == argv_tail and g["env"] == env:
                return (g["expected"]["vllm_error"] or {}).get("message")
        raise AssertionError((version, argv_tail, env))

    v1, v2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    ngram = ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4}']
    assert "Model Runner V2 does not yet support: speculative method 'ngram'" in \
        outcome("0.30.0", "v2_forced", ngram, v2)
    assert outcome("0.33.0", "v2_forced", ngram, v2) is None
    assert outcome("0.30.0", "v2_forced", ngram, v1) is None
    for version in ("0.12.0", "0.30.0"):
        for env in ({}, v1, v2):
            assert "Currently, async scheduling is only supported with EAGLE/MTP" in \
                outcome(version, "async_spec", ngram + ["--async-scheduling"], env)
    assert outcome("0.33.0", "async_spec", ngram + ["--async-scheduling"], {}) is None
    assert "Async scheduling is not supported by the V1 model runner with ngram-based speculative decoding." in \
        outcome("0.33.0", "async_spec", ngram + ["--async-scheduling", "-pp", "2"], v1)
    assert "Prefill context parallelism is not fully supported" in outcome("0.12.0", "pcp", ["-pcp", "2"], {})
    assert outcome("0.30.0", "pcp", ["-pcp", "2"], {}) is None
