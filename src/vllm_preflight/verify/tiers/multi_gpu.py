"""Tier multi-gpu: one process per GPU (2, 4 or 8), NCCL, real deep_ep (legacy Buffer, HT API)
behind the MoE op, real CUDA graphs around it, every rank in lockstep under the watchdog
(design note §4.5).

UNPROVEN ON HARDWARE: no multi-GPU node with DeepEP was available while this was written; CI runs
this code with CUDA stand-ins only. Checks: C1 (DeepEP dispatch/combine against the dense
reference, receive counts against the all-reduced counts; HT plans only) and C2 (piecewise
CUDA-graph replay == eager, addresses held, in lockstep; for non-HT plans with the capturable
MoE behind the op), plus the controls N0-N2 and N4 (capturing the host-syncing HT MoE on one GPU
fails, in a child process; the emulated HT protocol, since real deep_ep needs all ranks).
"""
from __future__ import annotations

import dataclasses

from vllm_preflight.verify import controls
from vllm_preflight.verify.outcome import FAIL, Check
from vllm_preflight.verify.plan import VerifyPlan, toy_sizes
from vllm_preflight.verify.tiers import TierRun
from vllm_preflight.verify.tiers.common import moe_name, plan_extra, skipped_runtime
from vllm_preflight.verify.tiers.cpu import merge_rank_checks, run_ranks
from vllm_preflight.verify.tiers.gpu import GPU_TOY, SIZE_LIMIT, _cuda_build
from vllm_preflight.verify.workbench import (
    build_bench,
    plan_moe,
    probe_bench,
    set_threads_for_toy,
    split_ops,
    static_report,
)

DEADLINE_S = 900
SUPPORTED_RANKS = (2, 4, 8)  # the legacy intranode kernels are compiled for these only


def _world(options: dict, devices: int) -> int:
    return options.get("world_size") or max((r for r in SUPPORTED_RANKS if r <= devices), default=0)


def requirements(options: dict | None = None) -> list[str]:
    from vllm_preflight.verify.environment import cuda_devices, deep_ep_status, torch_missing

    missing = torch_missing()
    if missing:
        return missing
    count, what = cuda_devices()
    if count < 2:
        missing.append(f"at least 2 CUDA GPUs connected by NVLink (found {count}: {what})")
    world = _world(options or {}, count)
    if count >= 2 and (world not in SUPPORTED_RANKS or world > count):
        missing.append(f"a world size of 2, 4 or 8 GPUs (asked for {world}, have {count})")
    ep = deep_ep_status(import_it=True)
    if not ep["legacy_ht"]:
        missing.append(f"deep_ep with the legacy Buffer high-throughput API ({ep['detail']}); build DeepEP from "
                       "source; the PyPI packages deep-ep and deepinfer-ep are not usable")
    import torch.distributed as dist

    if not dist.is_nccl_available():
        missing.append("NCCL support in torch.distributed")
    return missing


def run(plan: VerifyPlan, reporter, options: dict) -> TierRun:
    from vllm_preflight.verify.tiers.gpu import capture_fails_in_child, cuda_runtime

    cuda, device = cuda_runtime()
    set_threads_for_toy()
    sizes, padded = toy_sizes(plan.capture_sizes, SIZE_LIMIT)
    bench = build_bench(plan, GPU_TOY, max_tokens=max(sizes), run_probe=False)
    world = _world(options, cuda.device_count())
    out = TierRun(device=f"{world}x {cuda.get_device_name(0)}", cuda=_cuda_build())
    out.plan_extra = plan_extra(bench, sizes, padded, "deep_ep (legacy Buffer, high-throughput)"
                                if plan.ht else moe_name(plan_moe(plan, GPU_TOY)))
    reporter.pieces(plan, out.plan_extra)
    probe_bench(bench)
    rep = static_report(bench)
    for c in rep.checks:
        out.checks.append(c)
        reporter.check(c)
    if not plan.piecewise or rep.failed("piecewise"):
        for c in skipped_runtime("piecewise", ["C1", "C2"] if plan.ht else ["C2"]):
            out.checks.append(c)
            reporter.check(c)
    else:
        ids = ["C1", "C2"] if plan.ht else ["C2"]
        job = {
            "backend": "nccl", "moe": "deepep" if plan.ht else "dense", "graphs": "cuda", "ids": ids,
            "protocol": plan.ht,
            "toy": {f.name: getattr(GPU_TOY, f.name) for f in dataclasses.fields(GPU_TOY)} | {"dtype": "bfloat16"},
            "moe_dtype": "bfloat16", "sizes": sizes, "splitting_ops": list(split_ops(plan)),
            "release": plan.vllm_version, "protocol_steps": 5, "replay_steps": 12,
            "collective_timeout_s": 300, "hang_rank": None,
        }
        reporter.step(f"{world} ranks, NCCL, {'deep_ep' if plan.ht else 'capturable MoE'}, CUDA graphs")
        ranks, child = run_ranks(job, world, DEADLINE_S)
        if ranks is None:
            why = "a rank hung (watchdog ended the run)" if child.timed_out else f"ranks exited with {child.returncode}"
            checks = [Check("C2", f"{world} GPU ranks in lockstep", FAIL,
                            why + ": " + child.tail(4).replace("\n", " | "))]
        else:
            checks = merge_rank_checks(ranks, ids, {
                "C1": "deep_ep dispatch/combine == dense reference", "C2": "lockstep CUDA-graph replay == eager"},
                "GPU")
            out.ranks = ranks
        for c in checks:
            out.checks.append(c)
            reporter.check(c)
    sample = bench.model.inputs(4, 99)
    for c in [controls.comparator_self_test(sample.to(device)),
              controls.moe_not_split(bench), controls.host_read_in_captured_region(),
              *controls.plan_controls(bench, sample), capture_fails_in_child()]:
        out.checks.append(c)
        reporter.check(c)
    return out
