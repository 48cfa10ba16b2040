"""Steps every tier runs the same way: build and split the toy, describe the pieces, run the
static checks, and turn the replay tallies into checks."""
from __future__ import annotations

import dataclasses
import time

from vllm_preflight.capture.opnames import short
from vllm_preflight.capture.plan import unverified_sizes
from vllm_preflight.verify.outcome import FAIL, PASS, SKIP, WARN, Check
from vllm_preflight.verify.replay import AddressLog, ReplayResult, Tally
from vllm_preflight.verify.static_checks import classify_inputs, target_name
from vllm_preflight.verify.workbench import Bench


def describe_pieces(bench: Bench) -> list[dict]:
    """The plan's piece table: what each piece holds, whether it is captured, and where the
    inputs of captured pieces come from."""
    rows = []
    sg = bench.sg
    uses = classify_inputs(sg, bench.traced.placeholder_kinds())
    for p in sg.pieces:
        calls = [target_name(n.target) for n in p.nodes if n.op == "call_function"
                 and hasattr(n.target, "_qualified_op_name")]
        inputs = [u for u in uses if u.piece == p.name]
        rows.append({
            "name": p.name, "captured": p.captured, "nodes": len(p.nodes),
            "ops": [short(c) for c in calls],
            "eager_inputs": [f"{u.input} from {u.source}" + (f" (tuple of {u.tensors})" if u.tensors > 1 else "")
                             for u in inputs if u.producer == "eager piece"],
        })
    return rows


def plan_extra(bench: Bench, sizes: list[int], padded: list[int], moe_name: str) -> dict:
    sg = bench.sg
    return {
        "pieces": describe_pieces(bench) if bench.plan.piecewise else [],
        "split_call_sites": sg.call_sites, "expected_pieces": sg.expected_pieces,
        "graphs_per_size": len(sg.captured) if bench.plan.piecewise else 0,
        "full_graph": bench.plan.full, "verified_sizes": sizes, "padded_sizes": padded,
        "unverified_sizes": unverified_sizes(bench.plan.capture_sizes, sizes),
        "split_rules": dataclasses.asdict(sg.rules) if sg.rules else None,
        "moe_implementation": moe_name, "dropped_ops": [n for n, _ in sg.resolved.dropped],
        "toy": {"hidden": bench.cfg.hidden, "experts": bench.cfg.experts, "top_k": bench.cfg.top_k,
                "layers": bench.cfg.layers},
    }


def skipped_runtime(graph: str, ids: list[str]) -> list[Check]:
    return [Check(i, f"run-time check ({graph})", SKIP,
                  f"not run: the static checks already failed for the {graph} graph", graph=graph) for i in ids]


def split_check(cid: str, tally: Tally, graph: str, dtype: str) -> Check:
    ok = tally.ok
    return Check(cid, f"split pieces run in order == eager ({dtype})", PASS if ok else FAIL,
                 f"{tally.comparisons} sizes: {tally.level}" + ("; " + "; ".join(tally.failures) if not ok else ""),
                 {**tally.metrics(), "dtype": dtype}, graph=graph)


def replay_checks(ids: tuple[str, str], res: ReplayResult, log: AddressLog, graph: str, dtype: str,
                  what: str, eager_inputs: int = 0) -> list[Check]:
    """A3/G1 prove captured graphs replay what eager computes: bitwise vs eager (CLOSE passes
    with a warning only), every captured input found at its captured address, no host read,
    host sync or data-dependent size seen while capturing, and every frozen value unchanged at
    replay. A4/G2 prove padded batches: bitwise vs eager on the padded batch, CLOSE vs the
    unpadded rows (near-tie routing flips counted, routing.py). Controls: N3 (a stale read), N5
    (the recorder), the mutation tests `fresh-moe-outputs`, `unchanging-host-read`,
    `flip-without-tie`. `eager_inputs`: captured-piece inputs produced by eager ops (the MoE outputs)."""
    r = res.replay
    held = log.mismatches == 0 and log.frozen_changes == 0 and log.captured_reads == 0
    status = PASS if r.ok and held else WARN if r.close_only and held else FAIL
    detail = (f"{r.comparisons} {what} replays vs eager: {r.level}"
              + (" (non-deterministic kernel)" if r.close_only else "")
              + f" ({r.short_of_wanted} short of bitwise)"
              + f"; {log.checks} input addresses checked, {log.mismatches} moved"
              + f"; {log.captured_reads} host reads/syncs/data-dependent sizes while capturing"
              + f"; {log.frozen_checks} frozen values checked at replay, {log.frozen_changes} changed")
    relies = eager_inputs > 0 and log.mismatches == 0 and log.checks > 0
    if relies:
        detail += (f"; relies on allocator address reuse: {eager_inputs} captured-piece input(s) come from "
                   "freshly allocated MoE outputs and were found at their captured addresses at every replay")
    if status == FAIL:
        detail += "; " + "; ".join(log.capture_examples[:2] + log.frozen_examples[:2] + r.failures[:2]
                                   + log.examples[:2])
    checks = [Check(ids[0], f"{what} replay == eager, addresses and host reads held ({dtype})", status, detail,
                    {**r.metrics(), "address_checks": log.checks, "address_mismatches": log.mismatches,
                     "frozen_checks": log.frozen_checks, "frozen_changes": log.frozen_changes,
                     "captured_reads": log.captured_reads,
                     "relies_on_allocator_reuse": relies, "dtype": dtype}, graph=graph)]
    if res.padded.comparisons:
        ok = res.padded.ok and res.unpadded.ok
        checks.append(Check(
            ids[1], f"padded batches ({dtype})", PASS if ok else FAIL,
            f"{res.padded.comparisons} batch sizes padded up: vs eager on the padded batch {res.padded.level}, "
            f"real rows vs eager unpadded {res.unpadded.level} (max abs {res.unpadded.max_abs:.3g}; "
            f"{res.unpadded.routing_flips} near-tie routing flips tolerated, counted)"
            + ("" if ok else "; " + "; ".join(res.padded.failures + res.unpadded.failures)),
            {"padded": res.padded.metrics(), "unpadded": res.unpadded.metrics(), "dtype": dtype}, graph=graph))
    return checks


def eager_input_count(bench: Bench) -> int:
    return sum(1 for u in classify_inputs(bench.sg, bench.traced.placeholder_kinds()) if u.producer == "eager piece")


def moe_name(impl) -> str:
    return getattr(impl, "name", type(impl).__name__)


@dataclasses.dataclass
class Budget:
    """A tier's time budget (`--time-budget`): the required steps always run; optional ones
    (timings, the node's vLLM wrapper) are cut when the time left is below their estimate, and
    every cut is reported."""

    seconds: float | None = None
    start: float = dataclasses.field(default_factory=time.monotonic)
    cut: list[str] = dataclasses.field(default_factory=list)

    def left(self) -> float:
        return float("inf") if self.seconds is None else self.seconds - (time.monotonic() - self.start)

    def allows(self, estimate_s: float, what: str) -> bool:
        if self.left() >= estimate_s:
            return True
        self.cut.append(what)
        return False

    def to_json(self) -> dict:
        return {"seconds": self.seconds, "used_s": round(time.monotonic() - self.start, 1), "cut": list(self.cut)}


def capture_failed_check(cid: str, e, graph: str, dtype: str) -> Check:
    """A capture that raised is a finding, not an internal error: torch's own message, and
    whether the capture stream was restored before verify went on."""
    return Check(cid, f"CUDA-graph {graph} capture ({dtype})", FAIL,
                 f"capturing {e.unit} at size {e.size} raised {e.message}; capture stream "
                 + ("restored" if e.stream_restored else "NOT restored (later GPU checks may fail with it)"),
                 {"dtype": dtype, "unit": e.unit, "size": e.size, "error": e.message,
                  "stream_restored": e.stream_restored}, graph=graph)


def regime_check(regimes: list[tuple[str, int, dict]]) -> Check:
    """G0 proves the graphs were captured under vLLM's allocator regime: per size, the first
    piece (or the FULL graph) with gc.collect / empty_cache on, every later piece with both off,
    and the no-ops actually hit by torch.cuda.graph's entry. A wrapper that leaves gc on for every
    piece (the mutation tests plant one) fails it."""
    problems, on, off = [], 0, 0
    for graph, sizes, regime in regimes:
        on, off = on + regime["gc_on"], off + regime["gc_off"]
        captures = regime["gc_on"] + regime["gc_off"]
        if regime["gc_on"] != sizes:
            problems.append(f"{graph}: {regime['gc_on']} captures with gc on, want {sizes} (the first unit per size)")
        if graph == "full" and regime["gc_off"]:
            problems.append(f"full: {regime['gc_off']} captures with gc off, want 0")
        if regime["gc_off"] and regime["gc_calls_while_off"] < regime["gc_off"]:
            problems.append(f"{graph}: torch.cuda.graph's gc/empty_cache reached the no-ops "
                            f"{regime['gc_calls_while_off']} times in {regime['gc_off']} captures")
        if captures == 0:
            problems.append(f"{graph}: nothing captured")
    if not regimes:
        return Check("G0", "captured under vLLM's allocator regime", SKIP, "no graph was captured")
    detail = (f"{on} captures with gc.collect/empty_cache on (first unit per size), {off} with both off"
              + ("; " + "; ".join(problems) if problems else ""))
    return Check("G0", "captured under vLLM's allocator regime", FAIL if problems else PASS, detail,
                 {"gc_on": on, "gc_off": off})


def node_split_checks(bench: Bench, options: dict) -> list[Check]:
    """S1 where the node's vLLM is importable (node_split.py); nothing otherwise."""
    node = options.get("node")
    if node is None or not node.installed or not bench.plan.piecewise:
        return []
    from vllm_preflight.verify.node_split import split_check

    return [split_check(bench, node)]
