"""Routing, expert weights and the dense reference MoE.

Reductions are deterministic on purpose ([T, K, H] slots summed over K, never `index_add_`
atomics), so that bitwise comparisons between eager and graph runs stay meaningful.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


class Experts(torch.nn.Module):
    """E gated MLP experts (w1: [E, H, F], w2: [E, F, H]) and an optional shared expert."""

    def __init__(self, hidden: int, ffn: int, num_experts: int, shared: bool, generator: torch.Generator):
        super().__init__()
        self.num_experts = num_experts
        self.w1 = torch.nn.Parameter(torch.randn(num_experts, hidden, ffn, generator=generator) / hidden ** 0.5,
                                     requires_grad=False)
        self.w2 = torch.nn.Parameter(torch.randn(num_experts, ffn, hidden, generator=generator) / ffn ** 0.5,
                                     requires_grad=False)
        self.shared_w1 = self.shared_w2 = None
        if shared:
            self.shared_w1 = torch.nn.Parameter(torch.randn(hidden, ffn, generator=generator) / hidden ** 0.5,
                                                requires_grad=False)
            self.shared_w2 = torch.nn.Parameter(torch.randn(ffn, hidden, generator=generator) / ffn ** 0.5,
                                                requires_grad=False)

    def mlp(self, x: torch.Tensor, expert: int) -> torch.Tensor:
        return F.silu(x @ self.w1[expert]) @ self.w2[expert]

    def shared_mlp(self, x: torch.Tensor) -> torch.Tensor:
        if self.shared_w1 is None or self.shared_w2 is None:
            raise RuntimeError("these experts were built without a shared expert")
        return F.silu(x @ self.shared_w1) @ self.shared_w2


def route(router_logits: torch.Tensor, top_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax top-k with renormalised weights: (topk_idx int64 [T, K], topk_weights fp32 [T, K])."""
    probs = torch.softmax(router_logits.float(), dim=-1)
    weights, idx = torch.topk(probs, top_k, dim=-1)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return idx.to(torch.int64), weights


def dense_moe(x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor, experts: Experts) -> torch.Tensor:
    """Reference: every expert on every token, then the routed slots picked and summed (fp32 [T, H]).
    Static shapes throughout, so it is what a capturable all2all (or no all2all) amounts to."""
    t, h = x.shape
    every = torch.stack([experts.mlp(x, e) for e in range(experts.num_experts)], dim=1)  # [T, E, H]
    picked = torch.gather(every, 1, topk_idx.clamp(min=0).unsqueeze(-1).expand(t, topk_idx.shape[1], h))
    slots = picked.float() * topk_weights.unsqueeze(-1) * (topk_idx >= 0).unsqueeze(-1)
    return slots.sum(dim=1)


class DenseMoE:
    name = "dense"
    capturable = True

    def __call__(self, x, topk_idx, topk_weights, experts):
        return dense_moe(x, topk_idx, topk_weights, experts)
