"""Tier cpu: everything that CPU torch can prove (design note §4.3).

A1 split pieces run in order == eager, bitwise. A2 the HT emulation against the dense reference
with 1, 2, 4 and 8 virtual ranks, plus DeepEP's protocol invariants. A3 the replay emulation:
bitwise against eager, every captured input at its captured address. A4 padded batch sizes.
A5 the HT protocol across 2 gloo processes in lockstep, under a watchdog. Then the controls.
"""
from __future__ import annotations

import dataclasses

import torch

from vllm_preflight.capture.plan import VerifyPlan, toy_sizes
from vllm_preflight.verify import controls, watchdog
from vllm_preflight.verify.compare import CLOSE, compare
from vllm_preflight.verify.moe.experts import Experts, dense_moe, route
from vllm_preflight.verify.moe.ht import HTEmulatedMoE, ProtocolStats
from vllm_preflight.verify.outcome import FAIL, PASS, Check
from vllm_preflight.verify.replay import (
    AddressLog,
    EmulatedGraph,
    GraphRunner,
    Tally,
    capture_and_replay,
    split_matches_eager,
)
from vllm_preflight.verify.split import split
from vllm_preflight.verify.tiers import TierRun
from vllm_preflight.verify.tiers.common import (
    eager_input_count,
    moe_name,
    node_split_checks,
    plan_extra,
    replay_checks,
    split_check,
)
from vllm_preflight.verify.toy import DTYPES
from vllm_preflight.verify.trace import export
from vllm_preflight.verify.workbench import (
    CPU_TOY,
    build_bench,
    build_model,
    plan_moe,
    probe_bench,
    set_threads_for_toy,
    split_ops,
    static_report,
)

SIZE_LIMIT = 8            # the toy verifies capture sizes up to this on CPU
DTYPES_CHECKED = ("float32", "bfloat16")
GLOO_DEADLINE_S = 150     # whole multi-process run: 2 processes import torch on 2 cores
COLLECTIVE_TIMEOUT_S = 60


def requirements(options: dict | None = None) -> list[str]:
    from vllm_preflight.verify.environment import torch_missing

    return torch_missing()


def run(plan: VerifyPlan, reporter, options: dict) -> TierRun:
    set_threads_for_toy()
    sizes, padded = toy_sizes(plan.capture_sizes, SIZE_LIMIT)
    reporter.step("tracing the toy with torch.compile (custom backend, no Inductor) and splitting it")
    bench = build_bench(plan, CPU_TOY, max_tokens=max(sizes), run_probe=False)
    out = TierRun(device="cpu")
    out.plan_extra = plan_extra(bench, sizes, padded, moe_name(plan_moe(plan, CPU_TOY)))
    reporter.pieces(plan, out.plan_extra)  # the plan is out before anything of the toy runs
    probe_bench(bench)
    rep = static_report(bench)

    def add(checks):
        for c in checks:
            out.checks.append(c)
            reporter.check(c)

    add(rep.checks)
    add(node_split_checks(bench, options))
    eager_inputs = eager_input_count(bench) if plan.piecewise else 0
    models: dict[str, tuple] = {}
    for graph in plan.graph_kinds:
        # The run-time checks run even where the static ones failed: the emulated replay freezes
        # host reads and data-dependent sizes as a graph would, so it must fail on its own too.
        for dtype in DTYPES_CHECKED:
            if dtype not in models:  # one toy per dtype, traced once, shared by both graph kinds
                models[dtype] = _model_for(bench, dtype, plan, max(sizes))
            model, sg = models[dtype]
            if graph == "piecewise":
                add([split_check("A1", split_matches_eager(model, sg, sizes), graph, dtype)])
            log = AddressLog()
            res = capture_and_replay(model, GraphRunner(graph, sg, EmulatedGraph, log), sizes, padded,
                                     replays=options.get("replays", 2))
            add(replay_checks(("A3", "A4"), res, log, graph, dtype, "emulated " + graph,
                              eager_inputs if graph == "piecewise" else 0))
    if plan.ht:
        add([protocol_emulation(CPU_TOY)])
        if plan.piecewise and not rep.failed("piecewise"):
            reporter.step(f"{options.get('world_size', 2)} gloo ranks (file store, loopback), in lockstep "
                          f"(watchdog {options.get('deadline_s', GLOO_DEADLINE_S)}s)")
            checks, ranks = gloo_lockstep(plan, bench, sizes, options)
            out.ranks = ranks
            add(checks)
    add(run_controls(bench, sizes))
    return out


def _model_for(bench, dtype: str, plan: VerifyPlan, max_tokens: int):
    if dtype == bench.cfg.dtype:
        return bench.model, bench.sg
    model, traced = build_model(dataclasses.replace(bench.cfg, dtype=dtype), max_tokens)
    model.set_moe(plan_moe(plan, bench.cfg))
    return model, split(traced, split_ops(plan), plan.vllm_version)


def protocol_emulation(cfg) -> Check:
    """A2 proves the DeepEP-HT emulation computes the dense MoE and keeps DeepEP's own invariants
    (receive counts, per-expert host lists, one partial sum per destination rank), for R in
    {1, 2, 4, 8}. The mutation tests `ht-combine-drops-a-rank` and `ht-host-list-off-by-one`
    show it failing."""
    tally = Tally(CLOSE)
    violations: list[str] = []
    for dtype in DTYPES_CHECKED:
        g = torch.Generator().manual_seed(7)
        experts = Experts(cfg.hidden, cfg.ffn, cfg.experts, False, g).to(DTYPES[dtype])
        for ranks in (1, 2, 4, 8):
            stats = ProtocolStats()
            impl = HTEmulatedMoE(ranks, stats)
            for t in (1, 5, 13):
                x = torch.randn(t, cfg.hidden, generator=g).to(DTYPES[dtype])
                idx, w = route(torch.randn(t, cfg.experts, generator=g), cfg.top_k)
                with torch.no_grad():
                    got = impl(x, idx, w, experts).to(x.dtype)
                    tally.note(f"{dtype} R={ranks} T={t}", compare(got, dense_moe(x, idx, w, experts).to(x.dtype)))
            violations += stats.violations
    ok = tally.ok and not violations
    return Check("A2", "DeepEP-HT emulation == dense reference (R = 1, 2, 4, 8)", PASS if ok else FAIL,
                 f"{tally.comparisons} dispatch/combine rounds: {tally.level} (max abs {tally.max_abs:.3g}); "
                 "invariants: "
                 + ("; ".join(violations[:2]) or "receive counts, per-expert lists and combine counts hold")
                 + ("" if tally.ok else "; " + "; ".join(tally.failures)),
                 {**tally.metrics(), "violations": len(violations)})


def gloo_job(plan: VerifyPlan, bench, sizes: list[int], hang_rank: int | None = None) -> dict:
    return {
        "backend": "gloo", "moe": "collective", "graphs": "emulated", "ids": ["A5a", "A5b"],
        "toy": {f.name: getattr(bench.cfg, f.name) for f in dataclasses.fields(bench.cfg)},
        # the small sizes only: every rank replays on 2 shared cores (coverage of the largest sizes
        # comes from A3/A4 in this process)
        "moe_dtype": "float32", "sizes": [s for s in sizes if s <= SIZE_LIMIT] or sizes[:1],
        "splitting_ops": list(split_ops(plan)), "release": plan.vllm_version,
        "protocol_steps": 3, "replay_steps": 6, "collective_timeout_s": COLLECTIVE_TIMEOUT_S,
        "hang_rank": hang_rank, "prefix": bench.model.prefix,
    }


run_ranks = watchdog.run_rank_job  # the launcher lives with the watchdog (no torch needed)


def merge_rank_checks(ranks: list[dict], ids: list[str], titles: dict[str, str], what: str,
                      graphs: tuple[str | None, ...] = (None,)) -> list[Check]:
    """One check per id (and graph kind, where ranks report one): PASS only if every rank passed."""
    checks = []
    for cid in ids:
        kinds = [g for g in graphs if any(c["id"] == cid and c.get("graph") == g for r in ranks for c in r["checks"])]
        for graph in kinds or [None]:
            per_rank = [next((c for c in r["checks"] if c["id"] == cid and graph in (None, c.get("graph"))), None)
                        for r in ranks]
            failed = [i for i, c in enumerate(per_rank) if c is None or c["status"] != PASS]
            first = per_rank[failed[0] if failed else 0]
            detail = f"{len(ranks)} {what} ranks; " + (f"rank {failed[0]}: " if failed else "rank 0: ") + \
                (first["detail"] if first else "no result")
            checks.append(Check(cid, titles[cid], FAIL if failed else PASS, detail,
                                {"ranks": len(ranks), "failed_ranks": failed}, graph=graph))
    return checks


def gloo_lockstep(plan: VerifyPlan, bench, sizes: list[int], options: dict,
                  hang_rank: int | None = None) -> tuple[list[Check], list[dict]]:
    """A5 proves the HT protocol across processes (gloo: A5a, against the dense reference and the
    all-reduced counts) and the piecewise replay in lockstep (A5b, bitwise, addresses held), under
    a watchdog: a rank that never joins fails A5 within the deadline (test_verify_gloo.py)."""
    nproc = options.get("world_size", 2)
    job = gloo_job(plan, bench, sizes, hang_rank)
    ranks, child = run_ranks(job, nproc, options.get("deadline_s", GLOO_DEADLINE_S),
                             graph=export(bench.traced, bench.model))
    titles = {"A5a": "HT protocol across gloo ranks == dense reference",
              "A5b": "lockstep piecewise replay across gloo ranks == eager"}
    if ranks is None:
        why = (f"no result within {child.seconds:.0f}s: a rank hung or the run stalled (watchdog ended it)"
               if child.timed_out else f"the ranks exited with {child.returncode} and no result")
        return [Check("A5", f"{nproc} gloo ranks in lockstep", FAIL, why + ": " + child.tail(4).replace("\n", " | "),
                      {"timed_out": child.timed_out, "seconds": round(child.seconds, 1)})], []
    return merge_rank_checks(ranks, ["A5a", "A5b"], titles, "gloo"), ranks


def run_controls(bench, sizes: list[int]) -> list[Check]:
    sample = bench.model.inputs(4, 99)
    return [controls.comparator_self_test(sample), controls.moe_not_split(bench),
            controls.host_read_in_captured_region(), controls.fresh_moe_outputs(bench, sizes),
            *controls.plan_controls(bench, sample)]
