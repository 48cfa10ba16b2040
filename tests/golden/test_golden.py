"""Our resolver against real vLLM: goldens recorded by tools/record_golden.py.

Each file is one release (or pr29558). Agreement must be 100% on the compared fields and
on whether vLLM raises (and with which exception type); vLLM's INFO/WARNING lines about
these fields must appear among our events' reasons.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from compare import deployment_of, expected_of, mismatches, missing_logs, target_of

from vllm_preflight.resolve import resolve

DATA = Path(__file__).parent / "data"
FILES = sorted(DATA.glob("*.jsonl"))
REQUIRED = ["0.11.0", "0.11.2", "0.12.0", "0.13.0", "0.14.1", "0.17.1", "0.20.2", "0.21.0", "0.24.0", "0.27.0", "0.30.0",
            "0.33.0", "pr29558"]


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_required_goldens_are_present():
    have = {p.stem for p in FILES}
    assert not [r for r in REQUIRED if r not in have]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_agreement(path: Path):
    cases = _load(path)
    assert len(cases) >= 300
    assert all(c["oracle"]["platform_is_cuda"] for c in cases)  # vLLM ran as on CUDA
    bad = []
    for g in cases:
        res = resolve(deployment_of(g), target_of(g))
        mm = mismatches(g, res)
        if not mm:
            miss = missing_logs(g, res)
            if miss:
                mm = [("log line", miss[0], None)]
        if mm:
            bad.append((g["id"], mm[0], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)}/{len(cases)} disagree; first: " + "\n".join(map(repr, bad[:5]))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_outcome_coverage(path: Path):
    """The corpus exercises each outcome that matters, per release."""
    outcomes: Counter = Counter()
    for g in _load(path):
        e = expected_of(g["oracle"])
        if e["vllm_error"]:
            outcomes["error"] += 1
            continue
        outcomes[e["cudagraph_mode"]] += 1
        # 0.11.0 has no all2all_backend field: its backend is the environment variable alone
        backend = e["all2all_backend"] or g["env"].get("VLLM_ALL2ALL_BACKEND")
        if backend == "deepep_high_throughput" and (e["data_parallel_size"] or 1) > 1:
            outcomes["deepep_ht_dp>1"] += 1
    assert outcomes["error"] >= 10
    assert outcomes["deepep_ht_dp>1"] >= 30
    assert outcomes["NONE"] >= 20
    assert sum(outcomes[m] for m in ("FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "PIECEWISE")) >= 40
