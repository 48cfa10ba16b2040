"""DeepEP's high-throughput protocol across real processes with torch.distributed.

Same steps as `ht.HTEmulatedMoE`, but the ranks are processes: the per-rank counts are exchanged
first (DeepEP's notify step) and read on the host, receive buffers are allocated at the received,
data-dependent sizes, tokens travel with uneven `all_to_all_single`, each rank runs its local
experts, and the partial sums travel back and are combined. Works on gloo (CPU) and NCCL (GPU).
"""
from __future__ import annotations

import torch
import torch.distributed as dist

from vllm_preflight.verify.moe.experts import Experts
from vllm_preflight.verify.moe.ht import ProtocolStats, check_contributions, experts_on_rank, get_layout, host_read


def _exchange(send: torch.Tensor, send_counts: list[int], recv_counts: list[int], group) -> torch.Tensor:
    recv = send.new_empty((sum(recv_counts),) + tuple(send.shape[1:]))  # data-dependent size
    dist.all_to_all_single(recv, send.contiguous(), recv_counts, send_counts, group=group)
    return recv


class HTCollectiveMoE:
    capturable = False

    def __init__(self, group=None, stats: ProtocolStats | None = None):
        self.group = group
        self.stats = stats
        self.name = "ht_collective"
        self.last_received = 0

    def __call__(self, x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor,
                 experts: Experts) -> torch.Tensor:
        world, rank = dist.get_world_size(self.group), dist.get_rank(self.group)
        num_experts = experts.num_experts
        per_rank = num_experts // world
        t, h = x.shape
        layout = get_layout(topk_idx, num_experts, world)
        # notify: every rank learns how many tokens it will receive, and per local expert
        counts_out = layout.num_tokens_per_rank.to(torch.int64)
        per_expert_out = layout.num_tokens_per_expert.to(torch.int64).view(world, per_rank)
        counts_in = torch.empty_like(counts_out)
        per_expert_in = torch.empty_like(per_expert_out)
        dist.all_to_all_single(counts_in, counts_out, group=self.group)
        dist.all_to_all_single(per_expert_in, per_expert_out, group=self.group)
        send_counts = host_read(layout.num_tokens_per_rank)
        recv_counts = host_read(counts_in)
        per_expert = host_read(per_expert_in.sum(dim=0))
        # pack rows by destination rank, in rank order
        srcs = [layout.is_token_in_rank[:, d].nonzero().squeeze(1) for d in range(world)]
        order = torch.cat(srcs)
        dest = torch.repeat_interleave(torch.arange(world, device=x.device),
                                       torch.tensor(send_counts, device=x.device))
        sent_idx = topk_idx.index_select(0, order)
        local = sent_idx - (dest * per_rank).unsqueeze(1)
        keep = (sent_idx >= 0) & (local >= 0) & (local < per_rank)
        send_local = torch.where(keep, local, torch.full_like(local, -1))
        recv_x = _exchange(x.index_select(0, order), send_counts, recv_counts, self.group)
        recv_local = _exchange(send_local, send_counts, recv_counts, self.group)
        recv_w = _exchange(topk_weights.index_select(0, order), send_counts, recv_counts, self.group)
        self.last_received = recv_x.shape[0]
        if self.stats is not None:
            self.stats.expect(recv_x.shape[0] == sum(recv_counts),
                              f"rank {rank}: received {recv_x.shape[0]} rows, counted {sum(recv_counts)}")
        partial = experts_on_rank(recv_x, recv_local, recv_w, experts, rank, per_rank, per_expert, self.stats)
        back = _exchange(partial, recv_counts, send_counts, self.group)  # combine: partials go home
        partials = torch.zeros(world, t, h, dtype=torch.float32, device=x.device)
        contributions = torch.zeros(t, dtype=torch.int32, device=x.device)
        offset = 0
        for d in range(world):
            n = send_counts[d]
            partials[d].index_copy_(0, srcs[d], back[offset:offset + n])
            contributions.index_add_(0, srcs[d], torch.ones(n, dtype=torch.int32, device=x.device))
            offset += n
        if self.stats is not None:
            self.stats.calls += 1
            check_contributions(self.stats, contributions, layout)
        return partials.sum(dim=0)
