"""The replay emulation catches a broken address contract by its own means."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.moe.contract import OutputContract
from vllm_preflight.verify.replay import AddressLog, EmulatedGraph, GraphRunner, capture_and_replay


def _run(bench, graph="piecewise", contract=None, padded=(), sg=None, sizes=(1, 2, 4, 8)):
    model = bench.model
    saved = [m.contract for m in model.moe_layers()]
    if contract is not None:
        for m in model.moe_layers():
            m.contract = contract
    log = AddressLog()
    try:
        res = capture_and_replay(model, GraphRunner(graph, sg or bench.sg, EmulatedGraph, log), list(sizes),
                                 list(padded), replays=2)
    finally:
        for m, c in zip(model.moe_layers(), saved):
            m.contract = c
    return res, log


def test_new_moe_outputs_replay_exactly_through_allocator_reuse(ht_bench):
    """vLLM's MoE op returns new tensors (moe/contract.py cites the source); with the caching
    allocator's block reuse emulated, every captured input is found at its captured address."""
    res, log = _run(ht_bench, padded=[3, 5])
    assert res.replay.ok and res.replay.level == "EXACT" and res.replay.comparisons == 8
    assert log.checks > 0 and log.mismatches == 0 and log.frozen_changes == 0
    assert res.padded.ok and res.unpadded.ok


def test_a_largest_capture_size_below_8_runs(ht_bench):
    res, log = _run(ht_bench, sizes=(1, 2, 4), padded=[3])
    assert res.replay.ok and log.mismatches == 0


def test_ht_moe_inside_a_piece_fails_at_run_time(ht_bench):
    """The emulated replay freezes host reads and data-dependent sizes as a graph does: the HT
    MoE left inside a captured piece replays bitwise by recomputing, but its receive counts
    change with the data, which a real graph would not have noticed."""
    from vllm_preflight.verify.controls import ATTENTION_ONLY
    from vllm_preflight.verify.split import split

    sg = split(ht_bench.traced, ATTENTION_ONLY, "0.12.0")
    res, log = _run(ht_bench, sg=sg)
    assert log.frozen_changes > 0 and "(host read)" in log.frozen_examples[0]
    assert res.replay.ok  # the numbers alone would have passed: that is why sizes/values are frozen


def test_a_full_graph_around_ht_fails_at_run_time(ht_bench):
    _, log = _run(ht_bench, graph="full")
    assert log.frozen_changes > 0


def test_fresh_moe_outputs_are_stale_reads_and_moved_addresses(ht_bench):
    res, log = _run(ht_bench, contract=OutputContract("fresh"))
    assert log.mismatches > 0 and any("moved" in e for e in log.examples)
    assert not res.replay.ok and res.replay.max_abs > 0.01


def test_a_full_graph_of_a_capturable_model_replays_exactly(dense_bench):
    res, log = _run(dense_bench, graph="full")
    assert res.replay.ok and log.mismatches == 0


def test_replays_read_what_was_captured_not_what_is_passed(ht_bench):
    """The emulated graph recomputes from the capture-time tensors: a new input object at another
    address is ignored (and logged), exactly what a CUDA graph does."""
    log = AddressLog()
    runtime = GraphRunner("piecewise", ht_bench.sg, EmulatedGraph, log).runtime
    unit = EmulatedGraph("u", lambda t: t * 2, runtime, log)
    a = torch.ones(3)
    runtime.mode, runtime.size = "capture", 3
    unit(a)
    runtime.mode = "replay"
    out = unit(torch.full((3,), 5.0))
    assert torch.equal(out, torch.full((3,), 2.0)) and log.mismatches == 1
