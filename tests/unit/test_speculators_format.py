"""Speculators-format checkpoints (resolve/engine/speculators.py) at the release boundaries the
`speculators` goldens do not all hold. Each expectation names the source it was read in
(transformers_utils/config.py `maybe_override_with_speculators`, configs/speculators/)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import get_release
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.engine import speculators as speculators_format

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
ROOT = MODELS.parents[2]


def _run(version: str, model: str, words: tuple[str, ...] = ()):
    # fixtures may name their verifier relative to the repository root (vLLM's working directory
    # when the goldens were recorded); a `--` command line looks relative paths up in the cwd
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return resolve(Deployment(argv=("vllm", "serve", str(MODELS / model), *words), env=(), source="t"), version)
    finally:
        os.chdir(cwd)


def _err(res) -> str | None:
    return f"{res.vllm_error.type}: {res.vllm_error.message}" if res.vllm_error else None


@pytest.mark.parametrize("version,head", [
    ("0.15.1", "ValueError: Expected one of: {'eagle3': <function update_eagle3"),  # base.py: checked when built
    ("0.16.0", ("ValidationError: 1 validation error for SpeculativeConfig\n  Value error, Expected one of: "
                "{'eagle3': <function update_eagle3")),  # 0.16.0: checked when the draft's config is loaded
])
def test_unsupported_type_moves_to_the_draft_load_at_0_16(version, head):
    assert (_err(_run(version, "spec-fmt-eagle")) or "").startswith(head)


@pytest.mark.parametrize("version,refused", [("0.28.0", False), ("0.29.0", True)])
def test_user_speculative_config_is_merged_from_0_29(version, refused):
    # 0.29.0 config.py: speculative_config.update(vllm_speculative_config); before, it is dropped
    res = _run(version, "spec-fmt-eagle3-llama-hub", ("--speculative-config", '{"num_speculative_tokens": 0}'))
    assert (res.vllm_error is not None) == refused
    if refused:
        assert "num_speculative_tokens\n  Input should be greater than 0" in res.vllm_error.message


def test_method_and_model_stay_the_checkpoints_when_merged():
    res = _run("0.29.0", "spec-fmt-eagle3-llama-hub",
               ("--speculative-config", json.dumps({"method": "ngram", "model": "x/y"})))
    assert res.vllm_error is None
    assert any(a.fact == "speculative_config.model" and str(a.value).endswith("spec-fmt-eagle3-llama-hub")
               for a in res.assumptions)


@pytest.mark.parametrize("version,refused", [("0.23.0", False), ("0.24.0", True)])
def test_eagle3_layer_model_type_is_mapped_from_0_24(version, refused):
    res = _run(version, "spec-fmt-eagle3-mistral-layer")
    assert (_err(res) or "").endswith("Unsupported model_type mistral for Eagle3 speculator") == refused
    assert (res.vllm_error is None) == (not refused)


@pytest.mark.parametrize("version,refused", [("0.32.0", False), ("0.33.0", True)])
def test_local_verifier_refused_from_0_33(version, refused):
    res = _run(version, "spec-fmt-eagle3-local")
    assert (_err(res) == f"ValueError: {speculators_format.VERIFIER_ERROR}") == refused
    if not refused:  # the verifier is served: its facts were read from its own config.json
        assert any(a.fact == "model" and "llama-dense/config.json" in a.source for a in res.assumptions)


@pytest.mark.parametrize("version,ok", [("0.19.1", False), ("0.20.0", True)])
def test_dflash_is_a_speculators_type_from_0_20(version, ok):
    assert (_run(version, "spec-fmt-dflash").vllm_error is None) == ok


def _state(version: str) -> State:
    from vllm_preflight.gpus import DEFAULT_GPU, GPUS

    return State(release=get_release(version), gpu=GPUS[DEFAULT_GPU], env={}, model=None)


@pytest.mark.parametrize("cfg", [
    {"speculators_config": [], "speculators_model_type": "eagle3", "transformer_layer_config": {}},
    {"speculators_config": {"proposal_methods": "", "verifier": {"name_or_path": "a/b"}},
     "speculators_model_type": "eagle3", "transformer_layer_config": {}},
    {"speculators_config": {"proposal_methods": [["x"]], "verifier": {"name_or_path": "a/b"}},
     "speculators_model_type": "eagle3", "transformer_layer_config": {}},
    {"speculators_config": {"proposal_methods": [{"speculative_tokens": 1}], "verifier": "a/b"},
     "speculators_model_type": "eagle3", "transformer_layer_config": {}},
])
def test_structure_errors_as_python_raises_them(cfg):
    # validate_speculators_config turns KeyError/IndexError/TypeError of its lookups into one message
    with pytest.raises(Refusal) as e:
        speculators_format.speculative_config(_state("0.33.0"), cfg)
    assert (e.value.type, e.value.message) == ("ValueError", "Invalid speculators config structure")


def test_old_releases_build_the_layer_config_into_the_speculative_config():
    cfg = json.loads((MODELS / "spec-fmt-eagle3-llama-hub" / "config.json").read_text())
    old = speculators_format.speculative_config(_state("0.15.1"), cfg)
    new = speculators_format.speculative_config(_state("0.16.0"), cfg)
    assert old["target_model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert old["architectures"] == ["Eagle3LlamaForCausalLM"] and old["hidden_size"] == 4096
    assert new == {"method": "eagle3", "num_speculative_tokens": 3}


@pytest.mark.parametrize("name,ok", [("a/b", True), ("b", True), ("a/b/c", False), ("a--b", False),
                                     ("x/y.git", False), ("../x", False), ("a b/c", False)])
def test_repo_id_rule(name, ok):
    assert speculators_format._is_repo_id(name) == ok


@pytest.mark.parametrize("version,ok", [("0.28.0", False), ("0.29.0", True)])
def test_dflash2_runs_as_dflash_from_0_29(version, ok):
    # 0.29.0 base.py build_vllm_speculative_config: method "dflash2" -> "dflash"; before, "dflash2" is
    # no SpeculativeConfig method and its literal check refuses it
    res = _run(version, "spec-fmt-dflash2")
    assert (res.vllm_error is None) == ok
    if not ok:
        assert res.vllm_error.message.startswith("1 validation error for SpeculativeConfig\nmethod\n  Input should be")


def test_peagle_is_eagle3_with_parallel_drafting():
    cfg = json.loads((MODELS / "spec-fmt-peagle" / "config.json").read_text())
    assert speculators_format.speculative_config(_state("0.22.0"), cfg) == {
        "method": "eagle3", "num_speculative_tokens": 4, "parallel_drafting": True}
    with pytest.raises(Refusal):  # 0.21.0: not a speculators type yet (checked when the draft loads)
        speculators_format.draft_config(_state("0.21.0"), cfg)
