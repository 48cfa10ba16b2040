"""Everything the tiers share: the toy built for a plan, traced once, probed and split, and the
static checks run on it (design note §4.1-4.2). Static analysis always runs on CPU."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from vllm_preflight.capture.plan import VerifyPlan
from vllm_preflight.verify.moe.experts import DenseMoE
from vllm_preflight.verify.moe.ht import HTEmulatedMoE, ProtocolStats
from vllm_preflight.verify.outcome import SKIP, Check
from vllm_preflight.verify.probe import OpBehaviour, probe
from vllm_preflight.verify.split import SplitGraph, split
from vllm_preflight.verify.static_checks import StaticReport, check_graph, check_ht_full, check_names
from vllm_preflight.verify.toy import ToyConfig, ToyMoEModel
from vllm_preflight.verify.trace import Traced, trace

CPU_TOY = ToyConfig(hidden=64, ffn=64, experts=8, top_k=2, layers=2)
PROBE_TOKENS = 8


def virtual_ranks(data_parallel_size: int, experts: int) -> int:
    """Ranks the in-process HT emulation spreads the experts over (DeepEP runs 2, 4 or 8 per node)."""
    return next(r for r in (8, 4, 2, 1) if r <= max(1, data_parallel_size) and experts % r == 0)


def plan_moe(plan: VerifyPlan, cfg: ToyConfig, stats: ProtocolStats | None = None):
    """What runs behind `moe_forward` for this plan: the HT protocol, or a capturable MoE
    (static shapes: what a capturable all2all, or no all2all at all, amounts to)."""
    if plan.ht:
        return HTEmulatedMoE(virtual_ranks(plan.data_parallel_size, cfg.experts), stats)
    return DenseMoE()


@dataclass
class Bench:
    plan: VerifyPlan
    cfg: ToyConfig
    model: ToyMoEModel
    traced: Traced
    sg: SplitGraph
    behaviour: dict[str, OpBehaviour]
    max_tokens: int


def build_model(cfg: ToyConfig, max_tokens: int, device="cpu") -> tuple[ToyMoEModel, Traced]:
    model = ToyMoEModel(cfg).to(device)
    model.set_moe(DenseMoE())  # tracing runs the graph once; keep that local and cheap
    return model, trace(model, model.inputs(PROBE_TOKENS, 0, device))


def split_ops(plan: VerifyPlan) -> tuple[str, ...]:
    # Outside VLLM_COMPILE nothing is split: a FULL graph wraps the whole eager forward.
    return plan.splitting_ops if plan.compile_mode == "VLLM_COMPILE" else ()


def build_bench(plan: VerifyPlan, cfg: ToyConfig = CPU_TOY, max_tokens: int = 64, *, run_probe: bool = True) -> Bench:
    """Trace and split (and, unless deferred so that the plan can be printed first, probe)."""
    model, traced = build_model(cfg, max_tokens)
    model.set_moe(plan_moe(plan, cfg))
    sg = split(traced, split_ops(plan), plan.vllm_version)
    bench = Bench(plan, cfg, model, traced, sg, {}, max_tokens)
    if run_probe:
        probe_bench(bench)
    return bench


def probe_bench(bench: Bench) -> None:
    """Run the opaque ops to see what they do inside (the only part of the analysis that runs)."""
    bench.behaviour = probe(bench.traced, [bench.model.inputs(PROBE_TOKENS, s) for s in range(4)])


def static_report(bench: Bench) -> StaticReport:
    plan = bench.plan
    rep = StaticReport()
    if plan.compile_mode == "VLLM_COMPILE":
        rep.checks.append(check_names(bench.sg, plan))
    else:
        rep.checks.append(Check("V1", "splitting op names resolve", SKIP,
                                f"compile mode {plan.compile_mode}: nothing is split"))
    rep.checks.append(check_ht_full(plan))
    kinds = bench.traced.placeholder_kinds()
    for graph in plan.graph_kinds:
        part = check_graph(graph, bench.sg, bench.behaviour, kinds)
        rep.checks += part.checks
        rep.findings += part.findings
        rep.inputs += part.inputs
    return rep


def set_threads_for_toy() -> None:
    """The toy's matmuls are tiny: thread-pool wake-ups cost 100x the work on CPU."""
    torch.set_num_threads(1)
