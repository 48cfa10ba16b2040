"""Hazards about which CUDA graphs are captured (VP301-VP304)."""
from __future__ import annotations

from vllm_preflight.hazards.context import Context, Fix
from vllm_preflight.hazards.registry import hazard

HT = "deepep_high_throughput"
GRAPH_SETTINGS = ("cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "splitting_ops",
                  "use_inductor_graph_partition")


def captured_around_ht(ctx: Context) -> list[str]:
    """How a captured CUDA graph would hold the DeepEP high-throughput dispatch: the same
    reading of the resolved settings as `verify`'s plan and its V2 check (one story)."""
    from vllm_preflight.capture.opnames import MOE_OPS, unsplit
    from vllm_preflight.capture.plan import PlanProblem, plan_from_resolved

    resolved = dict(ctx.started_configs())
    resolved["compilation_config"] = dict(ctx.cc, cudagraph_mode=ctx.cudagraph_mode())
    try:
        plan = plan_from_resolved(resolved, ctx.result.vllm_version)
    except PlanProblem:
        return []
    if not plan.ht or plan.nothing_captured:
        return []
    problems = []
    if plan.full:
        problems.append(f"cudagraph_mode {plan.cudagraph_mode} captures a FULL graph around the whole forward "
                        f"({'every batch' if plan.full == 'all' else 'decode batches'}), the DeepEP "
                        "high-throughput dispatch included")
    if plan.piecewise:
        missing = unsplit(MOE_OPS, plan.splitting_ops, plan.name_matching)
        if missing:
            problems.append("the MoE ops are not split out (splitting_ops lack "
                            + ", ".join(f"vllm::{m}" for m in missing) + "), so piecewise graphs capture them")
    return problems


@hazard("VP301")
def ht_dispatch_in_graph(ctx: Context):
    if ctx.resolved is None:
        return
    problems = captured_around_ht(ctx)
    if not problems:
        return
    fixes = [Fix("add `-cc.cudagraph_mode=PIECEWISE` (the MoE ops run eagerly between captured pieces)",
                 ("-cc.cudagraph_mode=PIECEWISE",))]
    if not ctx.role.prefill_only:  # a prefill pool keeps its high-throughput kernels
        fixes.append(Fix("use `--all2all-backend deepep_low_latency` for decode (its kernels are CUDA-graph safe)",
                         ("--all2all-backend", "deepep_low_latency"), (("VLLM_ALL2ALL_BACKEND", None),)))
    yield ctx.finding("VP301", "; ".join(problems) + ": DeepEP's high-throughput dispatch waits on the host "
                      "for the receive counts, which cannot complete under CUDA-graph capture or replay (a hang, "
                      "'CPU recv timeout', or a crash on the node). `vllm-preflight verify` fails this config."
                      + ctx.checked_fix("VP301", fixes), "all2all_backend")


@hazard("VP302")
def ht_turns_graphs_off(ctx: Context):
    if ctx.resolved is None or "deepep_ht.disable_cudagraphs" not in ctx.rules_fired():
        return
    role = ctx.role
    head = (f"vLLM {ctx.result.vllm_version} turns CUDA graphs off (cudagraph_mode NONE) for DeepEP high-throughput "
            "all2all with data parallel > 1")
    if role.prefill_only:
        # the split vLLM's own log line recommends: high-throughput kernels for prefill, where batches
        # are large and CUDA graphs matter little; no decode kernel is suggested to a prefill pool
        yield ctx.finding("VP302", f"{head}; this server is a prefill pool ({role.source}), where that is the "
                          "intended setup: prefill batches are large and gain little from CUDA graphs, and "
                          "DeepEP's high-throughput kernels are the ones for prefill.", "all2all_backend",
                          severity="info")
        return
    fixes = [Fix("`--all2all-backend deepep_low_latency` for a decode pool (keeps CUDA graphs)",
                 ("--all2all-backend", "deepep_low_latency"), (("VLLM_ALL2ALL_BACKEND", None),)),
             Fix("`--all2all-backend allgather_reducescatter`",
                 ("--all2all-backend", "allgather_reducescatter"), (("VLLM_ALL2ALL_BACKEND", None),))]
    serves = "this decode pool" if role.decode_only else "every decode step"
    yield ctx.finding("VP302", f"{head}: {serves} runs eagerly. The PR #29558 design (`--target pr29558`) would "
                      "split the MoE ops out of piecewise graphs instead. A prefill-only server is fine this way "
                      "(say so with `--role prefill`, an `llm-d.ai/role: prefill` label or kv_role kv_producer)."
                      + ctx.checked_fix("VP302", fixes), "all2all_backend")


@hazard("VP303")
def capture_sizes_unused(ctx: Context):
    if ctx.resolved is None or ctx.cudagraph_mode() != "NONE":
        return
    listed = [s for s in ("cudagraph_capture_sizes", "max_cudagraph_capture_size") if s in ctx.written]
    if not listed:
        return
    yield ctx.finding("VP303", f"{' and '.join(listed)} written, but cudagraph_mode resolves to NONE: "
                      "nothing is captured, so the sizes have no effect", listed[0])


@hazard("VP304")
def enforce_eager_moots(ctx: Context):
    eager = ctx.written.get("enforce_eager")
    if eager is None or eager.value in (False, "false", "False") or ctx.result.vllm_error is not None:
        return
    moot = [s for s in GRAPH_SETTINGS if s in ctx.written]
    if not moot:
        return
    yield ctx.finding("VP304", f"--enforce-eager makes {', '.join(moot)} moot: vLLM runs every step eagerly "
                      "and captures no CUDA graph", moot[0])
