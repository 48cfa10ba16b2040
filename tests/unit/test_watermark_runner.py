"""Watermarking takes Model Runner V2 (0.30.0+; 0.33.0 config/vllm.py:740-746
`use_v2_model_runner`): before the environment variable is read, so even
VLLM_USE_V2_MODEL_RUNNER=0 gets V2 (vLLM logs that it overrides it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

DENSE = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "llama-dense")


def _runner(version: str, env: tuple, *words: str) -> str:
    res = resolve(Deployment(argv=("vllm", "serve", DENSE) + words, env=env, source="t"), version)
    assert res.vllm_error is None
    return res.resolved["runtime"]["model_runner"]


@pytest.mark.parametrize("version", ["0.30.0", "0.33.0"])
def test_watermarking_takes_v2_over_the_env_var(version):
    off = (("VLLM_USE_V2_MODEL_RUNNER", "0"),)
    assert _runner(version, off) == "V1"
    assert _runner(version, off, "--watermark-config", json.dumps({"key": 1234})) == "V2"
