"""Eager vs graph timings on the GPU (reported, never gated): CUDA events on the current stream
bracket each forward, and host time is taken too, since the HT MoE synchronises with the host."""
from __future__ import annotations

import statistics
import time

import torch


def _spread(values: list[float]) -> dict:
    ordered = sorted(values)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]

    return {"median": statistics.median(ordered), "p10": pick(0.1), "p90": pick(0.9)}


def time_forward(fn, warmup: int = 5, iters: int = 50, cuda=None) -> dict:
    cuda = cuda or torch.cuda
    for _ in range(warmup):
        fn()
    cuda.synchronize()
    device_ms, host_ms = [], []
    for _ in range(iters):
        start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        start.record()
        fn()
        end.record()
        end.synchronize()
        host_ms.append((time.perf_counter() - t0) * 1e3)
        device_ms.append(start.elapsed_time(end))
    out = _spread(device_ms)
    out["host_median"] = statistics.median(host_ms)
    return out
