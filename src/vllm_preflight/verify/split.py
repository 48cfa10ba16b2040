"""Split the traced graph as vLLM's backend does, release by release.

vLLM (`compilation/backends.py: split_graph`) walks the graph in order; every node that is a
splitting op gets a subgraph id of its own and the nodes after it start the next id; then
`split_module(..., keep_original_order=True)` builds `submod_<id>` (original order matters because
of in-place mutations). Splitting submodules run eagerly; every other submodule becomes a
piecewise backend wrapped in a CUDA-graph wrapper. What changed across releases (read in each
release's wheel; `SplitRules` holds it as data):

- name matching: up to 0.11.0 `str(node.target)` is compared with the list (dotted names);
  from 0.11.1 `partition_rules.should_split` compares an OpOverloadPacket's qualified name
  (`ns::name`) and an OpOverload's `ns::name` or `ns::name.overload` with the list. Dynamo
  records `torch.ops.ns.name(...)` as the packet, so `ns::name.default` never matches it;
- 0.11.1+: a `getitem` on a node from an earlier subgraph joins its input's subgraph (vLLM PR
  #28533), so a tuple-returning op's outputs are unpacked inside the op's own piece;
- 0.15.1+ (not 0.15.0): consecutive splitting ops share one subgraph;
- 0.18.0+: `_merge_empty_only_subgraphs` folds a subgraph holding only an `empty*` allocation
  into the previous non-splitting subgraph;
- 0.19.0+: `_decompose_size_nodes` first replaces `x.size()` by per-dimension `sym_size.int`.
"""
from __future__ import annotations

import contextlib
import operator
from dataclasses import dataclass, field

import torch
from torch import fx
from torch.fx.passes.split_module import split_module

from vllm_preflight.capture.opnames import TOY_NS, TOY_OPS, VLLM_NS, parse_qualified, toy_dotted
from vllm_preflight.verify import ops
from vllm_preflight.verify.trace import Traced


def _version(release: str) -> tuple[int, ...] | None:
    from vllm_preflight.releases.versions import version_key

    try:
        return version_key(release)
    except ValueError:
        return None


@dataclass(frozen=True)
class SplitRules:
    """How one release's split_graph behaves, as data (first release in the comment)."""

    matching: str               # "name" (<= 0.11.0) | "qualified" (0.11.1)
    getitem_to_producer: bool   # 0.11.1
    keep_consecutive: bool      # 0.15.1 (a patch release; 0.15.0 lacks it)
    merge_empty_only: bool      # 0.18.0
    decompose_size: bool        # 0.19.0


def rules_for(release: str) -> SplitRules:
    """The rules of `release` ("0.12.0"); anything that is not a version (a target such as
    "pr29558", or "") gets the newest release's rules."""
    v = _version(release or "") or (99,)
    return SplitRules(
        matching="name" if v <= (0, 11, 0) else "qualified",
        getitem_to_producer=v >= (0, 11, 1),
        keep_consecutive=v >= (0, 15, 1),
        merge_empty_only=v >= (0, 18, 0),
        decompose_size=v >= (0, 19, 0),
    )


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
    """Which configured names can match a call in a Dynamo graph and which cannot (with why).
    `targets` are the names as they would be compared, mapped onto the toy's namespace."""

    matching: str                                # "qualified" | "name"
    targets: set = field(default_factory=set)
    kept: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)

    def matches(self, node) -> bool:
        if not isinstance(node, fx.Node) or node.op != "call_function":
            return False
        target = node.target
        if self.matching == "name":
            return str(target) in self.targets
        if isinstance(target, torch._ops.OpOverloadPacket):
            return target._qualified_op_name in self.targets
        if isinstance(target, torch._ops.OpOverload):
            return target.name() in self.targets or f"{target.name()}.{target._overloadname}" in self.targets
        return False


@dataclass
class SplitGraph:
    traced: Traced
    resolved: Resolved
    split_gm: fx.GraphModule
    pieces: list[Piece]
    part_of: dict[fx.Node, int]
    call_sites: int
    expected_pieces: int
    rules: SplitRules | None = None

    @property
    def captured(self) -> list[Piece]:
        return [p for p in self.pieces if p.captured]

    @property
    def actual_pieces(self) -> int:
        return sum(1 for name, _ in self.split_gm.named_children() if name.startswith("submod_"))

    def piece(self, name: str) -> Piece:
        return next(p for p in self.pieces if p.name == name)


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
                res.dropped.append((written, ("matches no op's name (vLLM <= 0.11.0 compares "
                                              "str(node.target), e.g. 'vllm.unified_attention')")))
            continue
        parsed = parse_qualified(written)
        if parsed is None:
            why = "not of the form ns::name, so it never equals a qualified op name and vLLM ignores it"
            if written.startswith(VLLM_NS + ".") and "::" not in written:
                why += f" (the dotted form is vLLM <= 0.11.0's; 0.11.1+ needs 'vllm::{written[5:]}')"
            res.dropped.append((written, why))
            continue
        if parsed.namespace == VLLM_NS and parsed.name not in TOY_OPS:
            res.dropped.append((written, f"no op {VLLM_NS}::{parsed.name} is registered; the name matches nothing"))
            continue
        if written.count(".") and written.rsplit("::", 1)[-1].count("."):
            res.dropped.append((written, (f"names the overload '{parsed.overload}': Dynamo records "
                                          f"torch.ops.{parsed.namespace}.{parsed.name}(...) as the packet, which "
                                          f"vLLM compares as '{parsed.namespace}::{parsed.name}', so this never "
                                          "matches")))
            continue
        res.targets.add(f"{parsed.toy_namespace}::{parsed.name}")
        res.kept.append(written)
    return res


def _decompose_size_nodes(gm: fx.GraphModule) -> None:
    """0.19.0+: `x.size()` (a torch.Size, which cannot cross a split) becomes per-dimension
    `sym_size.int` nodes for dynamic dims and literals for static ones."""
    for node in list(gm.graph.find_nodes(op="call_method", target="size")):
        if len(node.args) > 1 or "dim" in node.kwargs:
            continue
        value = node.args[0].meta.get("example_value")
        if value is None:
            continue
        dims: list = []
        with gm.graph.inserting_after(node.args[0]):
            for i, d in enumerate(value.shape):
                if isinstance(d, torch.SymInt):
                    dn = gm.graph.call_function(torch.ops.aten.sym_size.int, args=(node.args[0], i))
                    dn.meta["example_value"] = d
                    dims.append(dn)
                else:
                    dims.append(int(d))
        for user in list(node.users):
            if user.op == "call_function" and user.target is operator.getitem and user.args[0] is node:
                user.replace_all_uses_with(dims[user.args[1]])
                gm.graph.erase_node(user)
            else:
                user.args = tuple(x for a in user.args for x in (dims if a is node else [a]))
        gm.graph.erase_node(node)
    gm.recompile()


def _is_empty_allocation(node: fx.Node) -> bool:
    if node.op == "call_method":
        return node.target == "new_empty"
    if node.op != "call_function":
        return False
    if node.target in (torch.empty, torch.empty_like, torch.empty_strided):
        return True
    name = (node.target._qualified_op_name if isinstance(node.target, torch._ops.OpOverloadPacket)
            else node.target.name() if isinstance(node.target, torch._ops.OpOverload) else "")
    return name.startswith(("aten::empty", "aten::new_empty"))


def _merge_empty_only(part_of: dict[fx.Node, int], splitting_ids: list[int]) -> None:
    """0.18.0+: a subgraph holding only one empty allocation joins the previous non-splitting
    subgraph, when every input of the allocation is available there."""
    by_id: dict[int, list[fx.Node]] = {}
    for node, pid in part_of.items():
        by_id.setdefault(pid, []).append(node)
    previous = None
    for pid in range(max(part_of.values(), default=-1) + 1):
        nodes = by_id.get(pid, [])
        if not nodes:
            continue
        merged = False
        if (len(nodes) == 1 and _is_empty_allocation(nodes[0]) and previous is not None
                and all(i.op == "placeholder" or part_of[i] <= previous for i in nodes[0].all_input_nodes)):
            part_of[nodes[0]] = previous
            merged = True
        if not merged and pid not in splitting_ids:
            previous = pid


def split(traced: Traced, names: tuple[str, ...] | list[str], release: str) -> SplitGraph:
    """Split as vLLM `release` does (a version such as "0.12.0"; "" means the newest rules)."""
    rules = rules_for(release)
    resolved = resolve_names(names, rules.matching)
    gm = traced.gm
    if rules.decompose_size:
        _decompose_size_nodes(gm)
    part_of: dict[fx.Node, int] = {}
    splitting_ids: list[int] = []
    current = 0
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if rules.getitem_to_producer and node.op == "call_function" and node.target is operator.getitem:
            source = node.args[0]
            if isinstance(source, fx.Node) and source.op != "placeholder":
                part_of[node] = part_of[source]
                continue
        if resolved.matches(node):
            current += 1
            part_of[node] = current
            splitting_ids.append(current)
            if rules.keep_consecutive and resolved.matches(node.next):
                current -= 1  # the next splitting op joins this subgraph
            else:
                current += 1
        else:
            part_of[node] = current
    if rules.merge_empty_only:
        _merge_empty_only(part_of, splitting_ids)
    # root_m is unused by split_module (its docstring says so); the traced module is what it names
    split_gm = split_module(gm, gm, lambda n: part_of[n], keep_original_order=True)
    by_id: dict[int, list[fx.Node]] = {}
    for node, pid in part_of.items():
        by_id.setdefault(pid, []).append(node)
    pieces = [Piece(pid, pid in splitting_ids, by_id[pid]) for pid in sorted(by_id)]
    s = len(set(splitting_ids))
    empty = sum(1 for pid in range(2 * s + 1) if pid not in by_id)
    return SplitGraph(traced, resolved, split_gm, pieces, part_of, s, 2 * s + 1 - empty, rules)


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
