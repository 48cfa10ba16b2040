"""Model-level refusal families (issue 9) against real vLLM: one golden file per family and
release, recorded by `tools/record_golden.py VERSION --model-family FAMILY` from
`tools/corpus_model_families.py`. Agreement must be 100%: whether vLLM refuses, with which
exception type and message, and the compared settings when it starts."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from compare import mismatches, resolve_as_recorded

DATA = Path(__file__).parent / "data" / "model_families"
FILES = sorted(DATA.glob("*/*.jsonl"))
REQUIRED_RELEASES = ("0.12.0", "pr29558", "0.33.0")
FAMILIES = ("pp_arch", "multimodal", "lora", "max_model_len", "quantization", "arch_hooks",
            "json_options", "hf_overrides", "runner_convert",
            "world_size", "spec_flags", "json_text", "validators", "v2_features", "mamba_quant",
            "serve_stage", "speculative", "subconfigs", "vllm_config", "quant_schemes", "quant_schemes_2", "reasoning_parser",
            "vllm_config_2", "vllm_config_3", "replayssm", "speculators", "quant_schemes_3", "spec_parallel")
FAMILIES += ("speculative_2",)  # draft features and slots (tools/corpus_speculative2.py)
FAMILIES += ("spec_values",)  # refusals.json value sets per release (tools/corpus_spec_values.py)
FAMILIES += ("speculative_3",)  # Qwen3-Omni DSpark and the last draft rules (tools/corpus_speculative3.py)
FAMILIES += ("model_fixes",)  # hybrid per release, MTP conversions, stochastic rounding (tools/corpus_model_fixes.py)
FAMILIES += ("mtp_conversions_2",)  # MiMo-V2, Inkling, Qwen4-Exp MTP conversions (tools/corpus_mtp2.py)


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_family_has_the_required_releases():
    have = {(p.parent.name, p.stem) for p in FILES}
    missing = [(f, r) for f in FAMILIES for r in REQUIRED_RELEASES if (f, r) not in have]
    assert missing == []


def test_releases_with_every_family_hold_500_cases():
    per_release: Counter = Counter()
    for p in FILES:
        per_release[p.stem] += len(_load(p))
    assert all(per_release[r] >= 500 for r in REQUIRED_RELEASES), dict(per_release)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.stem}" for p in FILES])
def test_model_family_agreement(path: Path):
    cases = _load(path)
    assert cases and all(c["oracle"]["platform_is_cuda"] for c in cases)
    bad = []
    for g in cases:
        mm = mismatches(g, resolve_as_recorded(g))
        if mm:
            bad.append((g["id"], mm[0], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)}/{len(cases)} disagree; first: " + "\n".join(map(repr, bad[:8]))
