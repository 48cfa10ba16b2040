"""Goldens recorded from each release's own runtime code (tools/record_runtime_golden.py):
our port must agree 100% on the final cudagraph_mode, capture sizes, vLLM's warning lines
and its refusal, case by case."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from runtime_compare import ours_lowering, ours_selector, theirs_lowering, theirs_selector

DATA = Path(__file__).parent / "data"
LOWERING = sorted(DATA.glob("lowering-*.jsonl"))


def _lines(path: Path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_required_releases_are_recorded():
    versions = {p.stem.split("-", 1)[1] for p in LOWERING}
    assert {"0.12.0", "0.13.0", "0.20.2", "0.30.0", "0.33.0"} <= versions
    for p in LOWERING:
        assert len(_lines(p)) >= 200, p.name


@pytest.mark.parametrize("path", LOWERING, ids=lambda p: p.stem)
def test_lowering_agrees_with_the_release(path):
    lines = _lines(path)
    version = path.stem.split("-", 1)[1]
    bad = [(line["case"]["id"], ours_lowering(line["case"], version), theirs_lowering(line))
           for line in lines if ours_lowering(line["case"], version) != theirs_lowering(line)]
    assert not bad, f"{len(bad)}/{len(lines)} disagree; first: {bad[0]}"
    # the corpus exercises every outcome the check can have
    outcomes = {theirs_lowering(line).get("mode") or theirs_lowering(line)["error"].split(":")[0]
                for line in lines}
    assert {"PIECEWISE", "NONE", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "ValueError"} <= outcomes


SELECTOR = sorted(DATA.glob("selector-*.jsonl"))


def test_selector_goldens_cover_the_required_releases():
    versions = {p.stem.split("-", 1)[1] for p in SELECTOR}
    assert {"0.12.0", "0.13.0", "0.20.2", "0.30.0", "0.33.0"} <= versions
    for p in SELECTOR:
        assert len(_lines(p)) >= 200, p.name


@pytest.mark.parametrize("path", SELECTOR, ids=lambda p: p.stem)
def test_backend_choice_and_declared_support_agree_with_the_release(path):
    lines = _lines(path)
    version = path.stem.split("-", 1)[1]
    bad = [(line["case"], ours_selector(line["case"], version), theirs_selector(line))
           for line in lines if ours_selector(line["case"], version) != theirs_selector(line)]
    assert not bad, f"{len(bad)}/{len(lines)} disagree; first: {bad[0]}"
    chosen = {theirs_selector(line).get("backend") for line in lines}
    assert {"FLASH_ATTN", "FLASHINFER", "TRITON_ATTN"} <= chosen
