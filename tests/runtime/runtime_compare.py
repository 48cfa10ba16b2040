"""One definition of what a runtime golden line asserts: our port's answer for its case,
in the shape the recorder stores vLLM's answer (tools/record_runtime_golden.py)."""
from __future__ import annotations

from vllm_preflight.releases.runtime_rules import runtime_rules
from vllm_preflight.resolve.runtime.lowering import RANK, LowerInput, lower


def stub_name(index: int, level: str) -> str:
    return f"Stub{index}{level.title().replace('_', '')}Backend"


def lowering_input(case: dict) -> LowerInput:
    support, backend = "ALWAYS", None
    for i, level in enumerate(case["groups"]):
        if RANK[level] < RANK[support]:  # strictly lower replaces: the first one found is kept
            support, backend = level, stub_name(i, level)
    return LowerInput(
        mode=case["mode"], vllm_compile=case["vllm_compile"],
        attn_split=case["splitting"] in ("attention", "attention+moe"), partition=case["partition"],
        q=case["q"], support=support, backend=backend, sizes=list(case["sizes"]), max_size=case["max_size"],
        tp=case["tp"], enable_sp=case["enable_sp"], v2=case.get("v2", False),
        pw_available=case.get("pw_available", True), mamba=case.get("mamba", False),
        num_blocks=case.get("num_blocks"), max_num_seqs=case.get("max_num_seqs"),
        profiling=case.get("profiling", False))


def ours_lowering(case: dict, version: str) -> dict:
    res = lower(lowering_input(case), runtime_rules(version))
    if res.error:
        return {"error": f"{res.error[0]}: {res.error[1]}", "warnings": [w.message for w in res.warnings]}
    return {"error": None, "mode": res.mode, "sizes": res.sizes, "max_size": res.max_size,
            "warnings": [w.message for w in res.warnings]}


# the loggers of the runtime check; other lines (e.g. "Current vLLM config is not set." from
# calling the runner outside an engine) are the recording's artefacts
RUNTIME_LOGGERS = ("vllm.v1.worker.gpu_model_runner", "vllm.config.compilation")


def theirs_lowering(line: dict) -> dict:
    v = dict(line["vllm"])
    v["warnings"] = [w for w, name in zip(v["warnings"], v["loggers"]) if name in RUNTIME_LOGGERS]
    if v["error"]:
        return {"error": v["error"], "warnings": v["warnings"]}
    return {"error": None, "mode": v["cudagraph_mode"], "sizes": v["sizes"], "max_size": v["max_size"],
            "warnings": v["warnings"]}


# ---------------------------------------------------------------- selector
def selector_query(case: dict):
    from vllm_preflight.resolve.runtime.backends import Query

    major, minor = (int(x) for x in case["cc"].split("."))
    return Query(cc=(major, minor), head_size=case["head_size"], dtype=case["dtype"],
                 kv_cache_dtype=case["kv_cache_dtype"], use_mla=case["use_mla"],
                 has_sink=case.get("has_sink", False), use_sparse=case.get("use_sparse", False),
                 num_heads=case["num_heads"], num_kv_heads=case["num_kv_heads"],
                 trtllm_kernels=case["trtllm_kernels"])


def _error_key(text: str) -> str:
    # "No valid attention backend found for cuda with <config repr>...": the repr is the
    # release's own formatting of torch dtypes; the reasons list of an explicit choice is compared whole
    return text if text.startswith("ValueError: Selected backend") else text.split(" with ")[0]


def ours_selector(case: dict, version: str) -> dict:
    from vllm_preflight.releases.runtime_rules import runtime_rules
    from vllm_preflight.resolve.runtime.backends import declared_support, select

    era = runtime_rules(version)
    q = selector_query(case)
    ch = select(era, q, case["selected"])
    if ch.error:
        return {"error": _error_key(f"{ch.error[0]}: {ch.error[1]}")}
    return {"error": None, "backend": ch.backend, "support": declared_support(era, ch.backend, q)}


def theirs_selector(line: dict) -> dict:
    v = line["vllm"]
    if v["error"]:
        return {"error": _error_key(v["error"])}
    return {"error": None, "backend": v["backend"], "support": v["support"]}
