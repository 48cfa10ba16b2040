"""Issue 24's families against real vLLM (resolver fidelity, round 3): goldens recorded by
`tools/record_fidelity.py VERSION FAMILY` from `tools/corpus_fidelity.py`.

* gpu_classes: the same deployments on every GPU class the oracle emulates (compute capability,
  NVML name, memory, GPUs per node): the GPU-dependent defaults and checks at config time.
* env_choices: every variable vLLM reads through its choice-checking readers, with accepted and
  unaccepted values: refused where the release reads it at config time, with vLLM's message.
* field_types: CompilationConfig / PassConfig fields given values of the wrong type.
* transformers_defaults: configs without an expert count, which transformers' config class fills in.

Agreement must be 100%: whether vLLM refuses, with which exception and message, and the compared
settings when it starts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import mismatches, resolve_as_recorded

DATA = Path(__file__).parent / "data" / "fidelity"
FILES = sorted(DATA.glob("*/*.jsonl"))
REQUIRED = {"gpu_classes": ("0.11.0", "0.12.0", "0.20.2", "0.30.0", "0.33.0"),
            # the three ways releases read the variables on the config path: ModelConfig (0.11-0.12),
            # AttentionConfig with the parser's defaults (0.13-0.14), CompilationConfig's default (0.12+)
            "env_choices": ("0.11.0", "0.12.0", "0.13.0", "0.14.1", "0.20.2", "0.30.0", "0.33.0"),
            "field_types": ("0.11.0", "0.12.0", "0.13.0", "0.14.1", "0.20.2", "0.30.0", "0.33.0"),
            "transformers_defaults": ("0.11.0", "0.33.0")}


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_family_has_its_releases():
    have = {(p.parent.name, p.stem) for p in FILES}
    missing = [(f, r) for f, rels in REQUIRED.items() for r in rels if (f, r) not in have]
    assert missing == []


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.stem}" for p in FILES])
def test_fidelity_agreement(path: Path):
    cases = _load(path)
    assert cases and all(c["oracle"]["platform_is_cuda"] for c in cases)
    bad = []
    for g in cases:
        mm = mismatches(g, resolve_as_recorded(g))
        if mm:
            bad.append((g["id"], g["gpu"], mm[0], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)}/{len(cases)} disagree; first: " + "\n".join(map(repr, bad[:8]))
