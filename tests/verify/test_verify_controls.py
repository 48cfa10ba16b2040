"""Every negative control is caught, and a control's verdict comes from the mechanism: blind the
mechanism and the same control reports NOT CAUGHT (a failed check)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify import controls
from vllm_preflight.verify.moe.contract import OutputContract


def test_comparator_self_test(ht_bench):
    c = controls.comparator_self_test(ht_bench.model.inputs(4, 1))
    assert c.status == "expected-fail-observed"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_n0_catches_a_loosened_tolerance(monkeypatch, dtype):
    """N0 perturbs by a fixed amount beyond the documented bound, so widening the tolerance in
    force (here 10x for one dtype) makes N0 report NOT CAUGHT instead of passing anything."""
    from vllm_preflight.verify import compare

    t = getattr(torch, dtype)
    sample = torch.randn(4, 64).to(t)
    assert controls.comparator_self_test(sample).status == "expected-fail-observed"
    rtol, atol, cd = compare.DOCUMENTED_TOLERANCES[t]
    monkeypatch.setitem(compare.TOLERANCES, t, (10 * rtol, 10 * atol, cd))
    c = controls.comparator_self_test(sample)
    assert c.status == "fail" and "NOT CAUGHT" in c.detail


def test_n0_catches_a_tightened_tolerance(monkeypatch):
    from vllm_preflight.verify import compare

    monkeypatch.setitem(compare.TOLERANCES, torch.float32, (1e-9, 1e-9, 1e-9))
    assert controls.comparator_self_test(torch.randn(4, 64)).status == "fail"


def test_n1_moe_not_split_is_caught_by_v4(ht_bench):
    c = controls.moe_not_split(ht_bench)
    assert c.status == "expected-fail-observed" and c.metrics["flagged"] == 2


def test_n1_also_for_a_capturable_backend_config(dense_bench):
    # the control plants the HT MoE whatever the config's backend is
    assert controls.moe_not_split(dense_bench).status == "expected-fail-observed"


def test_n1_is_not_caught_when_the_probe_is_blind(ht_bench, monkeypatch):
    monkeypatch.setattr(controls, "probe", lambda traced, inputs: {})
    c = controls.moe_not_split(ht_bench)
    assert c.status == "fail" and c.detail.startswith("NOT CAUGHT")


def test_n2_planted_host_read_is_caught(torch_threads):
    c = controls.host_read_in_captured_region()
    assert c.status == "expected-fail-observed" and "item" in c.detail


def test_n3_fresh_outputs_are_caught_by_addresses_and_numbers(ht_bench):
    c = controls.fresh_moe_outputs(ht_bench, [1, 2, 4, 8])
    assert c.status == "expected-fail-observed"
    assert c.metrics["address_mismatches"] > 0 and c.metrics["max_abs"] > 0


class _IgnoresFresh(OutputContract):
    """A contract that quietly behaves as vLLM does (allocator reuse) whatever it is asked for."""

    def __init__(self, mode="fresh", keep_alive=0):
        super().__init__("allocator")


def test_n3_is_not_caught_when_the_fault_is_not_really_planted(ht_bench, monkeypatch):
    monkeypatch.setattr(controls, "OutputContract", _IgnoresFresh)
    c = controls.fresh_moe_outputs(ht_bench, [1, 2, 4, 8])
    assert c.status == "fail" and c.metrics["address_mismatches"] == 0


def test_controls_restore_the_bench(ht_bench):
    impls = [(m.impl, m.contract) for m in ht_bench.model.moe_layers()]
    controls.fresh_moe_outputs(ht_bench, [1, 2])
    controls.moe_not_split(ht_bench)
    assert [(m.impl, m.contract) for m in ht_bench.model.moe_layers()] == impls


def test_cpu_tier_fails_moe_inside_a_piece_through_its_run_time_checks(rd, torch_threads):
    """Done-criterion of the verify issue: with the MoE ops left out of splitting_ops the cpu
    tier fails A3 (host reads frozen at capture changed at replay), not only V2/V4."""
    from vllm_preflight.capture.plan import plan_from_resolved
    from vllm_preflight.verify.render import Reporter
    from vllm_preflight.verify.tiers import cpu

    plan = plan_from_resolved(rd.resolved(splitting_ops=rd.ATTENTION, sizes=[1, 2, 4]), "0.12.0")
    run = cpu.run(plan, Reporter(quiet=True), {"replays": 1})
    a3 = [c for c in run.checks if c.id == "A3"]
    assert [c.status for c in a3] == ["fail", "fail"] and all(c.metrics["frozen_changes"] > 0 for c in a3)
    assert "host read" in a3[0].detail
    assert {c.id for c in run.checks if c.status == "fail"} >= {"V2", "V4", "A3"}


def test_n5_n6_n7_are_caught(ht_bench):
    sample = ht_bench.model.inputs(4, 1)
    got = {c.id: c.status for c in controls.plan_controls(ht_bench, sample)}
    assert got == {"N5": "expected-fail-observed", "N6": "expected-fail-observed", "N7": "expected-fail-observed"}
