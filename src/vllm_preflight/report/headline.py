"""One-line outcome of a resolution, in the words a deployer needs."""
from __future__ import annotations

from vllm_preflight.resolve.vllm_config.steps import MOE_OPS


def headline(res) -> str:
    cc = res.resolved["compilation_config"]
    cg = cc["cudagraph_mode"]
    rules = {e.rule for e in res.events}
    if "deepep_ht.disable_cudagraphs" in rules and (res.extra.get("role") or {}).get("role") == "prefill":
        return (f"CUDA graphs are OFF (cudagraph_mode=NONE): vLLM {res.vllm_version} disables them for DeepEP "
                "high-throughput all2all with data parallel > 1, as intended for this prefill pool (its batches "
                "are large; the high-throughput kernels are the ones for prefill).")
    if "deepep_ht.disable_cudagraphs" in rules:
        return (f"CUDA graphs are OFF (cudagraph_mode=NONE): vLLM {res.vllm_version} disables them for "
                "DeepEP high-throughput all2all with data parallel > 1 (capture sizes stay listed, nothing "
                "is captured). Under the unreleased PR #29558 design (--target pr29558) the MoE ops would "
                "be split out of piecewise CUDA graphs instead; on releases, deepep_low_latency keeps graphs.")
    if "pr29558.split_moe_ops" in rules or (cc["splitting_ops"] and all(op in cc["splitting_ops"] for op in MOE_OPS)):
        return (f"CUDA graphs stay on ({cg}): the MoE ops {', '.join(MOE_OPS)} are split out of the "
                "piecewise CUDA graphs and run eagerly between captured pieces.")
    if cg == "NONE":
        return "CUDA graphs are OFF (cudagraph_mode=NONE)."
    return f"CUDA graphs: {cg}; compile mode {cc['mode']}."
