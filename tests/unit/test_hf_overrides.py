"""--hf-overrides changes the model facts the checks read, as vLLM's ModelConfig applies them
(flat keys replace, a dict merges into a nested sub-config, else replaces). Real vLLM agrees on
tests/golden/data/model_families/hf_overrides/ (0.12.0, pr29558, 0.33.0); these pin the merge
rules themselves."""
from __future__ import annotations

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.modelfacts import apply_hf_overrides
from vllm_preflight.resolve import resolve


def test_flat_keys_replace_and_sub_configs_merge():
    cfg = {"num_attention_heads": 8, "text_config": {"num_attention_heads": 8, "rope": {"a": 1, "b": 2}},
           "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}
    out = apply_hf_overrides(cfg, {"num_attention_heads": 6, "text_config": {"rope": {"b": 3}},
                                   "rope_scaling": {"rope_type": "linear"}})
    assert out["num_attention_heads"] == 6
    assert out["text_config"] == {"num_attention_heads": 8, "rope": {"a": 1, "b": 3}}
    assert out["rope_scaling"] == {"rope_type": "linear"}  # a plain dict attribute is replaced
    assert cfg["num_attention_heads"] == 8  # the caller's config is not changed


def _error(words: list[str], target: str):
    argv = ("vllm", "serve", str(MODELS / "mixtral-moe")) + tuple(words)
    return resolve(Deployment(argv=argv, env=(), source="t"), target).vllm_error


def test_overridden_heads_are_checked_against_tp():
    assert _error(["-tp", "4"], "0.33.0") is None
    err = _error(["-tp", "4", "--hf-overrides", '{"num_attention_heads": 6}'], "0.33.0")
    assert err is not None and "Total number of attention heads (6)" in err.message


def test_text_config_on_a_plain_model_is_refused_per_release():
    words = ["--hf-overrides", '{"text_config": {"num_attention_heads": 6}}']
    assert "Assertion failed" in _error(words, "0.12.0").message
    assert "does not have `num_attention_heads`" in _error(words, "0.13.0").message
