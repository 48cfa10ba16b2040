"""A small MoE decoder shaped like vLLM's MoE models, calling ops named after vLLM's.

Per layer: RMSNorm -> qkv -> attention op (writes into a preallocated output, like vLLM's
`*_with_output` ops) -> o-proj -> residual -> RMSNorm -> router -> MoE op -> residual. Odd layers
call `moe_forward_shared`, which returns a (shared_out, fused_out) tuple, so the tuple blind spot
of vLLM's address check is exercised too. Activations stay O(1) (RMSNorm, 1/sqrt(fan-in) weights)
so the design note's absolute tolerances mean something.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import cast

import torch

from vllm_preflight.capture.opnames import ATTENTION_OP, MOE_OP, MOE_SHARED_OP
from vllm_preflight.verify import ops, routing
from vllm_preflight.verify.moe.contract import OutputContract
from vllm_preflight.verify.moe.experts import DenseMoE, Experts, route

_ids = itertools.count()
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True)
class ToyConfig:
    hidden: int = 64
    ffn: int = 64
    experts: int = 8
    top_k: int = 2
    layers: int = 2
    dtype: str = "float32"
    seed: int = 0
    # Negative control N2: a host read (`.item()`) in a non-MoE region of layer 0.
    inject_sync: bool = False


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden), requires_grad=False)

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * self.weight


def _linear(n_in: int, n_out: int, g: torch.Generator) -> torch.nn.Linear:
    layer = torch.nn.Linear(n_in, n_out, bias=False)
    with torch.no_grad():
        layer.weight.copy_(torch.randn(n_out, n_in, generator=g) / n_in ** 0.5)
    layer.weight.requires_grad_(False)
    return layer


class Attention(torch.nn.Module):
    def __init__(self, cfg: ToyConfig, name: str, g: torch.Generator):
        super().__init__()
        self.name, self.hidden = name, cfg.hidden
        self.qkv = _linear(cfg.hidden, 3 * cfg.hidden, g)
        self.o_proj = _linear(cfg.hidden, cfg.hidden, g)
        ops.LAYERS[name] = self

    def forward(self, h):
        q, k, v = self.qkv(h).split(self.hidden, dim=-1)
        out = torch.empty_like(q)
        ops.toy_op(ATTENTION_OP)(q, k, v, out, self.name)
        return self.o_proj(out)

    def attend(self, q, k, v, out):
        """Causal single-head attention over the batch: row i reads rows <= i only, so padding
        rows appended after the real ones cannot change them."""
        scores = (q.float() @ k.float().transpose(0, 1)) * self.hidden ** -0.5
        n = scores.shape[0]
        mask = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        probs = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        out.copy_((probs @ v.float()).to(out.dtype))


class MoE(torch.nn.Module):
    def __init__(self, cfg: ToyConfig, name: str, shared: bool, g: torch.Generator):
        super().__init__()
        self.name, self.top_k, self.shared = name, cfg.top_k, shared
        self.router = _linear(cfg.hidden, cfg.experts, g)
        self.experts = Experts(cfg.hidden, cfg.ffn, cfg.experts, shared, g)
        self.impl = DenseMoE()
        self.contract = OutputContract()
        ops.LAYERS[name] = self

    def forward(self, h):
        logits = self.router(h)
        if self.shared:
            shared_out, fused_out = ops.toy_op(MOE_SHARED_OP)(h, logits, self.name)
            return shared_out + fused_out
        return ops.toy_op(MOE_OP)(h, logits, self.name)

    def moe(self, hidden_states, router_logits):
        """Behind the op (eager, never traced): route, run the configured MoE implementation,
        and hand back new tensors as vLLM's `forward_impl` does (see moe/contract.py)."""
        topk_idx, topk_weights = route(router_logits, self.top_k)
        routing.note(self.name, topk_idx, router_logits)
        fused = self.impl(hidden_states, topk_idx, topk_weights, self.experts).to(hidden_states.dtype)
        fused = self.contract.emit(self.name + ".fused", fused)
        if not self.shared:
            return fused
        return self.contract.emit(self.name + ".shared", self.experts.shared_mlp(hidden_states)), fused

    def output_keys(self) -> list[str]:
        return [self.name + ".fused"] + ([self.name + ".shared"] if self.shared else [])


class DecoderLayer(torch.nn.Module):
    def __init__(self, cfg: ToyConfig, prefix: str, index: int, g: torch.Generator):
        super().__init__()
        self.inject_sync = cfg.inject_sync and index == 0
        self.norm1 = RMSNorm(cfg.hidden)
        self.attn = Attention(cfg, f"{prefix}.layers.{index}.attn", g)
        self.norm2 = RMSNorm(cfg.hidden)
        self.moe = MoE(cfg, f"{prefix}.layers.{index}.moe", shared=index % 2 == 1, g=g)

    def forward(self, x):
        h = self.norm1(x)
        if self.inject_sync:
            # A data-dependent host read in a region that is captured: Dynamo traces it as a
            # new unbacked symbol, which the static check must flag (control N2).
            h = h * (h.abs().amax().item() * 0.0 + 1.0)
        x = x + self.attn(h)
        return x + self.moe(self.norm2(x))


class ToyMoEModel(torch.nn.Module):
    def __init__(self, cfg: ToyConfig, prefix: str | None = None):
        super().__init__()
        ops.register()
        self.cfg = cfg
        # layer names are baked into the traced graph as strings: a rank that loads a graph
        # traced elsewhere builds its toy under the same prefix
        self.prefix = prefix or f"toy{next(_ids)}"
        g = torch.Generator().manual_seed(cfg.seed)
        self.layers = torch.nn.ModuleList(DecoderLayer(cfg, self.prefix, i, g) for i in range(cfg.layers))
        self.norm = RMSNorm(cfg.hidden)
        self.to(DTYPES[cfg.dtype])

    def forward(self, hidden_states):
        x = hidden_states
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)

    @property
    def dtype(self) -> torch.dtype:
        return DTYPES[self.cfg.dtype]

    def moe_layers(self) -> list[MoE]:
        # a ModuleList types its items as plain Modules; this one holds DecoderLayers only
        return [cast(DecoderLayer, layer).moe for layer in self.layers]

    def set_moe(self, impl, contract: OutputContract | None = None) -> None:
        """Swap what runs behind `moe_forward` (no re-trace needed: the op looks its layer up)."""
        for m in self.moe_layers():
            m.impl = impl
            if contract is not None:
                m.contract = contract

    def inputs(self, n: int, seed: int, device="cpu") -> torch.Tensor:
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, self.cfg.hidden, generator=g).to(device=device, dtype=self.dtype)
