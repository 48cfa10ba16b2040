"""Every supported release resolves, and keeps the behaviour this tool exists to report:
DeepEP high-throughput all2all with data parallel > 1 turns CUDA graphs off on every release
0.11.0-0.33.0 (vLLM's own "Disabling CUDA Graphs" rule; shared docs, vllm-resolution.md §1),
while a capturable backend keeps them."""
import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import SUPPORTED
from vllm_preflight.resolve import resolve

MODEL = "deepseek-ai/DeepSeek-V3"


def _deepep(version, backend="deepep_high_throughput"):
    if version == "0.11.0":  # no --all2all-backend flag yet: the environment variable only
        return Deployment(argv=("vllm", "serve", MODEL, "-dp", "8", "--enable-expert-parallel"),
                          env=(("VLLM_ALL2ALL_BACKEND", backend),))
    return Deployment(argv=("vllm", "serve", MODEL, "-dp", "8", "--enable-expert-parallel",
                            "--all2all-backend", backend))


@pytest.mark.parametrize("version", SUPPORTED)
def test_deepep_ht_with_dp_turns_cuda_graphs_off(version):
    res = resolve(_deepep(version), version)
    assert res.vllm_error is None
    cc = res.resolved["compilation_config"]
    assert cc["mode"] == "VLLM_COMPILE"
    assert cc["cudagraph_mode"] == "NONE"
    assert not any(op in (cc["splitting_ops"] or []) for op in ("vllm::moe_forward", "vllm::moe_forward_shared"))
    assert any(e.rule == "deepep_ht.disable_cudagraphs" and "Disabling CUDA Graphs" in e.reason for e in res.events)
    # the sizes were computed before the rule ran, and stay (nothing is captured)
    assert cc["cudagraph_capture_sizes"]


@pytest.mark.parametrize("version", SUPPORTED)
def test_deepep_low_latency_keeps_cuda_graphs(version):
    res = resolve(_deepep(version, "deepep_low_latency"), version)
    assert res.vllm_error is None
    assert res.resolved["compilation_config"]["cudagraph_mode"] != "NONE"


def test_pr29558_design_splits_instead():
    res = resolve(_deepep("0.12.0"), "pr29558")
    cc = res.resolved["compilation_config"]
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert cc["splitting_ops"][-2:] == ["vllm::moe_forward", "vllm::moe_forward_shared"]
