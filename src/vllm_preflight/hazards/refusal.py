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
