"""What an opaque op does when it runs: does it read device values on the host, or allocate
tensors whose sizes depend on the data? Either makes it uncapturable.

Dynamo never traces into a custom op, so the graph alone cannot say whether `moe_forward` is
safe inside a CUDA graph. The probe runs the traced graph eagerly a few times with different
inputs, and records every aten call made inside each opaque op: host reads
(`_local_scalar_dense`, ops tagged data-dependent or dynamic-output-shape, copies to the host,
and, through `host_sync.HostSyncWatch`, `.cpu()` / `.tolist()` / `bool(t)` calls CPU torch never
dispatches as reads),
and the sequence of output shapes, which must not change with the data for a graph to replay it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import fx
from torch.utils._python_dispatch import TorchDispatchMode

from vllm_preflight.capture.opnames import TOY_NS
from vllm_preflight.verify import ops
from vllm_preflight.verify.host_sync import HostSyncWatch
from vllm_preflight.verify.trace import Traced

# Namespaces whose ops Dynamo or the dispatcher look into; everything else is opaque.
_TRANSPARENT = {"aten", "prims", "_c10d_functional", "c10d_functional", "_dynamo", "higher_order"}
# A value read back to the host (the CPU waits for the device): raises under stream capture.
HOST_READS = {"aten._local_scalar_dense", "aten.item", "aten._assert_scalar", "aten.equal", "aten.is_nonzero"}
# Output sizes that depend on the data: a graph would freeze one size.
DYNAMIC = {"aten.nonzero", "aten.unique", "aten._unique2", "aten.bincount", "aten.masked_select"}


def op_namespace(target) -> str | None:
    if isinstance(target, torch._ops.OpOverload):
        return target.namespace
    if isinstance(target, torch._ops.OpOverloadPacket):
        return target._qualified_op_name.split("::", 1)[0]
    return None


def is_opaque(target) -> bool:
    ns = op_namespace(target)
    return ns is not None and ns not in _TRANSPARENT


def tagged_data_dependent(func) -> bool:
    tags = getattr(func, "tags", ()) or ()
    wanted = [getattr(torch.Tag, t, None) for t in ("dynamic_output_shape", "data_dependent_output")]
    return any(t is not None and t in tags for t in wanted)


@dataclass
class OpBehaviour:
    host_reads: dict[str, int] = field(default_factory=dict)
    dynamic_ops: dict[str, int] = field(default_factory=dict)
    shape_traces: list[tuple] = field(default_factory=list)

    @property
    def data_dependent_shapes(self) -> bool:
        return len({t for t in self.shape_traces}) > 1

    @property
    def unsafe(self) -> bool:
        return bool(self.host_reads) or bool(self.dynamic_ops) or self.data_dependent_shapes

    def summary(self) -> str:
        def counts(d: dict) -> str:
            return ", ".join(f"{k} x{v}" for k, v in sorted(d.items()))

        parts = []
        if self.host_reads:
            parts.append("host reads " + counts(self.host_reads))
        if self.dynamic_ops:
            parts.append("data-dependent output sizes " + counts(self.dynamic_ops))
        if self.data_dependent_shapes:
            parts.append("tensor sizes change with the data")
        return "; ".join(parts) or "no host reads, static shapes"


class _Recorder(TorchDispatchMode):
    def __init__(self, behaviour: OpBehaviour, record_shapes: bool):
        super().__init__()
        self.b = behaviour
        self.record_shapes = record_shapes
        self.shapes: list = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = str(func.overloadpacket) if hasattr(func, "overloadpacket") else str(func)
        if name in HOST_READS or self._to_host(func, args, kwargs, out):
            self.b.host_reads[name] = self.b.host_reads.get(name, 0) + 1
        elif name in DYNAMIC or tagged_data_dependent(func):
            self.b.dynamic_ops[name] = self.b.dynamic_ops.get(name, 0) + 1
        if self.record_shapes:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            self.shapes.append((name, tuple(tuple(o.shape) for o in outs if isinstance(o, torch.Tensor))))
        return out

    @staticmethod
    def _to_host(func, args, kwargs, out) -> bool:
        if not isinstance(out, torch.Tensor) or out.device.type != "cpu":
            return False
        return any(isinstance(a, torch.Tensor) and a.device.type != "cpu" for a in args)


class _ProbeInterpreter(fx.Interpreter):
    def __init__(self, gm, results: dict[str, OpBehaviour], record_shapes: bool):
        super().__init__(gm)
        self.results = results
        self.record_shapes = record_shapes

    def run_node(self, n: fx.Node):
        impl = implementation(n.target) if n.op == "call_function" else None
        if impl is None:
            return super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        b = self.results.setdefault(n.name, OpBehaviour())
        # the torch-function watch sees the host syncs the dispatcher never gets on CPU
        # (`.cpu()`, `.tolist()`, `bool(t)`), whatever values they read
        with _Recorder(b, self.record_shapes) as rec, HostSyncWatch() as watch:
            out = impl(*args, **kwargs)
        for name, count in watch.syncs.items():
            b.host_reads[name] = b.host_reads.get(name, 0) + count
        if self.record_shapes:
            b.shape_traces.append(tuple(rec.shapes))
        return out


def implementation(target):
    """The Python implementation behind an opaque op, where we know it (the toy's ops)."""
    if not is_opaque(target):
        return None
    qualified = (target._qualified_op_name if isinstance(target, torch._ops.OpOverloadPacket)
                 else target._schema.name)
    ns, _, name = qualified.partition("::")
    return ops.IMPLEMENTATIONS.get(name) if ns == TOY_NS else None


def toy_op_name(func) -> str | None:
    """The toy op's name when `func` is one of the toy's custom ops (an OpOverload), else None."""
    schema = getattr(func, "_schema", None)
    if schema is None or not schema.name.startswith(TOY_NS + "::"):
        return None
    return schema.name.split("::", 1)[1]


def run_entered(mode: TorchDispatchMode, func, args, kwargs):
    """Inside `mode.__torch_dispatch__`: run a toy op's Python body with the mode active again, so
    that the aten ops inside the opaque op reach the mode (as the kernels inside a real op would
    reach a CUDA graph)."""
    name = toy_op_name(func)
    if name is None:  # callers ask toy_op_name first
        raise ValueError(f"{func} is not one of the toy's ops")
    impl = ops.IMPLEMENTATIONS[name]
    with mode:
        return impl(*args, **(kwargs or {}))


def probe(traced: Traced, model_inputs: list[torch.Tensor]) -> dict[str, OpBehaviour]:
    """Run the whole graph once per input (all the same size); the first run is a warm-up
    (lazy allocations), the others are compared."""
    results: dict[str, OpBehaviour] = {}
    with torch.no_grad():
        for i, x in enumerate(model_inputs):
            _ProbeInterpreter(traced.gm, results, record_shapes=i > 0).run(*traced.args_for(x))
    return results
