"""V2-runner features and async scheduling with disable_padded_drafter_batch in releases without a
golden (recorded: 0.12.0, pr29558, 0.22.0, 0.30.0, 0.33.0 in tests/golden/data/model_families/
v2_features). Expected values are read off each release's config/vllm.py (lines cited per test)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
DENSE, MOE, DS = (str(MODELS / n) for n in ("llama-dense", "mixtral-moe", "deepseek-v3-moe"))
V2 = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
MTP_PARALLEL = json.dumps({"method": "mtp", "num_speculative_tokens": 1, "parallel_drafting": True})
MTP_NOPAD = json.dumps({"method": "mtp", "num_speculative_tokens": 1, "disable_padded_drafter_batch": True})


def _error(version: str, model: str, *extra: str, env: dict | None = None) -> str | None:
    res = resolve(Deployment(argv=("vllm", "serve", model) + extra, env=tuple((env or {}).items()), source="t"),
                  version)
    return res.vllm_error.message.split("Value error, ", 1)[-1] if res.vllm_error else None


def test_0_20_lists_the_four_argument_features_in_order():
    # 0.20.0 config/vllm.py:1805-1828: dbo, routed experts, logits processors, KV sharing fast prefill,
    # EC transfer, under "VLLM_USE_V2_MODEL_RUNNER does not yet support: "
    err = _error("0.20.0", MOE, "--kv-sharing-fast-prefill", "--logits-processors", "a.b:C",
                 "--enable-return-routed-experts", env=V2)
    assert err == ("VLLM_USE_V2_MODEL_RUNNER does not yet support: routed experts capture, custom logits "
                   "processors, KV sharing fast prefill")
    assert _error("0.20.0", MOE, "--kv-sharing-fast-prefill") is None  # V1 unless asked (opt-in)


def test_parallel_drafting_wording_and_native_methods_by_release():
    # 0.22.0/0.23.0 :2006-2007 any method; 0.24.0 :2039-2043 "for EAGLE" (dflash drafts natively)
    # (the prefix is each release's: "Model Runner V2 does not yet support: " from 0.23.0)
    assert _error("0.23.0", DS, "--speculative-config", MTP_PARALLEL, env=V2).endswith(
        "does not yet support: parallel drafting for speculative decoding")
    assert _error("0.24.0", DS, "--speculative-config", MTP_PARALLEL, env=V2).endswith(
        "does not yet support: parallel drafting for EAGLE speculative decoding")


def test_features_leave_the_list_when_v2_gains_them():
    # routed experts and EC transfer leave at 0.28.0 (:2369-2460), prompt embeds and KV sharing fast
    # prefill at 0.29.0/0.30.0, logits processors at 0.31.0 (0.30.0 :2862-2870 still has them)
    assert "routed experts capture" in _error("0.27.0", MOE, "--enable-return-routed-experts", env=V2)
    assert _error("0.28.0", MOE, "--enable-return-routed-experts", env=V2) is None
    assert "prompt embeds" in _error("0.28.0", DENSE, "--enable-prompt-embeds", env=V2)
    assert _error("0.29.0", DENSE, "--enable-prompt-embeds", env=V2) is None
    assert "KV sharing fast prefill" in _error("0.29.0", DENSE, "--kv-sharing-fast-prefill", env=V2)
    assert _error("0.30.0", DENSE, "--kv-sharing-fast-prefill", env=V2) is None
    assert _error("0.31.0", DENSE, "--logits-processors", "a.b:C", env=V2) is None


def test_elastic_ep_and_external_launcher_pp_from_0_24():
    # 0.24.0 adds "pipeline parallelism with external_launcher" (after sequence parallelism)
    launcher = ("-pp", "2", "--distributed-executor-backend", "external_launcher")
    assert _error("0.23.0", DENSE, *launcher, env=V2) is None
    assert _error("0.24.0", DENSE, *launcher, env=V2).endswith(
        "does not yet support: pipeline parallelism with external_launcher")


def test_default_v2_falls_back_to_v1_instead_of_refusing():
    # 0.29.0 use_v2_model_runner (:668-677): unsupported features pick V1 with a warning, no refusal
    res = resolve(Deployment(argv=("vllm", "serve", DENSE, "--kv-sharing-fast-prefill"), source="t"), "0.29.0")
    assert res.vllm_error is None


@pytest.mark.parametrize("version,message", [
    ("0.11.1", "async scheduling for EAGLE/MTP kind of speculative decoding is enabled, but "
               "disable_padded_drafter_batch=True disable_padded_drafter_batch=True is not supported for "
               "this situation now. please set disable_padded_drafter_batch=Fasle"),
    ("0.14.0", "Async scheduling is not compatible with disable_padded_drafter_batch=True."),  # :577-581
    ("0.32.0", "Async scheduling is not compatible with disable_padded_drafter_batch=True."),  # :1576-1580
])
def test_async_scheduling_refuses_disable_padded_drafter_batch(version, message):
    err = _error(version, DS, "--async-scheduling", "--speculative-config", MTP_NOPAD)
    assert err is not None and err.startswith(message)
    assert _error(version, DS, "--speculative-config", MTP_NOPAD) is None  # only when asked for
