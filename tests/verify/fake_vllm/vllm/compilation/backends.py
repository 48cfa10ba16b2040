"""split_graph with vLLM 0.11.1+'s entry point: (graph, splitting_ops: list[str]) ->
(split_gm, [SplitItem]). Its own simple walk (a packet's qualified name in the list splits; a
getitem joins its producer), not vLLM's code. FAKE_VLLM_SPLIT=no-getitem plants a split that
leaves getitems in the next piece."""
import dataclasses
import operator
import os

import torch
from torch.fx.passes.split_module import split_module


@dataclasses.dataclass
class SplitItem:
    submod_name: str
    graph_id: int
    is_splitting_graph: bool
    graph: torch.fx.GraphModule


def _splits(node, splitting_ops):
    target = node.target
    name = getattr(target, "_qualified_op_name", None) or (target.name() if hasattr(target, "_overloadname") else None)
    return node.op == "call_function" and name in splitting_ops


def split_graph(graph, splitting_ops):
    subgraph, where, splitting = 0, {}, []
    getitem_rule = os.environ.get("FAKE_VLLM_SPLIT") != "no-getitem"
    for node in graph.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if getitem_rule and node.op == "call_function" and node.target is operator.getitem and \
                node.args[0].op != "placeholder":
            where[node] = where[node.args[0]]
            continue
        if _splits(node, splitting_ops):
            subgraph += 1
            where[node] = subgraph
            splitting.append(subgraph)
            subgraph += 1
        else:
            where[node] = subgraph
    split_gm = split_module(graph, None, lambda n: where[n], keep_original_order=True)
    items = [SplitItem(name, int(name.split("_")[1]), int(name.split("_")[1]) in splitting, module)
             for name, module in split_gm.named_children() if name.startswith("submod_")]
    return split_gm, sorted(items, key=lambda i: i.graph_id)
