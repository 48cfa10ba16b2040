"""Static checks look at the split graph and at what opaque ops do when run, not at mode names."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.capture.plan import plan_from_resolved
from vllm_preflight.verify.moe.ht import HTEmulatedMoE
from vllm_preflight.verify.probe import probe
from vllm_preflight.verify.split import split
from vllm_preflight.verify.static_checks import check_graph, check_ht_full, moe_nodes
from vllm_preflight.verify.workbench import static_report


def by_id(checks, graph=None):
    return {c.id: c for c in checks if graph is None or c.graph in (graph, None)}


def test_probe_sees_the_ht_host_reads_and_data_dependent_sizes(ht_bench):
    moe = moe_nodes(ht_bench.traced.gm)
    assert len(moe) == 2
    for name in moe:
        b = ht_bench.behaviour[name]
        assert b.unsafe and "aten._local_scalar_dense" in b.host_reads and b.data_dependent_shapes


def test_probe_finds_nothing_in_the_dense_moe_and_attention(dense_bench):
    assert dense_bench.behaviour and not any(b.unsafe for b in dense_bench.behaviour.values())


def test_piecewise_ht_with_moe_split_passes(ht_bench):
    checks = by_id(static_report(ht_bench).checks)
    assert {k: c.status for k, c in checks.items()} == {
        "V1": "pass", "V2": "pass", "V3": "pass", "V4": "pass", "V5": "pass", "V6": "info", "V7": "info"}
    # 0.12.0 unpacks moe_forward_shared's tuple inside the MoE piece: three single tensors
    assert checks["V7"].metrics == {"eager_inputs": 3, "tuple_inputs": 0}


def test_moe_left_in_a_captured_piece_is_flagged_on_its_node(ht_bench):
    sg = split(ht_bench.traced, ["vllm::unified_attention_with_output"], "0.12.0")
    rep = check_graph("piecewise", sg, ht_bench.behaviour, ht_bench.traced.placeholder_kinds())
    v4 = by_id(rep.checks)["V4"]
    assert v4.status == "fail"
    assert {f.node for f in rep.findings} == moe_nodes(ht_bench.traced.gm)
    assert all("_local_scalar_dense" in f.what and f.piece.startswith("submod_") for f in rep.findings)


def test_capturable_moe_in_a_captured_piece_is_fine(dense_bench):
    rep = static_report(dense_bench)
    assert not any(c.failed for c in rep.checks)
    assert {c.graph for c in rep.checks if c.id == "V4"} == {"piecewise", "full"}


def test_full_graph_holding_the_ht_moe_fails_v2_and_v4(ht_bench, rd):
    plan = plan_from_resolved(rd.resolved(cudagraph_mode="FULL_AND_PIECEWISE"), "0.12.0")
    assert check_ht_full(plan).status == "fail"
    rep = check_graph("full", ht_bench.sg, ht_bench.behaviour, ht_bench.traced.placeholder_kinds())
    assert by_id(rep.checks)["V4"].status == "fail"
    assert {f.piece for f in rep.findings} == {"full graph"}


def test_v2_rule_names_missing_moe_ops(rd):
    plan = plan_from_resolved(rd.resolved(splitting_ops=rd.ATTENTION), "0.12.0")
    c = check_ht_full(plan)
    assert c.status == "fail" and "vllm::moe_forward" in c.detail
    assert check_ht_full(plan_from_resolved(rd.resolved(backend="naive"), "0.12.0")).status == "skip"


def test_attention_left_inside_a_piecewise_piece_fails_v3(ht_bench):
    sg = split(ht_bench.traced, ["vllm::moe_forward", "vllm::moe_forward_shared"], "0.12.0")
    rep = check_graph("piecewise", sg, ht_bench.behaviour, ht_bench.traced.placeholder_kinds())
    v3 = by_id(rep.checks)["V3"]
    assert v3.status == "fail" and "attention op inside a captured piece" in v3.detail


def test_a_dropped_moe_name_fails_v1(ht_bench, rd):
    """V1 can fail: a MoE entry no release-0.11.1+ rule matches (the dotted form) leaves the MoE
    inside a captured piece although the config lists it."""
    plan = plan_from_resolved(rd.resolved(splitting_ops=rd.ATTENTION + ["vllm.moe_forward"]), "0.13.0")
    sg = split(ht_bench.traced, plan.splitting_ops, plan.vllm_version)
    from vllm_preflight.verify.static_checks import check_names

    v1 = check_names(sg, plan)
    assert v1.status == "fail" and v1.metrics["lost"] == ["vllm.moe_forward"]
    assert "never split" in v1.detail
    rep = check_graph("piecewise", sg, ht_bench.behaviour, ht_bench.traced.placeholder_kinds())
    assert by_id(rep.checks)["V4"].status == "fail"  # and the MoE it meant to split is caught where it landed


@pytest.mark.parametrize("extra,status", [(["vllm::moe_forward.default"], "warn"), ([], "pass")])
def test_a_dead_entry_beside_a_working_one_only_warns(ht_bench, rd, extra, status):
    from vllm_preflight.verify.static_checks import check_names

    ops = rd.ATTENTION + rd.MOE + extra
    plan = plan_from_resolved(rd.resolved(splitting_ops=ops), "0.12.0")
    assert check_names(split(ht_bench.traced, ops, "0.12.0"), plan).status == status


def test_probe_compares_shapes_across_runs(ht_bench):
    model = ht_bench.model
    saved = [m.impl for m in model.moe_layers()]
    try:
        model.set_moe(HTEmulatedMoE(4))
        b = probe(ht_bench.traced, [model.inputs(8, s) for s in range(3)])
    finally:
        for m, impl in zip(model.moe_layers(), saved):
            m.impl = impl
    assert all(len(v.shape_traces) == 2 for v in b.values())  # the first run is a warm-up
