"""The draft model's own config.json in SpeculativeConfig (resolve/speculative/draft_model.py).

Goldens (tests/golden/data/model_families/speculative/) hold what real vLLM answers; these
tests pin what the goldens cannot: a relative draft path looked up next to the deployment,
a draft nothing can be read of, and release variants read in the sources between the
recorded releases (each expectation names the source line it comes from)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _run(target_dir: str, spec: dict, version: str, base_dir: str | None = None, extra: tuple = ()):
    argv = ("vllm", "serve", target_dir, "--speculative-config", json.dumps(spec)) + tuple(extra)
    return resolve(Deployment(argv=argv, source="t", base_dir=base_dir), version)


@pytest.fixture()
def deployment_dir(tmp_path: Path) -> Path:
    """A deployment folder holding the target and the drafts under relative names."""
    for name in ("llama-dense", "spec-draft-llama-vocab32000", "spec-draft-llama-small"):
        shutil.copytree(MODELS / name, tmp_path / name)
    return tmp_path


def test_relative_draft_is_read_next_to_the_deployment(deployment_dir: Path):
    res = _run("llama-dense", {"model": "spec-draft-llama-vocab32000", "method": "draft_model",
                               "num_speculative_tokens": 2}, "0.33.0", base_dir=str(deployment_dir))
    assert res.vllm_error is not None
    assert "Draft model vocab_size=32000" in res.vllm_error.message
    ok = _run("llama-dense", {"model": "spec-draft-llama-small", "method": "draft_model",
                              "num_speculative_tokens": 2}, "0.33.0", base_dir=str(deployment_dir))
    assert ok.vllm_error is None
    assert any(a.fact == "speculative_config.model" and "config.json" in str(a.source) for a in ok.assumptions)


def test_unreadable_draft_is_an_assumption_not_a_refusal(deployment_dir: Path):
    res = _run("llama-dense", {"model": "someone/unknown-draft", "method": "draft_model",
                               "num_speculative_tokens": 2}, "0.33.0", base_dir=str(deployment_dir))
    assert res.vllm_error is None
    assert any(a.fact == "speculative_config.model" and "not checked" in str(a.source) for a in res.assumptions)


@pytest.mark.parametrize("version,expected", [
    # 0.15.0 speculative.py:406: nothing detected and method None -> Unsupported 'None'
    ("0.15.0", ("NotImplementedError", "Unsupported speculative method: 'None'")),
    # 0.17.0 speculative.py:338-343: method None is "draft_model" -> accepted (same vocabulary)
    ("0.17.0", None),
    # 0.11.2 (as 0.12.0 speculative.py:379): a draft model is not supported yet
    ("0.11.2", ("NotImplementedError", "Speculative decoding with draft model is not supported yet.")),
])
def test_undetected_draft_per_release(version, expected):
    res = _run(str(MODELS / "llama-dense"), {"model": str(MODELS / "spec-draft-llama-small"),
                                              "num_speculative_tokens": 2}, version)
    if expected is None:
        assert res.vllm_error is None
    else:
        assert res.vllm_error is not None and res.vllm_error.type == expected[0]
        assert res.vllm_error.message.startswith(expected[1])


@pytest.mark.parametrize("version,refused", [("0.21.0", True), ("0.22.0", False)])
def test_eagle3_target_families_until_0_21(version, refused):
    """0.21.0 speculative.py:974-1003 lists the targets EAGLE-3 takes (mixtral is not one); 0.22.0
    has no such list."""
    res = _run(str(MODELS / "mixtral-moe"), {"model": str(MODELS / "spec-eagle3-llama-head"),
                                              "num_speculative_tokens": 2}, version)
    if refused:
        assert res.vllm_error is not None
        assert "eagle3 is only supported for ['llama', 'qwen'" in res.vllm_error.message
        assert "model_type='mixtral'" in res.vllm_error.message
    else:
        assert res.vllm_error is None


def test_missing_token_count_wording_by_release():
    """0.17.0-0.20.x mention the token tree (0.20.0 speculative.py:675); 0.21.0+ do not."""
    spec = {"model": str(MODELS / "spec-eagle-llama-head"), "method": "eagle"}
    old = _run(str(MODELS / "llama-dense"), spec, "0.20.0").vllm_error
    new = _run(str(MODELS / "llama-dense"), spec, "0.21.0").vllm_error
    assert old is not None and "neither `speculative_token_tree` nor" in old.message
    assert new is not None and "but `num_speculative_tokens` was not provided" in new.message


def test_mlp_speculator_is_not_registered(tmp_path: Path):
    """MLPSpeculatorPreTrainedModel is commented out of the registry (0.12.0 registry.py:442): the
    draft ModelConfig refuses it (real 0.12.0 answered so; the list of classes is elided)."""
    draft = tmp_path / "mlp"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps({"architectures": ["MLPSpeculatorPreTrainedModel"],
                                                   "model_type": "mlp_speculator", "vocab_size": 2048,
                                                   "emb_dim": 256, "n_predict": 3}))
    res = _run(str(MODELS / "llama-dense"), {"model": str(draft), "num_speculative_tokens": 3}, "0.12.0")
    assert res.vllm_error is not None and res.vllm_error.type == "ValidationError"
    assert "Model architectures ['MLPSpeculatorPreTrainedModel'] are not supported for now." in res.vllm_error.message


@pytest.mark.parametrize("version,refused", [("0.21.0", True), ("0.29.0", False)])
def test_method_medusa_loads_any_draft_as_medusa_from_0_25(version, refused):
    """0.25.0 speculative.py ("Old-format Medusa checkpoints"): method "medusa" forces the draft's
    model_type to medusa, so a llama head is taken (real 0.29.0 started with it); before, nothing
    detects it and the method is unsupported (0.21.0 goldens: NotImplementedError)."""
    res = _run(str(MODELS / "llama-dense"), {"model": str(MODELS / "spec-head-llama-unnamed"), "method": "medusa",
                                              "num_speculative_tokens": 2}, version)
    if refused:
        assert res.vllm_error is not None and res.vllm_error.message == "Unsupported speculative method: 'medusa'"
    else:
        assert res.vllm_error is None


@pytest.mark.parametrize("version,refused", [("0.12.0", False), ("0.28.0", True), ("0.33.0", False)])
def test_mtp_draft_runs_with_the_targets_pipeline_parallel_size_until_0_29(version, refused):
    """The MTP draft is the class hf_config_override names (DeepSeekMTPModel) and its parallel config
    copies the target's PP size until 0.29.x (0.33.0 speculative.py:1890-1913 uses 1): real 0.28.0
    refused -pp 2 (DeepSeekMTPModel is not SupportsPP there), real 0.12.0 and 0.33.0 started."""
    res = resolve(Deployment(argv=("vllm", "serve", str(MODELS / "spec-deepseek-v3-mtp1"), "--speculative-config",
                                   json.dumps({"method": "mtp", "num_speculative_tokens": 1}), "-pp", "2"),
                             source="t"), version)
    if refused:
        assert res.vllm_error is not None and res.vllm_error.type == "NotImplementedError"
        assert res.vllm_error.message.startswith("Pipeline parallelism is not supported for this model.")
    else:
        assert res.vllm_error is None
