"""The tiers: `cpu` (emulated graphs, gloo ranks), `gpu` (real CUDA graphs on one GPU),
`multi-gpu` (one process per GPU, NCCL and real deep_ep). Each exposes `requirements()` (what it needs,
checked before anything runs: missing -> exit 3) and `run(plan, reporter) -> TierRun`."""
from __future__ import annotations

from dataclasses import dataclass, field

from vllm_preflight.verify.outcome import Check


@dataclass
class TierRun:
    checks: list[Check] = field(default_factory=list)
    plan_extra: dict = field(default_factory=dict)   # pieces, verified sizes, MoE implementation
    timings: list[dict] = field(default_factory=list)
    ranks: list[dict] = field(default_factory=list)
    device: str = "cpu"
    cuda: str | None = None   # the CUDA version torch was built with, where a GPU ran


TIER_MODULES = {"cpu": "vllm_preflight.verify.tiers.cpu", "gpu": "vllm_preflight.verify.tiers.gpu",
                "multi-gpu": "vllm_preflight.verify.tiers.multi_gpu"}
