"""From vLLM's resolved settings to what verify has to prove (pure Python, no torch).

`plan_from_resolved` is the seam between the resolver and what reads its outcome (the hazard
rules of `check`, and `verify`): it reads only the resolved dict (see `api.check_inputs`) and
says which CUDA graphs vLLM would capture — piecewise pieces
between split ops, and/or one FULL graph around the whole forward — and which MoE protocol runs
behind `moe_forward` (DeepEP high-throughput, or a capturable all2all / no all2all at all).
"""
from __future__ import annotations

from dataclasses import dataclass, field

COMPILE_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
HT_BACKEND = "deepep_high_throughput"
# The last release that matched splitting ops by `str(node.target)` (dotted names); 0.11.1 moved
# to comparing qualified names `ns::name[.overload]` (partition_rules.should_split); see verify/split.py.
LAST_NAME_MATCHING_RELEASE = (0, 11, 0)


class PlanProblem(ValueError):
    """The resolved settings cannot be read as a capture plan (verify reports it as a config
    problem, exit 2; the hazard rules as nothing captured)."""


@dataclass(frozen=True)
class VerifyPlan:
    """What CUDA-graph capture the resolved settings plan."""

    compile_mode: str
    cudagraph_mode: str
    piecewise: bool                 # piecewise pieces are captured
    full: str | None                # None, "all" (FULL) or "decode" (FULL_DECODE_ONLY, FULL_AND_PIECEWISE)
    splitting_ops: tuple[str, ...]
    inductor_partition: bool
    capture_sizes: tuple[int, ...]
    all2all_backend: str
    data_parallel_size: int
    expert_parallel: bool
    moe_protocol: str               # "deepep_ht" | "capturable"
    name_matching: str              # "qualified" (0.11.1+) | "name" (<= 0.11.0)
    vllm_version: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def nothing_captured(self) -> bool:
        return (not self.piecewise and self.full is None) or not self.capture_sizes

    @property
    def ht(self) -> bool:
        return self.moe_protocol == "deepep_ht"

    @property
    def graph_kinds(self) -> tuple[str, ...]:
        if self.nothing_captured:
            return ()
        return (("piecewise",) if self.piecewise else ()) + (("full",) if self.full else ())

    def to_json(self) -> dict:
        return {
            "compile_mode": self.compile_mode, "cudagraph_mode": self.cudagraph_mode,
            "piecewise": self.piecewise, "full": self.full, "splitting_ops": list(self.splitting_ops),
            "inductor_partition": self.inductor_partition, "capture_sizes": list(self.capture_sizes),
            "all2all_backend": self.all2all_backend, "data_parallel_size": self.data_parallel_size,
            "expert_parallel": self.expert_parallel, "moe_protocol": self.moe_protocol,
            "name_matching": self.name_matching, "vllm_version": self.vllm_version,
            "nothing_captured": self.nothing_captured, "notes": list(self.notes),
        }


def _enum(value, names: tuple[str, ...], what: str) -> str:
    """Accept the enum's name in any case, `Enum.NAME`, or its int value (vLLM accepts all three)."""
    if isinstance(value, bool):
        raise PlanProblem(f"resolved {what} is not a mode: {value!r}")
    if isinstance(value, int):
        if 0 <= value < len(names):
            return names[value]
    elif isinstance(value, str):
        text = value.rsplit(".", 1)[-1].strip().upper()
        if text in names:
            return text
        if text.isdigit() and int(text) < len(names):
            return names[int(text)]
    raise PlanProblem(f"resolved {what} {value!r} is not one of {', '.join(names)}")


def _version_tuple(version: str) -> tuple[int, ...] | None:
    from vllm_preflight.releases.versions import version_key

    try:
        return version_key(version)
    except ValueError:
        return None  # "pr29558" and other targets: current semantics


def name_matching_for(vllm_version: str) -> str:
    v = _version_tuple(vllm_version or "")
    return "name" if v is not None and v <= LAST_NAME_MATCHING_RELEASE else "qualified"


def plan_from_resolved(resolved: dict, vllm_version: str = "") -> VerifyPlan:
    """The graphs vLLM captures for these settings. Raises PlanProblem on a malformed dict."""
    if not isinstance(resolved, dict):
        raise PlanProblem("no resolved settings to verify")
    cc = resolved.get("compilation_config")
    pc = resolved.get("parallel_config")
    if not isinstance(cc, dict) or not isinstance(pc, dict):
        raise PlanProblem("resolved settings lack compilation_config or parallel_config")
    notes: list[str] = []
    mode = _enum(cc.get("mode", "NONE"), COMPILE_MODES, "compilation mode")
    # what the model runner captures: the runtime stage's mode where it ran (check's hazards read the same)
    runtime = resolved.get("runtime")
    if not isinstance(runtime, dict):
        runtime = {}
    raw_cg = runtime.get("cudagraph_mode") or cc.get("cudagraph_mode")
    cg = "NONE" if raw_cg is None else _enum(raw_cg, CUDAGRAPH_MODES, "cudagraph_mode")

    piecewise = cg in ("PIECEWISE", "FULL_AND_PIECEWISE")
    if piecewise and mode != "VLLM_COMPILE":
        # Pieces only exist where vLLM's own backend split the graph.
        notes.append(f"cudagraph_mode {cg} with compile mode {mode}: no piecewise backend, "
                     "so no piecewise graph is captured")
        piecewise = False
    full = {"FULL": "all", "FULL_DECODE_ONLY": "decode", "FULL_AND_PIECEWISE": "decode"}.get(cg)

    ops = cc.get("splitting_ops")
    if ops is None:
        ops = []
    if not isinstance(ops, (list, tuple)) or not all(isinstance(o, str) for o in ops):
        raise PlanProblem(f"resolved splitting_ops is not a list of op names: {ops!r}")
    if mode != "VLLM_COMPILE" and ops:
        notes.append(f"splitting_ops are not used with compile mode {mode}")

    sizes = cc.get("cudagraph_capture_sizes") or []
    try:
        sizes = sorted({int(s) for s in sizes})
    except (TypeError, ValueError):
        raise PlanProblem(f"resolved cudagraph_capture_sizes is not a list of ints: {sizes!r}") from None
    if any(s <= 0 for s in sizes):
        raise PlanProblem(f"resolved cudagraph_capture_sizes holds a size <= 0: {sizes}")
    if cg != "NONE" and not sizes:
        notes.append(f"cudagraph_mode {cg} but no capture sizes: vLLM captures nothing")

    backend = str(pc.get("all2all_backend") or "")
    try:
        dp = int(pc.get("data_parallel_size") or 1)
    except (TypeError, ValueError):
        raise PlanProblem(f"resolved data_parallel_size is not an int: {pc.get('data_parallel_size')!r}") from None
    ep = bool(pc.get("enable_expert_parallel"))
    # vLLM routes MoE tokens through the all2all backend only with DP > 1 and expert parallelism.
    protocol = "deepep_ht" if backend == HT_BACKEND and dp > 1 and ep else "capturable"
    if backend == HT_BACKEND and protocol != "deepep_ht":
        notes.append("DeepEP high-throughput is configured but not used "
                     f"(data_parallel_size={dp}, enable_expert_parallel={ep}): the MoE runs locally")
    inductor_partition = bool(cc.get("use_inductor_graph_partition"))
    if inductor_partition:
        notes.append("inductor graph partition: splitting_ops act as partition rules; "
                      "the pieces are the same as a split at those ops")
    return VerifyPlan(
        compile_mode=mode, cudagraph_mode=cg, piecewise=piecewise, full=full,
        splitting_ops=tuple(ops), inductor_partition=inductor_partition, capture_sizes=tuple(sizes),
        all2all_backend=backend, data_parallel_size=dp, expert_parallel=ep, moe_protocol=protocol,
        name_matching=name_matching_for(vllm_version), vllm_version=vllm_version, notes=tuple(notes),
    )


def pad_to(n: int, sizes: tuple[int, ...] | list[int]) -> int | None:
    """vLLM pads a batch of n tokens up to the next capture size; above the largest it runs eagerly."""
    return next((s for s in sorted(sizes) if s >= n), None)


def toy_sizes(capture_sizes: tuple[int, ...], limit: int) -> tuple[list[int], list[int]]:
    """The capture sizes the toy verifies, and a few batch sizes that are not capture sizes,
    which vLLM pads up (at most 3). Verified: every planned size <= limit, and always the
    smallest, one in the middle and the largest planned size, so that coverage reaches the
    top of the plan however long it is."""
    planned = sorted(set(capture_sizes))
    if not planned:
        return [], []
    chosen = sorted({s for s in planned if s <= limit} | {planned[0], planned[len(planned) // 2], planned[-1]})
    padded: list[int] = []
    previous = 0
    for s in chosen:
        if s - previous > 1:
            padded.append(previous + 1)
            if s - 1 > previous + 1:
                padded.append(s - 1)
        previous = s
    if len(padded) > 3:  # spread over the range: small, middle and large batches
        padded = [padded[0], padded[len(padded) // 2], padded[-1]]
    return chosen, padded


def unverified_sizes(capture_sizes: tuple[int, ...], verified: list[int]) -> list[int]:
    return [s for s in sorted(set(capture_sizes)) if s not in set(verified)]
