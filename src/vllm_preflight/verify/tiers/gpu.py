"""Tier gpu: real CUDA graphs on one GPU (design note §4.4). Not run on hardware yet.

Static checks on CPU first (as in every tier), then for fp32 and bf16: warm-up, capture every
verified size (largest first) in one pool on a side stream, replay each capture size and each
padded size with new data against eager on the same data (G1: bitwise; CLOSE passes with a
warning; addresses held), padding (G2), and timings (G3, reported, never gated). Controls: N0-N2
as on CPU, N3 with real graphs (a stale read from graph memory), N4 (capturing the host-syncing
MoE fails) in a child process.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys

from vllm_preflight.capture.plan import VerifyPlan, toy_sizes
from vllm_preflight.verify import controls, watchdog
from vllm_preflight.verify.outcome import CAUGHT, FAIL, PASS, SKIP, WARN, Check
from vllm_preflight.verify.tiers import TierRun
from vllm_preflight.verify.tiers.common import (
    Budget,
    capture_failed_check,
    eager_input_count,
    moe_name,
    node_split_checks,
    plan_extra,
    regime_check,
    replay_checks,
    skipped_runtime,
)
from vllm_preflight.verify.toy import ToyConfig
from vllm_preflight.verify.workbench import (
    Bench,
    build_bench,
    build_model,
    plan_moe,
    probe_bench,
    set_threads_for_toy,
    split_ops,
    static_report,
)

GPU_TOY = ToyConfig(hidden=256, ffn=512, experts=8, top_k=2, layers=4)
SIZE_LIMIT = 64
N4_DEADLINE_S = 90
SLOWER_WARN = 1.05  # warn (never fail) when graph replay is >5% slower than eager at small sizes
TIMED_SIZES = 6     # sizes timed per graph kind (spread over the verified ones), bf16
TIMING_ITERS = (3, 20)  # warm-up and timed forwards per size and mode
REPLAYS = 3


def requirements(options: dict | None = None) -> list[str]:
    from vllm_preflight.verify.environment import cuda_devices, torch_missing

    missing = torch_missing()
    if missing:
        return missing
    count, what = cuda_devices()
    return [] if count else [f"a CUDA GPU ({what})"]


def cuda_runtime():
    """(cuda namespace, device): `torch.cuda` and GPU 0. The one seam where tests put a CUDA
    stand-in (a CPU device and a recording graph), so that this tier's code runs in CI."""
    import torch

    return torch.cuda, torch.device("cuda", 0)


def timed_sizes(sizes: list[int]) -> list[int]:
    """At most TIMED_SIZES sizes, smallest and largest always, spread over the rest."""
    if len(sizes) <= TIMED_SIZES:
        return list(sizes)
    step = (len(sizes) - 1) / (TIMED_SIZES - 1)
    return sorted({sizes[round(i * step)] for i in range(TIMED_SIZES)})


def run(plan: VerifyPlan, reporter, options: dict) -> TierRun:
    from vllm_preflight.verify.cudagraphs import CaptureFailed, CudaGraphs
    from vllm_preflight.verify.replay import AddressLog, GraphRunner, capture_and_replay
    from vllm_preflight.verify.split import split

    budget = Budget(options.get("time_budget"))
    cuda, device = cuda_runtime()
    set_threads_for_toy()
    sizes, padded = toy_sizes(plan.capture_sizes, SIZE_LIMIT)
    reporter.step("tracing the toy with torch.compile (custom backend) and splitting it")
    bench = build_bench(plan, GPU_TOY, max_tokens=max(sizes), run_probe=False)  # static analysis on CPU
    out = TierRun(device=cuda.get_device_name(device), cuda=_cuda_build())
    out.plan_extra = plan_extra(bench, sizes, padded, moe_name(plan_moe(plan, GPU_TOY)))
    reporter.pieces(plan, out.plan_extra)
    probe_bench(bench)
    rep = static_report(bench)
    eager_inputs = eager_input_count(bench) if plan.piecewise else 0

    def add(checks):
        for c in checks:
            out.checks.append(c)
            reporter.check(c)

    add(rep.checks)
    add(node_split_checks(bench, options))
    node = options.get("node")
    stream = cuda.Stream(device)  # graphs cannot be captured on the legacy default stream
    gpu_bench = None
    regimes: list[tuple[str, int, dict]] = []
    models: dict[str, tuple] = {}
    not_timed: dict[str, str] = {}
    with cuda.stream(stream):
        for graph in plan.graph_kinds:
            if rep.failed(graph):
                # a capture around a host read raises and can poison the context: N4 shows
                # that failure in a child process instead
                add(skipped_runtime(graph, ["G1", "G2"]))
                not_timed[graph] = "not captured: its static checks failed"
                continue
            for dtype in ("float32", "bfloat16"):
                reporter.step(f"capturing {graph} graphs ({dtype}) for sizes {sizes}")
                if dtype not in models:  # one toy per dtype, traced once, shared by both graph kinds
                    model, traced = build_model(dataclasses.replace(GPU_TOY, dtype=dtype), max(sizes), device)
                    model.set_moe(plan_moe(plan, GPU_TOY))
                    models[dtype] = (model, traced, split(traced, split_ops(plan), plan.vllm_version))
                model, traced, sg = models[dtype]
                graphs, log = CudaGraphs(device, cuda=cuda), AddressLog()
                runner = GraphRunner(graph, sg, graphs.wrapper, log)
                try:
                    res = capture_and_replay(model, runner, sizes, padded, replays=REPLAYS, device=device)
                except CaptureFailed as e:
                    add([capture_failed_check("G1", e, graph, dtype)])
                    not_timed[graph] = "its capture failed"
                    break  # the other dtype would fail the same way, and the context may be poisoned
                regimes.append((graph, len(sizes), dict(graphs.regime)))
                add(replay_checks(("G1", "G2"), res, log, graph, dtype, "CUDA-graph " + graph,
                                  eager_inputs if graph == "piecewise" else 0))
                if dtype == "bfloat16":
                    reporter.step(f"timing eager vs {graph} graphs ({dtype})")
                    out.timings += time_sizes(model, runner, res.static_in, timed_sizes(sizes), graph, dtype,
                                              graphs, graphs.pool_bytes(), cuda, budget)
                if gpu_bench is None and dtype == "float32":
                    gpu_bench = Bench(plan, GPU_TOY, model, traced, sg, {}, max(sizes))
                    if graph == "piecewise" and node is not None and node.installed and \
                            budget.allows(WRAPPER_ESTIMATE_S, "vLLM's CUDAGraphWrapper (G4)"):
                        reporter.step(f"capturing the pieces with vLLM {node.version}'s own CUDAGraphWrapper")
                        add([vllm_wrapper_check(model, sg, sizes, device, node)])
        add([regime_check(regimes)])
        if out.timings:
            add([timing_check(out.timings)])
        add(run_controls(bench, gpu_bench, sizes, device, cuda))
    out.plan_extra["budget"] = budget.to_json()
    out.plan_extra["not_timed"] = not_timed
    return out


WRAPPER_ESTIMATE_S = 20.0


def vllm_wrapper_check(model, sg, sizes: list[int], device, node) -> Check:
    """G4 proves verify's capture is vLLM's: the node's own CUDAGraphWrapper (as its piecewise
    backend configures it, driven through its forward context) around verify's pieces replays
    == eager bitwise with every captured input at its captured address, as verify's CudaGraphs
    does (G1). Control: the mutation tests hand it a wrapper that replays stale outputs."""
    from vllm_preflight.verify.node_split import VllmGraphs
    from vllm_preflight.verify.replay import AddressLog, GraphRunner, capture_and_replay

    title = "the node's vLLM CUDAGraphWrapper around verify's pieces == eager (float32)"
    try:
        graphs = VllmGraphs(len(sg.captured))
    except Exception as e:  # noqa: BLE001 - a release without these entry points: reported, not fatal
        return Check("G4", title, SKIP, f"vLLM {node.version}'s wrapper cannot be built here: {type(e).__name__}: {e}",
                     graph="piecewise")
    log = AddressLog()
    try:
        res = capture_and_replay(model, GraphRunner("piecewise", sg, graphs.wrapper, log), sizes, [],
                                 replays=2, device=device)
    except Exception as e:  # noqa: BLE001 - a capture through vLLM's wrapper that raises is the finding
        return Check("G4", title, FAIL, f"capturing through vLLM {node.version}'s CUDAGraphWrapper raised "
                     f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", graph="piecewise")
    (verdict, *_) = replay_checks(("G4", "G4"), res, log, "piecewise", "float32", f"vLLM {node.version} wrapper")
    return Check("G4", title, verdict.status, verdict.detail, verdict.metrics, graph="piecewise")


def _cuda_build():
    import torch

    return torch.version.cuda


def time_sizes(model, runner, static_in, sizes, graph: str, dtype: str, graphs, pool_bytes: int,
               cuda=None, budget: Budget | None = None) -> list[dict]:
    """Eager and graph-replay forwards per size (reported, never gated). Sizes the budget
    cannot afford any more (estimated from the sizes timed so far) are cut and reported."""
    import time

    import torch

    from vllm_preflight.verify.timing import time_forward

    rows: list[dict] = []
    per_size = 0.0
    with torch.no_grad():
        for s in sizes:
            if budget is not None and rows and not budget.allows(per_size * 1.5, f"timing {graph} size {s}"):
                continue
            started = time.monotonic()
            static_in[:s].copy_(model.inputs(s, 4242 + s, static_in.device))
            x = static_in[:s]

            def eager(x=x):  # bound now: each size times its own input
                runner.set("eager")
                model(x)

            def replay(x=x, s=s):
                runner.set("replay", s)
                runner(x)

            warmup, iters = TIMING_ITERS
            e = time_forward(eager, warmup=warmup, iters=iters, cuda=cuda)
            g = time_forward(replay, warmup=warmup, iters=iters, cuda=cuda)
            rows.append({"graph": graph, "dtype": dtype, "size": s, "eager_ms": e, "graph_ms": g,
                         "speedup": e["median"] / g["median"] if g["median"] > 0 else 0.0,
                         "capture_s": round(graphs.capture_s.get(s, 0.0), 4), "pool_bytes": int(pool_bytes)})
            per_size = max(per_size, time.monotonic() - started)
    return rows


def timing_check(rows: list[dict]) -> Check:
    """G3 reports eager vs graph-replay timings per size; it never fails (a graph >5% slower than
    eager at sizes <= 32 is a warning): timings are facts to read, not a gate."""
    slow = [r for r in rows if r["size"] <= 32 and r["graph_ms"]["median"] > SLOWER_WARN * r["eager_ms"]["median"]]
    best = max(rows, key=lambda r: r["speedup"])
    detail = (f"{len(rows)} sizes timed; best speedup {best['speedup']:.2f}x at size {best['size']} ({best['graph']})"
              + ("; graph slower than eager by >5% at sizes " + ", ".join(str(r["size"]) for r in slow)
                 if slow else ""))
    return Check("G3", "timings: eager vs graph replay (reported, never gated)", WARN if slow else PASS, detail,
                 {"sizes": len(rows)})


def read_child_report(child) -> dict | None:
    for line in reversed(child.output.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def capture_fails_in_child() -> Check:
    """N4: capturing the host-syncing MoE must fail, by the mechanism: the child records which op
    read a device value on the host while the stream was capturing (a failed capture can poison
    the context, hence the child). An error text alone proves nothing."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    child = watchdog.run([sys.executable, "-m", "vllm_preflight.verify.child", "n4"], N4_DEADLINE_S, env=env)
    report = read_child_report(child)
    return n4_check(report, child)


def n4_check(report: dict | None, child=None) -> Check:
    if child is not None and child.timed_out:
        caught, detail = False, f"the capture hung for {N4_DEADLINE_S}s instead of failing"
    elif report is None:
        caught, detail = False, "the child left no report" + (f" (exit {child.returncode}: {child.tail(2)})"
                                                              if child is not None else "")
    else:
        syncs = report.get("host_syncs_under_capture") or []
        caught = bool(report.get("raised")) and bool(syncs)
        where = ", ".join(f"{s['op']} inside {s['in']}" for s in syncs[:3]) or "no host read under capture"
        detail = (f"capture raised {report.get('error')}; host reads while capturing: {where}"
                  if report.get("raised") else f"the capture succeeded; host reads while capturing: {where}")
    return Check("N4", "capturing the host-synchronising MoE fails", CAUGHT if caught else FAIL,
                 detail if caught else "NOT CAUGHT: " + detail)


def run_controls(bench: Bench, gpu_bench: Bench | None, sizes: list[int], device, cuda=None) -> list[Check]:
    from vllm_preflight.verify.cudagraphs import CudaGraphs

    sample = bench.model.inputs(4, 99)
    checks = [controls.comparator_self_test(sample.to(device)),
              controls.moe_not_split(bench), controls.host_read_in_captured_region(),
              *controls.plan_controls(bench, sample)]
    if gpu_bench is None:  # no graph kind got to run on the GPU: build the toy there for N3 alone
        from vllm_preflight.verify.split import split

        model, traced = build_model(GPU_TOY, max(sizes), device)
        gpu_bench = Bench(bench.plan, GPU_TOY, model, traced, split(traced, (), ""), {}, max(sizes))
    graphs = CudaGraphs(device, pin_inputs=True, cuda=cuda)
    checks.append(controls.fresh_moe_outputs(gpu_bench, sizes[:4], graphs.wrapper, device, keep_alive=2))
    checks.append(capture_fails_in_child())
    return checks
