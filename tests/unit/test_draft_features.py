"""Draft architectures, diffusion targets and drafting slots (resolve/speculative/draft_features.py,
vllm_config/post_init_late._drafting_slots) at the releases the goldens of `speculative_2` do not hold.
Each expectation names the source it was read in."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
DENSE = str(MODELS / "llama-dense")
CANVAS = str(MODELS / "spec2-llama-canvas")
V1 = (("VLLM_USE_V2_MODEL_RUNNER", "0"),)


def _spec(draft: str, **kw) -> list[str]:
    return ["--speculative-config", json.dumps({"model": str(MODELS / draft), "method": "dflash",
                                                "num_speculative_tokens": 3, **kw})]


def _run(version: str, target: str, words: list[str], env: tuple = ()):
    return resolve(Deployment(argv=("vllm", "serve", target, *words), env=env, source="t"), version)


def _runner(res) -> str:
    return res.resolved["runtime"]["model_runner"]


@pytest.mark.parametrize("version,runner", [
    ("0.23.0", "V1"),  # no is_diffusion before 0.24.0 (config/model.py)
    ("0.24.0", "V2"),  # 0.24.0 config/vllm.py:527: a diffusion model takes V2 before the architecture list
    ("0.28.0", "V2"),
])
def test_diffusion_target_forces_v2_with_an_unsupported_feature(version, runner):
    # stock torch.compile is a V2-unsupported feature, so the architecture list alone would say V1
    res = _run(version, CANVAS, ["-cc.mode=STOCK_TORCH_COMPILE"])
    if runner == "V2":
        assert res.vllm_error is not None and "stock torch.compile" in res.vllm_error.message
    else:
        assert _runner(res) == runner


@pytest.mark.parametrize("version,forced", [
    ("0.25.0", False),  # _dflash_needs_multi_kv_group first in 0.26.0 config/vllm.py:593
    ("0.26.0", True), ("0.27.1", True), ("0.28.0", True),
])
def test_mixed_dflash_draft_forces_v2(version, forced):
    res = _run(version, DENSE, _spec("spec2-dflash-qwen3-mixed") + ["-cc.mode=STOCK_TORCH_COMPILE"])
    message = res.vllm_error.message if res.vllm_error is not None else ""
    assert ("stock torch.compile" in message) == forced


@pytest.mark.parametrize("version,text", [
    ("0.29.0", "dflash2 drafts"),  # 0.29.0 config/vllm.py:2634 (_is_dflash2_draft)
    ("0.30.0", "dflash2 drafts"),
    ("0.31.0", "DFlash candidate-head drafts"),  # 0.31.0 config/vllm.py:3137
    ("0.32.0", "DFlash candidate-head drafts"),
])
def test_dflash2_draft_on_v1_per_release(version, text):
    res = _run(version, DENSE, _spec("spec2-dflash2-qwen3"), V1)
    assert res.vllm_error is not None
    assert res.vllm_error.message.endswith(f"Model Runner V1 does not support: {text}")


def test_v1_features_are_joined_in_vllms_order():
    # 0.31.0 config/vllm.py:3105-3151: mixed DFlash before diffusion before batch-sharded sampling
    res = _run("0.31.0", CANVAS, _spec("spec2-dflash-qwen3-mixed") + ["--enable-batch-sharded-sampling", "-tp", "2"],
               V1)
    assert res.vllm_error is not None
    assert res.vllm_error.message.endswith("Model Runner V1 does not support: mixed sliding/full dflash drafts, "
                                           "diffusion models, batch-sharded sampling")


SCHED = ["--max-num-batched-tokens", "64", "--max-num-seqs", "8"]


@pytest.mark.parametrize("version,given,refused", [
    # 0.26.0 config/vllm.py:1727-1738: a draft model reserves 1 slot per sequence (8), so 57 + 8 > 64
    ("0.26.0", "56", None), ("0.27.0", "57", "It should be greater by at least 8"),
    ("0.27.0", "0", "max_num_scheduled_tokens is set to 0"),
    # 0.28.0 :1689-1716: a given value is only refused at 0 (its field allows 0 until 0.31.x)
    ("0.28.0", "57", None), ("0.31.0", "0", "or decrease num_speculative_tokens."),
])
def test_given_max_num_scheduled_tokens(version, given, refused):
    spec = ["--speculative-config", json.dumps({"model": str(MODELS / "spec-draft-llama-small"),
                                                "method": "draft_model", "num_speculative_tokens": 3})]
    res = _run(version, DENSE, spec + SCHED + ["--max-num-scheduled-tokens", given])
    if refused is None:
        assert res.vllm_error is None
    else:
        assert res.vllm_error is not None and refused in res.vllm_error.message


def test_dspark_drafts_in_parallel_for_the_slots():
    # 0.25.0+ SpeculativeConfig sets parallel_drafting for DSpark (0.28.0 speculative.py:1046);
    # 0.27.x reserves K-1 slots per sequence for it (speculative.py max_num_new_slots_for_drafting)
    from vllm_preflight.resolve.base.state import State
    from vllm_preflight.resolve.vllm_config.post_init import _parallel_drafting

    class _Rel:
        def __init__(self, key):
            self.key = key

    def state(key):
        return State(release=_Rel(key), gpu=None, env={}, model=None)

    assert _parallel_drafting(state((0, 25, 0)), {}, "dspark")
    assert not _parallel_drafting(state((0, 24, 0)), {}, "dspark")
    assert _parallel_drafting(state((0, 20, 0)), {}, "dflash")
    assert not _parallel_drafting(state((0, 33, 0)), {"parallel_drafting": False}, "eagle")


PARSE = {"architectures": ["RadioMBartPrefixForCausalLM"], "model_type": "nemotron_parse", "torch_dtype": "bfloat16",
         "decoder": {"causal_vision_prefix": True, "d_model": 256, "decoder_attention_heads": 8, "decoder_layers": 2,
                     "vocab_size": 2048},
         "hidden_size": 256, "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 2048}


@pytest.mark.parametrize("n,env,refused", [
    # 0.33.0 hf_config_override (speculative.py:718-731) makes it ParseAuxMTPModel with one step;
    # :1586-1591 refuses more tokens; config/vllm.py:3123-3129 refuses it on Model Runner V1
    (2, (), "Parse 3.5 has only one trained MTP step"),
    (1, V1, "Model Runner V1 does not support: Parse 3.5 MTP"),
    (1, (), None),
])
def test_parse_mtp_draft(tmp_path, n, env, refused):
    (tmp_path / "config.json").write_text(json.dumps(PARSE))
    res = _run("0.33.0", str(tmp_path), ["--speculative-config", json.dumps({"method": "mtp",
                                                                             "num_speculative_tokens": n})], env)
    if refused is None:
        assert res.vllm_error is None
    else:
        assert res.vllm_error is not None and res.vllm_error.message.endswith(refused)
