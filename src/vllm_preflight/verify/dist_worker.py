"""One rank of a multi-process verify run, launched by `watchdog.launch_ranks` (tiers cpu: gloo,
multi-gpu: NCCL).

Every rank does the same steps in the same order (lockstep): each has its own token count, the
padded size is agreed with an all-reduce MAX and rounded up to a capture size, as vLLM's DP ranks
do, so that all ranks run the same number of MoE collectives. Results travel to rank 0 as bytes
in fixed-size uint8 tensors (`all_gather_object` needs numpy, which torch 2.13 may lack).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

from vllm_preflight.capture.plan import pad_to
from vllm_preflight.verify import routing
from vllm_preflight.verify.compare import CLOSE, EXACT, compare
from vllm_preflight.verify.moe.experts import Experts, dense_moe, route
from vllm_preflight.verify.moe.ht import ProtocolStats, get_layout
from vllm_preflight.verify.replay import AddressLog, EmulatedGraph, GraphRunner, Runtime, Tally
from vllm_preflight.verify.split import split
from vllm_preflight.verify.toy import DTYPES, ToyConfig


def _say(rank: int, text: str) -> None:
    print(f"[rank {rank}] {text}", flush=True)


def _max(n: int, device) -> int:
    t = torch.tensor([n], dtype=torch.int64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return int(t.item())


def _moe_impl(job: dict, stats: ProtocolStats, state: dict):
    if job["moe"] == "deepep":
        from vllm_preflight.verify.moe.deepep import DeepEPMoE

        return DeepEPMoE(state["buffer"], stats)
    if job["moe"] == "deepep_ll":
        from vllm_preflight.verify.moe.deepep import DeepEPLowLatencyMoE

        return DeepEPLowLatencyMoE(state["buffer"], max(job["sizes"]), stats)
    if job["moe"] == "dense":  # a capturable MoE (no all2all, or a capturable one): static shapes
        from vllm_preflight.verify.moe.experts import DenseMoE

        return DenseMoE()
    from vllm_preflight.verify.moe.collective import HTCollectiveMoE

    return HTCollectiveMoE(None, stats)


def protocol_check(job: dict, rank: int, world: int, device, state: dict) -> dict:
    """C1 proves the MoE dispatch across ranks (real deep_ep on a node) computes the dense
    reference (experts replicated on every rank) and receives what the all-reduced send counts
    say. A5a is the same check over gloo; its mutation tests show it failing."""
    cfg = ToyConfig(**job["toy"])
    dtype = DTYPES[job["moe_dtype"]]
    g = torch.Generator().manual_seed(cfg.seed)
    experts = Experts(cfg.hidden, cfg.ffn, cfg.experts, False, g).to(device=device, dtype=dtype)
    stats = ProtocolStats()
    impl = _moe_impl(job, stats, state)
    tally = Tally(CLOSE)
    count_errors = 0
    for step in range(job["protocol_steps"]):
        t = 2 + (3 * rank + 5 * step) % 11
        gen = torch.Generator().manual_seed(1000 * rank + step)
        x = torch.randn(t, cfg.hidden, generator=gen).to(device=device, dtype=dtype)
        idx, w = route(torch.randn(t, cfg.experts, generator=gen).to(device), cfg.top_k)
        got = impl(x, idx, w, experts).to(dtype)
        tally.note(f"step {step}", compare(got, dense_moe(x, idx, w, experts).to(dtype)))
        totals = get_layout(idx, cfg.experts, world).num_tokens_per_rank.to(torch.int64)
        dist.all_reduce(totals)
        if int(totals[rank].item()) != impl.last_received:
            count_errors += 1
    ok = tally.ok and not stats.violations and count_errors == 0
    detail = (f"{tally.comparisons} dispatch/combine rounds vs dense reference: {tally.level} "
              f"(max abs {tally.max_abs:.3g}); receive counts vs all-reduced counts: {count_errors} off; "
              f"invariants: {'; '.join(stats.violations[:2]) or 'all hold'}")
    return {"id": job["ids"][0], "status": "pass" if ok else "fail", "detail": detail,
            "metrics": {**tally.metrics(), "count_errors": count_errors, "violations": len(stats.violations),
                        "failures": tally.failures}}


def lockstep_replay(job: dict, rank: int, device, state: dict, graph: str = "piecewise") -> dict:
    """C2 / A5b prove the piecewise graphs (or the FULL graph) with the MoE behind them running
    across ranks in lockstep replay == eager bitwise, every captured input at its captured
    address, padded rows CLOSE (near-tie routing flips counted). A rank that hangs fails it by
    the watchdog (test_verify_gloo.py)."""
    cfg = ToyConfig(**job["toy"])
    sizes = job["sizes"]
    top = max(sizes)
    if job.get("graph_file"):  # traced once by the parent: no Dynamo start-up in every rank
        from vllm_preflight.verify.toy import ToyMoEModel
        from vllm_preflight.verify.trace import load

        model = ToyMoEModel(cfg, prefix=job["prefix"]).to(device)
        with open(job["graph_file"], "rb") as f:
            traced = load(f.read(), model)
    else:
        from vllm_preflight.verify.workbench import build_model

        model, traced = build_model(cfg, top, device)
    sg = split(traced, job["splitting_ops"], job["release"])
    stats = ProtocolStats()
    model.set_moe(_moe_impl(job, stats, state))
    log = AddressLog()
    make: Callable[[str, Any, Runtime, AddressLog], object]  # a unit's graphs: real or emulated
    if job["graphs"] == "cuda":
        from vllm_preflight.verify.cudagraphs import CudaGraphs

        graphs = CudaGraphs(device)
        make = graphs.wrapper
    else:
        make = EmulatedGraph
    runner = GraphRunner(graph, sg, make, log)
    static_in = torch.zeros(top, cfg.hidden, dtype=model.dtype, device=device)
    exact, close = Tally(EXACT), Tally(CLOSE)
    with torch.no_grad():
        runner.set("eager")
        for s in [top] + sorted(sizes):
            static_in[:s].copy_(model.inputs(s, 17 * rank + s, device))
            runner(static_in[:s])
        for s in sorted(sizes, reverse=True):
            static_in[:s].copy_(model.inputs(s, 31 * rank + s, device))
            runner.set("capture", s)
            runner(static_in[:s])
        _say(rank, f"captured sizes {sorted(sizes)}")
        for step in range(job["replay_steps"]):
            n = 1 + (3 * rank + 5 * step) % top
            p = pad_to(_max(n, device), sizes)
            assert p is not None, "n <= top = max(sizes), so some capture size holds it"
            x = model.inputs(n, 1000 * rank + step, device)
            static_in[:n].copy_(x)
            static_in[n:p].zero_()
            padded = static_in[:p].clone()
            runner.set("replay", p)
            got = runner(static_in[:p]).clone()
            runner.set("eager")
            with routing.recording() as padded_routing:
                exact.note(f"step {step} ({n} tokens padded to {p})", compare(got, model(padded)))
            with routing.recording() as reference:
                want = model(x)
            close.note(f"step {step} first {n} rows", routing.compare_with_flips(
                got[:n], want, routing.flips(reference, padded_routing, n, model.dtype)))
    ok = exact.ok and close.ok and log.mismatches == 0 and not stats.violations
    detail = (f"{exact.comparisons} lockstep replays vs eager: {exact.level}; unpadded rows: {close.level}; "
              f"address checks {log.checks}, mismatches {log.mismatches}; "
              f"{stats.calls} MoE collectives, invariants {'hold' if not stats.violations else 'broken'}")
    return {"id": job["ids"][-1], "graph": graph, "status": "pass" if ok else "fail", "detail": detail,
            "metrics": {"replays": exact.comparisons, "worst_level": exact.level, "max_abs": exact.max_abs,
                        "address_checks": log.checks, "address_mismatches": log.mismatches,
                        "moe_calls": stats.calls, "routing_flips": close.routing_flips,
                        "failures": exact.failures + close.failures + log.examples}}


DRILL_TAG = "PF_DRILL "


def full_ht_drill(job: dict, rank: int, device, state: dict, cuda=None) -> dict:
    """N8, on every rank: capture one CUDA graph around real DeepEP high-throughput
    dispatch/combine (what a FULL graph around HT does). It must raise or hang (DeepEP's host
    waits on the receive counts under capture: 'CPU recv timeout' after 100 s); the parent's
    watchdog ends a hang. A capture that succeeds and replays is the control NOT caught."""
    cuda = cuda or torch.cuda
    cfg = ToyConfig(**job["toy"])
    g = torch.Generator().manual_seed(cfg.seed)
    experts = Experts(cfg.hidden, cfg.ffn, cfg.experts, False, g).to(device=device, dtype=torch.bfloat16)
    impl = _moe_impl(job, ProtocolStats(), state)
    gen = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(8, cfg.hidden, generator=gen).to(device=device, dtype=torch.bfloat16)
    idx, w = route(torch.randn(8, cfg.experts, generator=gen).to(device), cfg.top_k)
    impl(x, idx, w, experts)  # eager first: the same dispatch works outside a capture
    cuda.synchronize()
    graph = cuda.CUDAGraph()
    _say(rank, "capturing a FULL graph around DeepEP HT dispatch/combine (must raise or hang)")
    try:
        with cuda.graph(graph):
            impl(x, idx, w, experts)
        graph.replay()
        cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - whatever the capture raised is the expected outcome
        text = str(e).strip().splitlines()
        return {"rank": rank, "outcome": "raised", "error": f"{type(e).__name__}: {text[0] if text else ''}"}
    return {"rank": rank, "outcome": "captured", "error": None}


def _gather(result: dict, rank: int, world: int, device) -> list[dict]:
    data = json.dumps(result).encode()
    longest = _max(len(data), device)
    buf = torch.zeros(longest, dtype=torch.uint8, device=device)
    buf[:len(data)] = torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device)
    bufs = [torch.zeros_like(buf) for _ in range(world)]
    dist.all_gather(bufs, buf)
    return [json.loads(bytes(b.cpu().tolist()).rstrip(b"\0").decode()) for b in bufs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    with open(args.job) as f:
        job = json.load(f)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.set_num_threads(1)
    if job["backend"] == "nccl":
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
    else:
        device = torch.device("cpu")
    store = os.environ.get("PF_VERIFY_STORE")  # a file store in the run's folder: no TCP listener
    dist.init_process_group(job["backend"], init_method=store, rank=rank, world_size=world,
                            timeout=timedelta(seconds=job["collective_timeout_s"]))
    state: dict = {}
    checks: list[dict] = []
    result: dict[str, Any] = {"rank": rank, "checks": checks, "error": None, "device": str(device)}
    try:
        if job.get("hang_rank") in (rank, "all"):
            _say(rank, "holding back from the next collective (hang drill)")
            time.sleep(10 * job["collective_timeout_s"])
        if job["moe"] == "deepep":
            from vllm_preflight.verify.moe.deepep import make_buffer

            state["buffer"] = make_buffer(dist.new_group(backend="gloo"), ToyConfig(**job["toy"]), world)
        elif job["moe"] == "deepep_ll":
            from vllm_preflight.verify.moe.deepep import make_ll_buffer

            state["buffer"] = make_ll_buffer(dist.new_group(backend="gloo"), ToyConfig(**job["toy"]), world,
                                             max(job["sizes"]))
        # graphs cannot be captured on the legacy default stream: run every step on a side stream
        stream = torch.cuda.stream(torch.cuda.Stream(device)) if device.type == "cuda" else contextlib.nullcontext()
        if job.get("drill") == "full_ht":
            with stream:
                print(DRILL_TAG + json.dumps(full_ht_drill(job, rank, device, state)), flush=True)
            os._exit(0)  # no collective or buffer teardown after a broken capture: they may hang
        with stream:
            if job.get("protocol", True):
                _say(rank, "protocol check ...")
                checks.append(protocol_check(job, rank, world, device, state))
            for graph in job.get("graph_kinds", ["piecewise"]):
                _say(rank, f"lockstep {graph} replay ...")
                checks.append(lockstep_replay(job, rank, device, state, graph))
        gathered = _gather(result, rank, world, device)
        if rank == 0:
            with open(args.out, "w") as f:
                json.dump(gathered, f)
    except Exception as e:  # noqa: BLE001 - whatever fails on a rank is written to its result file for verify
        error = f"{type(e).__name__}: {e}"
        result["error"] = error
        _say(rank, "failed: " + error)
        traceback.print_exc(limit=3, file=sys.stdout)
        with open(f"{args.out}.rank{rank}", "w") as f:
            json.dump(result, f)
        return 1
    finally:
        buffer = state.get("buffer")
        if buffer is not None:
            buffer.destroy()
        if dist.is_initialized():
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
