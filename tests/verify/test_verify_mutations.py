"""Mutation tests: each plants one bug (in a copy of the toy, the plan, or one of verify's own
mechanisms) and requires the check named for it to FAIL. Together they are the mutation score of
the verify issue (every audit escape is among them: the `.cpu()` / `.tolist()` round trips, the
host read whose value never changes, the blinded frozen-value recorder, the plan without the FULL
half, V1 unable to fail, the overload-name bug, the missing run-time negative control for a FULL
graph around DeepEP HT). A bug no check catches makes its test fail: the score is the share of
these tests that pass, and the suite keeps it at 100%."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).parent))
from cuda_standin import FakeCuda

from vllm_preflight.verify import consistency, controls, replay
from vllm_preflight.verify.compare import EXACT, compare
from vllm_preflight.verify.moe.experts import dense_moe
from vllm_preflight.verify.outcome import Check
from vllm_preflight.capture.plan import plan_from_resolved
from vllm_preflight.verify.probe import probe
from vllm_preflight.verify.split import split
from vllm_preflight.verify.static_checks import check_graph, check_ht_full, check_names
from vllm_preflight.verify.workbench import PROBE_TOKENS

MUTANTS: list[tuple[str, str, str, object]] = []


def mutant(mid: str, planted: str, check: str):
    def register(fn):
        MUTANTS.append((mid, planted, check, fn))
        return fn
    return register


@dataclasses.dataclass
class Ctx:
    request: pytest.FixtureRequest
    monkeypatch: pytest.MonkeyPatch
    tmp_path: Path

    @property
    def ht(self):
        return self.request.getfixturevalue("ht_bench")

    @property
    def rd(self):
        return self.request.getfixturevalue("rd")


ATTENTION_ONLY = controls.ATTENTION_ONLY


def _captured_moe(ctx: Ctx, impl) -> list[Check]:
    """The HT bench's toy with `impl` behind the MoE op, the MoE inside a captured piece."""
    bench = ctx.ht
    saved = [m.impl for m in bench.model.moe_layers()]
    bench.model.set_moe(impl)
    try:
        behaviour = probe(bench.traced, [bench.model.inputs(PROBE_TOKENS, s) for s in range(2)])
    finally:
        for m, old in zip(bench.model.moe_layers(), saved):
            m.impl = old
    sg = split(bench.traced, ATTENTION_ONLY, "0.12.0")
    return check_graph("piecewise", sg, behaviour, bench.traced.placeholder_kinds()).checks


class _Planted:
    """A capturable (dense) MoE with one planted host sync."""

    capturable = False

    def __init__(self, sync):
        self.sync = sync

    def __call__(self, x, topk_idx, topk_weights, experts):
        x = self.sync(x, topk_idx)
        return dense_moe(x, topk_idx, topk_weights, experts)


@mutant("cpu-round-trip", "a .cpu() round trip of the hidden states inside a captured MoE", "V4")
def _(ctx):
    return _captured_moe(ctx, _Planted(lambda x, idx: x.cpu().to(x.device)))


@mutant("tolist", "a .tolist() of the routing inside a captured MoE", "V4")
def _(ctx):
    return _captured_moe(ctx, _Planted(lambda x, idx: x * (1.0 + 0.0 * len(idx.tolist()))))


@mutant("bool-of-tensor", "`if (topk_idx >= 0).all():` (a host read by bool()) inside a captured MoE", "V4")
def _(ctx):
    return _captured_moe(ctx, _Planted(lambda x, idx: x if bool((idx >= 0).all()) else -x))


@mutant("numpy", "a .numpy() of the routing inside a captured MoE", "V4")
def _(ctx):
    return _captured_moe(ctx, _Planted(lambda x, idx: x * (1.0 + 0.0 * idx.numpy().size)))


def _unit(fn, sample) -> list[Check]:
    """`fn` captured and replayed as one emulated unit, judged by the run-time verdict (A3)."""
    from vllm_preflight.verify.tiers.common import replay_checks

    log, runtime = replay.AddressLog(), replay.Runtime("capture", sample.shape[0])
    unit = replay.EmulatedGraph("unit", fn, runtime, log)
    x = sample.clone()
    unit(x)
    runtime.mode = "replay"
    x.copy_(sample.flip(0))
    tally = replay.Tally(EXACT)
    tally.note("replay", compare(unit(x).clone(), fn(x)))
    return replay_checks(("A3", "A4"), replay.ReplayResult(replay=tally), log, "piecewise", "float32", "unit")


@mutant("unchanging-host-read", "an .item() whose value never changes, in a captured unit", "A3")
def _(ctx):
    return _unit(lambda x: x * x.new_ones(()).item(), torch.randn(4, 8))


@mutant("tolist-at-run-time", "a .tolist() in a captured unit (CPU torch dispatches no read)", "A3")
def _(ctx):
    return _unit(lambda x: x + 0.0 * len(x[:1].tolist()), torch.randn(4, 8))


@mutant("blind-recorder", "the frozen-value recorder blinded (it logs nothing)", "N5")
def _(ctx):
    ctx.monkeypatch.setattr(replay, "run_recorded", lambda runnable, args, syncs=True: (runnable(*args), []))
    return [controls.frozen_recorder(torch.randn(4, 8))]


@mutant("blind-torch-function-watch", "the torch-function watch blinded (it counts nothing)", "N7")
def _(ctx):
    from vllm_preflight.verify import host_sync

    ctx.monkeypatch.setattr(host_sync, "host_sync_name", lambda name, args=(), kwargs=None: None)
    return [controls.invisible_host_syncs(ctx.ht)]


def _resolved(ctx, mode, **kw):
    return ctx.rd.resolved(cudagraph_mode=mode, **kw)


@mutant("plan-drops-full-half", "a plan that drops the FULL half of FULL_AND_PIECEWISE (HT dp8)", "P1")
def _(ctx):
    resolved = _resolved(ctx, "FULL_AND_PIECEWISE")
    plan = dataclasses.replace(plan_from_resolved(resolved, "0.12.0"), full=None)
    return [consistency.plan_covers_modes(plan, resolved)]


@mutant("plan-drops-full-half-story", "the same plan: V2 passes while check says VP301", "P2")
def _(ctx):
    plan = dataclasses.replace(plan_from_resolved(_resolved(ctx, "FULL_AND_PIECEWISE"), "0.12.0"), full=None)
    return [consistency.agrees_with_check([check_ht_full(plan)], [{"rule": "VP301"}])]


@mutant("plan-drops-full", "a plan that drops the FULL graph of cudagraph_mode FULL (nothing captured)", "P1")
def _(ctx):
    resolved = _resolved(ctx, "FULL")
    plan = dataclasses.replace(plan_from_resolved(resolved, "0.13.0"), full=None)
    assert plan.nothing_captured
    return [consistency.plan_covers_modes(plan, resolved)]


@mutant("plan-drops-pieces", "a plan that drops the piecewise half of FULL_AND_PIECEWISE", "P1")
def _(ctx):
    resolved = _resolved(ctx, "FULL_AND_PIECEWISE")
    plan = dataclasses.replace(plan_from_resolved(resolved, "0.13.0"), piecewise=False)
    return [consistency.plan_covers_modes(plan, resolved)]


@mutant("v2-ignores-full", "V2 reading only the piecewise half (a FULL graph around HT passes V2)", "P2")
def _(ctx):
    plan = plan_from_resolved(_resolved(ctx, "FULL_AND_PIECEWISE"), "0.12.0")
    blind = check_ht_full(dataclasses.replace(plan, full=None))
    return [consistency.agrees_with_check([blind], [{"rule": "VP301"}])]


def _v1(ctx, names, version="0.12.0"):
    plan = plan_from_resolved(ctx.rd.resolved(splitting_ops=names), version)
    return [check_names(split(ctx.ht.traced, names, version), plan)]


@mutant("overload-qualified-moe", "splitting_ops naming vllm::moe_forward.default (never matches, 0.11.1+)", "V1")
def _(ctx):
    return _v1(ctx, list(ATTENTION_ONLY) + ["vllm::moe_forward.default", "vllm::moe_forward_shared.default"])


@mutant("dotted-moe", "splitting_ops naming the dotted vllm.moe_forward on 0.13.0", "V1")
def _(ctx):
    return _v1(ctx, list(ATTENTION_ONLY) + ["vllm.moe_forward", "vllm.moe_forward_shared"], "0.13.0")


@mutant("short-overload-bug", "short() back to its bug (`vllm::moe_forward.default` -> `default`)", "N6")
def _(ctx):
    from vllm_preflight.verify import static_checks

    ctx.monkeypatch.setattr(static_checks, "short", lambda w: w.split("::", 1)[-1].split(".", 1)[-1]
                            if "::" in w else w.rsplit(".", 1)[-1])
    return [controls.overload_name(ctx.ht)]


@mutant("v1-only-warns", "V1 downgraded to a warning (it cannot fail)", "N6")
def _(ctx):
    from vllm_preflight.verify import static_checks

    real = static_checks.check_names

    def warns(sg, plan):
        c = real(sg, plan)
        return dataclasses.replace(c, status="warn" if c.status == "fail" else c.status)

    ctx.monkeypatch.setattr(static_checks, "check_names", warns)
    return [controls.overload_name(ctx.ht)]


@mutant("moe-not-split", "the MoE ops left out of splitting_ops (HT dp8, PIECEWISE)", "V2")
def _(ctx):
    return [check_ht_full(plan_from_resolved(ctx.rd.resolved(splitting_ops=list(ATTENTION_ONLY)), "0.12.0"))]


@mutant("moe-not-split-v4", "the same: the HT MoE inside a captured piece", "V4")
def _(ctx):
    sg = split(ctx.ht.traced, ATTENTION_ONLY, "0.12.0")
    return check_graph("piecewise", sg, ctx.ht.behaviour, ctx.ht.traced.placeholder_kinds()).checks


@mutant("attention-not-split", "the attention op left out of splitting_ops under PIECEWISE", "V3")
def _(ctx):
    sg = split(ctx.ht.traced, ["vllm::moe_forward", "vllm::moe_forward_shared"], "0.12.0")
    return check_graph("piecewise", sg, ctx.ht.behaviour, ctx.ht.traced.placeholder_kinds()).checks


@mutant("full-around-ht", "FULL_AND_PIECEWISE with DeepEP HT dp8: a FULL graph holds the dispatch", "V2")
def _(ctx):
    return [check_ht_full(plan_from_resolved(_resolved(ctx, "FULL_AND_PIECEWISE"), "0.12.0"))]


@mutant("full-around-ht-runtime", "the same FULL graph replayed: HT's receive counts frozen at capture", "A3")
def _(ctx):
    from vllm_preflight.verify.tiers.common import replay_checks

    log = replay.AddressLog()
    res = replay.capture_and_replay(ctx.ht.model, replay.GraphRunner("full", ctx.ht.sg, replay.EmulatedGraph, log),
                                    [1, 2], [], replays=1)
    return replay_checks(("A3", "A4"), res, log, "full", "float32", "emulated full")


@mutant("host-read-in-toy", "an .item() in a non-MoE captured region of the toy", "V4")
def _(ctx):
    model, traced = controls._n2_toy()  # N2's toy: an .item() before layer 0's attention
    behaviour = probe(traced, [model.inputs(PROBE_TOKENS, s) for s in range(2)])
    sg = split(traced, controls.PIECEWISE_OK, "")
    return check_graph("piecewise", sg, behaviour, traced.placeholder_kinds()).checks


@mutant("fresh-moe-outputs", "MoE outputs that never reuse a block (a stale read in the next piece)", "A3")
def _(ctx):
    from vllm_preflight.verify.moe.contract import OutputContract
    from vllm_preflight.verify.tiers.common import replay_checks

    model = ctx.ht.model
    saved = [m.contract for m in model.moe_layers()]
    for m in model.moe_layers():
        m.contract = OutputContract("fresh")
    log = replay.AddressLog()
    try:
        res = replay.capture_and_replay(model, replay.GraphRunner("piecewise", ctx.ht.sg, replay.EmulatedGraph, log),
                                        [1, 2, 4], [], replays=1)
    finally:
        for m, c in zip(model.moe_layers(), saved):
            m.contract = c
    return replay_checks(("A3", "A4"), res, log, "piecewise", "float32", "emulated piecewise")


@mutant("loose-tolerance", "the bf16 tolerance in force loosened 10x", "N0")
def _(ctx):
    from vllm_preflight.verify import compare as cmp

    rtol, atol, cd = cmp.DOCUMENTED_TOLERANCES[torch.bfloat16]
    ctx.monkeypatch.setitem(cmp.TOLERANCES, torch.bfloat16, (10 * rtol, 10 * atol, cd))
    return [controls.comparator_self_test(torch.randn(4, 64).to(torch.bfloat16))]


@mutant("vacuous-comparator", "a comparator that calls everything EXACT", "N0")
def _(ctx):
    from vllm_preflight.verify import compare as cmp

    ctx.monkeypatch.setattr(cmp, "compare", lambda a, b: cmp.Comparison(EXACT, 0.0, 0.0))
    return [controls.comparator_self_test(torch.randn(4, 64))]


@mutant("blind-address-log", "the replay's address log blinded (moved inputs go unseen)", "N3")
def _(ctx):
    ctx.monkeypatch.setattr(replay.AddressLog, "record", lambda self, unit, size, before, now: None)
    return [controls.fresh_moe_outputs(ctx.ht, [1, 2, 4])]


@mutant("blind-probe", "the probe of opaque ops blinded (it sees nothing inside the MoE)", "N1")
def _(ctx):
    ctx.monkeypatch.setattr(controls, "probe", lambda traced, inputs: {})
    return [controls.moe_not_split(ctx.ht)]


@mutant("split-matches-nothing", "a split that matches no configured name (nothing splits)", "V3")
def _(ctx):
    from vllm_preflight.verify import split as split_mod

    ctx.monkeypatch.setattr(split_mod.Resolved, "matches", lambda self, node: False)
    sg = split(ctx.ht.traced, controls.PIECEWISE_OK, "0.12.0")
    return check_graph("piecewise", sg, ctx.ht.behaviour, ctx.ht.traced.placeholder_kinds()).checks


@mutant("ht-combine-drops-a-rank", "the HT emulation's combine losing one rank's partial sums", "A2")
def _(ctx):
    from vllm_preflight.verify.moe import ht
    from vllm_preflight.verify.tiers.cpu import protocol_emulation
    from vllm_preflight.verify.workbench import CPU_TOY

    real = ht.experts_on_rank
    ctx.monkeypatch.setattr(ht, "experts_on_rank", lambda recv_x, recv_local, w, experts, rank, *a:
                            real(recv_x, recv_local, w, experts, rank, *a) * (0.0 if rank == 1 else 1.0))
    return [protocol_emulation(CPU_TOY)]


@mutant("ht-host-list-off-by-one", "the HT per-expert counts read on the host off by one", "A2")
def _(ctx):
    from vllm_preflight.verify.moe import ht
    from vllm_preflight.verify.tiers.cpu import protocol_emulation
    from vllm_preflight.verify.workbench import CPU_TOY

    real = ht.get_layout

    def off_by_one(topk_idx, num_experts, num_ranks):
        layout = real(topk_idx, num_experts, num_ranks)
        layout.num_tokens_per_expert[0] += 1
        return layout

    ctx.monkeypatch.setattr(ht, "get_layout", off_by_one)
    return [protocol_emulation(CPU_TOY)]


@mutant("capture-raises", "an op a CUDA graph cannot capture inside a piece (the capture raises)", "G1")
def _(ctx):
    from vllm_preflight.verify.cudagraphs import CaptureFailed, CudaGraphs
    from vllm_preflight.verify.tiers.common import capture_failed_check

    fake = FakeCuda(fail_during=1)
    graphs = CudaGraphs(torch.device("cpu"), cuda=fake)
    try:
        replay.capture_and_replay(ctx.ht.model, replay.GraphRunner("piecewise", ctx.ht.sg, graphs.wrapper,
                                                                   replay.AddressLog()), [1, 2], [], replays=1)
    except CaptureFailed as e:
        assert e.stream_restored and not fake.is_current_stream_capturing()
        return [capture_failed_check("G1", e, "piecewise", "float32")]
    return []


@mutant("gc-on-every-piece", "captures with gc.collect/empty_cache left on for every piece (not vLLM's regime)", "G0")
def _(ctx):
    from vllm_preflight.verify import cudagraphs
    from vllm_preflight.verify.tiers.common import regime_check

    real = cudagraphs.CudaGraphs.wrapper
    ctx.monkeypatch.setattr(cudagraphs.CudaGraphs, "wrapper", lambda self, *a: (
        setattr(self, "units", 0), real(self, *a))[1])
    graphs = cudagraphs.CudaGraphs(torch.device("cpu"), cuda=FakeCuda())
    replay.capture_and_replay(ctx.ht.model, replay.GraphRunner("piecewise", ctx.ht.sg, graphs.wrapper,
                                                               replay.AddressLog()), [1, 2], [], replays=1)
    return [regime_check([("piecewise", 2, graphs.regime)])]


def _routing(tokens, experts):
    from vllm_preflight.verify.routing import RoutingLog

    idx = torch.tensor(experts)
    probs = torch.full((tokens, 4), 0.1)
    probs[:, 0], probs[:, 1], probs[:, 2] = 0.5, 0.3, 0.1
    return RoutingLog([("layer0", idx, probs)])


@mutant("flip-without-tie", "padding that routes a token elsewhere although no near tie explains it", "A4")
def _(ctx):
    from vllm_preflight.verify import routing

    ref = _routing(4, [[0, 1]] * 4)
    other = _routing(4, [[0, 1], [0, 1], [0, 2], [0, 1]])
    got, want = torch.zeros(4, 8), torch.zeros(4, 8)
    got[2:] += 1.0
    verdict = routing.compare_with_flips(got, want, routing.flips(ref, other, 4, torch.bfloat16))
    return [Check("A4", "padded rows", "pass" if verdict.level != "FAIL" else "fail", verdict.reason)]


@mutant("flips-beyond-allowance", "more routing flips than the documented allowance (n // 16, at least 1)", "A4")
def _(ctx):
    from vllm_preflight.verify import routing

    tie = _routing(4, [[0, 1]] * 4)
    tie.calls[0][2][:, 1] = tie.calls[0][2][:, 2] = 0.2  # every token a near tie
    other = _routing(4, [[0, 2], [0, 2], [0, 1], [0, 1]])
    got, want = torch.zeros(4, 8), torch.zeros(4, 8)
    got[:] += 1.0
    verdict = routing.compare_with_flips(got, want, routing.flips(tie, other, 4, torch.bfloat16))
    return [Check("A4", "padded rows", "pass" if verdict.level != "FAIL" else "fail", verdict.reason)]


@mutant("blind-n4-hook", "the GPU child's capture hook blinded (a capture error text alone)", "N4")
def _(ctx):
    from vllm_preflight.verify.tiers.gpu import n4_check

    return [n4_check({"raised": True, "error": "RuntimeError: operation not permitted when stream is capturing",
                      "host_syncs_under_capture": []})]


@mutant("full-around-capturable-deepep", "a DeepEP HT that a FULL graph captures and replays", "N8")
def _(ctx):
    from vllm_preflight.verify.dist_worker import DRILL_TAG
    from vllm_preflight.verify.tiers.multi_gpu import n8_check
    from vllm_preflight.verify.watchdog import ChildResult

    lines = "\n".join(f"[rank {r}] {DRILL_TAG}" + json.dumps({"rank": r, "outcome": "captured", "error": None})
                      for r in (0, 1))
    return [n8_check(ChildResult(0, False, lines, 2.0), 2)]


def test_a_planted_bug_is_caught_by_the_named_check_list_is_long_enough():
    assert len(MUTANTS) >= 25 and len({m[0] for m in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize("mid, planted, check, plant", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_planted_bug_fails_the_named_check(request, monkeypatch, tmp_path, torch_threads, mid, planted, check, plant):
    checks = plant(Ctx(request, monkeypatch, tmp_path))
    named = [c for c in checks if c.id == check]
    assert named, f"{mid}: {check} did not run ({[c.id for c in checks]})"
    assert any(c.status == "fail" for c in named), f"{mid} ({planted}) not caught: {[c.detail for c in named]}"
