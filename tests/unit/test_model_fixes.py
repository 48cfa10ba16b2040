"""The three fixes of the model_fixes family at the releases no golden records (the recorded
ones are in tests/golden/data/model_families/model_fixes/). Expectations from reading vLLM:

- is_hybrid per release (releases/data/hybrid_archs.json, tools/extract_hybrid_archs.py):
  Kimi-Linear's class is IsHybrid in every release that registers it (0.11.1-0.33.0
  model_executor/models/kimi_linear.py), so prefix caching is on by default from 0.28.0
  (0.28.0 engine/arg_utils.py) and then needs chunked prefill; 0.26.0-0.27.x keep it opt-in.
  ModelConfig.is_hybrid is False when layer_types are all "attention" (0.11.1+ config/model.py;
  0.29.0 also counts "full_attention", which Transformers 5 makes of a legacy "attention").
- hf_config_override's Nemotron-H MTP conversion starts at 0.17.0 (config/speculative.py:273-284):
  model type nemotron_h with num_nextn_predict_layers > 0; before it, method "mtp" on that
  target is an unsupported method.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases.architectures import _hybrid_runs
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
MTP = ("--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 1}))
ALIGN = "1 validation error for VllmConfig\n  Assertion failed, Chunked prefill is required for mamba cache mode 'align'."
UNSUPPORTED = "Unsupported speculative method: 'mtp'"


def _err(version: str, model: str, *words: str) -> str | None:
    res = resolve(Deployment(argv=("vllm", "serve", str(MODELS / model)) + words, env=(), source="t"), version)
    return res.vllm_error.message if res.vllm_error else None


def test_kimi_linear_is_hybrid_in_every_release_that_registers_it():
    runs = _hybrid_runs()["KimiLinearForCausalLM"]
    assert runs == [((0, 11, 1), True)]
    assert _hybrid_runs()["KimiK3ForConditionalGeneration"] == [((0, 27, 0), True)]
    assert _hybrid_runs()["BambaForCausalLM"] == [((0, 11, 0), True), ((0, 24, 0), False)]
    # the registry's aliases of MiniMaxText01's class are hybrid too (0.11.0 registry.py:52-54)
    for alias in ("MiniMaxForCausalLM", "MiniMaxM1ForCausalLM", "MiniMaxText01ForCausalLM"):
        assert _hybrid_runs()[alias] == [((0, 11, 0), True), ((0, 24, 0), False)]


@pytest.mark.parametrize("version,default_on", [("0.26.0", False), ("0.27.1", False), ("0.28.0", True),
                                                ("0.30.0", True), ("0.31.0", True)])
def test_kimi_linear_prefix_caching_default_needs_chunked_prefill(version, default_on):
    assert _err(version, "replayssm-kimi-linear", "--no-enable-chunked-prefill") == (ALIGN if default_on else None)
    assert _err(version, "replayssm-kimi-linear", "--enable-prefix-caching", "--no-enable-chunked-prefill") == ALIGN


@pytest.mark.parametrize("version,hybrid", [("0.28.0", True), ("0.29.0", False), ("0.31.0", False),
                                            ("0.32.0", False)])
def test_all_attention_layer_types_are_not_hybrid(version, hybrid):
    # 0.28.0: Transformers 5 renamed the legacy "attention" to "full_attention", which only
    # 0.29.0+ counts as attention (real 0.28.0 refuses: the model_fixes golden)
    words = ("--enable-prefix-caching", "--no-enable-chunked-prefill")
    assert _err(version, "fix-granite4-all-attention", *words) == (ALIGN if hybrid else None)
    assert _err(version, "replayssm-granite4-hybrid", *words) == ALIGN


@pytest.mark.parametrize("version,converted", [("0.16.0", False), ("0.17.0", True), ("0.19.0", True),
                                               ("0.25.0", True), ("0.31.0", True)])
def test_nemotron_h_mtp_conversion_starts_at_0_17(version, converted):
    assert _err(version, "fix-nemotronh-mtp1", *MTP) == (None if converted else UNSUPPORTED)
    assert _err(version, "fix-nemotronh-mtp0", *MTP) == UNSUPPORTED  # no MTP layers: no conversion


@pytest.mark.parametrize("model,before,first", [
    ("fix-hyv3-mtp1", "0.19.1", "0.20.0"),          # hy_v3 (0.20.0 speculative.py:430-435)
    ("fix-bailing25-mtp1", "0.24.0", "0.25.0"),     # bailing_hybrid / BailingMoeV2_5ForCausalLM
    ("fix-hyv4-mtp1", "0.28.0", "0.29.0"),          # hy_v4
    ("fix-qwen35-text-mtp1", "0.27.1", "0.28.0"),   # qwen3_5_text (qwen3_5 / qwen3_5_moe since 0.17.0)
])
def test_later_mtp_conversions_start_at_their_first_release(model, before, first):
    assert _err(before, model, *MTP) == UNSUPPORTED
    assert _err(first, model, *MTP) is None
