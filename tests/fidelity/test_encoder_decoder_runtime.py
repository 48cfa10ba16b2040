"""The runtime stage of encoder-decoder models (issue 24): Whisper's decoder has a cross-attention
KV-cache group whose backend is vLLM's CrossAttention_<Backend>, a subclass of the chosen
backend's metadata builder (0.15.1 model_executor/layers/attention/cross_attention.py), so it
declares the same CUDA-graph support and the config-time FULL_DECODE_ONLY is captured. A real
0.15.1 node serving Whisper captured FULL_DECODE_ONLY; the tool used to leave the mode open."""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.api import check_inputs

WHISPER = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "whisper-encdec")


@pytest.mark.parametrize("release,gpu,support", [("0.15.1", "H200", "ALWAYS"), ("0.15.1", "A100", "UNIFORM_BATCH"),
                                                 ("0.33.0", "H100", "ALWAYS")])
def test_whisper_captures_full_decode_graphs(release, gpu, support):
    res = check_inputs([], command=["vllm", "serve", WHISPER], vllm_version=release, gpu=gpu).results[0]
    rt = res.resolved["runtime"]
    assert res.vllm_error is None and rt["config_cudagraph_mode"] == "FULL_DECODE_ONLY"
    assert rt["cudagraph_mode"] == "FULL_DECODE_ONLY"
    groups = {a["group"]: a for a in rt["attention"]}
    assert groups["cross_attention"]["class"] == "CrossAttention_FlashAttentionBackend"
    assert groups["cross_attention"]["support"] == groups["attention"]["support"] == support
    assert not [a for a in rt["assumptions"] if a["fact"] == "unmodelled_support"]
