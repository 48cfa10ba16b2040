"""Capture once, replay many times: the driver shared by the CPU replay emulation and real CUDA
graphs, plus the CPU stand-in for a graph.

vLLM's CUDAGraphWrapper reads the batch descriptor (the padded token count) from the forward
context, captures a key it has not seen, and afterwards replays it and returns the stored output;
it never copies a piece's inputs. `EmulatedGraph` reproduces that contract on CPU: at "capture" it
keeps the very input tensors and their addresses; at "replay" it recomputes from the capture-time
tensors (what a graph reads: the memory at the captured addresses), copies the result into the
stored outputs, and logs every input whose address moved. A MoE op that hands back fresh memory
therefore shows up twice: as an address mismatch and as a stale, wrong result.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves, tree_map

from vllm_preflight.capture.plan import pad_to
from vllm_preflight.verify import routing
from vllm_preflight.verify.compare import CLOSE, EXACT, MISMATCH, Comparison, compare
from vllm_preflight.verify.host_sync import HostSyncWatch
from vllm_preflight.verify.probe import DYNAMIC, HOST_READS, run_entered, tagged_data_dependent, toy_op_name
from vllm_preflight.verify.split import SplitGraph, run_split


@dataclass
class Runtime:
    """The forward context: what the wrappers should do now, and for which padded size."""

    mode: str = "eager"  # eager | capture | replay
    size: int = 0


@dataclass
class AddressLog:
    """What replays saw that a real graph would not tolerate: captured inputs that moved, and
    host reads or data-dependent sizes whose values differ from the ones frozen at capture."""

    checks: int = 0
    mismatches: int = 0
    examples: list[str] = field(default_factory=list)
    frozen_checks: int = 0      # host reads and data-dependent sizes compared with their capture values
    frozen_changes: int = 0     # ... that a replay computed differently (a graph would replay the old one)
    frozen_examples: list[str] = field(default_factory=list)
    # host reads, host syncs and data-dependent sizes seen while capturing: each makes a real
    # capture raise, whether or not its value would ever change
    captured_reads: int = 0
    capture_examples: list[str] = field(default_factory=list)

    def record_capture(self, unit: str, size: int, frozen: list[tuple]) -> None:
        self.captured_reads += len(frozen)
        for kind, op, _ in frozen:
            if len(self.capture_examples) < 5:
                self.capture_examples.append(f"{unit}@{size}: {op} ({kind}) while capturing: a real capture raises")

    def record(self, unit: str, size: int, before: list[int], now: list[int]) -> None:
        self.checks += len(before)
        if len(before) != len(now):
            self.mismatches += 1
            self._example(f"{unit}@{size}: {len(now)} tensor inputs, captured with {len(before)}")
            return
        for i, (a, b) in enumerate(zip(before, now)):
            if a != b:
                self.mismatches += 1
                self._example(f"{unit}@{size}: input {i} moved")

    def record_frozen(self, unit: str, size: int, captured: list[tuple], replayed: list[tuple]) -> None:
        self.frozen_checks += max(len(captured), len(replayed))
        for i in range(max(len(captured), len(replayed))):
            a = captured[i] if i < len(captured) else None
            b = replayed[i] if i < len(replayed) else None
            if a == b:
                continue
            self.frozen_changes += 1
            entry = a or b  # never both None: equal entries were skipped
            if entry is not None and len(self.frozen_examples) < 5:
                op = entry[1]
                what = entry[0]
                self.frozen_examples.append(
                    f"{unit}@{size}: {op} ({what}) gave {a[2] if a else 'nothing'} at capture, "
                    f"{b[2] if b else 'nothing'} at replay: a graph would replay the captured one")

    def _example(self, text: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(text)


class FrozenRecorder(TorchDispatchMode):
    """Logs, in order, every value read back to the host and every data-dependent output size:
    what a CUDA graph freezes at capture. The toy's custom ops are entered (their Python bodies
    run under the mode), since a graph records the kernels inside them too."""

    def __init__(self):
        super().__init__()
        self.log: list[tuple] = []  # (kind, op, value)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if toy_op_name(func) is not None:
            return run_entered(self, func, args, kwargs)
        out = func(*args, **(kwargs or {}))
        name = str(func.overloadpacket) if hasattr(func, "overloadpacket") else str(func)
        if name in HOST_READS:
            self.log.append(("host read", name, out.item() if isinstance(out, torch.Tensor) else out))
        elif name in DYNAMIC or tagged_data_dependent(func):
            outs = out if isinstance(out, (tuple, list)) else (out,)
            self.log.append(("data-dependent size", name,
                             tuple(tuple(o.shape) for o in outs if isinstance(o, torch.Tensor))))
        return out


def run_recorded(runnable, args, syncs: bool = True) -> tuple[object, list[tuple]]:
    """Run `runnable` and log what a graph would freeze: dispatch-level host reads with their
    values and data-dependent sizes (FrozenRecorder), then (with `syncs`: at capture, where
    each one fails the capture) the torch-function-level host syncs CPU torch does not dispatch
    as reads (`.cpu()`, `.tolist()`, `bool(t)`), value-less."""
    rec = FrozenRecorder()
    with rec, (HostSyncWatch() if syncs else contextlib.nullcontext()) as watch:
        out = runnable(*args)
    events = watch.events if watch is not None else []
    return out, rec.log + [("host sync", sync + (f" inside {inside}" if inside else ""), None) for sync, inside in events]


def alias(value):
    """A new tensor object over the same memory: what a graph holds of its inputs is their
    address, not the tensor, so an allocator may hand the block to someone else."""
    if isinstance(value, torch.Tensor):
        return value.as_strided(value.size(), value.stride(), value.storage_offset())
    return value


def tensor_leaves(args) -> list[torch.Tensor]:
    """Tensors inside the arguments, tuples flattened (vLLM's own check skips tuple args)."""
    return [a for a in tree_leaves(list(args)) if isinstance(a, torch.Tensor)]


def addresses(args) -> list[int]:
    return [t.data_ptr() for t in tensor_leaves(args)]


class EmulatedGraph:
    """CPU stand-in for one captured unit's graphs, one per padded size.

    At capture it keeps the input addresses (aliases over the inputs' memory, so that the
    emulated caching allocator can hand a freed block out again, as the real one does), the
    static outputs, and every host read and data-dependent size the unit computed. At replay it
    recomputes from the memory at the captured addresses, copies into the static outputs, and
    logs every input that moved and every host read or size that came out different: a real
    graph would have replayed the captured value, so a difference is a failure, not a pass.
    Every host read, host sync or data-dependent size seen while capturing is logged too
    (`AddressLog.captured_reads`): a real capture raises on each, even on a value that never
    changes. Control N5 blinds nothing and plants such reads; blinding the recorder fails N5."""

    def __init__(self, name: str, runnable, runtime: Runtime, log: AddressLog):
        self.name, self.runnable, self.runtime, self.log = name, runnable, runtime, log
        self.entries: dict[int, tuple] = {}

    def __call__(self, *args):
        mode, size = self.runtime.mode, self.runtime.size
        if mode == "eager":
            return self.runnable(*args)
        if mode == "capture" or size not in self.entries:
            out, frozen = run_recorded(self.runnable, args)
            self.log.record_capture(self.name, size, frozen)
            self.entries[size] = (tree_map(alias, list(args)), addresses(args), out, frozen)
            return out
        captured_args, captured_ptrs, out, frozen = self.entries[size]
        self.log.record(self.name, size, captured_ptrs, addresses(args))
        fresh, replayed = run_recorded(self.runnable, captured_args, syncs=False)
        self.log.record_frozen(self.name, size, [f for f in frozen if f[0] != "host sync"], replayed)
        for static, new in zip(tree_leaves(out), tree_leaves(fresh)):
            if isinstance(static, torch.Tensor):
                static.copy_(new)
        return out


class GraphRunner:
    """One graph kind with its captured units wrapped: the piecewise pieces, or one FULL graph
    around the whole forward."""

    def __init__(self, graph: str, sg: SplitGraph, make_wrapper, log: AddressLog):
        self.graph, self.sg, self.runtime = graph, sg, Runtime()
        if graph == "piecewise":
            self.wrappers = {p.name: make_wrapper(p.name, getattr(sg.split_gm, p.name), self.runtime, log)
                             for p in sg.captured}
        else:
            self.full = make_wrapper("full graph", sg.traced.gm, self.runtime, log)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.graph == "piecewise":
            return run_split(self.sg, x, self.wrappers)
        with torch.no_grad():
            out = self.full(*self.sg.traced.args_for(x))
        return out[0] if isinstance(out, (tuple, list)) else out

    def set(self, mode: str, size: int = 0) -> None:
        self.runtime.mode, self.runtime.size = mode, size


@dataclass
class Tally:
    """Comparisons of one kind: how many of each level, the worst one, and the first few that
    fell short as examples. The verdict reads the counts, never the examples."""

    wanted: str
    comparisons: int = 0
    worst: Comparison | None = None
    failures: list[str] = field(default_factory=list)   # examples (the first 5)
    levels: dict[str, int] = field(default_factory=dict)  # level -> how many comparisons ended there

    routing_flips: int = 0  # near-tie routing flips tolerated (routing.compare_with_flips), all counted

    def note(self, what: str, got: Comparison) -> None:
        self.comparisons += 1
        self.routing_flips += got.flips
        self.levels[got.level] = self.levels.get(got.level, 0) + 1
        if self.worst is None or not got.at_least(self.worst.level) or (
                got.level == self.worst.level and got.max_abs > self.worst.max_abs):
            self.worst = got
        if not got.at_least(self.wanted) and len(self.failures) < 5:
            self.failures.append(f"{what}: {got.level} (max abs {got.max_abs:.3g}"
                                 + (f"; {got.reason})" if got.reason else ")"))

    @property
    def short_of_wanted(self) -> int:
        """Comparisons below the wanted level, all of them counted."""
        return sum(n for level, n in self.levels.items() if not Comparison(level, 0.0, 0.0).at_least(self.wanted))

    @property
    def mismatches(self) -> int:
        return self.levels.get(MISMATCH, 0)

    @property
    def ok(self) -> bool:
        return self.comparisons > 0 and self.short_of_wanted == 0

    @property
    def close_only(self) -> bool:
        """Nothing FAILed, but some comparisons were only CLOSE where EXACT was wanted."""
        return self.comparisons > 0 and self.mismatches == 0 and not self.ok

    @property
    def level(self) -> str:
        return self.worst.level if self.worst else "none"

    @property
    def max_abs(self) -> float:
        return self.worst.max_abs if self.worst else 0.0

    def metrics(self) -> dict:
        return {"comparisons": self.comparisons, "worst_level": self.level, "max_abs": self.max_abs,
                "levels": dict(self.levels), "routing_flips": self.routing_flips}


@dataclass
class ReplayResult:
    replay: Tally = field(default_factory=lambda: Tally(EXACT))             # capture sizes vs eager
    padded: Tally = field(default_factory=lambda: Tally(EXACT))             # vs eager on the padded batch
    unpadded: Tally = field(default_factory=lambda: Tally(CLOSE))           # first n rows vs eager unpadded
    static_in: torch.Tensor | None = None  # the input buffer the graphs were captured on


def capture_and_replay(model, runner: GraphRunner, sizes: list[int], padded: list[int], *,
                       replays: int, device="cpu", seed: int = 1000, before_capture=None,
                       after_capture=None) -> ReplayResult:
    """Warm up, capture every size (largest first, as vLLM does), then replay each size and each
    padded batch with new data copied into the static input buffer, against eager on the same data."""
    res = ReplayResult()
    top = max(sizes)
    static_in = res.static_in = torch.zeros(top, model.cfg.hidden, dtype=model.dtype, device=device)
    with torch.no_grad():
        runner.set("eager")
        for s in [top] + sorted(sizes):  # warm-up: buffers, lazy handles
            static_in[:s].copy_(model.inputs(s, seed - s, device))
            runner(static_in[:s])
        if before_capture is not None:
            before_capture()
        for s in sorted(sizes, reverse=True):
            static_in[:s].copy_(model.inputs(s, seed + s, device))
            runner.set("capture", s)
            runner(static_in[:s])  # capture-pass outputs are never compared
        if after_capture is not None:
            after_capture()
        step = 0
        for _ in range(replays):
            for s in sizes:
                step += 1
                x = model.inputs(s, seed + 7919 * step, device)
                static_in[:s].copy_(x)
                runner.set("replay", s)
                got = runner(static_in[:s]).clone()  # it lives in the graph's memory
                runner.set("eager")
                res.replay.note(f"size {s}", compare(got, model(x)))
        for n in padded:
            p = pad_to(n, sizes)
            if p is None:
                continue
            step += 1
            x = model.inputs(n, seed + 7919 * step, device)
            static_in[:n].copy_(x)
            static_in[n:p].zero_()
            padded_x = static_in[:p].clone()
            runner.set("replay", p)
            got = runner(static_in[:p]).clone()
            runner.set("eager")
            # the replay equals eager on the padded batch bitwise (checked right here), so the
            # eager runs' routing is the replay's: flips after padding are counted from them
            with routing.recording() as padded_routing:
                res.padded.note(f"{n} padded to {p}", compare(got, model(padded_x)))
            with routing.recording() as reference:
                want = model(x)
            res.unpadded.note(f"{n} padded to {p}, first {n} rows", routing.compare_with_flips(
                got[:n], want, routing.flips(reference, padded_routing, n, model.dtype)))
    return res


def split_matches_eager(model, sg: SplitGraph, sizes: list[int], device="cpu", seed: int = 500) -> Tally:
    """A1 proves the split computes the model: the pieces, all run eagerly in order, equal the
    model bitwise. It fails on a split that loses, reorders or duplicates work (tests plant a
    changed piece, test_verify_split.py)."""
    tally = Tally(EXACT)
    for s in sizes:
        x = model.inputs(s, seed + s, device)
        with torch.no_grad():
            tally.note(f"size {s}", compare(run_split(sg, x), model(x)))
    return tally
