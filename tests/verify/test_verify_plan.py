"""resolved settings -> plan: which graphs vLLM captures and which MoE protocol runs (pure Python)."""
from __future__ import annotations

import pytest

from vllm_preflight.capture.plan import (
    PlanProblem,
    name_matching_for,
    pad_to,
    plan_from_resolved,
    toy_sizes,
    unverified_sizes,
)


def test_pr_piecewise_ht_is_a_piecewise_plan_with_the_ht_protocol(rd):
    plan = plan_from_resolved(rd.resolved(), "0.12.0")
    assert plan.piecewise and plan.full is None and plan.graph_kinds == ("piecewise",)
    assert plan.ht and plan.moe_protocol == "deepep_ht"
    assert plan.splitting_ops == tuple(rd.ATTENTION + rd.MOE)
    assert plan.name_matching == "qualified"
    assert not plan.nothing_captured


@pytest.mark.parametrize("mode,full", [("FULL_AND_PIECEWISE", "decode"), ("FULL", "all"),
                                       ("FULL_DECODE_ONLY", "decode")])
def test_full_components(rd, mode, full):
    plan = plan_from_resolved(rd.resolved(cudagraph_mode=mode), "0.13.0")
    assert plan.full == full
    assert plan.piecewise == (mode == "FULL_AND_PIECEWISE")


def test_release_none_captures_nothing_even_with_capture_sizes(rd):
    # vLLM keeps the capture sizes after the DeepEP rule flips the mode to NONE
    plan = plan_from_resolved(rd.resolved(cudagraph_mode="NONE"), "0.33.0")
    assert plan.nothing_captured and plan.graph_kinds == ()
    assert plan.capture_sizes


def test_compile_mode_none_with_full_is_one_full_graph_and_no_pieces(rd):
    plan = plan_from_resolved(rd.resolved(mode="NONE", cudagraph_mode="FULL"), "0.13.0")
    assert plan.graph_kinds == ("full",)
    assert any("splitting_ops are not used" in n for n in plan.notes)


def test_piecewise_without_vllm_compile_captures_no_pieces(rd):
    plan = plan_from_resolved(rd.resolved(mode="NONE", cudagraph_mode="PIECEWISE"), "0.13.0")
    assert plan.nothing_captured
    assert any("no piecewise backend" in n for n in plan.notes)


def test_no_capture_sizes_means_nothing_captured(rd):
    assert plan_from_resolved(rd.resolved(sizes=[]), "0.13.0").nothing_captured


@pytest.mark.parametrize("backend,dp,ep,protocol", [
    ("deepep_high_throughput", 8, True, "deepep_ht"),
    ("deepep_high_throughput", 1, True, "capturable"),    # DP=1: no all2all
    ("deepep_high_throughput", 8, False, "capturable"),   # no expert parallelism: no all2all
    ("deepep_low_latency", 8, True, "capturable"),
    ("allgather_reducescatter", 8, True, "capturable"),
])
def test_moe_protocol(rd, backend, dp, ep, protocol):
    assert plan_from_resolved(rd.resolved(backend=backend, dp=dp, ep=ep), "0.13.0").moe_protocol == protocol


def test_enums_by_int_and_qualified_name(rd):
    r = rd.resolved(mode=3, cudagraph_mode="CUDAGraphMode.FULL_AND_PIECEWISE")
    plan = plan_from_resolved(r, "0.13.0")
    assert plan.compile_mode == "VLLM_COMPILE" and plan.cudagraph_mode == "FULL_AND_PIECEWISE"


@pytest.mark.parametrize("bad", [None, {}, {"compilation_config": {}, "parallel_config": None}])
def test_missing_resolved_settings_are_config_problems(bad):
    with pytest.raises(PlanProblem):
        plan_from_resolved(bad, "0.13.0")


@pytest.mark.parametrize("change", [
    {"cudagraph_mode": "SOMETIMES"}, {"mode": "FAST"}, {"mode": True}, {"sizes": ["x"]}, {"sizes": [0, 8]},
    {"splitting_ops": "vllm::moe_forward"}, {"dp": "eight"},
])
def test_malformed_resolved_settings_are_config_problems(rd, change):
    with pytest.raises(PlanProblem):
        plan_from_resolved(rd.resolved(**change), "0.13.0")


def test_name_matching_follows_the_release():
    assert name_matching_for("0.11.0") == "name"
    assert name_matching_for("0.11.1") == "qualified"
    assert name_matching_for("pr29558") == "qualified"
    assert name_matching_for("") == "qualified"


def test_padding_and_toy_sizes():
    assert pad_to(3, [1, 2, 4, 8]) == 4 and pad_to(8, [1, 2, 4, 8]) == 8 and pad_to(9, [1, 2, 4, 8]) is None
    # every size up to the limit, plus the smallest, the middle (planned[len // 2]) and the
    # largest planned size; padded batches: gaps below verified sizes, spread to 3
    assert toy_sizes((1, 2, 4, 8, 16, 24), 8) == ([1, 2, 4, 8, 24], [3, 7, 23])
    assert toy_sizes((16, 32), 8) == ([16, 32], [1, 17, 31])
    assert toy_sizes((1, 2, 4), 8) == ([1, 2, 4], [3])
    planned = tuple([1, 2, 4] + list(range(8, 513, 8)))  # vLLM's default list: 67 sizes
    sizes, _ = toy_sizes(planned, 8)
    assert sizes == [1, 2, 4, 8, 248, 512] and unverified_sizes(planned, sizes)[:2] == [16, 24]
    assert len(unverified_sizes(planned, sizes)) == 61
    sizes, padded = toy_sizes(tuple(range(8, 65, 8)), 64)
    assert len(padded) == 3 and all(pad_to(n, sizes) for n in padded)


def test_plan_json_round_trips_the_decision(rd):
    j = plan_from_resolved(rd.resolved(cudagraph_mode="FULL_AND_PIECEWISE"), "0.12.0").to_json()
    assert j["piecewise"] and j["full"] == "decode" and j["moe_protocol"] == "deepep_ht"
