"""The replay emulation catches a broken address contract by its own means."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.moe.contract import OutputContract  # noqa: E402
from vllm_preflight.verify.replay import AddressLog, EmulatedGraph, GraphRunner, capture_and_replay  # noqa: E402


def _run(bench, graph="piecewise", contract=None, padded=()):
    model = bench.model
    saved = [m.contract for m in model.moe_layers()]
    if contract is not None:
        for m in model.moe_layers():
            m.contract = contract
        model.reserve_outputs(8, "cpu")
    log = AddressLog()
    try:
        res = capture_and_replay(model, GraphRunner(graph, bench.sg, EmulatedGraph, log), [1, 2, 4, 8],
                                 list(padded), replays=2)
    finally:
        for m, c in zip(model.moe_layers(), saved):
            m.contract = c
    return res, log


def test_persistent_moe_outputs_replay_exactly_with_addresses_held(ht_bench):
    res, log = _run(ht_bench, padded=[3, 5])
    assert res.replay.ok and res.replay.level == "EXACT" and res.replay.comparisons == 8
    assert log.checks > 0 and log.mismatches == 0
    assert res.padded.ok and res.unpadded.ok


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
