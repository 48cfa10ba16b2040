"""Compare our resolver with one golden line recorded from real vLLM.

Shared by the golden tests and tools/golden_diff.py.
"""
from __future__ import annotations

import re
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


def gpu_of(golden: dict):
    """The GPU the oracle emulated for the case (issue 24's GPU-class goldens name one; the
    others ran on the default H200)."""
    from vllm_preflight.gpus import GPUS

    return GPUS.get(golden.get("gpu") or "")


def resolve_as_recorded(golden: dict):
    """Our resolution of a golden case the way vLLM met it: goldens recorded through the engine
    arguments alone (the oracle's `cli_args` path) never passed `vllm serve`'s own checks; the
    serve_stage goldens ran through its entry code (oracle path "vllm serve")."""
    through_serve = (golden.get("oracle") or {}).get("path") == "vllm serve"
    return resolve(deployment_of(golden), target_of(golden), gpu=gpu_of(golden), serve_stage=through_serve)


def ours(golden: dict, res=None) -> dict:
    """Our answer in the golden's `expected` shape."""
    res = res or resolve_as_recorded(golden)
    if res.vllm_error is not None:
        return {"vllm_error": {"type": res.vllm_error.type, "message": res.vllm_error.message},
                "_events": res.events}
    cc, par = res.resolved["compilation_config"], res.resolved["parallel_config"]
    out = {k: cc[k] for k in COMPARED if k in cc}
    out["all2all_backend"] = par["all2all_backend"]
    out["vllm_error"] = None
    out["_events"] = res.events
    return out


def argparse_message(err: dict | None) -> bool:
    """An argparse-level refusal (not a pydantic validation message inside one)."""
    return bool(err) and err["type"] == "ArgumentError" and "validation error" not in err["message"]


def core_message(text: str) -> str:
    """A message without what pydantic appends to each error: `[type=..., input_value=...,
    input_type=...]` (input reprs hold every keyword vLLM passed) and the documentation link.
    Multi-error messages keep their first error (pydantic's order)."""
    head, _, body = text.partition("\n")
    body = re.sub(r"\s*\[type=.*", "", body, flags=re.DOTALL)
    return re.sub(r"\s+", " ", f"{head}\n{body}").strip()


def _addresses(text: str) -> str:
    """Object addresses vary between runs."""
    return re.sub(r" at 0x[0-9a-f]+", " at 0x…", text)


MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")


def error_of(raw: str | None) -> dict | None:
    """The oracle's "ExcType: message" as our vllm_error; argparse's exit is ArgumentError."""
    if raw is None:
        return None
    typ, _, msg = raw.partition(": ")
    if typ == "ValueError" and msg.startswith("argparse rejected"):
        # argparse prints usage, then "PROG: error: MESSAGE" (a pydantic message spans lines)
        lines = msg.splitlines()
        at = next((i for i, ln in enumerate(lines) if ": error: " in ln), None)
        if at is None:
            tail = next((ln for ln in reversed(lines) if ln.strip()), msg)
        else:
            tail = "\n".join([lines[at].split(": error: ", 1)[1]] + lines[at + 1:]).rstrip()
        return {"type": "ArgumentError", "message": tail}
    return {"type": typ, "message": msg}


def expected_of(raw: dict) -> dict:
    """What the golden asserts, from the oracle's raw answer (0.11.0's `level` is `mode`)."""
    err = error_of(raw.get("error"))
    if err is not None:
        return {"vllm_error": err}
    mode = raw.get("mode")
    if mode is None and raw.get("level") is not None:
        mode = MODE_NAMES[raw["level"]]
    par = raw.get("parallel") or {}
    return {"vllm_error": None, "mode": mode, "cudagraph_mode": raw.get("cudagraph_mode"),
            "splitting_ops": raw.get("splitting_ops"),
            "use_inductor_graph_partition": raw.get("use_inductor_graph_partition"),
            "pass_config": raw.get("pass_config"), "custom_ops": raw.get("custom_ops"),
            "cudagraph_capture_sizes": raw.get("cudagraph_capture_sizes"),
            "max_cudagraph_capture_size": raw.get("max_cudagraph_capture_size"),
            "all2all_backend": par.get("all2all_backend"),
            "data_parallel_size": par.get("data_parallel_size"),
            "tensor_parallel_size": par.get("tensor_parallel_size"),
            "enable_expert_parallel": par.get("enable_expert_parallel"),
            "optimization_level": raw.get("optimization_level")}


def normalized(expected: dict) -> dict:
    """vLLM copies a deprecated integer `level` into `mode` unchanged; an IntEnum field
    holding 3 behaves as VLLM_COMPILE everywhere, so we compare it by name."""
    if isinstance(expected.get("mode"), int):
        expected = {**expected, "mode": MODE_NAMES[expected["mode"]]}
    return expected


def target_of(golden: dict) -> str:
    return "pr29558" if golden.get("target") == "pr29558" else golden["oracle"]["vllm_version"]


def mismatches(golden: dict, res=None) -> list[tuple[str, object, object]]:
    """Fields where our resolution differs from vLLM's; [] when they agree."""
    exp = normalized(expected_of(golden["oracle"]))
    got = ours(golden, res)
    want_err = exp["vllm_error"]["type"] if exp["vllm_error"] else None
    got_err = got["vllm_error"]["type"] if got["vllm_error"] else None
    if want_err != got_err:
        return [("vllm_error", want_err, got_err if got_err else None)]
    if want_err:
        # the message a deployer reads, not only its type: argparse's exactly; pydantic's without
        # the details it appends ([type=..., input_value=...] and its documentation link)
        w, g = exp["vllm_error"]["message"], got["vllm_error"]["message"]
        w, g = (_addresses(w), _addresses(g)) if argparse_message(exp["vllm_error"]) else (
            _addresses(core_message(w)), _addresses(core_message(g)))
        if w != g:
            return [("vllm_error.message", w, g)]
        return []
    out = []
    for k in COMPARED:
        w, g = exp.get(k), got.get(k)
        if k == "cudagraph_capture_sizes" and isinstance(w, list) and isinstance(g, list):
            w, g = sorted(w), sorted(g)
        if w != g:
            out.append((k, w, g))
    return out


# vLLM's INFO/WARNING lines about the compared fields: each must be among our events' reasons
RELEVANT_LOG = re.compile(
    r"cudagraph|CUDA Graph|splitting_ops|[Cc]ompilation|[Pp]iecewise|[Ff]usion|custom op|capture|"
    r"DeepEP|WideEP|MoonEP|[Ee]nforce eager|eager mode|[Ss]equence [Pp]arallelism|Inductor|inductor|"
    r"ALL2ALL|all2all|optimization level|Level is deprecated|deprecated and will be removed|fuse_|"
    r"Batch sizes|TORCH_COMPILE_DISABLE|breakable")


# The oracle makes real 0.12.0 follow the PR design by letting the CUDA platform hook run
# and then undoing its DeepEP change, so the hook's log line is still written although the
# design removed that rule: not a line the design logs.
PR29558_PATCH_ARTIFACT = "WideEP: Disabling CUDA Graphs"


def relevant_logs(golden: dict) -> list[str]:
    o = golden["oracle"]
    lines = [m for m in (o.get("info") or []) + (o.get("warnings") or []) if RELEVANT_LOG.search(m)]
    if golden.get("target") == "pr29558":
        lines = [m for m in lines if not m.startswith(PR29558_PATCH_ARTIFACT)]
    return lines


def _unordered(message: str) -> str:
    """vLLM joins a Python set into "Found duplicate keys a, b": its order depends on the
    process's hash seed, so those lines are compared as sets."""
    prefix = "Found duplicate keys "
    if message.startswith(prefix):
        return prefix + ", ".join(sorted(message[len(prefix):].split(", ")))
    return message


def missing_logs(golden: dict, res=None) -> list[str]:
    """vLLM's relevant log lines that none of our events carries."""
    res = res or resolve_as_recorded(golden)
    reasons = {_unordered(e.reason) for e in res.events}
    return [m for m in relevant_logs(golden) if _unordered(m) not in reasons]
