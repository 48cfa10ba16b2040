"""Hand-written resolved settings (the resolver's output shape) and shared, traced toys.

Tracing with Dynamo costs about a second (the first one in a process about four), so the traced
benches are built once per session and never mutated by tests (controls restore what they swap).
"""
from __future__ import annotations

import pytest

ATTENTION = ["vllm::unified_attention", "vllm::unified_attention_with_output", "vllm::unified_mla_attention",
             "vllm::unified_mla_attention_with_output", "vllm::mamba_mixer2", "vllm::mamba_mixer"]
MOE = ["vllm::moe_forward", "vllm::moe_forward_shared"]
SIZES = [1, 2, 4, 8, 16, 24, 32]


def resolved(mode="VLLM_COMPILE", cudagraph_mode="PIECEWISE", splitting_ops=None, backend="deepep_high_throughput",
             dp=8, ep=True, sizes=None, partition=False):
    return {
        "compilation_config": {
            "mode": mode, "cudagraph_mode": cudagraph_mode,
            "splitting_ops": list(ATTENTION + MOE) if splitting_ops is None else splitting_ops,
            "use_inductor_graph_partition": partition, "pass_config": {}, "custom_ops": [],
            "cudagraph_capture_sizes": list(SIZES if sizes is None else sizes),
            "max_cudagraph_capture_size": max(SIZES if sizes is None else sizes or [0], default=None),
        },
        "parallel_config": {"all2all_backend": backend, "data_parallel_size": dp, "tensor_parallel_size": 1,
                            "enable_expert_parallel": ep},
        "optimization_level": None,
    }


class _Dicts:
    """Reachable from tests as the `rd` fixture (conftest modules are not importable by name)."""

    ATTENTION = ATTENTION
    MOE = MOE
    SIZES = SIZES
    resolved = staticmethod(resolved)


@pytest.fixture(scope="session")
def rd():
    return _Dicts


@pytest.fixture(scope="session")
def torch_threads():
    torch = pytest.importorskip("torch")
    from vllm_preflight.verify.workbench import set_threads_for_toy

    set_threads_for_toy()
    return torch


@pytest.fixture(scope="session")
def ht_bench(torch_threads):
    """DeepEP-HT dp8 under the PR design, PIECEWISE: attention and MoE ops split out."""
    from vllm_preflight.capture.plan import plan_from_resolved
    from vllm_preflight.verify.workbench import build_bench

    return build_bench(plan_from_resolved(resolved(), "0.12.0"), max_tokens=8)


@pytest.fixture(scope="session")
def dense_bench(torch_threads):
    """A capturable all2all (DeepEP low-latency) with FULL_AND_PIECEWISE and attention-only splits."""
    from vllm_preflight.capture.plan import plan_from_resolved
    from vllm_preflight.verify.workbench import build_bench

    plan = plan_from_resolved(resolved(cudagraph_mode="FULL_AND_PIECEWISE", splitting_ops=ATTENTION,
                                       backend="deepep_low_latency"), "0.13.0")
    return build_bench(plan, max_tokens=8)
