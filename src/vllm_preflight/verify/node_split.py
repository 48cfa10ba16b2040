"""The node's own vLLM, where it is importable: its `split_graph` (S1) and its CUDA-graph wrapper
(G4), run on verify's toy and compared with verify's own split and capture.

Everything is feature-detected per release, never pinned: `split_graph` takes the configured
names as strings (`ops` up to 0.11.0, `splitting_ops` matched by `should_split` from 0.11.1) or
as resolved overloads (`resolved_ops`, with `partition_rules.resolve_defined_ops`); the toy's ops
live in the `pfverify` namespace, so `vllm::X` / `vllm.X` entries are handed over as `pfverify::X`
/ `pfverify.X`. The wrapper is `compilation/cuda_graph.py: CUDAGraphWrapper(runnable, vllm_config,
runtime_mode, cudagraph_options)`, driven through `forward_context.set_forward_context` with a
`BatchDescriptor(num_tokens=size)`, as vLLM's model runner drives it. verify's own split and
capture stay the implementation on nodes without vLLM.
"""
from __future__ import annotations

import copy
import importlib
import inspect
from dataclasses import dataclass

from vllm_preflight.capture.opnames import TOY_NS, VLLM_NS
from vllm_preflight.verify.outcome import FAIL, PASS, SKIP, Check


def toy_names(names) -> list[str]:
    """Configured entries with vLLM's namespace mapped onto the toy's (nothing else changes)."""
    out = []
    for name in names:
        if name.startswith(VLLM_NS + "::"):
            name = TOY_NS + "::" + name[len(VLLM_NS) + 2:]
        elif name.startswith(VLLM_NS + "."):
            name = TOY_NS + "." + name[len(VLLM_NS) + 1:]
        out.append(name)
    return out


@dataclass
class VllmSplit:
    """What the node's `split_graph` made of a graph: per subgraph id, splitting or not, and
    what its nodes call, in order (split_module renames nodes inside each submodule, so names
    cannot be compared; the sequence of targets can)."""

    pieces: dict[int, tuple[bool, tuple[str, ...]]]
    convention: str  # how the names were handed over


def calls(nodes) -> tuple[str, ...]:
    """The targets a piece's nodes call, in order (placeholders and outputs left out)."""
    return tuple(f"{n.op}:{n.target}" for n in nodes if n.op not in ("placeholder", "output"))


def load_split_graph():
    """(split_graph, convention, resolver) from the installed vLLM, or (None, why, None)."""
    try:
        backends = importlib.import_module("vllm.compilation.backends")
    except Exception as e:  # noqa: BLE001 - a broken vLLM install fails in many ways: reported, not fatal
        return None, f"vllm.compilation.backends does not import: {type(e).__name__}: {e}", None
    split_graph = getattr(backends, "split_graph", None)
    if split_graph is None:
        return None, "this vLLM has no compilation.backends.split_graph", None
    params = list(inspect.signature(split_graph).parameters)
    if len(params) >= 2 and params[1] == "resolved_ops":
        resolver = getattr(importlib.import_module("vllm.compilation.partition_rules"), "resolve_defined_ops", None)
        return split_graph, "resolved overloads (resolve_defined_ops)", resolver
    return split_graph, f"names as strings ({params[1] if len(params) > 1 else '?'})", None


def vllm_split(gm, names) -> VllmSplit | str:
    """Run the node's split_graph on a copy of `gm`; a VllmSplit, or why it could not run."""
    split_graph, convention, resolver = load_split_graph()
    if split_graph is None:
        return convention
    ops = toy_names(names)
    if resolver is not None:
        ops = resolver(ops)
    _, items = split_graph(copy.deepcopy(gm), ops)
    pieces = {}
    for item in items:
        pieces[int(item.graph_id)] = (bool(item.is_splitting_graph), calls(item.graph.graph.nodes))
    return VllmSplit(pieces, convention)


def compare_splits(ours, theirs: VllmSplit) -> list[str]:
    """Differences between verify's SplitGraph and vLLM's: per subgraph id, the kind and the
    calls, in order."""
    mine = {p.id: (p.splitting, calls(p.nodes)) for p in ours.pieces}
    vllms = {k: v for k, v in theirs.pieces.items() if v[1]}
    mine = {k: v for k, v in mine.items() if v[1]}
    problems = []
    for pid in sorted(set(mine) | set(vllms)):
        a, b = mine.get(pid), vllms.get(pid)
        if a is None or b is None:
            problems.append(f"submod_{pid} only in {'vLLM' if a is None else 'verify'}'s split")
        elif a[0] != b[0]:
            problems.append(f"submod_{pid} is {'a split op' if a[0] else 'captured'} in verify, "
                            f"{'a split op' if b[0] else 'captured'} in vLLM")
        elif a[1] != b[1]:
            extra = [c for c in b[1] if c not in a[1]] or [c for c in a[1] if c not in b[1]] or ["the order"]
            problems.append(f"submod_{pid} holds other calls in vLLM's split ({len(b[1])} vs {len(a[1])}: "
                            f"{', '.join(x.split(':', 1)[1] for x in extra[:2]) if extra != ['the order'] else 'order'})")
    return problems


def copy_traced(traced):
    """A copy whose graph a split may change (0.19.0+ decomposes size calls in place)."""
    from vllm_preflight.verify.trace import Traced

    return Traced(copy.deepcopy(traced.gm), traced.slots)


def split_check(bench, node) -> Check:
    """S1 proves verify splits the toy as the node's own vLLM does: the installed release's
    split_graph on the same traced graph gives the same subgraphs (ids, split-op or captured,
    nodes). Control: the mutation tests give the fake vLLM a split that keeps getitems out of
    the op's piece and require S1 to fail."""
    title = "verify's split == the node's vLLM split_graph"
    if not node.installed:
        return Check("S1", title, SKIP, "vLLM is not importable here: verify's own split stands alone")
    from vllm_preflight.verify.split import split

    names = list(bench.plan.splitting_ops)
    try:
        theirs = vllm_split(bench.traced.gm, names)
    except Exception as e:  # noqa: BLE001 - the node's split_graph raising is the finding
        return Check("S1", title, FAIL, f"vLLM {node.version}'s split_graph raised on the toy: {type(e).__name__}: {e}")
    if isinstance(theirs, str):
        return Check("S1", title, SKIP, theirs)
    # verify's split with the rules of the node's release (the plan's may be another release)
    problems = compare_splits(split(copy_traced(bench.traced), names, node.release or ""), theirs)
    detail = (f"vLLM {node.version} ({theirs.convention}), compared with verify's {node.release} rules: "
              f"{len(theirs.pieces)} subgraphs"
              + ("; " + "; ".join(problems[:4]) if problems else ", the same ids, kinds and calls as verify's"))
    return Check("S1", title, FAIL if problems else PASS, detail,
                 {"vllm": node.version, "subgraphs": len(theirs.pieces), "differences": len(problems)})


# ---- G4: vLLM's CUDAGraphWrapper around verify's pieces ----------------------------------

class VllmGraphs:
    """`make_wrapper` for GraphRunner that wraps each captured piece in the node's
    CUDAGraphWrapper (first piece with gc on, later ones off, the last one's output weakly
    referenced, as vLLM's piecewise backend configures them) and sets vLLM's forward context
    from verify's runtime (eager -> NONE; capture/replay -> PIECEWISE, BatchDescriptor(size))."""

    def __init__(self, pieces: int):
        from vllm.compilation.cuda_graph import CUDAGraphOptions, CUDAGraphWrapper
        from vllm.config import CUDAGraphMode, VllmConfig

        self.wrapper_cls, self.options_cls, self.mode = CUDAGraphWrapper, CUDAGraphOptions, CUDAGraphMode
        self.config = VllmConfig()
        self.pieces, self.made = pieces, 0
        monitor = _optional("vllm.compilation.monitor", "set_cudagraph_capturing_enabled")
        if monitor is not None:
            monitor(True)

    def wrapper(self, name, runnable, runtime, log):
        first, last = self.made == 0, self.made == self.pieces - 1
        self.made += 1
        options = _call_with(self.options_cls, debug_log_enable=first, gc_disable=not first, weak_ref_output=last)
        inner = self.wrapper_cls(runnable, self.config, self.mode.PIECEWISE, options)
        return _InContext(self, inner, name, runtime, log)


class _InContext:
    def __init__(self, graphs: VllmGraphs, inner, name, runtime, log):
        self.graphs, self.inner, self.name, self.runtime, self.log = graphs, inner, name, runtime, log
        self.seen: dict[int, list[int]] = {}

    def __call__(self, *args):
        from vllm_preflight.verify.replay import addresses

        mode, size = self.runtime.mode, self.runtime.size
        if mode == "replay" and size in self.seen:
            self.log.record(self.name, size, self.seen[size], addresses(args))
        elif mode != "eager":
            self.seen[size] = addresses(args)
        with forward_context(self.graphs, "NONE" if mode == "eager" else "PIECEWISE", size):
            return self.inner(*args)


def _optional(module: str, name: str):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _call_with(fn, **kwargs):
    """Call `fn` with the keyword arguments this release accepts."""
    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kwargs.items() if k in params})


def forward_context(graphs: VllmGraphs, mode: str, size: int):
    from vllm.forward_context import BatchDescriptor, set_forward_context

    descriptor = _call_with(BatchDescriptor, num_tokens=size) if mode != "NONE" else None
    return _call_with(set_forward_context, attn_metadata=None, vllm_config=graphs.config,
                      cudagraph_runtime_mode=getattr(graphs.mode, mode), batch_descriptor=descriptor,
                      num_tokens=size)
