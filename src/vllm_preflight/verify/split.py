"""Split the traced graph exactly as vLLM's backend does.

vLLM (`compilation/backends.py: split_graph`) walks the graph in order; every node that is a
splitting op gets a subgraph id of its own and the nodes after it start the next id; then
`split_module(..., keep_original_order=True)` builds `submod_<id>` (original order matters because
of in-place mutations). Splitting submodules run eagerly; every other submodule becomes a
piecewise backend wrapped in a CUDA-graph wrapper. S split call sites give 2S+1 pieces, less
the empty ones.

How names become ops depends on the release: 0.11.1+ resolves `ns::name[.overload]` with
`lookup_op` and silently drops what does not resolve; a node matches if its target is the
overload or a packet whose `.default` is in the set. Up to 0.11.0 it compared `str(node.target)`
with the list (dotted names). Both are reproduced, and every dropped name is reported.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch
import torch.fx as fx
from torch.fx.passes.split_module import split_module

from vllm_preflight.verify import ops
from vllm_preflight.verify.opnames import TOY_NS, TOY_OPS, VLLM_NS, parse_qualified, toy_dotted
from vllm_preflight.verify.trace import Traced


@dataclass
class Piece:
    id: int
    splitting: bool          # True: runs eagerly between captured pieces
    nodes: list[fx.Node]     # nodes of the traced graph, in order

    @property
    def name(self) -> str:
        return f"submod_{self.id}"

    @property
    def captured(self) -> bool:
        return not self.splitting


@dataclass
class Resolved:
    """Which configured names took effect and which vLLM would drop (with why)."""

    matching: str                                # "overload" | "name"
    targets: set = field(default_factory=set)    # OpOverloads, or target strings for "name"
    kept: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)

    def matches(self, node: fx.Node) -> bool:
        if node.op != "call_function":
            return False
        target = node.target
        if self.matching == "name":
            return str(target) in self.targets
        if isinstance(target, torch._ops.OpOverloadPacket):
            return target.default in self.targets
        return target in self.targets


@dataclass
class SplitGraph:
    traced: Traced
    resolved: Resolved
    split_gm: fx.GraphModule
    pieces: list[Piece]
    part_of: dict[fx.Node, int]
    call_sites: int
    expected_pieces: int

    @property
    def captured(self) -> list[Piece]:
        return [p for p in self.pieces if p.captured]

    @property
    def actual_pieces(self) -> int:
        return sum(1 for name, _ in self.split_gm.named_children() if name.startswith("submod_"))

    def piece(self, name: str) -> Piece:
        return next(p for p in self.pieces if p.name == name)


def _lookup(parsed) -> object:
    namespace = getattr(torch.ops, parsed.toy_namespace)
    return getattr(getattr(namespace, parsed.name), parsed.overload)


def resolve_names(names: tuple[str, ...] | list[str], matching: str) -> Resolved:
    ops.register()
    res = Resolved(matching)
    toy_strings = {f"{TOY_NS}.{n}" for n in TOY_OPS}
    for written in names:
        if matching == "name":
            target = toy_dotted(written)
            if target in toy_strings:
                res.targets.add(target)
                res.kept.append(written)
            else:
                res.dropped.append((written, "matches no op's name (vLLM <= 0.11.0 compares "
                                             "str(node.target), e.g. 'vllm.unified_attention')"))
            continue
        parsed = parse_qualified(written)
        if parsed is None:
            why = "not of the form ns::name[.overload], so lookup_op fails and vLLM drops it"
            if written.startswith(VLLM_NS + ".") and "::" not in written:
                why += f" (the dotted form is vLLM <= 0.11.0's; 0.11.1+ needs 'vllm::{written[5:]}')"
            res.dropped.append((written, why))
            continue
        if parsed.namespace == VLLM_NS and parsed.name not in TOY_OPS:
            res.dropped.append((written, f"no op {VLLM_NS}::{parsed.name} is registered; vLLM drops "
                                         "names that do not resolve"))
            continue
        try:
            op = _lookup(parsed)
        except (AttributeError, RuntimeError):
            res.dropped.append((written, f"{parsed.namespace}::{parsed.name} has no overload "
                                         f"'{parsed.overload}'; vLLM drops it"))
            continue
        res.targets.add(op)
        res.kept.append(written)
    return res


def split(traced: Traced, names: tuple[str, ...] | list[str], matching: str) -> SplitGraph:
    resolved = resolve_names(names, matching)
    part_of: dict[fx.Node, int] = {}
    splitting_ids: list[int] = []
    current = 0
    for node in traced.gm.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if resolved.matches(node):
            current += 1
            part_of[node] = current
            splitting_ids.append(current)
            current += 1
        else:
            part_of[node] = current
    split_gm = split_module(traced.gm, None, lambda n: part_of[n], keep_original_order=True)
    by_id: dict[int, list[fx.Node]] = {}
    for node, pid in part_of.items():
        by_id.setdefault(pid, []).append(node)
    pieces = [Piece(pid, pid in splitting_ids, by_id[pid]) for pid in sorted(by_id)]
    s = len(splitting_ids)
    empty = sum(1 for pid in range(2 * s + 1) if pid not in by_id)
    return SplitGraph(traced, resolved, split_gm, pieces, part_of, s, 2 * s + 1 - empty)


@contextlib.contextmanager
def installed(split_gm: fx.GraphModule, wrappers: dict[str, object]):
    """Route `submod_<id>` calls through wrappers, as vLLM swaps its compiled pieces in
    (`module.__dict__[name] = ...` shadows the registered submodule), and undo it afterwards."""
    for name, wrapper in wrappers.items():
        split_gm.__dict__[name] = wrapper
    try:
        yield split_gm
    finally:
        for name in wrappers:
            split_gm.__dict__.pop(name, None)


def run_split(sg: SplitGraph, x: torch.Tensor, wrappers: dict[str, object] | None = None):
    with installed(sg.split_gm, wrappers or {}), torch.no_grad():
        out = sg.split_gm(*sg.traced.args_for(x))
    return out[0] if isinstance(out, (tuple, list)) else out
