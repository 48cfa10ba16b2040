"""Negative controls: plant a known fault and require the mechanism to catch it (design note §4.7).

A control reports `expected-fail-observed` only when the check that is meant to catch the fault
actually failed on it, by its own means (the static check's findings on the MoE node, the
replay's address log and numbers); a control that goes uncaught is a failed check, because then
the passing checks beside it prove nothing. Controls never consult the flag that planted them.
"""
from __future__ import annotations

import functools

import torch

from vllm_preflight.capture.opnames import ATTENTION_OP, MOE_OPS, VLLM_NS, short
from vllm_preflight.verify.compare import compare, self_test
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
    """N0 proves the comparator every run-time check uses is neither vacuous nor loosened: an
    identical copy is EXACT, one element moved by half the documented bound CLOSE, by twice it
    FAIL. Loosen a tolerance or make compare() call everything EXACT and N0 reports NOT CAUGHT
    (mutation tests `loose-tolerance`, `vacuous-comparator`)."""
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
    """N1 proves V4 sees the HT MoE inside a captured piece (MoE ops removed from splitting_ops)
    by what the probe saw it do. Blind the probe and N1 reports NOT CAUGHT (`blind-probe`)."""
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


@functools.lru_cache(maxsize=1)
def _n2_toy():
    """N2's toy, traced once per process (the same fixed toy for every plan; nothing mutates it:
    the newest split rules decompose its size calls once, and again is a no-op)."""
    return build_model(ToyConfig(hidden=32, ffn=32, experts=4, layers=2, inject_sync=True), 16)


def host_read_in_captured_region() -> Check:
    """N2 proves V4 flags a host read in traced (non-opaque) code: an `.item()` planted before the
    attention of layer 0, seen by the FX scan and as a new unbacked symbol."""
    model, traced = _n2_toy()
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
    blocks reused by the caching allocator) is what A3/G1 check. Blind the address log and N3
    reports NOT CAUGHT (`blind-address-log`)."""
    model = bench.model
    saved = [(m.impl, m.contract) for m in model.moe_layers()]
    sg = split(bench.traced, PIECEWISE_OK, bench.plan.vllm_version)
    model.set_moe(HTEmulatedMoE(2), OutputContract("fresh", keep_alive=keep_alive))
    log = AddressLog()
    try:
        res = capture_and_replay(model, GraphRunner("piecewise", sg, make_wrapper, log), sizes, [],
                                 replays=1, device=device)
    except Exception as e:  # noqa: BLE001 - a capture that raised (CaptureFailed) leaves the fault unexercised
        return _control("N3", "fault planted: MoE outputs that never reuse a block (not vLLM's behaviour)", False,
                        f"the control's own capture failed: {e}")
    finally:
        for m, (impl, contract) in zip(model.moe_layers(), saved):
            m.impl, m.contract = impl, contract
    caught = log.mismatches > 0 and res.replay.max_abs > 0
    return _control("N3", "fault planted: MoE outputs that never reuse a block (not vLLM's behaviour)", caught,
                    f"{log.mismatches} address mismatches in {log.checks} checks; replay vs eager "
                    f"max abs diff {res.replay.max_abs:.3g}",
                    {"address_mismatches": log.mismatches, "max_abs": res.replay.max_abs})


# N5's planted host reads, none of which changes its value between capture and replay: a real
# capture raises on each, so the run-time verdict must fail on each by what the recorder saw
# while capturing. `.tolist()` and `.cpu()` never reach the dispatcher as reads on CPU torch.
PLANTED_READS = {
    "an unchanging .item()": lambda x: x * x.new_ones(()).item(),
    ".tolist()": lambda x: x * 1.0 + 0.0 * len(x[:1].tolist()),
    "a .cpu() round trip": lambda x: x.cpu().to(x.device) * 2.0,
}


def frozen_recorder(sample: torch.Tensor) -> Check:
    """N5 proves the frozen-value recorder (replay.run_recorded) sees host reads at capture and
    that A3's verdict fails on them, even on values that never change: each planted read runs
    in one emulated unit, captured and replayed, judged by `tiers.common.replay_checks`.
    Blind the recorder and N5 reports NOT CAUGHT."""
    from vllm_preflight.verify.compare import EXACT
    from vllm_preflight.verify.replay import ReplayResult, Runtime, Tally
    from vllm_preflight.verify.tiers.common import replay_checks

    missed = []
    for what, fn in PLANTED_READS.items():
        log, runtime = AddressLog(), Runtime("capture", sample.shape[0])
        unit = EmulatedGraph(what, fn, runtime, log)
        x = sample.clone()
        with torch.no_grad():
            unit(x)
            runtime.mode = "replay"
            x.copy_(sample.flip(0))
            got = unit(x).clone()
        tally = Tally(EXACT)
        tally.note("replay", compare(got, fn(x)))
        (verdict, *_) = replay_checks(("A3", "A4"), ReplayResult(replay=tally), log, "piecewise",
                                      str(sample.dtype).rsplit(".", 1)[-1], "planted")
        if not (verdict.failed and log.captured_reads > 0):
            missed.append(what)
    caught = not missed
    return _control("N5", "frozen-value recorder: host reads planted in a captured unit fail A3", caught,
                    f"{len(PLANTED_READS) - len(missed)} of {len(PLANTED_READS)} planted reads failed A3 "
                    f"({', '.join(PLANTED_READS)})" + (f"; missed: {', '.join(missed)}" if missed else ""),
                    {"planted": len(PLANTED_READS), "missed": len(missed)})


def overload_name(bench: Bench) -> Check:
    """N6 proves V1 can fail: the MoE entries written with their overload (`vllm::moe_forward.default`,
    which 0.11.1+ never matches against the packet Dynamo records) must fail V1 and name both.
    Restore `short()`'s old bug (the name became `default`) and N6 reports NOT CAUGHT."""
    from vllm_preflight.verify.static_checks import check_names

    names = list(ATTENTION_ONLY) + [f"{VLLM_NS}::{op}.default" for op in MOE_OPS]
    release = bench.plan.vllm_version if bench.plan.name_matching == "qualified" else ""
    sg = split(bench.traced, names, release)
    v1 = check_names(sg, bench.plan)
    caught = v1.failed and sorted(v1.metrics.get("lost", [])) == sorted(names[1:])
    return _control("N6", "MoE names written with an overload (never split) fail V1", caught,
                    f"V1 {v1.status}: lost {', '.join(v1.metrics.get('lost', [])) or 'nothing'}")


class _SyncingMoE:
    """A capturable MoE with host syncs CPU torch does not dispatch: `.tolist()` of the routing
    and a `.cpu()` round trip of the hidden states (the audit's planted bugs)."""

    name = "dense with .tolist() and .cpu()"
    capturable = False

    def __call__(self, x, topk_idx, topk_weights, experts):
        from vllm_preflight.verify.moe.experts import dense_moe

        counts = topk_idx.flatten().tolist()
        x = x.cpu().to(x.device)
        return dense_moe(x, topk_idx, topk_weights, experts) * (1.0 + 0.0 * len(counts))


def invisible_host_syncs(bench: Bench) -> Check:
    """N7 proves V4 sees host syncs that CPU torch never dispatches as reads: a MoE doing
    `.tolist()` and a `.cpu()` round trip, left inside a captured piece (attention-only split),
    must be flagged on its nodes by name. Blind the torch-function watch (host_sync.HostSyncWatch)
    and N7 reports NOT CAUGHT."""
    saved = [m.impl for m in bench.model.moe_layers()]
    bench.model.set_moe(_SyncingMoE())
    try:
        behaviour = probe(bench.traced, [bench.model.inputs(PROBE_TOKENS, s) for s in range(2)])
    finally:
        for m, impl in zip(bench.model.moe_layers(), saved):
            m.impl = impl
    sg = split(bench.traced, ATTENTION_ONLY, bench.plan.vllm_version)
    rep = check_graph("piecewise", sg, behaviour, bench.traced.placeholder_kinds())
    moe = moe_nodes(bench.traced.gm)
    flagged = [f for f in rep.findings if f.node in moe and "Tensor.tolist" in f.what and "Tensor.cpu" in f.what]
    return _control("N7", "host syncs CPU torch cannot see (.tolist(), .cpu()) in a captured MoE", len(flagged) == len(moe),
                    f"V4 flagged {len(flagged)} of {len(moe)} MoE call(s) by name"
                    + (f", e.g. {flagged[0].line()}" if flagged else ""), {"flagged": len(flagged)})


def plan_controls(bench: Bench, sample: torch.Tensor) -> list[Check]:
    """N5-N7: the controls every tier runs on CPU, whatever its hardware."""
    return [frozen_recorder(sample.cpu()), overload_name(bench), invisible_host_syncs(bench)]
