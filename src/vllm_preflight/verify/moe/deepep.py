"""Real DeepEP (legacy `deep_ep.Buffer`) behind the toy's MoE op.

High-throughput, in vLLM's order: layout -> dispatch (async_finish=False) -> local experts on the
received tokens (recv_topk_idx holds local ids, -1 for other ranks) -> combine. Low-latency:
`low_latency_dispatch` into the fixed-shape receive buffer [E_local, max_tokens * R, H] (bf16,
no host read), every local expert on its whole slab (static shapes; rows past `recv_count` are
never combined), `low_latency_combine` (DeepEP weighs and reduces the top-k slots itself).
Needs 2, 4 or 8 GPUs with NVLink (LL: NVSHMEM too); untested on hardware here (no such node
was available), see the multi-gpu tier.
"""
from __future__ import annotations

import inspect

import torch

from vllm_preflight.verify.moe.experts import Experts
from vllm_preflight.verify.moe.ht import ProtocolStats, experts_on_rank


def make_buffer(cpu_group, cfg, world: int):
    """Built before any capture (construction synchronises the device and exchanges IPC handles)."""
    import deep_ep

    hidden_bytes = cfg.hidden * 2  # bf16 tokens
    nvl = max(deep_ep.Buffer.get_dispatch_config(world).get_nvl_buffer_size_hint(hidden_bytes, world),
              deep_ep.Buffer.get_combine_config(world).get_nvl_buffer_size_hint(hidden_bytes, world))
    return _buffer(deep_ep, cpu_group, num_nvl_bytes=nvl, num_rdma_bytes=0, low_latency_mode=False,
                   num_qps_per_rank=1)


def _buffer(deep_ep, cpu_group, **kwargs):
    """A Buffer with `explicitly_destroy` where this deep_ep has it (avoids destructor hangs;
    callers destroy() in a finally), else a no-op destroy()."""
    explicit = "explicitly_destroy" in inspect.signature(deep_ep.Buffer.__init__).parameters
    buffer = deep_ep.Buffer(cpu_group, **kwargs, **({"explicitly_destroy": True} if explicit else {}))
    if not explicit:
        buffer.destroy = lambda: None
    return buffer


class DeepEPMoE:
    capturable = False

    def __init__(self, buffer, stats: ProtocolStats | None = None):
        self.buffer = buffer
        self.stats = stats
        self.name = "deep_ep (legacy Buffer, high-throughput)"
        self.last_received = 0

    def __call__(self, x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor,
                 experts: Experts) -> torch.Tensor:
        buf = self.buffer
        num_experts = experts.num_experts
        per_rank = num_experts // buf.group_size
        per_rank_count, per_rdma, per_expert, in_rank, _ = buf.get_dispatch_layout(topk_idx, num_experts)
        recv_x, recv_idx, recv_w, per_expert_list, handle, _ = buf.dispatch(
            x.to(torch.bfloat16), num_tokens_per_rank=per_rank_count, num_tokens_per_rdma_rank=per_rdma,
            is_token_in_rank=in_rank, num_tokens_per_expert=per_expert, topk_idx=topk_idx,
            topk_weights=topk_weights.float(), async_finish=False)
        self.last_received = recv_x.shape[0]
        partial = experts_on_rank(recv_x.to(x.dtype), recv_idx, recv_w, experts, buf.rank, per_rank,
                                  list(per_expert_list), self.stats)
        combined, _, _ = buf.combine(partial.to(torch.bfloat16), handle)
        if self.stats is not None:
            self.stats.calls += 1
        return combined.float()


def has_low_latency(deep_ep_module) -> bool:
    buffer = getattr(deep_ep_module, "Buffer", None)
    return buffer is not None and all(hasattr(buffer, a) for a in
                                      ("low_latency_dispatch", "low_latency_combine", "get_low_latency_rdma_size_hint"))


def make_ll_buffer(cpu_group, cfg, world: int, max_tokens: int):
    """A low-latency Buffer sized by DeepEP's own hint; one QP per local expert (DeepEP's rule)."""
    import deep_ep

    rdma = deep_ep.Buffer.get_low_latency_rdma_size_hint(max_tokens, cfg.hidden, world, cfg.experts)
    return _buffer(deep_ep, cpu_group, num_nvl_bytes=0, num_rdma_bytes=rdma, low_latency_mode=True,
                   num_qps_per_rank=cfg.experts // world)


class DeepEPLowLatencyMoE:
    """DeepEP's low-latency kernels: static shapes, no host read, so capturable (DeepEP says so;
    the multi-gpu tier's C2 is what shows it on the node)."""

    capturable = True

    def __init__(self, buffer, max_tokens: int, stats: ProtocolStats | None = None):
        self.buffer, self.max_tokens, self.stats = buffer, max_tokens, stats
        self.name = "deep_ep (legacy Buffer, low-latency)"
        self.last_received = 0

    def __call__(self, x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor,
                 experts: Experts) -> torch.Tensor:
        buf = self.buffer
        num_experts = experts.num_experts
        per_rank = num_experts // buf.group_size
        recv_x, _, handle, _, _ = buf.low_latency_dispatch(
            x.to(torch.bfloat16), topk_idx, self.max_tokens, num_experts, use_fp8=False,
            async_finish=False, return_recv_hook=False)
        slabs = torch.stack([experts.mlp(recv_x[e].to(x.dtype), buf.rank * per_rank + e)
                             for e in range(per_rank)]).to(torch.bfloat16)
        combined, _, _ = buf.low_latency_combine(slabs, topk_idx, topk_weights.float(), handle,
                                                 async_finish=False, return_recv_hook=False)
        if self.stats is not None:
            self.stats.calls += 1
        return combined.float()
