"""Host syncs that CPU torch cannot see by running: found at the torch-function level.

On a GPU, `.cpu()`, `.tolist()`, `.item()`, `.numpy()` and `bool()` / `int()` / `float()` of a
tensor copy device memory to the host and wait for it: under stream capture they raise, and a
graph would freeze the value. On CPU torch most of them never reach the dispatcher as a host
read (`.cpu()` of a CPU tensor returns it unchanged, `.tolist()` reads memory directly), so a
dispatch mode, and the values it sees, miss them. `HostSyncWatch` is a TorchFunctionMode: it
sees the Python-level call itself, whatever device the tensor is on and whatever value it
holds, including inside the toy's opaque ops (their bodies re-enter every active watch,
`ops.WATCHES`). `fx_host_copy` is the same rule for nodes of a traced graph.
"""
from __future__ import annotations

from torch import fx
from torch.overrides import TorchFunctionMode

from vllm_preflight.capture.opnames import TOY_NS
from vllm_preflight.verify import ops

# Tensor methods that read a device value on the host (or copy device memory to it).
HOST_SYNC_METHODS = ("item", "tolist", "cpu", "numpy", "__bool__", "__int__", "__float__", "__index__",
                     "__array__")
_TO_METHODS = ("to", "_to_copy", "copy")


def _is_cpu(value) -> bool:
    return str(value) == "cpu" or getattr(value, "type", None) == "cpu"


def host_sync_name(name: str, args=(), kwargs=None) -> str | None:
    """`Tensor.<name>` when a call of the method/function `name` with these arguments reads the
    device on the host, else None. `.to('cpu')` / `.to(device='cpu')` count; `.to(dtype)` not."""
    if name in HOST_SYNC_METHODS:
        return f"Tensor.{name}"
    if name in _TO_METHODS:
        devices = list(args[1:]) + [v for k, v in (kwargs or {}).items() if k == "device"]
        if any(_is_cpu(a) for a in devices):
            return f"Tensor.{name}(device='cpu')"
    return None


def fx_host_copy(node: fx.Node) -> str | None:
    """The FX-level scan: a traced node that copies to or reads on the host."""
    if node.op == "call_method":
        return host_sync_name(str(node.target), node.args, node.kwargs)
    if node.op == "call_function":
        name = getattr(node.target, "__name__", "") or str(node.target)
        name = name.rsplit(".", 1)[-1]
        if name in _TO_METHODS or name in HOST_SYNC_METHODS:
            return host_sync_name(name, node.args, node.kwargs)
    return None


def _toy_op(func) -> str | None:
    qualified = getattr(func, "_qualified_op_name", None) or getattr(getattr(func, "_schema", None), "name", "")
    return qualified.split("::", 1)[1] if qualified and qualified.startswith(TOY_NS + "::") else None


class HostSyncWatch(TorchFunctionMode):
    """Counts host syncs by name, and the toy op each ran inside (`inside`: "" outside any).
    `capturing` decides whether one counts now (default: always); the GPU child passes the
    stream's capture state."""

    def __init__(self, capturing=None):
        super().__init__()
        self.syncs: dict[str, int] = {}
        self.events: list[tuple[str, str]] = []   # (sync, toy op it ran inside), in order
        self.inside: list[str] = []
        self.capturing = capturing
        self.handling = 0  # > 0 while this mode's handler runs (the mode is off the stack then)

    def __enter__(self):
        ops.WATCHES.append(self)
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            ops.WATCHES.remove(self)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        sync = host_sync_name(getattr(func, "__name__", ""), args, kwargs)
        if sync is not None and (self.capturing is None or self.capturing()):
            self.syncs[sync] = self.syncs.get(sync, 0) + 1
            if len(self.events) < 100:
                self.events.append((sync, self.inside[-1] if self.inside else ""))
        toy = _toy_op(func)
        if toy is not None:
            self.inside.append(toy)
        self.handling += 1
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.handling -= 1
            if toy is not None:
                self.inside.pop()
