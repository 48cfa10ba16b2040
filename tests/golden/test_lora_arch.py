"""LoRA on an architecture without `SupportsLoRA`, against real vLLM 0.33.0
(tools/record_lora_arch.py): from 0.33.0 VllmConfig refuses it at config time, naming the model's
path, which the recording keeps as `{models}` so it compares with the fixture folder here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import MODELS, deployment_of, mismatches, target_of

from vllm_preflight.resolve import resolve

DATA = Path(__file__).parent / "data" / "lora_arch"
FILES = sorted(DATA.glob("*.jsonl"))


def _load(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for g in lines:  # the fixture folder as this checkout has it
        if g["oracle"].get("error"):
            g["oracle"]["error"] = g["oracle"]["error"].replace("{models}", str(MODELS))
    return lines


def test_the_newest_release_is_recorded():
    assert [p.stem for p in FILES] == ["0.33.0"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_lora_arch_agreement(path: Path):
    cases = _load(path)
    assert cases and all(c["oracle"]["platform_is_cuda"] for c in cases)
    assert all("LoRA is not supported for" in (c["oracle"]["error"] or "") for c in cases)
    bad = []
    for g in cases:
        mm = mismatches(g, resolve(deployment_of(g), target_of(g)))
        if mm:
            bad.append((g["id"], mm[0], " ".join(g["argv"][3:])))
    assert not bad, f"{len(bad)}/{len(cases)} disagree; first: " + "\n".join(map(repr, bad[:8]))
