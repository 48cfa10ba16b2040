"""Real CUDA graphs for the captured units, the way vLLM's CUDAGraphWrapper holds them.

One graph per unit and padded size, all in one shared memory pool, captured on the current
(non-default) stream; inputs are never copied, so a replay reads the addresses seen at capture
(the address contract, checked at every replay, as vLLM's debug-mode input-address check does).
Strong references are kept to every static output (vLLM's weak-ref trick on the last piece is
not reproduced). `cuda` is `torch.cuda` unless a test passes a stand-in: every CUDA call goes
through it. Unproven on hardware until the first GPU run (bench/verify_gpu.sh).
"""
from __future__ import annotations

import sys
import time

from vllm_preflight.verify.replay import AddressLog, Runtime, addresses


def _torch_cuda():
    import torch

    return torch.cuda


class CudaGraphs:
    """The pool and bookkeeping shared by every unit of one runner."""

    def __init__(self, device, pin_inputs: bool = False, cuda=None):
        self.device = device
        self.cuda = cuda or _torch_cuda()
        self.pool = self.cuda.graph_pool_handle()
        self.pin_inputs = pin_inputs  # N3: keep capture-time inputs alive so a moved input is a stale read
        self.capture_s: dict[int, float] = {}

    def wrapper(self, name: str, runnable, runtime: Runtime, log: AddressLog) -> CudaGraphUnit:
        return CudaGraphUnit(self, name, runnable, runtime, log)

    def capture(self, graph, runnable, args, size: int):
        """Capture `runnable(*args)` into `graph`; time the capture alone (torch.cuda.graph's
        entry synchronises, collects garbage and empties the cache: that is not capture time)."""
        ctx = self.cuda.graph(graph, pool=self.pool, stream=self.cuda.current_stream())
        ctx.__enter__()
        start = time.perf_counter()
        try:
            out = runnable(*args)
        except BaseException:
            ctx.__exit__(*sys.exc_info())
            raise
        ctx.__exit__(None, None, None)  # capture_end (instantiation) is part of the capture
        self.capture_s[size] = self.capture_s.get(size, 0.0) + time.perf_counter() - start
        return out

    def pool_bytes(self) -> int:
        """Bytes held by this runner's graph pool: the allocator's segments tagged with the pool id
        (blocks freed after capture stay in the pool, so a memory_allocated difference misses them)."""
        pool = tuple(self.pool) if isinstance(self.pool, (tuple, list)) else self.pool
        total = 0
        for seg in self.cuda.memory_snapshot():
            seg_pool = seg.get("segment_pool_id")
            seg_pool = tuple(seg_pool) if isinstance(seg_pool, (tuple, list)) else seg_pool
            if seg_pool == pool:
                total += int(seg.get("total_size", 0))
        return total


class CudaGraphUnit:
    def __init__(self, graphs: CudaGraphs, name: str, runnable, runtime: Runtime, log: AddressLog):
        self.graphs, self.name, self.runnable, self.runtime, self.log = graphs, name, runnable, runtime, log
        self.entries: dict[int, tuple] = {}

    def __call__(self, *args):
        mode, size = self.runtime.mode, self.runtime.size
        if mode == "eager":
            return self.runnable(*args)
        if mode == "capture" or size not in self.entries:
            ptrs = addresses(args)
            graph = self.graphs.cuda.CUDAGraph()
            out = self.graphs.capture(graph, self.runnable, args, size)
            self.entries[size] = (graph, out, ptrs, args if self.graphs.pin_inputs else None)
            return out  # what capture "returns" was never computed: callers must not compare it
        graph, out, ptrs, _ = self.entries[size]
        self.log.record(self.name, size, ptrs, addresses(args))
        graph.replay()
        return out
