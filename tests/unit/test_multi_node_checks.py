"""Multi-node launch options (create_engine_config before ParallelConfig) on releases without a
recorded golden (0.12.0, pr29558, 0.22.0, 0.28.0, 0.30.0 and 0.33.0 are in
tests/golden/data/model_families/validators/). Each expectation comes from reading that release:
- 0.11.0 engine/arg_utils.py has no nnodes/node_rank asserts; 0.11.1-0.26.0 assert them
  (0.12.0 arg_utils.py:1440-1531, 0.26.0 :1960-2065); 0.27.0 raises ValueErrors worded
  "Invalid data-parallel launch options: ..." (0.27.0 :2017-2110) and refuses fault tolerance
  without external load balancing (:2066);
- non-MoE models refuse external data parallelism from 0.21.0 (0.21.0 arg_utils.py, absent in 0.20.2);
- the world size counts prefill context parallelism from 0.30.0 (0.30.0 :2183-2187; 0.29.0 :2176 does not);
- 0.31.0 refuses inferring an external rank when nnodes is not a multiple of the DP size (0.31.0 :2300-2312);
- ParallelConfig allows nnodes > 1 only with the mp/uni executors on 0.11.1-0.12.0 (0.12.0
  parallel.py:596-600), external_launcher too from 0.13.0.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
DENSE, MOE = str(MODELS / "llama-dense"), str(MODELS / "mixtral-moe")
LAUNCH = "Invalid data-parallel launch options: "


def _err(version: str, model: str, *words: str) -> tuple[str, str] | None:
    res = resolve(Deployment(argv=("vllm", "serve", model) + words, env=(), source="t"), version,
                  serve_stage=False)  # create_engine_config alone, not `vllm serve`'s own checks
    return (res.vllm_error.type, res.vllm_error.message) if res.vllm_error else None


BOTH = ("--data-parallel-hybrid-lb", "--data-parallel-external-lb")


def test_0_11_0_has_only_the_rank_and_hybrid_asserts():
    assert _err("0.11.0", DENSE, "--nnodes", "2")[0] == "ArgumentError"  # no such flag yet
    assert _err("0.11.0", MOE, "-dp", "2", "--data-parallel-rank", "1", "--data-parallel-size-local", "2") == (
        "AssertionError", "data_parallel_size_local must be 1 when data_parallel_rank is set")
    assert _err("0.11.0", MOE, "-dp", "2", "--data-parallel-hybrid-lb") == (
        "AssertionError", "data_parallel_size_local must be set to use data_parallel_hybrid_lb.")
    assert _err("0.11.0", DENSE, "--data-parallel-rank", "0") is None  # no external-lb validator in 0.11.0


@pytest.mark.parametrize("version", ["0.11.1", "0.16.0", "0.26.0"])
def test_asserts_before_0_27_0(version):
    assert _err(version, DENSE, *BOTH) == (
        "AssertionError", "data_parallel_hybrid_lb and data_parallel_external_lb cannot both be True.")
    assert _err(version, DENSE, "-tp", "2", "--nnodes", "3") == (
        "AssertionError", "world_size=2 must be divisible by nnodes=3.")
    assert _err(version, DENSE, "-tp", "4", "--nnodes", "2", "--node-rank", "2") == (
        "AssertionError", "node_rank=2 must be less than nnodes=2.")
    assert _err(version, MOE, "-dp", "2", "--data-parallel-hybrid-lb") == (
        "AssertionError", "data_parallel_size_local must be set to use data_parallel_hybrid_lb.")


@pytest.mark.parametrize("version", ["0.27.0", "0.29.0", "0.31.0"])
def test_value_errors_from_0_27_0(version):
    assert _err(version, DENSE, *BOTH) == (
        "ValueError", LAUNCH + "`--data-parallel-hybrid-lb` and `--data-parallel-external-lb` cannot be "
                               "enabled together. Enable only one load-balancing mode.")
    assert _err(version, DENSE, "-tp", "4", "--nnodes", "2", "--node-rank", "-1")[1].startswith(
        LAUNCH + "`--node-rank` must be between 0 and 1; got `--node-rank -1`.")
    assert _err(version, MOE, "-dp", "2", "--enable-fault-tolerance")[1].startswith(
        "Fault tolerance requires external load balancer mode")


def test_non_moe_external_dp_from_0_21_0():
    words = ("-dp", "2", "--data-parallel-rank", "1")
    assert _err("0.20.2", DENSE, *words) is None
    assert _err("0.21.0", DENSE, *words)[1].startswith("Non-MoE models do not support external data parallel")
    assert _err("0.21.0", MOE, *words) is None


def test_world_size_counts_pcp_from_0_30_0():
    words = ("-tp", "2", "-pcp", "2", "--nnodes", "4")
    assert _err("0.29.0", DENSE, *words)[1].startswith(LAUNCH + "`--nnodes 4` must evenly divide the total "
                                                                 "world size (2).")
    assert _err("0.30.0", DENSE, *words) is None or "evenly divide" not in _err("0.30.0", DENSE, *words)[1]


def test_ambiguous_external_rank_from_0_31_0():
    words = ("-dp", "2", "-pp", "3", "--nnodes", "3", "--node-rank", "1", "--data-parallel-external-lb")
    assert "unambiguously" not in str(_err("0.29.0", MOE, *words))  # 0.29.0 infers rank 1*2//3 = 0
    assert _err("0.31.0", MOE, *words)[1].startswith(LAUNCH + "`--node-rank` cannot unambiguously identify")


def test_nnodes_executor_backends():
    words = ("-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "external_launcher")
    assert _err("0.11.1", DENSE, *words) == (
        "ValidationError", "1 validation error for ParallelConfig\n  Value error, nnodes > 1 can only be set when "
                           "distributed executor backend is mp or uni.")
    assert _err("0.13.0", DENSE, *words) is None
