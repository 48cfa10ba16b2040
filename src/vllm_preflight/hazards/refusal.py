"""VP300: vLLM would refuse to start — an error finding, so every reporter and exit code sees it."""
from __future__ import annotations

from vllm_preflight.hazards.context import Context
from vllm_preflight.hazards.registry import hazard


@hazard("VP300")
def refuses(ctx: Context):
    err = ctx.result.vllm_error
    if err is None:
        return
    first = (err.message or "").strip().splitlines()
    detail = " ".join(line.strip() for line in first[:3])
    yield ctx.finding("VP300", f"vLLM {ctx.result.vllm_version} would refuse to start: {err.type}: {detail}")


@hazard("VP312")
def runtime_refuses(ctx: Context):
    runtime = (ctx.resolved or {}).get("runtime") or {}
    err = runtime.get("error")
    if not err:
        return
    text = f"{err.get('type')}: {err.get('message')}" if isinstance(err, dict) else str(err)
    yield ctx.finding("VP312", f"vLLM {ctx.result.vllm_version} starts building the engine, then its model runner "
                      f"refuses at KV-cache initialisation, after the weights load: {text}", "cudagraph_mode")


@hazard("VP313")
def scheduler_refuses(ctx: Context):
    err = ((ctx.resolved or {}).get("runtime") or {}).get("scheduler_error")
    if not err:
        return
    yield ctx.finding("VP313", f"vLLM {ctx.result.vllm_version} builds the engine, then its scheduler refuses the "
                      f"dynamic speculative-decoding schedule, after the weights load: {err['type']}: "
                      f"{err['message']}", "speculative_config")
