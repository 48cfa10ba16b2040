"""ReplaySSM / RecoverSSM (`validate_mamba_cached_kernel`, resolve/vllm_config/replayssm.py). Real
vLLM agrees on 0.12.0, pr29558, 0.28.0, 0.29.0, 0.30.0, 0.32.0 and 0.33.0
(tests/golden/data/model_families/replayssm/); these pin what the goldens cannot reach: 0.27.x
(Python 3.12 oracles), the 0.31.0 wording (same as 0.30.0), the 0.26.0/0.27.0 flag boundary and
the support data against each release's registry."""
from __future__ import annotations

import json

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

NEM, KIMI = "replayssm-nemotronh", "replayssm-kimi-linear"
NGRAM = ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})]
V1 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}


def _error(model: str, words: list[str], target: str, env: dict | None = None):
    argv = ("vllm", "serve", str(MODELS / model)) + tuple(words)
    err = resolve(Deployment(argv=argv, env=tuple((env or {}).items()), source="t"), target,
                  serve_stage=False).vllm_error
    return None if err is None else (err.type, err.message)


def _value(message: str):
    return ("ValidationError", f"1 validation error for VllmConfig\n  Value error, {message}")


def test_flags_exist_from_0_27_0():
    for target in ("0.26.0", "0.12.0"):
        assert _error(NEM, ["--use-replayssm"], target) == (
            "ArgumentError", "unrecognized arguments: --use-replayssm"), target
    assert _error(NEM, ["--use-replayssm", "--no-enable-prefix-caching"], "0.27.0") is None


def test_supported_architectures_per_release():
    # registry.py supports_replayssm: Nemotron-H from 0.27.0, the Kimi KDA classes from 0.29.0
    old = "--use-replayssm is only supported for Nemotron-H models (got architecture 'KimiLinearForCausalLM')"
    assert _error(KIMI, ["--use-replayssm"], "0.27.1") == _value(old)
    assert _error(KIMI, ["--use-replayssm"], "0.28.0") == _value(old)
    assert _error(KIMI, ["--use-replayssm"], "0.29.0", V1) is None
    new = "--use-replayssm is not supported for architecture 'Zamba2ForCausalLM'"
    assert _error("pp-zamba2-hybrid", ["--use-replayssm"], "0.31.0") == _value(new)


def test_0_27_rules():
    # 0.27.0 config/vllm.py:2338-2366: mode "all" (0.27.x picks it for Nemotron-H when prefix
    # caching is on: models/config.py:614-617), speculative decoding, a backend but Triton
    assert _error(NEM, ["--use-replayssm", "--enable-prefix-caching"], "0.27.0") == _value(
        "--use-replayssm supports prefix caching only in align mode; pass --mamba-cache-mode align")
    assert _error(NEM, ["--use-replayssm", "--enable-prefix-caching", "--mamba-cache-mode", "align"], "0.27.0") \
        is None
    assert _error(NEM, ["--use-replayssm"] + NGRAM, "0.27.1") == _value(
        "--use-replayssm does not support speculative decoding")
    assert _error(NEM, ["--use-replayssm", "--mamba-backend", "flashinfer"], "0.27.1") == _value(
        "--use-replayssm requires --mamba-backend triton")


def test_0_31_keeps_the_0_30_wording_and_0_32_recoverssm_only_for_kimi():
    fi = ["--use-replayssm", "--mamba-backend", "flashinfer"]
    assert _error(NEM, fi, "0.31.0") == _value("FlashInfer ReplaySSM does not support --mamba-cache-mode align yet; "
                                               "use none")
    assert _error(NEM, fi, "0.33.0") == _value("FlashInfer ReplaySSM does not support prefix caching yet; use "
                                               "--disable-prefix-caching")
    # speculative tokens on a Nemotron-H: RecoverSSM (refused) until 0.31.x, Mamba2 spec decoding from 0.32.0
    spec = ["--use-replayssm", "--no-enable-prefix-caching"] + NGRAM
    assert _error(NEM, spec, "0.31.0") == _value("RecoverSSM is only supported for Kimi-K3 KDA")
    assert _error(NEM, spec, "0.32.0") == _value("Mamba2 ReplaySSM speculative decoding requires --mamba-backend "
                                                 "flashinfer")


def test_kda_recoverssm_keeps_kv_connectors_from_0_33_0():
    kv = ["--kv-transfer-config", json.dumps({"kv_connector": "ExampleConnector", "kv_role": "kv_both"})]
    words = ["--use-replayssm", "--no-enable-prefix-caching"] + NGRAM + kv
    refused = _value("--use-replayssm is incompatible with KV connectors (P/D disaggregation, KV cache offload)")
    assert _error(KIMI, words, "0.32.0", V1) == refused
    assert _error(KIMI, words, "0.33.0", V1) is None
