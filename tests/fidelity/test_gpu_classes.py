"""Every GPU class deployers name (issue 24): the common ones are in `--gpu` with their compute
capability and memory, AMD Instinct parts are refused with one line (exit 2: vLLM's ROCm platform
is not modelled), and 0.11.0's hand-written dense backend choice below SM80 is FlexAttention
(0.11.0 platforms/cuda.py: "FlexAttention is the default for older GPUs"), whose NEVER support
lowers FULL_AND_PIECEWISE to PIECEWISE, while 0.11.1+ take the first valid backend of the
priority list (FLASH_ATTN needs SM80, FLASHINFER SM75 until 0.24.0)."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli_support import run_check

from vllm_preflight.api import check_inputs
from vllm_preflight.errors import UsageProblem
from vllm_preflight.gpus import GPUS, get_gpu

LLAMA = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "llama-dense")


@pytest.mark.parametrize("name,cc", [("T4", (7, 5)), ("V100", (7, 0)), ("A10", (8, 6)), ("A10G", (8, 6)),
                                     ("L4", (8, 9)), ("L40", (8, 9)), ("H20", (9, 0)), ("GH200", (9, 0))])
def test_common_gpus_are_known(name, cc):
    assert get_gpu(name).capability == cc and get_gpu(name.lower()) is GPUS[name]


@pytest.mark.parametrize("name", ["MI300X", "mi355x", "AMD-MI250"])
def test_amd_instinct_is_refused_as_not_cuda(name):
    with pytest.raises(UsageProblem, match="ROCm platform"):
        get_gpu(name)


def test_amd_instinct_on_the_command_line_exits_2_with_one_line():
    run = run_check("--gpu", "MI300X", "--", "vllm", "serve", LLAMA)
    assert run.code == 2
    lines = [ln for ln in run.err.splitlines() if "MI300X" in ln]
    assert len(lines) == 1 and "Traceback" not in run.err


def _runtime(release: str, gpu: str) -> dict:
    res = check_inputs([], command=["vllm", "serve", LLAMA], vllm_version=release, gpu=gpu).results[0]
    return res.resolved["runtime"]


@pytest.mark.parametrize("gpu,release,backend,mode", [
    ("T4", "0.11.0", "FLEX_ATTENTION", "PIECEWISE"),
    ("V100", "0.11.0", "FLEX_ATTENTION", "PIECEWISE"),
    ("A10G", "0.11.0", "FLASH_ATTN", "FULL_AND_PIECEWISE"),
    ("B200", "0.11.0", "FLASHINFER", "FULL_AND_PIECEWISE"),
    ("B300", "0.11.0", "FLASH_ATTN", "FULL_AND_PIECEWISE"),  # 0.11.0 asks for exactly SM100
    ("T4", "0.12.0", "FLASHINFER", "FULL_AND_PIECEWISE"),  # SM75 <= FlashInfer's range
    ("V100", "0.12.0", "TRITON_ATTN", "FULL_AND_PIECEWISE"),  # below FlashInfer's SM75
    ("T4", "0.33.0", "TRITON_ATTN", "FULL_AND_PIECEWISE"),  # FlashInfer needs SM80 from 0.24.0
])
def test_attention_backend_per_compute_capability(gpu, release, backend, mode):
    rt = _runtime(release, gpu)
    assert [a["backend"] for a in rt["attention"]] == [backend]
    assert rt["cudagraph_mode"] == mode


def test_amd_instinct_in_a_deployment_file_is_one_clear_line(tmp_path):
    f = tmp_path / "serve.preflight.yaml"
    f.write_text(f"gpu: MI300X\ncommand: vllm serve {LLAMA}\n")
    run = run_check(str(f))
    assert run.code == 2
    said = [ln for ln in run.err.splitlines() if "MI300X" in ln]
    assert len(said) == 1 and "ROCm platform" in said[0] and f"{f.name}:1:" in said[0]
