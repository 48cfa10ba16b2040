"""Real CUDA graphs for the captured units, the way vLLM's CUDAGraphWrapper holds them.

One graph per unit and padded size, all in one shared memory pool, captured on the current
(non-default) stream under vLLM's allocator regime (garbage collection and `empty_cache` off for
every piece after the first); inputs are never copied, so a replay reads the addresses seen at capture
(the address contract, checked at every replay, as vLLM's debug-mode input-address check does).
Strong references are kept to every static output (vLLM's weak-ref trick on the last piece is
not reproduced). `cuda` is `torch.cuda` unless a test passes a stand-in: every CUDA call goes
through it. Unproven on hardware until the first GPU run (bench/verify_gpu.sh).
"""
from __future__ import annotations

import contextlib
import gc
import sys
import time
from unittest import mock

from vllm_preflight.verify.replay import AddressLog, Runtime, addresses


class CaptureFailed(Exception):
    """A capture raised: torch's own message, and whether the capture stream was restored
    (no capture left open, the stream current before the capture current again)."""

    def __init__(self, unit: str, size: int, message: str, stream_restored: bool):
        super().__init__(f"{unit}@{size}: {message}")
        self.unit, self.size, self.message, self.stream_restored = unit, size, message, stream_restored


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
        self.units = 0
        # vLLM's allocator regime, counted: captures made with gc.collect / empty_cache left on
        # (the first piece of each size, or a FULL graph) and turned off (every later piece)
        self.regime = {"gc_on": 0, "gc_off": 0, "gc_calls_while_off": 0}

    def wrapper(self, name: str, runnable, runtime: Runtime, log: AddressLog) -> CudaGraphUnit:
        # vLLM's piecewise backend: CUDAGraphOptions(gc_disable=not is_first_graph); a FULL
        # graph's wrapper keeps the default (gc on)
        self.units += 1
        return CudaGraphUnit(self, name, runnable, runtime, log, gc_disable=self.units > 1)

    @contextlib.contextmanager
    def _allocator_regime(self, gc_disable: bool):
        """vLLM's CUDAGraphWrapper patches `gc.collect` and `torch.cuda.empty_cache` to no-ops
        while capturing every piece but the first (torch.cuda.graph's entry calls both): the
        allocator keeps its cached blocks between pieces, which is what the addresses depend on."""
        self.regime["gc_off" if gc_disable else "gc_on"] += 1
        if not gc_disable:
            yield
            return

        def off(*args, **kwargs):
            self.regime["gc_calls_while_off"] += 1
            return 0

        with mock.patch.object(gc, "collect", off), mock.patch.object(self.cuda, "empty_cache", off):
            yield

    def capture(self, graph, runnable, args, size: int, name: str = "unit", gc_disable: bool = False):
        """Capture `runnable(*args)` into `graph` under vLLM's allocator regime; time the capture
        alone (torch.cuda.graph's entry synchronises, collects garbage and empties the cache:
        that is not capture time). A capture that raises becomes CaptureFailed with torch's
        message, after the capture is ended and the stream current before it is current again."""
        before = self.cuda.current_stream()
        with self._allocator_regime(gc_disable):
            ctx = self.cuda.graph(graph, pool=self.pool, stream=self.cuda.current_stream())
            ctx.__enter__()
            start = time.perf_counter()
            try:
                out = runnable(*args)
            except Exception as e:  # whatever the capture raised is the finding
                self._end_failed(ctx, graph, sys.exc_info())
                raise CaptureFailed(name, size, _first_line(e), self._restored(before)) from e
            except BaseException:
                self._end_failed(ctx, graph, sys.exc_info())
                raise
            try:
                ctx.__exit__(None, None, None)  # capture_end (instantiation) is part of the capture
            except Exception as e:  # an invalidated capture fails at its end
                self._end_failed(None, graph, None)
                raise CaptureFailed(name, size, _first_line(e), self._restored(before)) from e
        self.capture_s[size] = self.capture_s.get(size, 0.0) + time.perf_counter() - start
        return out

    def _end_failed(self, ctx, graph, exc_info) -> None:
        """Close a capture that raised; capture_end itself raises on an invalidated capture."""
        if ctx is not None:
            with contextlib.suppress(Exception):  # expected: the capture was invalidated
                ctx.__exit__(*(exc_info or (None, None, None)))
        if self.cuda.is_current_stream_capturing():
            with contextlib.suppress(Exception):  # nothing more can be done from Python
                graph.capture_end()

    def _restored(self, before) -> bool:
        """No capture open any more, and the stream is the one current before the capture
        (torch.cuda.graph restores it only when capture_end succeeds)."""
        if self.cuda.current_stream() != before and hasattr(self.cuda, "set_stream"):
            self.cuda.set_stream(before)
        return not self.cuda.is_current_stream_capturing() and self.cuda.current_stream() == before

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


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


class CudaGraphUnit:
    def __init__(self, graphs: CudaGraphs, name: str, runnable, runtime: Runtime, log: AddressLog,
                 gc_disable: bool = False):
        self.graphs, self.name, self.runnable, self.runtime, self.log = graphs, name, runnable, runtime, log
        self.gc_disable = gc_disable
        self.entries: dict[int, tuple] = {}

    def __call__(self, *args):
        mode, size = self.runtime.mode, self.runtime.size
        if mode == "eager":
            return self.runnable(*args)
        if mode == "capture" or size not in self.entries:
            ptrs = addresses(args)
            graph = self.graphs.cuda.CUDAGraph()
            out = self.graphs.capture(graph, self.runnable, args, size, self.name, self.gc_disable)
            self.entries[size] = (graph, out, ptrs, args if self.graphs.pin_inputs else None)
            return out  # what capture "returns" was never computed: callers must not compare it
        graph, out, ptrs, _ = self.entries[size]
        self.log.record(self.name, size, ptrs, addresses(args))
        graph.replay()
        return out
