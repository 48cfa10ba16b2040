"""Refusal families (issue 9) against real vLLM: goldens recorded by
`tools/record_golden.py VERSION --families` from `tools/gen_corpus.py`'s family corpus.

Each line exercises one family (parser negative spellings and enum values, custom_ops,
pass flags, speculative decoding, KV transfer, model x parallel, the all2all env var,
duplicate dotted keys). Agreement must be 100%: whether vLLM refuses, with which
exception type, and the compared settings when it starts.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from compare import mismatches, resolve_as_recorded

DATA = Path(__file__).parent / "data" / "families"
FILES = sorted(DATA.glob("*.jsonl"))
REQUIRED = ["0.12.0", "0.13.0", "0.21.0", "0.24.0", "0.27.0", "0.33.0", "pr29558"]
FAMILY_MIN = 25


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_required_family_goldens_are_present():
    have = {p.stem for p in FILES}
    assert [r for r in REQUIRED if r not in have] == []


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_family_agreement(path: Path):
    cases = _load(path)
    assert len(cases) >= 500
    assert all(c["oracle"]["platform_is_cuda"] for c in cases)
    bad = []
    for g in cases:
        res = resolve_as_recorded(g)
        mm = mismatches(g, res)
        if mm:
            bad.append((g["id"], g["axes"][0], mm[0], " ".join(g["argv"][3:]), g["env"]))
    by_family = Counter(b[1] for b in bad)
    assert not bad, f"{len(bad)}/{len(cases)} disagree {dict(by_family)}; first: " + "\n".join(map(repr, bad[:8]))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_family_quotas(path: Path):
    counts = Counter(g["axes"][0] for g in _load(path))
    short = {f: n for f, n in counts.items() if n < FAMILY_MIN}
    assert not short and len(counts) >= 8
