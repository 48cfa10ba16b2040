"""Real vLLM read each fixture model of tests/fixtures/hub/ as a local folder
(tools/record_hub_goldens.py); the tool reads the same model by its hub id through the loopback
Hub. The two resolutions must agree, case for case (the gated model resolves from the built-in
table, so its cases also check the table against the published file)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import mismatches
from hub_fixtures import hub, online  # noqa: F401 - fixtures
from hub_models import HUB_IDS

from vllm_preflight import model_files
from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

DATA = Path(__file__).resolve().parents[1] / "golden" / "data" / "hub"
FILES = sorted(DATA.glob("*.jsonl"))
REQUIRED = ("0.12.0", "0.33.0")


def test_required_releases_are_recorded():
    assert {p.stem for p in FILES} >= set(REQUIRED)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_hub_id_through_the_loopback_hub_agrees_with_real_vllm(path: Path, online):
    model_files.begin_run()
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert cases and all(c["oracle"]["platform_is_cuda"] for c in cases)
    bad = []
    for g in cases:
        name = g["argv"][2].split("/", 1)[1]
        argv = tuple(g["argv"][:2]) + (HUB_IDS[name],) + tuple(g["argv"][3:])
        res = resolve(Deployment(argv=argv, env=tuple(g["env"].items()), source=g["id"]), g["oracle"]["vllm_version"],
                      serve_stage=False)
        where = next(a.source for a in res.assumptions if a.fact == "model")
        assert ("hub @ " in where) != (name == "llama-3.3-70b-instruct"), where  # the gated one: the table
        mm = mismatches(g, res)
        if mm:
            bad.append((g["id"], mm[0]))
    assert not bad, f"{len(bad)}/{len(cases)} disagree: " + "\n".join(map(repr, bad[:8]))
