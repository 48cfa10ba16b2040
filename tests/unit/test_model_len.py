"""max_model_len against the model's own limits (resolve/model/max_model_len.py).

Expected values: the outcomes and messages recorded from real vLLM 0.12.0, 0.30.0 and 0.33.0
(tests/golden/data/model_families/max_model_len/), and for the releases in between the rule as
read in each release's vllm/config/model.py `_get_and_verify_max_len`: the derived length held
as a float from 0.14.0 (ModelArchitectureConfig), -1/"auto" and the positive-integer check from
0.14.0 (positive from 0.23.0), a null RoPE factor read as 1.0 from 0.18.0, YaRN no longer scaled
from 0.30.0, Transformers 5 (0.11.0, 0.20.0+) filling in YaRN's original length.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.modelfacts import ModelFacts, facts_from_config
from vllm_preflight.releases import get_release
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.base.state import Refusal
from vllm_preflight.resolve.model import max_model_len as model_len

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


class _State:
    def __init__(self, version: str, env: dict | None = None):
        self.release = get_release(version)
        self.env = env or {}
        self.logs: list[tuple[str, str]] = []

    def log(self, level: str, message: str, once: bool = False) -> None:
        self.logs.append((level, message))


def _facts(name: str) -> ModelFacts:
    return facts_from_config(json.loads((MODELS / name / "config.json").read_text()))


def _len(version: str, name: str, user: int | None = None, dsw: bool = False, env: dict | None = None) -> int:
    return model_len.verify_max_len(_State(version, env), _facts(name), user, dsw)


def _refusal(version: str, name: str, user: int | None = None, dsw: bool = False, env: dict | None = None):
    with pytest.raises(Refusal) as e:
        model_len.verify_max_len(_State(version, env), _facts(name), user, dsw)
    return e.value.type, e.value.message


def test_default_is_the_derived_length_with_rope_scaling():
    assert _len("0.12.0", "len-llama-linear-rope") == 8192  # 4096 * linear 2.0
    assert _len("0.33.0", "len-llama-dynamic-rope") == 16384  # 4096 * dynamic 4.0
    assert _len("0.12.0", "len-llama3-rope") == 131072  # llama3: not scaled again
    assert _len("0.12.0", "len-llava-text-config") == 8192  # the multimodal model's text_config
    assert _len("0.12.0", "len-gemma3-text-linear") == 131072  # Gemma3: already scaled


def test_yarn_scales_until_0_30():
    assert _len("0.12.0", "len-qwen2-yarn") == 131072  # original 32768 * 4.0
    assert _len("0.29.0", "len-qwen2-yarn", 131072) == 131072
    assert _len("0.30.0", "len-qwen2-yarn") == 32768  # max_position_embeddings taken as scaled
    _typ, msg = _refusal("0.33.0", "len-qwen2-yarn", 32769)
    assert "(max_position_embeddings=32768.0 or model_max_length=None" in msg
    assert _refusal("0.12.0", "len-qwen2-yarn-no-ompe") == ("KeyError", "'original_max_position_embeddings'")
    assert _len("0.30.0", "len-qwen2-yarn-no-ompe") == 32768


def test_refusal_text_and_the_float_from_0_14():
    typ, msg = _refusal("0.12.0", "len-gpt2-n-positions", 1025)
    assert typ == "ValidationError"
    assert msg.startswith("1 validation error for ModelConfig\n  Value error, User-specified max_model_len (1025) is "
                          "greater than the derived max_model_len (max_position_embeddings=1024 or "
                          "model_max_length=None in model's config.json). To allow overriding this maximum, set the "
                          "env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used")
    assert "max_position_embeddings=1024.0 or" in _refusal("0.14.0", "len-gpt2-n-positions", 1025)[1]
    assert "(seq_length=4096.0 or" in _refusal("0.12.0", "len-llama-seq-length", 4097)[1]
    assert "(max_position_embeddings=6144 or" in _refusal("0.12.0", "len-llama-int-factor", 6145)[1]
    assert "(max_position_embeddings=131072 or" in _refusal("0.12.0", "len-gemma3-text-linear", 131073)[1]
    assert _len("0.12.0", "len-llama-int-factor", 6144) == 6144


def test_env_var_allows_longer_only_for_1_or_true():
    for value in ("1", "true", " TRUE "):
        assert _len("0.12.0", "llama-dense", 8193, env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": value}) == 8193
    for value in ("0", "yes"):
        _refusal("0.33.0", "llama-dense", 8193, env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": value})


def test_model_max_length_wins_and_allows():
    assert _len("0.12.0", "len-cohere-model-max-length") == 131072
    assert _len("0.12.0", "len-cohere-model-max-length", 8193) == 8193
    msg = _refusal("0.33.0", "len-cohere-model-max-length", 131073)[1]
    assert "(model_max_length=131072.0 or model_max_length=131072 in" in msg


def test_longrope_defaults_to_the_original_length():
    assert _len("0.12.0", "len-phi3-longrope") == 4096
    assert _len("0.33.0", "len-phi3-longrope", 131072) == 131072
    _refusal("0.33.0", "len-phi3-longrope", 131073)


def test_disable_sliding_window_caps_the_length():
    assert _len("0.12.0", "len-mistral-swa") == 32768
    assert _len("0.12.0", "len-mistral-swa", dsw=True) == 4096
    assert "(sliding_window=4096.0 or" in _refusal("0.33.0", "len-mistral-swa", 4097, dsw=True)[1]
    # Gemma3 skips the RoPE factor: the window stays an int
    assert "(sliding_window=512 or" in _refusal("0.12.0", "len-gemma3-text-linear", 513, dsw=True)[1]


def test_no_position_key_accepts_any_length():
    state = _State("0.12.0")
    assert model_len.verify_max_len(state, _facts("len-mamba-no-keys"), None, False) == 2048
    assert "Assuming the model's maximum length is 2048." in state.logs[0][1]
    assert _len("0.33.0", "len-mamba-no-keys", 1000000) == 1000000


def test_minus_one_zero_and_auto_by_release():
    assert _len("0.12.0", "llama-dense", -1) == -1  # passed on (the scheduler refuses it)
    assert _len("0.14.0", "llama-dense", -1) == 8192  # auto: the derived length
    assert _refusal("0.33.0", "len-mamba-no-keys", -1) == (
        "ValidationError", ("1 validation error for ModelConfig\n  Value error, max_model_len must be a positive "
                            "integer, got int: -1. Example: max_model_len=2048"))
    assert "got int: 0." in _refusal("0.23.0", "llama-dense", 0)[1]
    assert _len("0.22.1", "llama-dense", 0) == 0  # the scheduler's bounds refuse it (0.16.0 golden)
    assert _len("0.16.0", "len-mamba-no-keys", -1) == -1
    assert "greater than or equal to -1" in _refusal("0.33.0", "llama-dense", -2)[1]


def test_null_rope_factor_by_release():
    assert _refusal("0.12.0", "len-llama-null-factor") == (
        "TypeError", ("unsupported operand type(s) for *=: 'int' and 'NoneType'"))
    assert _refusal("0.17.1", "len-llama-null-factor")[1].endswith("'float' and 'NoneType'")
    state = _State("0.18.0")
    assert model_len.verify_max_len(state, _facts("len-llama-null-factor"), None, False) == 4096
    assert "null scaling factor" in state.logs[0][1]


def test_unknown_model_is_not_checked():
    assert model_len.verify_max_len(_State("0.33.0"), ModelFacts(), 1000000, False) == 1000000
    assert model_len.verify_max_len(_State("0.33.0"), ModelFacts(), -1, False) == 8192  # auto: the assumed length
    assert model_len.verify_max_len(_State("0.12.0"), ModelFacts(), -1, False) == -1  # passed on, as for any model


def test_through_the_resolver():
    def run(version, *words, env=()):
        argv = ("vllm", "serve", str(MODELS / "len-qwen2-yarn")) + words
        return resolve(Deployment(argv=argv, env=env, source="t"), version)
    assert run("0.12.0", "--max-model-len", "128K").vllm_error is None
    assert run("0.33.0", "--max-model-len", "128K").vllm_error.type == "ValidationError"
    assert run("0.33.0", "--max-model-len", "128K", env=(("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1"),)).vllm_error is None


def test_transformers_5_fills_in_yarn_original_length():
    # 0.20.0-0.29.x install Transformers 5, which sets original_max_position_embeddings from
    # max_position_embeddings (seen with 5.24): YaRN still scales until 0.30.0
    assert _refusal("0.19.1", "len-qwen2-yarn-no-ompe") == ("KeyError", "'original_max_position_embeddings'")
    assert _len("0.20.0", "len-qwen2-yarn-no-ompe") == 131072
    assert _len("0.29.0", "len-qwen2-yarn-no-ompe") == 131072


def test_rope_scaling_override_ignored_under_transformers_4():
    """vLLM 0.12.0 (Transformers 4) builds rope_parameters before --hf-overrides apply; 0.33.0 sees
    the override (hf_overrides goldens)."""
    over = '{"rope_scaling": {"rope_type": "linear", "factor": 2.0}}'
    def run(version):
        argv = ("vllm", "serve", str(MODELS / "llama-dense"), "--hf-overrides", over, "--max-model-len", "16384")
        return resolve(Deployment(argv=argv, env=(), source="t"), version)
    assert "(max_position_embeddings=8192.0 or" in run("0.12.0").vllm_error.message
    assert run("0.33.0").vllm_error is None


def test_0_11_rope_scaling_and_disabled_sliding_window():
    # 0.11.0 runs Transformers 5: every RoPE config has rope_scaling, and a scaling type (even
    # "default") next to --disable-sliding-window is NotImplementedError (0.11.0 golden)
    typ, msg = _refusal("0.11.0", "len-mistral-swa", dsw=True)
    assert typ == "NotImplementedError" and msg.startswith("Disabling sliding window is not supported")
    assert _len("0.11.1", "len-mistral-swa", dsw=True) == 4096  # Transformers 4: no rope_scaling
    assert "(max_position_embeddings=8192 or" in _refusal("0.11.2", "llama-dense", 8193)[1]
    assert "(max_position_embeddings=8192.0 or" in _refusal("0.11.0", "llama-dense", 8193)[1]
    assert _len("0.11.0", "len-phi3-longrope") == 131072  # the LongRoPE default begins in 0.11.1
    assert _len("0.11.1", "len-phi3-longrope") == 4096
