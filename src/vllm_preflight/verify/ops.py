"""The toy's custom ops, registered in a private namespace under vLLM's op names.

Like vLLM's `direct_register_custom_op`, each op is defined in a FRAGMENT library with a real
implementation and a fake one (the shapes Dynamo sees); Dynamo records every call as one opaque
node. The layer behind a call is looked up by name at run time (vLLM's
`forward_context.no_compile_layers`), so its weights are never graph inputs and the MoE
implementation behind `moe_forward` can be swapped without tracing again.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch

from vllm_preflight.capture.opnames import ATTENTION_OP, KNOWN_SPLIT_OPS, MOE_OP, MOE_SHARED_OP, TOY_NS

# layer_name -> layer object with `attend(q, k, v, out)` or `moe(hidden, logits)`: either kind
# (the op that looks a layer up is what knows which method its layer has)
LAYERS: dict[str, Any] = {}

_ATTENTION_SCHEMA = "(Tensor q, Tensor k, Tensor v, Tensor(a!) output, str layer_name) -> ()"
# The schema facts vLLM 0.12.0 (the PR #29558 base) registers its MoE ops with
# (`fused_moe/layer.py`, the two `direct_register_custom_op` calls after `moe_forward_fake` and
# `moe_forward_shared_fake`): `mutates_args=["hidden_states"]` -> `Tensor(a!) hidden_states`, and
# the `needs_fixed_stride_order` tag. 0.33.0 (`fused_moe/runner/moe_runner.py`) keeps the
# mutation on `moe_forward` only and tags both `needs_exact_strides`; neither fact changes how
# Dynamo records the call (one opaque node) nor how split_graph matches it.
_MOE_SCHEMA = "(Tensor(a!) hidden_states, Tensor router_logits, str layer_name) -> Tensor"
_MOE_SHARED_SCHEMA = "(Tensor(a!) hidden_states, Tensor router_logits, str layer_name) -> (Tensor, Tensor)"


def moe_tags() -> tuple:
    tag = getattr(torch.Tag, "needs_fixed_stride_order", None)
    return (tag,) if tag is not None else ()
_library: torch.library.Library | None = None
# op name -> its Python implementation, for the sync probe: a dispatch mode sees a custom op as
# one call, so the probe runs the implementation itself to see what it does inside.
IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {}


# Torch-function watches (host_sync.HostSyncWatch) active around a call of a toy op. While a
# mode's handler runs the op the mode is off the stack, so the op's body enters the watches
# that are handling it again: what the body does is seen as a real op's kernels would be.
WATCHES: list[Any] = []


@contextlib.contextmanager
def _watched():
    with contextlib.ExitStack() as stack:
        for watch in [w for w in WATCHES if w.handling]:
            stack.enter_context(watch)
        yield


def _attention(q, k, v, output, layer_name):
    with _watched():
        LAYERS[layer_name].attend(q, k, v, output)


def _moe(hidden_states, router_logits, layer_name):
    with _watched():
        return LAYERS[layer_name].moe(hidden_states, router_logits)


def _moe_fake(hidden_states, router_logits, layer_name):
    return torch.empty_like(hidden_states)


def _moe_shared_fake(hidden_states, router_logits, layer_name):
    return torch.empty_like(hidden_states), torch.empty_like(hidden_states)


def _unused(q, k, v, output, layer_name):  # registered so the name resolves; the toy never calls it
    raise RuntimeError(f"{TOY_NS} op called for {layer_name}, which the toy does not use")


def register() -> None:
    """Idempotent: define every op once per process."""
    global _library
    if _library is not None:
        return
    lib = torch.library.Library(TOY_NS, "FRAGMENT")
    for name in KNOWN_SPLIT_OPS:
        lib.define(name + _ATTENTION_SCHEMA)
        lib.impl(name, _attention if name == ATTENTION_OP else _unused, "CompositeExplicitAutograd")
        torch.library.register_fake(f"{TOY_NS}::{name}", lambda q, k, v, output, layer_name: None, lib=lib)
    IMPLEMENTATIONS.update({name: _unused for name in KNOWN_SPLIT_OPS})
    IMPLEMENTATIONS.update({ATTENTION_OP: _attention, MOE_OP: _moe, MOE_SHARED_OP: _moe})
    lib.define(MOE_OP + _MOE_SCHEMA, tags=moe_tags())
    lib.impl(MOE_OP, _moe, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{TOY_NS}::{MOE_OP}", _moe_fake, lib=lib)
    lib.define(MOE_SHARED_OP + _MOE_SHARED_SCHEMA, tags=moe_tags())
    lib.impl(MOE_SHARED_OP, _moe, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{TOY_NS}::{MOE_SHARED_OP}", _moe_shared_fake, lib=lib)
    _library = lib


def toy_op(name: str):
    register()
    return getattr(getattr(torch.ops, TOY_NS), name)
