"""The last SpeculativeConfig draft rules (resolve/speculative/draft_features.py, resolve/speculative/draft_model.py)
at the releases the `speculative_3` goldens do not hold. Each expectation names the source it was
read in."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _run(version: str, target: str, **spec):
    if "model" in spec:
        spec["model"] = str(MODELS / spec["model"])
    words = ["--speculative-config", json.dumps(spec)]
    return resolve(Deployment(argv=("vllm", "serve", str(MODELS / target), *words), env=(), source="t"), version)


def _error(res) -> str | None:
    return None if res.vllm_error is None else res.vllm_error.message


@pytest.mark.parametrize("version,refused", [
    ("0.26.0", True),   # 0.26.0 speculative.py:957-961: n_predict = block_size for a Gemma4 DSpark draft
    ("0.29.0", True),
    ("0.30.0", True),
    ("0.31.0", False),  # 0.31.0: DSpark's tokens come from the block size, n_predict is not read
])
def test_gemma4_dspark_n_predict_is_its_block_size(version, refused):
    res = _run(version, "llama-dense", model="spec3-gemma4dspark-head", method="dspark", num_speculative_tokens=6)
    err = _error(res)
    if refused:
        assert err is not None and "num_speculative_tokens:6 must be divisible by n_predict=4" in err
    else:
        assert err is None or "n_predict" not in err


def test_gemma4_dspark_takes_its_block_size_by_default():
    res = _run("0.26.0", "llama-dense", model="spec3-gemma4dspark-head", method="dspark")
    assert res.vllm_error is None


@pytest.mark.parametrize("version,refused", [
    ("0.27.0", True),   # 0.27.0 speculative.py:985-995 (K3DSparkModel registered from 0.27.0)
    ("0.27.1", True),
    ("0.29.0", False),  # gone from 0.29.0 speculative.py
])
def test_mla_dspark_refuses_decode_context_parallelism(version, refused):
    spec = json.dumps({"model": str(MODELS / "spec3-k3dspark-mla"), "method": "dspark", "num_speculative_tokens": 4})
    res = resolve(Deployment(argv=("vllm", "serve", str(MODELS / "deepseek-v3-moe"), "--speculative-config", spec,
                                   "-tp", "2", "-dcp", "2"), env=(), source="t"), version)
    err = _error(res) or ""
    assert ("MLA DSpark does not currently support decode context parallelism" in err) is refused


@pytest.mark.parametrize("version,checked", [
    ("0.28.0", False),  # no Qwen3-Omni DSpark contract before 0.29.0 speculative.py:145
    ("0.29.0", True), ("0.30.0", True), ("0.31.0", True),
])
def test_qwen3_omni_dspark_contract_by_release(version, checked):
    res = _run(version, "spec3-qwen3omni-target", model="spec2-qwen3dspark-head", method="dspark",
               num_speculative_tokens=4)
    err = _error(res) or ""
    assert ("Qwen3-Omni DSpark requires a standalone draft checkpoint" in err) is checked


def test_qwen3_omni_dspark_tokens_default_by_release():
    # 0.30.0: no n_predict and DSpark's block size not yet the default (0.31.0+): not provided
    res = _run("0.30.0", "spec3-qwen3omni-target", model="spec3-omnidspark-ok", method="dspark")
    assert "`num_speculative_tokens` was not provided" in (_error(res) or "")
    res = _run("0.31.0", "spec3-qwen3omni-target", model="spec3-omnidspark-ok", method="dspark")
    assert "Qwen3-Omni" not in (_error(res) or "")


def test_qwen3_omni_dspark_checks_in_order():
    # the draft hidden size is compared before the attention shape (0.33.0 speculative.py:211-223)
    res = _run("0.31.0", "spec3-qwen3omni-target", model="spec3-omnidspark-hidden512", method="dspark",
               num_speculative_tokens=4)
    assert (_error(res) or "").endswith("draft hidden_size must match the target thinker hidden size (256); got 512.")


def test_draft_lm_head_dtype_in_0_33():
    # 0.33.0 speculative.py:1953-1965 (the field is new in 0.33.0)
    res = _run("0.33.0", "llama-dense", model="spec3-eagle-llama-fp32head", method="eagle", num_speculative_tokens=2,
               draft_lm_head_quantization="fp8")
    assert (_error(res) or "").endswith("needs the lm_head to run in the model dtype, got head_dtype=torch.float32.")
