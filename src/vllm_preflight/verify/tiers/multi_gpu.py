"""Tier multi-gpu: one process per GPU (2, 4 or 8 on one node), NCCL, the plan's MoE dispatch
behind the op (real deep_ep where the plan dispatches through DeepEP), real CUDA graphs around
it, every rank in lockstep under the watchdog (design note §4.5).

UNPROVEN ON HARDWARE: no multi-GPU node with DeepEP was available while this was written; CI runs
this code with CUDA and deep_ep stand-ins only. What each plan gets:

- DeepEP high-throughput (HT with DP > 1 and EP): deep_ep's legacy Buffer is required. C1 checks
  dispatch/combine against the dense reference and the receive counts; C2 the piecewise replay in
  lockstep; N8 captures a FULL graph around real HT dispatch in watched ranks, which must raise
  or hang (ended by the watchdog): that is the run-time proof of V2/VP301.
- DeepEP low-latency: real LL kernels captured in the graphs where deep_ep offers them (C2, and C3
  says so); without deep_ep a dense stand-in runs behind the op and C3 WARNs that LL's
  capturability is assumed, not shown.
- Anything else (no all2all, or another backend): no deep_ep needed; the dense MoE runs behind
  the op (C2).
- C0 (info) states the coverage: one node, world 2/4/8; a deployment wider than one node
  (internode DeepEP over RDMA/NVSHMEM, multi-node NCCL) is not covered.
"""
from __future__ import annotations

import dataclasses
import json

from vllm_preflight.capture.plan import VerifyPlan, toy_sizes
from vllm_preflight.verify import controls
from vllm_preflight.verify.outcome import CAUGHT, FAIL, INFO, PASS, WARN, Check
from vllm_preflight.verify.tiers import TierRun
from vllm_preflight.verify.tiers.common import moe_name, node_split_checks, plan_extra, skipped_runtime
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

DEADLINE_S = 600
N8_DEADLINE_S = 60  # DeepEP's host wait gives up after 100 s; the watchdog ends it sooner
SUPPORTED_RANKS = (2, 4, 8)  # the legacy intranode kernels are compiled for these only
ONE_NODE = 8
LL_BACKEND = "deepep_low_latency"


def dispatch_kind(plan: VerifyPlan | None) -> str:
    """How the plan's MoE tokens travel: "deepep_ht", "deepep_ll" or "none" (no DeepEP)."""
    if plan is None or plan.ht:
        return "deepep_ht"
    if plan.all2all_backend == LL_BACKEND and plan.data_parallel_size > 1 and plan.expert_parallel:
        return "deepep_ll"
    return "none"


def _world(options: dict, devices: int) -> int:
    return options.get("world_size") or max((r for r in SUPPORTED_RANKS if r <= devices), default=0)


def requirements(options: dict | None = None) -> list[str]:
    """What this plan needs here: 2+ GPUs, NCCL, and deep_ep's legacy HT API only for HT plans."""
    from vllm_preflight.verify.environment import cuda_devices, deep_ep_status, torch_missing

    options = options or {}
    missing = torch_missing()
    if missing:
        return missing
    count, what = cuda_devices()
    if count < 2:
        missing.append(f"at least 2 CUDA GPUs connected by NVLink (found {count}: {what})")
    world = _world(options, count)
    if count >= 2 and (world not in SUPPORTED_RANKS or world > count):
        missing.append(f"a world size of 2, 4 or 8 GPUs (asked for {world}, have {count})")
    if dispatch_kind(options.get("plan")) == "deepep_ht":
        ep = deep_ep_status(import_it=True)
        if not ep["legacy_ht"]:
            missing.append(f"deep_ep with the legacy Buffer high-throughput API ({ep['detail']}); build DeepEP "
                           "from source; the PyPI packages deep-ep and deepinfer-ep are not usable")
    import torch.distributed as dist

    if not dist.is_nccl_available():
        missing.append("NCCL support in torch.distributed")
    return missing


def coverage_check(plan: VerifyPlan, world: int) -> Check:
    """C0 (info): what the ranks cover, and that nothing beyond one node is."""
    ranks = plan.data_parallel_size
    detail = f"{world} GPU ranks on this node, NCCL over NVLink/PCIe"
    if ranks > ONE_NODE:
        detail += (f"; the deployment has data_parallel_size {ranks}, more than one node: internode DeepEP "
                   "(RDMA, NVSHMEM) and multi-node NCCL are NOT covered by verify")
    else:
        detail += "; deployments wider than one node (internode DeepEP, multi-node NCCL) are not covered by verify"
    return Check("C0", "coverage: one node", INFO, detail, {"world": world, "deployment_ranks": ranks})


def _ll_available() -> bool:
    try:
        import deep_ep
    except Exception:  # noqa: BLE001 - its import initialises CUDA and may fail in any way: not available
        return False
    from vllm_preflight.verify.moe.deepep import has_low_latency

    return has_low_latency(deep_ep)


def rank_moe(kind: str) -> str:
    """What the ranks run behind the op for a dispatch kind."""
    if kind == "deepep_ht":
        return "deepep"
    if kind == "deepep_ll" and _ll_available():
        return "deepep_ll"
    return "dense"


def ll_check(kind: str, moe: str, c2: list[Check]) -> list[Check]:
    """C3: DeepEP low-latency captured in the graphs, shown (real LL kernels in C2) or not."""
    if kind != "deepep_ll":
        return []
    if moe != "deepep_ll":
        return [Check("C3", "DeepEP low-latency kernels captured in the graphs", WARN,
                      "not shown here: deep_ep with the low-latency API is not installed, so a dense stand-in ran "
                      "behind the op; that DeepEP LL is capturable is assumed (DeepEP documents it), not proven")]
    ok = bool(c2) and not any(c.failed for c in c2)
    return [Check("C3", "DeepEP low-latency kernels captured in the graphs", PASS if ok else FAIL,
                  "real low_latency_dispatch/combine inside the captured graphs replayed == eager on every rank"
                  if ok else "the lockstep replay with real LL kernels failed (see C2)")]


def drill_outcomes(output: str) -> list[dict]:
    from vllm_preflight.verify.dist_worker import DRILL_TAG

    found = []
    for line in output.splitlines():
        at = line.find(DRILL_TAG)
        if at >= 0:
            try:
                found.append(json.loads(line[at + len(DRILL_TAG):]))
            except json.JSONDecodeError:
                continue
    return found


def n8_check(child, world: int) -> Check:
    """N8 proves, at run time, what V2 and check's VP301 say: a FULL graph around real DeepEP HT
    cannot work. Caught when every rank's capture raised, or the ranks hung and the watchdog
    ended them; NOT CAUGHT when any rank captured and replayed."""
    outcomes = drill_outcomes(child.output)
    captured = [o for o in outcomes if o.get("outcome") == "captured"]
    raised = [o for o in outcomes if o.get("outcome") == "raised"]
    if captured:
        caught, detail = False, (f"rank {captured[0]['rank']} captured and replayed a FULL graph around DeepEP HT "
                                 "dispatch: the host wait did not stop it")
    elif child.timed_out:
        caught, detail = True, (f"the capture hung on {world - len(raised)} rank(s) (DeepEP's host wait on the receive "
                                f"counts) and the watchdog ended it after {child.seconds:.0f}s"
                                + (f"; {len(raised)} rank(s) raised: {raised[0]['error']}" if raised else ""))
    elif len(raised) == world:
        caught, detail = True, f"every rank's capture raised: {raised[0]['error']}"
    else:
        caught, detail = False, (f"no rank reported (exit {child.returncode}): "
                                 + child.tail(3).replace("\n", " | "))
    return Check("N8", "FULL graph around real DeepEP HT fails at run time", CAUGHT if caught else FAIL,
                 detail if caught else "NOT CAUGHT: " + detail, {"timed_out": bool(child.timed_out),
                                                                 "raised": len(raised), "captured": len(captured)})


def full_graph_around_ht(world: int, toy: dict) -> Check:
    job = {"backend": "nccl", "moe": "deepep", "graphs": "cuda", "ids": ["N8"], "drill": "full_ht",
           "toy": toy, "moe_dtype": "bfloat16", "sizes": [8], "splitting_ops": [], "release": "",
           "protocol_steps": 0, "replay_steps": 0, "collective_timeout_s": N8_DEADLINE_S, "hang_rank": None}
    _, child = run_ranks(job, world, N8_DEADLINE_S)
    return n8_check(child, world)


def run(plan: VerifyPlan, reporter, options: dict) -> TierRun:
    from vllm_preflight.verify.tiers.gpu import capture_fails_in_child, cuda_runtime

    cuda, device = cuda_runtime()
    set_threads_for_toy()
    sizes, padded = toy_sizes(plan.capture_sizes, SIZE_LIMIT)
    bench = build_bench(plan, GPU_TOY, max_tokens=max(sizes), run_probe=False)
    world = _world(options, cuda.device_count())
    kind = dispatch_kind(plan)
    moe = rank_moe(kind)
    out = TierRun(device=f"{world}x {cuda.get_device_name(0)}", cuda=_cuda_build())
    names = {"deepep": "deep_ep (legacy Buffer, high-throughput)", "deepep_ll": "deep_ep (legacy Buffer, low-latency)"}
    out.plan_extra = plan_extra(bench, sizes, padded, names.get(moe) or moe_name(plan_moe(plan, GPU_TOY)))
    reporter.pieces(plan, out.plan_extra)
    probe_bench(bench)
    rep = static_report(bench)

    def add(checks):
        for c in checks:
            out.checks.append(c)
            reporter.check(c)

    add([coverage_check(plan, world)] + rep.checks + node_split_checks(bench, options))
    kinds = [g for g in plan.graph_kinds if not rep.failed(g)]
    ids = ["C1", "C2"] if kind == "deepep_ht" else ["C2"]
    for g in plan.graph_kinds:
        if g not in kinds:
            add(skipped_runtime(g, ids))
    c2: list[Check] = []
    if kinds:
        toy = {f.name: getattr(GPU_TOY, f.name) for f in dataclasses.fields(GPU_TOY)} | {"dtype": "bfloat16"}
        job = {
            "backend": "nccl", "moe": moe, "graphs": "cuda", "ids": ids, "protocol": kind == "deepep_ht",
            "graph_kinds": kinds, "toy": toy, "moe_dtype": "bfloat16", "sizes": sizes,
            "splitting_ops": list(split_ops(plan)), "release": plan.vllm_version, "protocol_steps": 5,
            "replay_steps": 12, "collective_timeout_s": 300, "hang_rank": None,
        }
        reporter.step(f"{world} ranks, NCCL, {names.get(moe, 'dense MoE')}, CUDA graphs ({', '.join(kinds)})")
        ranks, child = run_ranks(job, world, DEADLINE_S)
        if ranks is None:
            why = "a rank hung (watchdog ended the run)" if child.timed_out else f"ranks exited with {child.returncode}"
            checks = [Check("C2", f"{world} GPU ranks in lockstep", FAIL, why + ": " + child.tail(4).replace("\n", " | "))]
        else:
            checks = merge_rank_checks(ranks, ids, {
                "C1": "deep_ep dispatch/combine == dense reference", "C2": "lockstep CUDA-graph replay == eager"},
                "GPU", graphs=("piecewise", "full"))
            out.ranks = ranks
        c2 = [c for c in checks if c.id == "C2"]
        add(checks)
    add(ll_check(kind, moe, c2))
    sample = bench.model.inputs(4, 99)
    add([controls.comparator_self_test(sample.to(device)), controls.moe_not_split(bench),
         controls.host_read_in_captured_region(), *controls.plan_controls(bench, sample), capture_fails_in_child()])
    if kind == "deepep_ht":
        reporter.step(f"N8: a FULL graph around real DeepEP HT on {world} ranks (watchdog {N8_DEADLINE_S}s)")
        add([full_graph_around_ht(world, {f.name: getattr(GPU_TOY, f.name) for f in dataclasses.fields(GPU_TOY)})])
    return out
