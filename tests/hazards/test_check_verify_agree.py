"""`check` and `verify` tell the same story: VP301 (an error in check) fires exactly where verify's
DeepEP-HT graph check (V2) fails, over a grid of resolved settings and on every bundled example."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from vllm_preflight.api import check_inputs
from vllm_preflight.hazards.context import Context
from vllm_preflight.hazards.graphs import captured_around_ht
from vllm_preflight.model import Resolution

pytest.importorskip("torch")  # verify's static checks import torch.fx; the verify extra brings it
from vllm_preflight.capture.plan import plan_from_resolved
from vllm_preflight.verify.outcome import FAIL
from vllm_preflight.verify.static_checks import check_ht_full

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ATTN = ["vllm::unified_attention_with_output"]
MOE = ["vllm::moe_forward", "vllm::moe_forward_shared"]


def _resolved(mode, cg, ops, backend, dp, ep, sizes):
    return {"compilation_config": {"mode": mode, "cudagraph_mode": cg, "splitting_ops": ops,
                                   "use_inductor_graph_partition": False, "pass_config": {}, "custom_ops": [],
                                   "cudagraph_capture_sizes": sizes, "max_cudagraph_capture_size": max(sizes or [0])},
            "parallel_config": {"all2all_backend": backend, "data_parallel_size": dp, "tensor_parallel_size": 1,
                                "enable_expert_parallel": ep},
            "optimization_level": 2}


GRID = list(itertools.product(
    ("NONE", "VLLM_COMPILE"), ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"),
    (ATTN, ATTN + MOE, ATTN + MOE[:1]), ("deepep_high_throughput", "deepep_low_latency"), (1, 8), (True, False),
    ([1, 2, 4], [])))


def test_vp301_iff_verify_v2_fails():
    disagree, fired = [], 0
    for case in GRID:
        resolved = _resolved(*case)
        res = Resolution("grid", "pr29558", "0.12.0", resolved, None)
        hazard = bool(captured_around_ht(Context(res, {})))
        plan = plan_from_resolved(resolved, "0.12.0")
        verify_fails = check_ht_full(plan).status == FAIL and not plan.nothing_captured
        fired += hazard
        if hazard != verify_fails:
            disagree.append(case)
    assert not disagree
    assert 0 < fired < len(GRID)  # the grid holds both outcomes


@pytest.mark.parametrize("target,version", [("release", None), ("release", "0.12.0"), ("release", "0.13.0"),
                                            ("pr29558", None)])
def test_every_bundled_example_agrees(target, version):
    report = check_inputs([str(EXAMPLES)], target=target, vllm_version=version)
    assert len(report.results) >= 8
    for res in report.results:
        if res.resolved is None:
            continue
        plan = plan_from_resolved(res.resolved, res.vllm_version)
        verify_fails = check_ht_full(plan).status == FAIL and not plan.nothing_captured
        errors = {f["rule"] for f in res.extra["findings"] if f["severity"] == "error"}
        assert ("VP301" in errors) == verify_fails, (res.source, target, version)


def test_the_documented_failures_are_errors():
    """The two examples the verify README says fail are error findings in check."""
    pr = check_inputs([str(EXAMPLES / "deepep-ht-dp8.sh")], target="pr29558").results[0]
    old = check_inputs([str(EXAMPLES / "verify-deepep-ht-mode-none-full.sh")], vllm_version="0.13.0").results[0]
    ok = check_inputs([str(EXAMPLES / "deepep-ht-dp8-piecewise.sh")], target="pr29558").results[0]
    assert "VP301" in {f["rule"] for f in pr.extra["findings"]}
    assert "VP301" in {f["rule"] for f in old.extra["findings"]}
    assert "VP301" not in {f["rule"] for f in ok.extra["findings"]}
