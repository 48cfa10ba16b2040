"""Compare our resolver with one golden line recorded from real vLLM.

Shared by the golden tests and tools/golden_diff.py.
"""
from __future__ import annotations

from pathlib import Path

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "fixtures" / "models"
COMPARED = ("mode", "cudagraph_mode", "splitting_ops", "use_inductor_graph_partition", "pass_config",
            "custom_ops", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "all2all_backend")


def deployment_of(golden: dict) -> Deployment:
    argv = tuple(w.replace("{models}", str(MODELS)) for w in golden["argv"])
    return Deployment(argv=argv, env=tuple(golden["env"].items()), source=golden["id"])


def ours(golden: dict) -> dict:
    """Our answer in the golden's `expected` shape."""
    target = "pr29558" if golden.get("target") == "pr29558" else golden["oracle"]["vllm_version"]
    res = resolve(deployment_of(golden), target)
    if res.vllm_error is not None:
        return {"vllm_error": {"type": res.vllm_error.type, "message": res.vllm_error.message},
                "_events": res.events}
    cc, par = res.resolved["compilation_config"], res.resolved["parallel_config"]
    out = {k: cc[k] for k in COMPARED if k in cc}
    out["all2all_backend"] = par["all2all_backend"]
    out["vllm_error"] = None
    out["_events"] = res.events
    return out


MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")


def normalized(expected: dict) -> dict:
    """vLLM copies a deprecated integer `level` into `mode` unchanged; an IntEnum field
    holding 3 behaves as VLLM_COMPILE everywhere, so we compare it by name."""
    if isinstance(expected.get("mode"), int):
        expected = {**expected, "mode": MODE_NAMES[expected["mode"]]}
    return expected


def mismatches(golden: dict) -> list[tuple[str, object, object]]:
    exp = normalized(golden["expected"])
    got = ours(golden)
    want_err = exp["vllm_error"]["type"] if exp["vllm_error"] else None
    got_err = got["vllm_error"]["type"] if got["vllm_error"] else None
    if want_err != got_err:
        return [("vllm_error", want_err, got_err if got_err else None)]
    if want_err:
        return []
    out = []
    for k in COMPARED:
        w, g = exp.get(k), got.get(k)
        if k == "cudagraph_capture_sizes" and isinstance(w, list) and isinstance(g, list):
            w, g = sorted(w), sorted(g)
        if w != g:
            out.append((k, w, g))
    return out
