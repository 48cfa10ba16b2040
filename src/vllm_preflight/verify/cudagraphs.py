"""Real CUDA graphs for the captured units, the way vLLM's CUDAGraphWrapper holds them.

One graph per unit and padded size, all in one shared memory pool, captured on the current
(non-default) stream; inputs are never copied, so a replay reads the addresses seen at capture
(the address contract, checked at every replay). Strong references are kept to every static
output (vLLM's weak-ref trick on the last piece is not reproduced). Untested on hardware until
the first GPU run: see bench/verify_gpu.sh.
"""
from __future__ import annotations

import time

import torch

from vllm_preflight.verify.replay import AddressLog, Runtime, addresses


class CudaGraphs:
    """The pool and bookkeeping shared by every unit of one runner."""

    def __init__(self, device, pin_inputs: bool = False):
        self.device = device
        self.pool = torch.cuda.graph_pool_handle()
        self.pin_inputs = pin_inputs  # N3: keep capture-time inputs alive so a moved input is a stale read
        self.capture_s: dict[int, float] = {}

    def wrapper(self, name: str, runnable, runtime: Runtime, log: AddressLog) -> "CudaGraphUnit":
        return CudaGraphUnit(self, name, runnable, runtime, log)


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
            graph = torch.cuda.CUDAGraph()
            start = time.perf_counter()
            with torch.cuda.graph(graph, pool=self.graphs.pool, stream=torch.cuda.current_stream()):
                out = self.runnable(*args)
            self.graphs.capture_s[size] = self.graphs.capture_s.get(size, 0.0) + time.perf_counter() - start
            self.entries[size] = (graph, out, ptrs, args if self.graphs.pin_inputs else None)
            return out  # what capture "returns" was never computed: callers must not compare it
        graph, out, ptrs, _ = self.entries[size]
        self.log.record(self.name, size, ptrs, addresses(args))
        graph.replay()
        return out
