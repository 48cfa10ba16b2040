"""A CUDA stand-in for CPU torch, so that the gpu and multi-gpu tiers' code runs in CI.

`FakeCuda` offers the slice of `torch.cuda` verify calls. Its graph records, while capturing,
every aten op that runs (entering the toy's custom ops, whose kernels a real graph records
too) and replays them against the very tensors they used at capture, writing into the outputs
they produced then: what a CUDA graph does with addresses. Reading a device value on the host
while capturing raises, as CUDA does. `recording=False` gives a graph that replays nothing, the
stand-in for a broken capture (a check that reads it must fail).
"""
from __future__ import annotations

import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _pop_mode, _push_mode
from torch.utils._pytree import tree_leaves, tree_map

from vllm_preflight.verify.probe import DYNAMIC, HOST_READS, run_entered, toy_op_name
from vllm_preflight.verify.replay import alias

_ALLOCATIONS = {"aten.empty", "aten.empty_like", "aten.new_empty", "aten.empty_strided"}


class FakeGraph:
    def __init__(self):
        self.ops: list[tuple] = []
        self.recording = True
        self.invalidated = False
        self.cuda = None

    def replay(self):
        for func, args, kwargs, out in self.ops:
            fresh = func(*args, **kwargs)
            for static, new in zip(tree_leaves(out), tree_leaves(fresh)):
                if isinstance(static, torch.Tensor) and static.data_ptr() != new.data_ptr():
                    static.copy_(new)

    def capture_end(self):
        """Ends the capture; as cudaStreamEndCapture, fails on a capture an op invalidated."""
        cuda, self.cuda = self.cuda, None
        if cuda is not None:
            cuda.capturing = None
        failing_end = cuda is not None and cuda.fail_at_end > 0
        if failing_end:
            cuda.fail_at_end -= 1
        if self.invalidated or failing_end:
            raise RuntimeError("CUDA error: operation failed due to a previous error during capture (stand-in)")


class _Capture(TorchDispatchMode):
    def __init__(self, graph: FakeGraph):
        super().__init__()
        self.graph = graph

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if toy_op_name(func) is not None:
            return run_entered(self, func, args, kwargs)
        name = str(func.overloadpacket)
        out = func(*args, **(kwargs or {}))
        cuda = self.graph.cuda
        if name in HOST_READS or name in DYNAMIC or (cuda is not None and cuda.fail_during > 0):
            if cuda is not None and cuda.fail_during > 0:
                cuda.fail_during -= 1
            self.graph.invalidated = True
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing (stand-in)")
        if self.graph.recording and name not in _ALLOCATIONS:
            # a graph holds addresses, not tensors: aliases over the same memory, so that the
            # (emulated) caching allocator may hand a freed input block out again
            self.graph.ops.append((func, tree_map(alias, args), tree_map(alias, kwargs or {}), out))
        return out


def _reorder(insert=None):
    """Pop every dispatch mode; put `insert` lowest (or drop the lowest when None); push back."""
    above = [_pop_mode() for _ in range(torch._C._len_torch_dispatch_stack())]
    if insert is None:
        above.pop()
    else:
        _push_mode(insert)
    for mode in reversed(above):
        _push_mode(mode)


class _GraphContext:
    """torch.cuda.graph as the stand-in sees it: the entry synchronises, collects garbage and
    empties the cache, then makes the capture stream current; the exit ends the capture and,
    only when that succeeds, restores the stream."""

    def __init__(self, cuda, graph: FakeGraph, stream):
        self.cuda, self.graph, self.stream = cuda, graph, stream

    def __enter__(self):
        import gc
        import time

        gc.collect(0)  # torch.cuda.graph collects every generation; the youngest keeps CI fast
        self.cuda.empty_cache()
        if self.cuda.entry_s:
            time.sleep(self.cuda.entry_s)
        self.before = self.cuda.current
        self.cuda.current = self.stream if self.stream is not None else "capture stream"
        # the capture sits *below* every Python dispatch mode already active (a hook such as
        # N4's sees each op first, as it would before a real kernel runs)
        _reorder(_Capture(self.graph))
        self.cuda.capturing, self.graph.cuda = self.graph, self.cuda
        return self.graph

    def __exit__(self, *exc):
        _reorder(None)
        self.graph.capture_end()  # raises on an invalidated capture: the stream stays switched
        self.cuda.current = self.before
        return False


class _Event:
    def __init__(self, enable_timing=False):
        self.t = 0.0

    def record(self):
        import time

        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class FakeCuda:
    def __init__(self, recording: bool = True, devices: int = 1, entry_s: float = 0.0, fail_at_end: int = 0,
                 fail_during: int = 0):
        self.recording = recording
        self.entry_s = entry_s  # torch.cuda.graph's entry work (synchronize, gc, empty_cache)
        self.devices = devices
        self.fail_at_end = fail_at_end  # the next capture_ends fail (invalidated captures)
        self.fail_during = fail_during  # the next captures raise on their first op, as on an unsupported one
        self.capturing: FakeGraph | None = None
        self.current = "default stream"
        self.empty_cache_calls = 0
        self.Event = _Event

    def CUDAGraph(self):
        g = FakeGraph()
        g.recording = self.recording
        return g

    def graph_pool_handle(self):
        return (0, 7)

    def graph(self, g, pool=None, stream=None):
        return _GraphContext(self, g, stream)

    def empty_cache(self):
        self.empty_cache_calls += 1

    def is_current_stream_capturing(self):
        return self.capturing is not None

    def current_stream(self):
        return self.current

    def set_stream(self, s):
        self.current = s

    def Stream(self, device=None):
        return "side stream"

    @contextlib.contextmanager
    def stream(self, s):
        before, self.current = self.current, s
        try:
            yield
        finally:
            self.current = before

    def synchronize(self):
        pass

    def memory_snapshot(self):
        return [{"segment_pool_id": (0, 7), "total_size": 2 << 20}, {"segment_pool_id": (0, 0), "total_size": 1 << 20}]

    def get_device_name(self, device=None):
        return "CUDA stand-in (CPU)"

    def device_count(self):
        return self.devices
