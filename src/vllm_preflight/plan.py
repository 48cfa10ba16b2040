"""The plan of one result: per compared setting, what was written (and where), what vLLM
resolves, and the chain of rules in between — in the shape of Terraform's plan.

Pure: reads a Resolution's events and resolved settings and the Written values; the text
report renders rows, the JSON report carries them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.written import Written

CC_SETTINGS = ("mode", "cudagraph_mode", "splitting_ops", "use_inductor_graph_partition", "custom_ops",
               "cudagraph_capture_sizes", "max_cudagraph_capture_size")
PARALLEL_SETTINGS = ("all2all_backend", "data_parallel_size", "tensor_parallel_size", "enable_expert_parallel")

# Which setting a rule reads when it changes another one: how chains are shown
# ("cudagraph_mode FULL <- splitting_ops.attn_fusion_full <- splitting_ops [] <- ...").
RULE_CAUSE = {
    "deepep_ht.disable_cudagraphs": "all2all_backend",
    "moonep.disable_cudagraphs": "all2all_backend",
    "pr29558.split_moe_ops": "all2all_backend",
    "splitting_ops.attn_fusion": "pass_config.fuse_attn_quant",
    "splitting_ops.attn_fusion_full": "splitting_ops",
    "splitting_ops.empty_piecewise": "splitting_ops",
    "splitting_ops.empty_full_and_piecewise": "splitting_ops",
    "splitting_ops.inductor_partition": "use_inductor_graph_partition",
    "splitting_ops.no_vllm_compile": "mode",
    "cudagraph_mode.needs_vllm_compile": "mode",
    "sp.full_graph": "pass_config.enable_sp",
    "sp.full_graph_cudagraph": "splitting_ops",
    "enforce_eager.cudagraph_mode": "enforce_eager",
    "enforce_eager.mode": "enforce_eager",
    "enforce_eager.optimization_level": "enforce_eager",
}


@dataclass
class Step:
    """One change of a setting by a rule."""

    rule: str
    before: Any
    after: Any
    reason: str
    level: str
    repeats: int = 1  # vLLM made the same change this many times in a row
    cause: str | None = None  # the setting the rule read


@dataclass
class Row:
    """One row of the plan table: a setting and what vLLM made of it."""

    setting: str
    written: Written | None
    resolved: Any
    default_from: str | None = None  # "-O2 default", "release default (defaults.mode)", ...
    steps: list[Step] = field(default_factory=list)

    @property
    def changed_by_vllm(self) -> bool:
        """vLLM moved the value away from what was written or from its own default."""
        return bool(self.steps)

    @property
    def touched(self) -> bool:
        return self.written is not None or self.default_from is not None or bool(self.steps)

    def to_json(self) -> dict:
        return {
            "setting": self.setting,
            "written": None if self.written is None else {"value": self.written.value, "where": self.written.where},
            "default_from": self.default_from,
            "resolved": self.resolved,
            "changes": [{"rule": s.rule, "before": s.before, "after": s.after, "repeats": s.repeats,
                         "cause": s.cause} for s in self.steps],
        }


def setting_of(event_field: str) -> str:
    name = event_field
    for head in ("compilation_config.", "parallel_config.", "model_config."):
        if name.startswith(head):
            name = name[len(head):]
            break
    return "mode" if name == "level" else name


DEFAULT_RULES = ("defaults.", "optimization_level.", "capture_sizes.")


def _fills_default(e, row: Row) -> bool:
    """vLLM filled a field the deployer left unset (or added its default entry to a list); a rule
    that sets a field because of another setting is a change, not a default."""
    if e.rule in RULE_CAUSE:
        return False
    if e.rule.startswith(DEFAULT_RULES) and row.written is None:
        return True
    if e.rule.startswith("defaults.") and isinstance(e.after, list):  # custom_ops gains its default entry
        return True
    return e.before is None and row.written is None and not row.steps and row.default_from is None


def _default_label(rule: str) -> str:
    if rule.startswith("optimization_level.O"):
        return f"-{rule.rsplit('.', 1)[-1]} default"
    return f"release default ({rule})"


def resolved_values(resolved: dict) -> dict[str, Any]:
    cc, par = resolved["compilation_config"], resolved["parallel_config"]
    out: dict[str, Any] = {k: cc.get(k) for k in CC_SETTINGS}
    out.update({f"pass_config.{k}": v for k, v in (cc.get("pass_config") or {}).items()})
    out.update({k: par.get(k) for k in PARALLEL_SETTINGS})
    out["optimization_level"] = resolved.get("optimization_level")
    return out


def plan_rows(result, written: dict[str, Written]) -> list[Row]:
    """One row per compared setting, in the order of the resolved view. Empty when vLLM refuses."""
    if result.resolved is None:
        return []
    values = resolved_values(result.resolved)
    rows = {k: Row(k, written.get(k), v) for k, v in values.items()}
    for name, w in written.items():  # written settings the view does not show (enforce_eager, old names)
        rows.setdefault(name, Row(name, w, None))
    for e in result.events:
        if e.field in ("log", "vllm"):
            continue
        row = rows.get(setting_of(e.field))
        if row is None:
            continue
        if _fills_default(e, row):
            row.default_from = row.default_from or _default_label(e.rule)
            continue
        last = row.steps[-1] if row.steps else None
        if last is not None and last.rule == e.rule and last.reason == e.reason and _appended_again(last, e):
            last.repeats += 1
            last.after = e.after
            continue
        row.steps.append(Step(e.rule, e.before, e.after, e.reason, e.level, cause=RULE_CAUSE.get(e.rule)))
    return list(rows.values())


def _appended_again(last: Step, e) -> bool:
    """The same rule appending the same items once more (vLLM's custom_ops `+quant_fp8` twice)."""
    lists = (last.before or [], last.after, e.before, e.after)
    if not all(isinstance(x, list) for x in lists):
        return False
    return _added(last.before or [], last.after) == _added(e.before, e.after) != []


def _added(before: list, after: list) -> list:
    return [x for x in dict.fromkeys(after) if after.count(x) > before.count(x)]


@dataclass
class Summary:
    """One result's summary line and counts."""

    cudagraph_mode: str | None
    written_cudagraph_mode: Any
    cudagraph_mode_origin: str  # "you wrote" or the default it came from ("the -O2 default")
    changed: int
    hazards: int
    errors: int
    depends_on: list[str]
    refused: str | None
    runtime_cudagraph_mode: str | None = None  # what the model runner captures, where it differs

    def line(self) -> str:
        if self.refused:
            head = f"vLLM would refuse to start ({self.refused})"
        else:
            head = f"cudagraph_mode {self.cudagraph_mode}"
            if self.written_cudagraph_mode is not None and self.written_cudagraph_mode != self.cudagraph_mode:
                head += f" ({self.cudagraph_mode_origin} {self.written_cudagraph_mode})"
            if self.runtime_cudagraph_mode:
                head += f" → {self.runtime_cudagraph_mode} at runtime"
        parts = [head]
        if not self.refused:
            parts.append(f"{self.changed} setting{'s' if self.changed != 1 else ''} changed by vLLM")
        if self.hazards:
            parts.append(f"{self.hazards} hazard{'s' if self.hazards != 1 else ''}")
        if self.depends_on:
            parts.append(f"{len(self.depends_on)} depends on {', '.join(self.depends_on)}")
        return ": ".join(parts[:1]) + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")

    def to_json(self) -> dict:
        return {"cudagraph_mode": self.cudagraph_mode, "written_cudagraph_mode": self.written_cudagraph_mode,
                "changed_by_vllm": self.changed, "hazards": self.hazards, "errors": self.errors,
                "depends_on": list(self.depends_on), "refused": self.refused,
                "runtime_cudagraph_mode": self.runtime_cudagraph_mode, "line": self.line()}


def summarize(result) -> Summary:
    """The summary line of a checked result, from its plan rows (JSON form) and findings."""
    rows = result.extra.get("plan") or []
    findings = result.extra.get("findings") or []
    cg = result.resolved["compilation_config"]["cudagraph_mode"] if result.resolved else None
    row = next((r for r in rows if r["setting"] == "cudagraph_mode"), None)
    written_cg, origin = None, "you wrote"
    if row is not None and row["written"] is not None:
        written_cg = row["written"]["value"]
    elif row is not None and row["default_from"] and row["changes"]:
        written_cg, origin = row["changes"][0]["before"], f"the {row['default_from']} was"
    # information (VP302 on a prefill pool) is no hazard
    hazards = [f for f in findings if str(f.get("rule", "")).startswith("VP3") and f.get("rule") != "VP300"
               and f.get("severity") != "info"]
    runtime = ((result.resolved or {}).get("runtime") or {}).get("cudagraph_mode")
    return Summary(
        runtime_cudagraph_mode=runtime if runtime not in (None, cg) else None,
        cudagraph_mode=cg, written_cudagraph_mode=written_cg, cudagraph_mode_origin=origin,
        changed=sum(1 for r in rows if r["changes"]), hazards=len(hazards),
        errors=sum(1 for f in findings if f.get("severity") == "error"),
        depends_on=list(result.extra.get("depends_on") or []),
        refused=f"{result.vllm_error.type}" if result.vllm_error else None,
    )
