"""LoRA checks per release (resolve/lora/lora_config.py).

Expected values: the messages and outcomes recorded from real vLLM 0.12.0 and 0.33.0
(tests/golden/data/model_families/lora/), and for the releases in between, the rules as read in
each release's vllm/config/lora.py and EngineArgs.create_engine_config: fields checked in
__post_init__ (0.11.0), pydantic field bounds (0.11.1+), the speculative token budget (0.11.1+),
a final "." in the max_cpu_loras message (0.14.0+), max_lora_cls_labels (0.31.0+), the Inkling
env check (0.26.0+), MegaMoE backends and architectures without SupportsLoRA (0.33.0+).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import SUPPORTED, architectures
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
LLAMA = str(MODELS / "llama-dense")
GPT2 = str(MODELS / "lora-gpt2-nolora")


def _run(version: str, *words: str, model: str = LLAMA, env: dict | None = None):
    argv = ("vllm", "serve", model) + words
    return resolve(Deployment(argv=argv, env=tuple((env or {}).items()), source="t"), version)


def _err(res) -> tuple[str, str] | None:
    return None if res.vllm_error is None else (res.vllm_error.type, res.vllm_error.message)


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """The registry's answer for the fixture architectures, as vLLM 0.33.0's registry gives it
    (GPT-2 and Falcon have no SupportsLoRA; Whisper is multimodal), wherever it is looked up."""
    def answer(version: str, arch: str):
        return architectures.ArchSupport(registered=True, supports_pp=True, is_multimodal=arch.startswith("Whisper"),
                                         supports_lora=arch not in ("GPT2LMHeadModel", "FalconForCausalLM"))
    monkeypatch.setattr(architectures, "arch_support", answer)
    for name, module in list(sys.modules.items()):
        if name.startswith("vllm_preflight.") and getattr(module, "arch_support", None) is not None:
            monkeypatch.setattr(module, "arch_support", answer)


@pytest.mark.parametrize("version", ["0.11.0", "0.12.0", "0.20.0", "0.33.0"])
def test_lora_options_without_enable_lora_build_no_lora_config(version, registry):
    assert _run(version, "--max-loras", "0", "--max-cpu-loras", "1").vllm_error is None
    assert _run(version, "--max-loras", "0", model=GPT2).vllm_error is None


def test_max_loras_bound_is_a_field_error_from_0_11_1():
    assert _err(_run("0.12.0", "--enable-lora", "--max-loras", "0")) == (
        "ValidationError", ("1 validation error for LoRAConfig\nmax_loras\n  Input should be greater than or equal "
                           "to 1 [type=greater_than_equal, input_value=0, input_type=int]"))
    _typ, msg = _err(_run("0.11.0", "--enable-lora", "--max-loras", "0"))
    assert msg.endswith("max_loras (0) must be >= 1.")


def test_0_11_0_checks_rank_and_extra_vocab_in_post_init():
    _typ, msg = _err(_run("0.11.0", "--enable-lora", "--max-lora-rank", "1"))
    assert msg.endswith("max_lora_rank (1) must be one of (8, 16, 32, 64, 128, 256, 320, 512).")
    _typ, msg = _err(_run("0.11.0", "--enable-lora", "--lora-extra-vocab-size", "128"))
    assert msg.endswith("lora_extra_vocab_size (128) must be one of (256, 512).")
    assert _run("0.12.0", "--enable-lora", "--max-lora-rank", "1").vllm_error is None


def test_max_cpu_loras_message_gains_a_full_stop_in_0_14_0():
    words = ("--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2")
    assert _err(_run("0.13.0", *words))[1].endswith("max_cpu_loras (2) must be >= max_loras (4)")
    assert _err(_run("0.14.0", *words))[1].endswith("max_cpu_loras (2) must be >= max_loras (4).")
    # a non-positive --max-cpu-loras is passed as None (then max_loras)
    assert _run("0.33.0", "--enable-lora", "--max-loras", "4", "--max-cpu-loras", "0").vllm_error is None


@pytest.mark.parametrize("k, refused", [(8, True), (7, False)])
def test_speculative_tokens_must_fit_the_default_budget(k, refused):
    # H200 defaults: 8192 batched tokens, 1024 sequences; 1024 * (k + 1) > 8192 from k = 8
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": k, "prompt_lookup_max": 3})
    for version in ("0.12.0", "0.25.0", "0.33.0"):
        err = _err(_run(version, "--enable-lora", "--speculative-config", spec))
        assert (err == ("ValueError", ("Consider increasing max_num_batched_tokens or decreasing "
                                      "num_speculative_tokens"))) is refused
        assert _run(version, "--speculative-config", spec).vllm_error is None
    assert _run("0.11.0", "--enable-lora", "--speculative-config", spec).vllm_error is None


def test_default_mm_loras_needs_a_multimodal_model(registry):
    for words in (("--default-mm-loras", '{"image": "/a"}'), ("--enable-lora", "--default-mm-loras", '{"image": "/a"}')):
        assert _err(_run("0.12.0", *words)) == ("ValueError", ("Default modality-specific LoRA(s) were provided for "
                                                              "a non multimodal model"))
    assert _run("0.12.0", "--default-mm-loras", "{}").vllm_error is None


def test_max_lora_cls_labels_from_0_31_0():
    _typ, msg = _err(_run("0.31.0", "--enable-lora", "--max-lora-cls-labels", "0"))
    assert msg.startswith("1 validation error for LoRAConfig\nmax_lora_cls_labels\n")
    _typ, msg = _err(_run("0.33.0", "--enable-lora", "--max-lora-cls-labels", "-3", "--max-loras", "0"))
    assert msg.startswith("2 validation errors for LoRAConfig\nmax_loras\n")
    assert _run("0.33.0", "--max-lora-cls-labels", "0").vllm_error is None


def test_0_33_0_refuses_an_architecture_without_supports_lora_at_config_time(registry):
    typ, msg = _err(_run("0.33.0", "--enable-lora", model=GPT2))
    assert typ == "ValidationError"
    assert msg == (f"1 validation error for VllmConfig\n  Value error, LoRA is not supported for GPT2LMHeadModel "
                   f"({GPT2}). Supported models implement the `SupportsLoRA` interface. Run this model without "
                   f"`enable_lora`.")
    # before 0.33.0 the model runner refuses only after the weights load: not a config refusal
    assert _run("0.32.0", "--enable-lora", model=GPT2).vllm_error is None
    assert _run("0.12.0", "--enable-lora", model=GPT2).vllm_error is None


def test_0_33_0_refuses_mega_moe_backends_before_the_model_check(registry):
    for backend in ("deep_gemm_mega_moe", "aiter_mega_moe"):
        _typ, msg = _err(_run("0.33.0", "--enable-lora", "--moe-backend", backend, model=GPT2))
        assert msg.endswith(f"LoRA is not supported with moe_backend='{backend}'. Disable LoRA or select a MoE "
                            "backend that supports LoRA.")
    assert _run("0.33.0", "--moe-backend", "deep_gemm_mega_moe").vllm_error is None


def test_inkling_needs_its_all_reduce_off(tmp_path, registry):
    cfg = json.loads((MODELS / "llama-dense" / "config.json").read_text())
    cfg["architectures"] = ["InklingForCausalLM"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    _typ, msg = _err(_run("0.26.0", "--enable-lora", model=str(tmp_path)))
    assert "Inkling LoRA requires INKLING_MULTIMEM_AR=0" in msg
    assert _run("0.26.0", "--enable-lora", model=str(tmp_path), env={"INKLING_MULTIMEM_AR": "0"}).vllm_error is None
    assert _run("0.25.1", "--enable-lora", model=str(tmp_path)).vllm_error is None


@pytest.mark.parametrize("version", SUPPORTED)
def test_lora_changes_no_compiled_setting(version, registry):
    """No release's config code reads the LoRA config for compilation settings (the graphs per
    LoRA count are the model runner's, at capture time)."""
    for extra in ((), ("-O0",), ("--enforce-eager",), ("--max-num-seqs", "16")):
        base = _run(version, *extra)
        with_lora = _run(version, "--enable-lora", "--max-loras", "4", *extra)
        assert base.vllm_error is None and with_lora.vllm_error is None
        assert with_lora.resolved["compilation_config"] == base.resolved["compilation_config"]


def test_dual_stream_env_is_read_as_an_integer_from_0_20_0():
    """LoRAConfig's validator reads VLLM_LORA_ENABLE_DUAL_STREAM as `bool(int(text))` (0.20.0+):
    text that is no integer fails inside the validator; with fully sharded LoRAs it is a warning."""
    bad = {"VLLM_LORA_ENABLE_DUAL_STREAM": "true"}
    assert _err(_run("0.20.0", "--enable-lora", env=bad)) == (
        "ValidationError", ("1 validation error for LoRAConfig\n  Value error, invalid literal for int() with base 10: "
                           "'true'"))
    assert _run("0.19.1", "--enable-lora", env=bad).vllm_error is None
    assert _run("0.33.0", env=bad).vllm_error is None  # no LoRAConfig, no read
    res = _run("0.33.0", "--enable-lora", "--fully-sharded-loras", env={"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})
    assert res.vllm_error is None
