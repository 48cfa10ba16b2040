"""Get the FX graph vLLM's backend would receive: torch.compile with a custom backend.

Like vLLM, the batch dimension is dynamic and the graph is traced once; afterwards it is called
directly (vLLM bypasses Dynamo's guards the same way), so one graph serves every batch size and
no size-1 recompile sneaks in. No Inductor and no compiler toolchain are involved.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass

import torch
from torch import fx


@dataclass
class Traced:
    gm: fx.GraphModule
    slots: list[tuple[str, object]]  # per placeholder: ("input", None) | ("size", None) | ("const", value)

    def args_for(self, x: torch.Tensor) -> list:
        """The graph's arguments for a batch `x`: parameters as traced, the batch size, x."""
        out = []
        for kind, value in self.slots:
            out.append(x if kind == "input" else x.shape[0] if kind == "size" else value)
        return out

    def placeholder_kinds(self) -> dict[str, str]:
        nodes = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        return {n.name: kind for n, (kind, _) in zip(nodes, self.slots)}


class TraceError(RuntimeError):
    pass


def trace(model: torch.nn.Module, example: torch.Tensor) -> Traced:
    captured: dict = {}

    def backend(gm: fx.GraphModule, example_inputs):
        if "gm" in captured:  # a recompile would mean a second graph: refuse it loudly
            raise TraceError("Dynamo compiled the toy twice")
        captured["gm"], captured["inputs"] = gm, list(example_inputs)
        return gm.forward

    x = example.clone()
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.reset()
    # Set both explicitly: their defaults differ across torch versions, and a graph break would
    # hide the very host reads the static checks look for.
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True), \
            torch.no_grad():
        torch.compile(model, backend=backend, fullgraph=True)(x)
    gm, inputs = captured["gm"], captured["inputs"]
    slots: list[tuple[str, object]] = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        raise TraceError("placeholders and example inputs disagree")
    for node, value in zip(placeholders, inputs):
        if value is x:
            slots.append(("input", None))
        elif isinstance(value, torch.SymInt):
            slots.append(("size", None))  # the only dynamic symbol is the batch size
        else:
            slots.append(("const", value))
    if [k for k, _ in slots].count("input") != 1:
        raise TraceError("could not find the model input among the graph's placeholders")
    return Traced(gm, slots)


def export(traced: Traced, model: torch.nn.Module) -> bytes:
    """The traced graph for another process (a gloo rank) that builds the same toy: node meta
    (Dynamo's fake tensors) stripped, parameters named instead of copied. Unpickling it needs
    neither Dynamo nor a second trace, which is most of a rank's start-up time on CPU."""
    graph = fx.Graph()
    env: dict = {}
    for node in traced.gm.graph.nodes:
        env[node] = graph.node_copy(node, lambda n: env[n])
        env[node].meta = {}
    names = {id(p): name for name, p in model.named_parameters()}
    slots = [(kind, names[id(value)] if kind == "const" else None) for kind, value in traced.slots]
    return pickle.dumps((fx.GraphModule(torch.nn.Module(), graph), slots))


def load(data: bytes, model: torch.nn.Module) -> Traced:
    """Inverse of `export`, bound to this process's copy of the toy (same names, same weights)."""
    gm, slots = pickle.loads(data)
    return Traced(gm, [(kind, model.get_parameter(name) if kind == "const" else None) for kind, name in slots])
