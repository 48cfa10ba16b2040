"""Mamba/hybrid asserts of 0.14.0-0.21.x and ModelOpt config type checks (resolve/vllm_config/model_hooks.py,
resolve/model/quantization.py and resolve/quantization/). Real vLLM agrees on 0.12.0, pr29558, 0.22.0, 0.28.0, 0.30.0 and 0.33.0
(tests/golden/data/model_families/mamba_quant/); these pin the releases between, read from
each release's sources."""
from __future__ import annotations

import json

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve


def _error(model: str, words: list[str], target: str):
    argv = ("vllm", "serve", str(MODELS / model)) + tuple(words)
    err = resolve(Deployment(argv=argv, env=(), source="t"), target).vllm_error
    return None if err is None else (err.type, err.message)


ALIGN = "1 validation error for VllmConfig\n  Assertion failed, Chunked prefill is required for mamba cache mode 'align'."
SPEC = ("1 validation error for VllmConfig\n  Assertion failed, Mamba cache mode 'align' is currently not compatible "
        "with speculative decoding.")
NGRAM = ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 2,
                                             "prompt_lookup_max": 3})]


def test_mamba2_without_attention_heads_fails_in_the_arch_config_convertor_0_14_to_0_17():
    # model_arch_config_convertor.py:79 (0.14.0) / :99 (0.16.0-0.17.1) read num_attention_heads
    # as an attribute when no kv-heads key is there; 0.18.0 falls back to 0; 0.13.0 has no convertor
    msg = ("AttributeError", "'Mamba2Config' object has no attribute 'num_attention_heads'")
    for target in ("0.14.0", "0.15.1", "0.17.1"):
        assert _error("pp-mamba2", [], target) == msg, target
    for target in ("0.13.0", "0.18.0", "0.22.0"):
        assert _error("pp-mamba2", [], target) is None, target
    # Mamba (v1) has a convertor of its own (model_type "mamba": head size and kv heads 0)
    assert _error("pp-mamba1", [], "0.14.0") is None


def test_mamba_cache_mode_from_0_15_0():
    # 0.15.0 models/config.py:332-359: with prefix caching, mode "none" becomes "all" for a class
    # with SupportsMambaPrefixCaching (Zamba2, Jamba, Mamba), else "align"; "align" needs chunked
    # prefill. 0.14.x has no mamba cache mode (prefix caching is just kept or turned off).
    words = ["--enable-prefix-caching", "--no-enable-chunked-prefill"]
    assert _error("pp-zamba2-hybrid", words, "0.14.1") is None
    assert _error("pp-zamba2-hybrid", words, "0.15.0") is None  # "all"
    assert _error("pp-zamba2-hybrid", words + ["--mamba-cache-mode", "align"], "0.15.0") == ("ValidationError", ALIGN)
    assert _error("pp-jamba-hybrid-moe", words + ["--mamba-cache-mode", "align"], "0.21.0") == \
        ("ValidationError", ALIGN)
    assert _error("pp-jamba-hybrid-moe", words + ["--mamba-cache-mode", "all"], "0.19.0") is None
    # without prefix caching the mode is reset to "none": no assert
    assert _error("pp-zamba2-hybrid", ["--no-enable-chunked-prefill", "--mamba-cache-mode", "align"], "0.16.0") is None


def test_mamba_align_refuses_speculative_decoding_0_15_and_0_16_only():
    # 0.15.0/0.16.0 models/config.py:356-359 (dropped in 0.17.0), after the chunked-prefill assert
    words = ["--enable-prefix-caching", "--mamba-cache-mode", "align"] + NGRAM
    assert _error("pp-zamba2-hybrid", words, "0.15.0") == ("ValidationError", SPEC)
    assert _error("pp-zamba2-hybrid", words, "0.16.0") == ("ValidationError", SPEC)
    assert _error("pp-zamba2-hybrid", words, "0.17.0") is None
    assert _error("pp-zamba2-hybrid", words + ["--no-enable-chunked-prefill"], "0.15.0") == ("ValidationError", ALIGN)
    # mode "all" (the default for Zamba2 with prefix caching) has no such assert
    assert _error("pp-zamba2-hybrid", ["--enable-prefix-caching"] + NGRAM, "0.15.0") is None


def test_modelopt_type_checks_by_release():
    # ModelOptQuantConfigBase.from_config: 0.12.0 modelopt.py:240-265; the flat config.json
    # layout reads kv_cache_scheme instead of kv_cache_quant_algo from 0.17.0 (never refused)
    kv = ("ValidationError", "1 validation error for VllmConfig\n  Value error, kv_cache_quant_algo must be a string, "
          "got <class 'int'>")
    assert _error("mq-modelopt-fp8-kv-int", [], "0.16.0") == kv
    assert _error("mq-modelopt-fp8-kv-int", [], "0.17.0") is None
    # the legacy layout keeps kv_cache_quant_algo in every release
    assert _error("mq-modelopt-legacy-fp8-kv-bool", [], "0.20.0")[1].endswith("got <class 'bool'>")
    group = _error("mq-modelopt-nvfp4-group-list", [], "0.19.0")
    assert group is not None and group[1].endswith("group_size must be an integer, got <class 'list'>")
    assert _error("mq-modelopt-nvfp4-group-digits", [], "0.19.0") is None  # int("32")
    missing = _error("mq-modelopt-legacy-nvfp4-bare", [], "0.25.0")
    assert missing is not None and missing[1].endswith(
        "NVFP4 quantization requires the following fields in hf_quant_config.json: "
        "['group_size', 'kv_cache_quant_algo', 'exclude_modules']")


def test_compressed_tensors_config_groups_by_release():
    # CompressedTensorsConfig.from_config: from 0.15.0 a first pass reads each group's "targets"
    # by key (0.33.0 compressed_tensors.py:240-246: KeyError, then len(None)); before, the walk
    # iterates .get("targets") (0.12.0 compressed_tensors.py:241-242)
    assert _error("mq-ct-no-targets", [], "0.14.1") == ("TypeError", "'NoneType' object is not iterable")
    assert _error("mq-ct-no-targets", [], "0.15.0") == ("KeyError", "'targets'")
    assert _error("mq-ct-targets-null", [], "0.14.0") == ("TypeError", "'NoneType' object is not iterable")
    assert _error("mq-ct-targets-null", [], "0.20.0") == ("TypeError", "object of type 'NoneType' has no len()")
    # a lone *Attention target group is dropped from 0.15.0 (its null weights never validated)
    assert _error("mq-ct-attention-only-group", [], "0.14.1")[0] == "ValidationError"
    assert _error("mq-ct-attention-only-group", [], "0.15.0") is None
    # an activation-quantizing format without input_activations needs float weights (a bare assert)
    bare = ("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, ")
    assert _error("mq-ct-int-quantized-no-input", [], "0.18.0") == bare
    assert _error("mq-ct-group-format-int-quantized", [], "0.25.0") == bare
    assert _error("mq-ct-float-quantized-no-input", [], "0.25.0") is None


def test_mamba_all_mode_deprecation_logged_0_30_and_0_31():
    # CacheConfig's mamba_cache_mode validator (0.30.0 config/cache.py:321-330; gone in 0.32.0)
    def logged(target: str) -> bool:
        argv = ("vllm", "serve", str(MODELS / "pp-zamba2-hybrid"), "--mamba-cache-mode", "all")
        res = resolve(Deployment(argv=argv, env=(), source="t"), target)
        return any("Mamba cache mode 'all' is deprecated" in e.reason for e in res.events)
    assert not logged("0.29.0") and logged("0.30.0") and logged("0.31.0") and not logged("0.32.0")


def test_compressed_tensors_group_activation_ordering_refused_from_0_30_0():
    # 0.30.0 compressed_tensors.py (0.33.0 :336-345): actorder "group" or "dynamic" (True reads as "group")
    msg = ("ValidationError", "1 validation error for VllmConfig\n  Value error, Compressed-tensors group/dynamic "
           "activation ordering (actorder='group') is no longer supported. Use a checkpoint with static/weight "
           "activation ordering or without activation ordering.")
    assert _error("mq-ct-actorder-group", [], "0.29.0") is None
    assert _error("mq-ct-actorder-group", [], "0.30.0") == msg
    assert _error("mq-ct-actorder-true", [], "0.31.0") == msg
    assert _error("mq-ct-actorder-weight", [], "0.33.0") is None


def test_hybrid_models_get_prefix_caching_by_default_from_0_28_0():
    # 0.25.0 config/model.py:1883 (hybrid: no prefix caching support), 0.26.0-0.27.x
    # engine/arg_utils.py:2518-2522 ("keep it opt-in": default off for hybrid models), 0.28.0
    # :2650 (the supported default, on). Only with prefix caching on does "align" need chunked prefill.
    words = ["--no-enable-chunked-prefill", "--mamba-cache-mode", "align"]
    for target in ("0.25.0", "0.26.0", "0.27.0"):
        assert _error("pp-jamba-hybrid-moe", words, target) is None, target
    assert _error("pp-jamba-hybrid-moe", words, "0.28.0") == ("ValidationError", ALIGN)
