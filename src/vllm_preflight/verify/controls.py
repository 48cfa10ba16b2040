"""Negative controls: plant a known fault and require the mechanism to catch it (design note §4.7).

A control reports `expected-fail-observed` only when the check that is meant to catch the fault
actually failed on it, by its own means (the static check's findings on the MoE node, the
replay's address log and numbers); a control that goes uncaught is a failed check, because then
the passing checks beside it prove nothing. Controls never consult the flag that planted them.
"""
from __future__ import annotations

import torch

from vllm_preflight.capture.opnames import ATTENTION_OP, MOE_OPS, VLLM_NS, short
from vllm_preflight.verify.compare import self_test
from vllm_preflight.verify.moe.contract import OutputContract
from vllm_preflight.verify.moe.ht import HTEmulatedMoE
from vllm_preflight.verify.outcome import CAUGHT, FAIL, Check
from vllm_preflight.verify.probe import probe
from vllm_preflight.verify.replay import AddressLog, EmulatedGraph, GraphRunner, capture_and_replay
from vllm_preflight.verify.split import split
from vllm_preflight.verify.static_checks import check_graph, moe_nodes
from vllm_preflight.verify.toy import ToyConfig
from vllm_preflight.verify.workbench import PROBE_TOKENS, Bench, build_model

ATTENTION_ONLY = (f"{VLLM_NS}::{ATTENTION_OP}",)
PIECEWISE_OK = ATTENTION_ONLY + tuple(f"{VLLM_NS}::{op}" for op in MOE_OPS)


def _control(cid: str, title: str, caught: bool, detail: str, metrics: dict | None = None) -> Check:
    return Check(cid, title, CAUGHT if caught else FAIL,
                 detail if caught else "NOT CAUGHT: " + detail, metrics or {})


def comparator_self_test(sample: torch.Tensor) -> Check:
    ok, detail = self_test(sample)
    return _control("N0", "comparator self-test (one element perturbed)", ok, detail)


def _ht_behaviour(traced, model):
    """What the HT protocol does inside the MoE op, whatever this plan's backend is."""
    saved = [m.impl for m in model.moe_layers()]
    model.set_moe(HTEmulatedMoE(2))
    try:
        return probe(traced, [model.inputs(PROBE_TOKENS, s) for s in range(4)])
    finally:
        for m, impl in zip(model.moe_layers(), saved):
            m.impl = impl


def moe_not_split(bench: Bench) -> Check:
    """N1: the MoE ops removed from splitting_ops; V4 must flag the HT MoE inside a captured piece."""
    kept = [n for n in bench.sg.resolved.kept if short(n) not in MOE_OPS]
    if any(short(n) == ATTENTION_OP for n in kept):
        names = kept  # this config's own list, less the MoE ops
    else:
        names = list(ATTENTION_ONLY)
    sg = split(bench.traced, names, bench.plan.vllm_version)
    behaviour = _ht_behaviour(bench.traced, bench.model)
    rep = check_graph("piecewise", sg, behaviour, bench.traced.placeholder_kinds())
    moe = moe_nodes(bench.traced.gm)
    flagged = [f for f in rep.findings if f.node in moe]
    return _control("N1", "MoE ops left out of splitting_ops", bool(flagged),
                    f"V4 flagged {len(flagged)} MoE call(s) inside captured pieces"
                    + (f", e.g. {flagged[0].line()}" if flagged else ""), {"flagged": len(flagged)})


def host_read_in_captured_region() -> Check:
    """N2: an `.item()` planted before the attention of layer 0; V4 must flag it."""
    model, traced = build_model(ToyConfig(hidden=32, ffn=32, experts=4, layers=2, inject_sync=True), 16)
    sg = split(traced, PIECEWISE_OK, "")
    behaviour = probe(traced, [model.inputs(PROBE_TOKENS, s) for s in range(2)])
    rep = check_graph("piecewise", sg, behaviour, traced.placeholder_kinds())
    moe = moe_nodes(traced.gm)
    flagged = [f for f in rep.findings if f.node not in moe and ("unbacked" in f.what or "host read" in f.what)]
    return _control("N2", "host read planted in a captured region", bool(flagged),
                    f"V4 flagged {len(flagged)} node(s)" + (f": {flagged[0].line()}" if flagged else ""),
                    {"flagged": len(flagged)})


def fresh_moe_outputs(bench: Bench, sizes: list[int], make_wrapper=EmulatedGraph, device="cpu",
                      keep_alive: int = 0) -> Check:
    """N3, a planted fault: the MoE op's outputs never give their block back (the last ones stay
    referenced), so the allocator cannot hand the captured address out again; the replay must
    see moved addresses and numbers that differ from eager. vLLM's own behaviour (new tensors,
    blocks reused by the caching allocator) is what A3/G1 check."""
    model = bench.model
    saved = [(m.impl, m.contract) for m in model.moe_layers()]
    sg = split(bench.traced, PIECEWISE_OK, bench.plan.vllm_version)
    model.set_moe(HTEmulatedMoE(2), OutputContract("fresh", keep_alive=keep_alive))
    log = AddressLog()
    try:
        res = capture_and_replay(model, GraphRunner("piecewise", sg, make_wrapper, log), sizes, [],
                                 replays=1, device=device)
    finally:
        for m, (impl, contract) in zip(model.moe_layers(), saved):
            m.impl, m.contract = impl, contract
    caught = log.mismatches > 0 and res.replay.max_abs > 0
    return _control("N3", "fault planted: MoE outputs that never reuse a block (not vLLM's behaviour)", caught,
                    f"{log.mismatches} address mismatches in {log.checks} checks; replay vs eager "
                    f"max abs diff {res.replay.max_abs:.3g}",
                    {"address_mismatches": log.mismatches, "max_abs": res.replay.max_abs})
