"""Dynamic speculative decoding (`speculative_config.num_speculative_tokens_per_batch_size`)
against real vLLM 0.24.0 (its first release) and 0.33.0: goldens recorded by
`tools/record_golden.py VERSION --dynamic-spec` from `tools/gen_corpus.py: dynamic_spec_cases`.

The corpus covers the schedule's pydantic type errors, the DP and V1-runner switch-offs, FULL
graph modes turned PIECEWISE on the V1 runner, and the capture sizes of each schedule tier,
with and without explicit cudagraph_mode and capture sizes. Agreement must be 100%: refusal
type and message, compared settings, and vLLM's log lines about them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import mismatches, missing_logs, resolve_as_recorded

DATA = Path(__file__).parent / "data" / "dynamic_spec"
FILES = sorted(DATA.glob("*.jsonl"))


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _warned(g: dict, text: str) -> bool:
    return any(text in w for w in g["oracle"]["warnings"] or [])


def test_goldens_present_and_cover_each_rule():
    assert [p.stem for p in FILES] == ["0.24.0", "0.33.0"]
    cases = _load(DATA / "0.33.0.jsonl")
    assert len(cases) >= 40
    assert all(c["oracle"]["platform_is_cuda"] for c in cases)
    refused = [c for c in cases if c["expected"]["vllm_error"]]
    assert len(refused) >= 8 and len(cases) - len(refused) >= 40
    assert sum(_warned(c, "Overriding cudagraph_mode from") for c in cases) >= 10
    assert sum(_warned(c, "not supported with data parallelism") for c in cases) >= 3
    assert sum(_warned(c, "on Model Runner V1") for c in cases) >= 2
    # some cases' capture sizes include tier widths a static schedule would not capture (3, 6, 12...)
    assert sum(3 in (c["expected"].get("cudagraph_capture_sizes") or []) for c in cases) >= 10


def test_0_24_goldens_show_the_first_release_rules():
    """0.24.0: PIECEWISE on the default runner too, DP does not switch it off, no tier sizes."""
    cases = _load(DATA / "0.24.0.jsonl")
    assert len(cases) >= 40
    assert sum(_warned(c, "Overriding cudagraph_mode from") and not c["env"] for c in cases) >= 10
    assert not [c for c in cases if _warned(c, "data parallelism")]
    assert not [c for c in cases if 3 in (c["expected"].get("cudagraph_capture_sizes") or [])]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_dynamic_spec_agreement(path: Path):
    bad = []
    for g in _load(path):
        res = resolve_as_recorded(g)
        mm = mismatches(g, res) or [("log", m, None) for m in missing_logs(g, res)]
        if mm:
            bad.append((g["id"], mm[0], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)} disagree; first: " + "\n".join(map(repr, bad[:8]))


def test_no_dynamic_assumption_left():
    """The field is modelled now: no `not modelled` assumption is printed for it."""
    g = _load(DATA / "0.33.0.jsonl")[0]
    res = resolve_as_recorded(g)
    assert res.resolved is not None and res.assumptions
    assert not [a for a in res.assumptions if "per_batch_size" in a.fact]
