"""DeepEP's high-throughput ("normal") protocol, ported as behaviour, and its in-process emulation.

The order is DeepEP's: layout (a GPU kernel) -> the receive counts are read on the host (DeepEP's
CPU spins on host-mapped counters written by `notify_dispatch`) -> receive buffers are allocated
at the counted, data-dependent size -> local experts -> combine (each token gets one partial sum
from every rank it was sent to). The host read and the data-dependent sizes are exactly what a
CUDA graph cannot hold: under stream capture the read raises, and a graph would freeze one size.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from vllm_preflight.verify.moe.experts import Experts


@dataclass
class Layout:
    num_tokens_per_rank: torch.Tensor    # [R] int32
    num_tokens_per_expert: torch.Tensor  # [E] int32
    is_token_in_rank: torch.Tensor       # [T, R] bool


@dataclass
class ProtocolStats:
    """Invariants DeepEP's own tests assert, counted over every call (design note §1.3)."""

    calls: int = 0
    violations: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        if not ok and len(self.violations) < 20:
            self.violations.append(what)


def get_layout(topk_idx: torch.Tensor, num_experts: int, num_ranks: int) -> Layout:
    t, _ = topk_idx.shape
    per_rank = num_experts // num_ranks
    valid = topk_idx >= 0
    rank_of = torch.where(valid, topk_idx // per_rank, torch.full_like(topk_idx, num_ranks))
    in_rank = torch.zeros(t, num_ranks + 1, dtype=torch.bool, device=topk_idx.device)
    in_rank.scatter_(1, rank_of, True)  # column R collects the -1 slots and is dropped
    in_rank = in_rank[:, :num_ranks]
    per_expert = torch.zeros(num_experts, dtype=torch.int32, device=topk_idx.device)
    per_expert.scatter_add_(0, topk_idx.clamp(min=0).reshape(-1), valid.reshape(-1).to(torch.int32))
    return Layout(in_rank.sum(dim=0).to(torch.int32), per_expert, in_rank)


def host_read(counts: torch.Tensor) -> list[int]:
    """The host synchronisation: one scalar read per count, as DeepEP's CPU reads its counters.
    (Element reads dispatch `aten._local_scalar_dense`, which the sync probe and CUDA stream
    capture both see; `tolist()` would bypass the dispatcher on CPU.)"""
    return [int(counts[i].item()) for i in range(counts.numel())]


def local_ids(topk_idx: torch.Tensor, rank: int, per_rank: int) -> torch.Tensor:
    """Global expert ids -> this rank's local ids, -1 for experts on other ranks (DeepEP's recv_topk_idx)."""
    local = topk_idx - rank * per_rank
    keep = (topk_idx >= 0) & (local >= 0) & (local < per_rank)
    return torch.where(keep, local, torch.full_like(local, -1))


def experts_on_rank(recv_x: torch.Tensor, recv_local: torch.Tensor, recv_weights: torch.Tensor,
                    experts: Experts, rank: int, per_rank: int, per_expert_counts: list[int],
                    stats: ProtocolStats | None) -> torch.Tensor:
    """This rank's weighted partial sum per received token (fp32 [n, H]), expert by expert with
    the host-side per-expert counts sizing each GEMM, as vLLM's HT experts do."""
    n, k = recv_local.shape
    slots = torch.zeros(n, k, recv_x.shape[1], dtype=torch.float32, device=recv_x.device)
    for e in range(per_rank):
        rows, which = (recv_local == e).nonzero(as_tuple=True)
        if stats is not None:
            stats.expect(rows.numel() == per_expert_counts[e],
                         f"rank {rank} expert {e}: {rows.numel()} routed slots, host list says {per_expert_counts[e]}")
        if rows.numel() == 0:
            continue
        y = experts.mlp(recv_x.index_select(0, rows), rank * per_rank + e).float()
        slots[rows, which] = y * recv_weights[rows, which].unsqueeze(-1)
    return slots.sum(dim=1)


def check_contributions(stats: ProtocolStats, contributions: torch.Tensor, layout: Layout) -> None:
    """Combine invariant: each token gets one partial sum per distinct rank it was sent to."""
    want = layout.is_token_in_rank.sum(dim=1).to(torch.int32)
    bad = int((contributions != want).sum().item())
    stats.expect(bad == 0, f"{bad} tokens got a partial-sum count different from their number of destination ranks")


class HTEmulatedMoE:
    """R virtual ranks in one process: this process's tokens are dispatched to all of them."""

    capturable = False

    def __init__(self, num_ranks: int, stats: ProtocolStats | None = None):
        self.num_ranks = num_ranks
        self.stats = stats
        self.name = f"ht_emulated(R={num_ranks})"

    def __call__(self, x, topk_idx, topk_weights, experts):
        r_total, num_experts = self.num_ranks, experts.num_experts
        per_rank = num_experts // r_total
        t, h = x.shape
        layout = get_layout(topk_idx, num_experts, r_total)
        counts = host_read(layout.num_tokens_per_rank)
        per_expert = host_read(layout.num_tokens_per_expert)
        partials = torch.zeros(r_total, t, h, dtype=torch.float32, device=x.device)
        contributions = torch.zeros(t, dtype=torch.int32, device=x.device)
        for r in range(r_total):
            src = layout.is_token_in_rank[:, r].nonzero().squeeze(1)
            recv_x = torch.empty(counts[r], h, dtype=x.dtype, device=x.device)  # data-dependent size
            recv_x.copy_(x.index_select(0, src))
            if self.stats is not None:
                self.stats.expect(src.numel() == counts[r], f"rank {r}: received {src.numel()}, counted {counts[r]}")
            partial = experts_on_rank(recv_x, local_ids(topk_idx.index_select(0, src), r, per_rank),
                                      topk_weights.index_select(0, src), experts, r, per_rank,
                                      per_expert[r * per_rank:(r + 1) * per_rank], self.stats)
            partials[r].index_copy_(0, src, partial)
            contributions.index_add_(0, src, torch.ones_like(src, dtype=torch.int32))
        if self.stats is not None:
            self.stats.calls += 1
            check_contributions(self.stats, contributions, layout)
        return partials.sum(dim=0)
