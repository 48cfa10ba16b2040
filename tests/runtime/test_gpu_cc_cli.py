"""`--gpu` parts the releases treat differently, and `--gpu-cc X.Y` for any other part."""
from __future__ import annotations

import json

from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.gpus import GPUS, get_gpu

SERVE = ["--", "vllm", "serve", "Qwen/Qwen3-30B-A3B", "--speculative-config",
         json.dumps({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})]


def _runtime(*opts):
    res = CliRunner().invoke(cli, ["check", "--vllm-version", "0.12.0", "--format", "json", *opts, *SERVE])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"][0]["resolved"]["runtime"]


def test_gpu_cc_changes_the_runtime_prediction():
    # 0.12.0's TRTLLM test wants exactly SM100: SM103 (B300) falls to single-token decode graphs
    assert _runtime("--gpu", "B200")["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert _runtime("--gpu", "B200", "--gpu-cc", "10.3")["cudagraph_mode"] == "PIECEWISE"
    assert _runtime("--gpu-cc", "10.0")["attention"][0]["backend"] == "FLASHINFER"


def test_bad_gpu_cc_is_a_usage_error():
    res = CliRunner().invoke(cli, ["check", "--gpu-cc", "nine", *SERVE])
    assert res.exit_code == 2 and "--gpu-cc 'nine'" in res.output


def test_new_parts_have_their_capability():
    assert GPUS["B300"].capability == (10, 3) and GPUS["RTX5090"].capability == (12, 0)
    assert get_gpu("rtx-5090") is GPUS["RTX5090"]
    assert get_gpu("H100@12.1").capability == (12, 1) and get_gpu("H100@12.1").memory_gib == GPUS["H100"].memory_gib
