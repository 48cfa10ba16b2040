"""Steps every tier runs the same way: build and split the toy, describe the pieces, run the
static checks, and turn the replay tallies into checks."""
from __future__ import annotations

from vllm_preflight.verify.opnames import short
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
                  what: str) -> list[Check]:
    """Replay vs eager (bitwise, CLOSE only with a note) plus the address contract; padding."""
    r = res.replay
    exact_ok = r.ok
    close_only = not exact_ok and r.comparisons and all("CLOSE" in f for f in r.failures)
    status = PASS if exact_ok and log.mismatches == 0 else WARN if close_only and log.mismatches == 0 else FAIL
    detail = (f"{r.comparisons} {what} replays vs eager: {r.level}"
              + (" (non-deterministic kernel)" if close_only else "")
              + f"; {log.checks} input addresses checked, {log.mismatches} moved")
    if status == FAIL:
        detail += "; " + "; ".join(r.failures[:2] + log.examples[:2])
    checks = [Check(ids[0], f"{what} replay == eager, addresses held ({dtype})", status, detail,
                    {**r.metrics(), "address_checks": log.checks, "address_mismatches": log.mismatches,
                     "dtype": dtype}, graph=graph)]
    if res.padded.comparisons:
        ok = res.padded.ok and res.unpadded.ok
        checks.append(Check(
            ids[1], f"padded batches ({dtype})", PASS if ok else FAIL,
            f"{res.padded.comparisons} batch sizes padded up: vs eager on the padded batch {res.padded.level}, "
            f"real rows vs eager unpadded {res.unpadded.level} (max abs {res.unpadded.max_abs:.3g})"
            + ("" if ok else "; " + "; ".join(res.padded.failures + res.unpadded.failures)),
            {"padded": res.padded.metrics(), "unpadded": res.unpadded.metrics(), "dtype": dtype}, graph=graph))
    return checks


def moe_name(impl) -> str:
    return getattr(impl, "name", type(impl).__name__)
