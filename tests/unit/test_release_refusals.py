"""Config-time refusals per release where no real vLLM was at hand (0.12.0, pr29558, 0.30.0 and
0.33.0 are recorded in tests/golden/data/release_rules/; tools/record_release_rules.py).

Each expectation below comes from reading that release's vllm/config/vllm.py (or parallel.py):
- async scheduling with a speculative method that is not EAGLE/MTP-like (releases/changes.py
  `async_spec_ok` / `async_spec_message`): 0.11.1 :383, 0.14.0 :574 (a final period), 0.16.0 :628
  (+draft_model), 0.18.0 :703 (+ngram_gpu, no period), 0.25.0 :979 (+dspark), 0.31.0 :1563 (+dflash);
  0.33.0 :1652-1679 only on the V1 runner;
- 0.12.0 ParallelConfig refuses prefill context parallelism (parallel.py:315); 0.13.0 does not;
- `_validate_v2_model_runner` (0.22.0 :2057-2067 "VLLM_USE_V2_MODEL_RUNNER does not yet support: ",
  0.23.0 :2070 "Model Runner V2 does not yet support: "), called when the V2 runner is taken
  (0.22.0 :1298-1299): stock torch.compile is a V2-unsupported feature through 0.31.0; 0.32.0
  switches its graphs off instead. 0.20.0-0.21.0 (:1153-1154, :1787-1828) check their own list
  (hybrid/mamba models, PCP, any method but EAGLE/EAGLE3/MTP, DBO) under the variable only.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODEL = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "llama-dense")
V1, V2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}
NGRAM = ("--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4}))
PYD = "1 validation error for VllmConfig\n  Value error, "
ASYNC = "Currently, async scheduling is only supported with {} kind of speculative decoding"


def _err(version: str, *words: str, env: dict | None = None) -> str | None:
    res = resolve(Deployment(argv=("vllm", "serve", MODEL) + words, env=tuple((env or {}).items()), source="t"),
                  version)
    return res.vllm_error.message if res.vllm_error else None


@pytest.mark.parametrize("version,kinds", [
    ("0.11.1", "EAGLE/MTP"), ("0.13.0", "EAGLE/MTP"), ("0.14.0", "EAGLE/MTP."), ("0.15.1", "EAGLE/MTP."),
    ("0.16.0", "EAGLE/MTP/Draft Model."), ("0.17.1", "EAGLE/MTP/Draft Model."),
    ("0.18.0", "EAGLE/MTP/Draft Model/NGram GPU"), ("0.24.0", "EAGLE/MTP/Draft Model/NGram GPU"),
    ("0.25.0", "EAGLE/MTP/Draft Model/NGram GPU/DSpark"), ("0.30.0", "EAGLE/MTP/Draft Model/NGram GPU/DSpark"),
    ("0.31.0", "EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash"),
    ("0.32.0", "EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash")])
def test_async_scheduling_refuses_ngram_with_the_releases_message(version, kinds):
    kinds, dot = (kinds[:-1], ".") if kinds.endswith(".") else (kinds, "")
    assert _err(version, *NGRAM, "--async-scheduling", env=V1) == PYD + ASYNC.format(kinds) + dot
    assert _err(version, *NGRAM, "--no-async-scheduling", env=V1) is None


def test_async_scheduling_takes_the_methods_each_release_adds():
    gpu = ("--speculative-config", json.dumps({"method": "ngram_gpu", "num_speculative_tokens": 2,
                                               "prompt_lookup_max": 4}))
    assert _err("0.18.0", *gpu, "--async-scheduling") is None  # NgramGPUTypes joins at 0.18.0
    # method named: before 0.17.0 a draft model that names no method is refused as method None
    draft = ("--speculative-config", json.dumps({"model": MODEL, "method": "draft_model", "num_speculative_tokens": 2}))
    assert _err("0.16.0", *draft, "--async-scheduling") is None  # draft_model joins at 0.16.0
    assert _err("0.15.0", *draft, "--async-scheduling") == PYD + ASYNC.format("EAGLE/MTP") + "."
    # 0.11.0 refuses any speculative config in create_engine_config (arg_utils.py:1299-1304; real 0.11.0
    # refuses it in model_families/speculative/0.11.0.jsonl)
    assert _err("0.11.0", *NGRAM, "--async-scheduling") == \
        "Currently, speculative decoding is not supported with async scheduling."


def test_0_12_checks_pp_before_the_method_and_0_33_the_method_first():
    assert _err("0.12.0", *NGRAM, "--async-scheduling", "-pp", "2") == \
        PYD + "Async scheduling is not yet compatible with pipeline_parallel_size > 1."
    assert _err("0.33.0", *NGRAM, "--async-scheduling", "-pp", "2", env=V1) == \
        PYD + "Async scheduling is not supported by the V1 model runner with ngram-based speculative decoding."
    assert _err("0.33.0", *NGRAM, "--async-scheduling", "-pp", "2") is None  # V2 takes both


def test_prefill_context_parallel_is_refused_by_0_12_0_only():
    msg = ("1 validation error for ParallelConfig\n  Value error, Prefill context parallelism is not fully "
           "supported. Please set prefill_context_parallel_size to 1.")
    assert _err("0.12.0", "-pcp", "2") == msg and _err("pr29558", "-pcp", "2") == msg
    assert _err("0.12.0", "-pcp", "1") is None
    assert _err("0.13.0", "-pcp", "2") is None


def test_forced_v2_runner_refuses_what_it_lacks_with_the_releases_prefix():
    assert _err("0.22.0", "-cc.mode=1", env=V2) == PYD + "VLLM_USE_V2_MODEL_RUNNER does not yet support: " \
                                                          "stock torch.compile"
    assert _err("0.23.0", *NGRAM, env=V2) == PYD + "Model Runner V2 does not yet support: " \
                                                   "ngram/ngram_gpu speculative decoding"
    assert _err("0.31.0", "-cc.mode=1", env=V2) == PYD + "Model Runner V2 does not yet support: stock torch.compile"
    assert _err("0.32.0", "-cc.mode=1", env=V2) is None  # 0.32.0 switches V2's graphs off instead
    assert _err("0.23.0", *NGRAM, env=V1) is None and _err("0.23.0", *NGRAM) is None  # V1 takes ngram
    # 0.20.0-0.21.0 (config/vllm.py:1787-1828): only under the variable; its own list and wording
    assert _err("0.21.0", *NGRAM, env=V2) == PYD + "VLLM_USE_V2_MODEL_RUNNER does not yet support: " \
                                                   "speculative method 'ngram'"
    assert _err("0.20.0", "-cc.mode=1", env=V2) is None  # stock compile joins the list at 0.22.0
    assert _err("0.19.1", *NGRAM, env=V2) is None


def test_0_20_refuses_hybrid_models_on_the_forced_v2_runner():
    mamba = str(Path(MODEL).parent / "pp-mamba2")
    res = resolve(Deployment(argv=("vllm", "serve", mamba), env=tuple(V2.items()), source="t"), "0.20.0")
    assert res.vllm_error is not None and res.vllm_error.message == \
        PYD + "VLLM_USE_V2_MODEL_RUNNER does not yet support: hybrid/mamba models"
    res = resolve(Deployment(argv=("vllm", "serve", mamba), env=(), source="t"), "0.20.0")
    assert res.vllm_error is None
