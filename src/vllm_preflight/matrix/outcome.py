"""What one row shows: the outcome of a `check` result in the few columns a deployer reads.

`status` is the colour: refused (red), off (yellow: cudagraph_mode NONE), hazard (orange: a
VP3xx finding of severity error while graphs are on, e.g. VP301), on (green). VP3xx warnings
are listed in the hazards column without changing the colour. `signature()` is
what folding and `--vs` compare: two rows with the same signature read the same in the table.
"""
from __future__ import annotations

from dataclasses import dataclass

from vllm_preflight.resolve.base.compilation_state import MOE_OPS

COLUMNS = ("vllm", "cudagraph_mode", "mode", "moe_split", "partition", "max_capture", "hazards")
HEADERS = {"vllm": "vLLM", "cudagraph_mode": "cudagraph_mode", "mode": "compile mode",
           "moe_split": "MoE ops", "partition": "partition", "max_capture": "max size",
           "hazards": "hazards", "depends_on": "depends on", "evidence": "hardware record", "why": "why"}
STATUS_WORDS = {"on": "graphs on", "off": "graphs off", "hazard": "hazard", "refused": "refused"}


@dataclass(frozen=True)
class Outcome:
    status: str
    vllm: str  # "starts" or the exception type vLLM raises
    cudagraph_mode: str
    mode: str
    moe_split: str
    partition: str
    max_capture: str
    hazards: tuple[str, ...]
    depends_on: tuple[str, ...] = ()
    evidence: str = ""
    why: str = "-"

    def cell(self, column: str) -> str:
        v = getattr(self, column)
        if isinstance(v, tuple):
            return ", ".join(v) or "-"
        return v

    def signature(self) -> tuple:
        return (self.status, self.vllm, self.cudagraph_mode, self.mode, self.moe_split, self.partition,
                self.max_capture, self.hazards, self.depends_on, self.evidence, self.why)


def hazard_ids(row: dict) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f["rule"] for f in row.get("findings") or [] if str(f.get("rule", "")).startswith("VP3")))


def _serious_hazard(row: dict) -> bool:
    # errors only (VP301: a FULL graph around the HT dispatch); VP3xx warnings are listed, not coloured
    return any(str(f.get("rule", "")).startswith("VP3") and f.get("severity") == "error"
               for f in row.get("findings") or [])


def moe_split(cc: dict) -> bool:
    ops = cc.get("splitting_ops") or []
    return all(op in ops for op in MOE_OPS)


def of(row: dict, evidence: str = "") -> Outcome:
    hz = hazard_ids(row)
    deps = tuple(row.get("depends_on") or ())
    if row.get("vllm_error") or not row.get("resolved"):
        err = (row.get("vllm_error") or {}).get("type") or "refused"
        return Outcome("refused", err, "-", "-", "-", "-", "-", hz, deps, evidence, why(row))
    cc = row["resolved"]["compilation_config"]
    cg = str(cc.get("cudagraph_mode"))
    # the model runner may change the mode again when the KV cache is set up: that one runs
    runtime = str((row["resolved"].get("runtime") or {}).get("cudagraph_mode") or cg)
    if runtime != cg:
        cg = f"{cg} → {runtime} at runtime"
    sizes = cc.get("cudagraph_capture_sizes") or []
    cap = cc.get("max_cudagraph_capture_size")
    if cap is None and sizes:
        cap = max(sizes)
    status = "off" if runtime == "NONE" else "hazard" if _serious_hazard(row) else "on"
    return Outcome(status, "starts", cg, str(cc.get("mode")), "split" if moe_split(cc) else "-",
                   str(cc.get("use_inductor_graph_partition")), "-" if cap is None else str(cap), hz, deps, evidence,
                   why(row))


def why(row: dict, limit: int | None = None) -> str:
    """The one reason a reader needs on the line: vLLM's error (its first line, whole unless a
    `limit` is given), the rule that turned graphs off, or the hazard's name."""
    if row.get("vllm_error"):
        lines = [x.strip() for x in (row["vllm_error"].get("message") or "").splitlines() if x.strip()]
        # pydantic's first line only counts errors ("1 validation error for VllmConfig"): the next says which
        msg = lines[1] if len(lines) > 1 and "validation error" in lines[0] else (lines or [""])[0]
        return msg if limit is None or len(msg) <= limit else msg[:limit - 1] + "…"
    cc = (row.get("resolved") or {}).get("compilation_config") or {}
    rt = (row.get("resolved") or {}).get("runtime") or {}
    if rt.get("cudagraph_mode") == "NONE" and cc.get("cudagraph_mode") != "NONE":
        rules = [e["rule"] for e in rt.get("events") or [] if isinstance(e, dict) and e.get("rule")]
        return rules[-1] if rules else "the model runner turns graphs off"
    if cc.get("cudagraph_mode") == "NONE":
        rules = [e["rule"] for e in row.get("events") or [] if e.get("field") == "compilation_config.cudagraph_mode"
                 and e.get("after") == "NONE"]
        return rules[-1] if rules else "cudagraph_mode NONE as written"
    errors = [f["rule"] for f in row.get("findings") or []
              if str(f.get("rule", "")).startswith("VP3") and f.get("severity") == "error"]
    if errors:
        from vllm_preflight.findings import RULES

        return ", ".join(RULES[r].name if r in RULES else r for r in dict.fromkeys(errors))
    return "-"


_KEY_FIELDS = ("compilation_config.cudagraph_mode", "compilation_config.mode", "compilation_config.level",
               "compilation_config.splitting_ops", "compilation_config.use_inductor_graph_partition")


def reasons(row: dict, limit: int = 10) -> list[str]:
    """Why the row reads as it does, most telling first: vLLM's error, the hazards, the changes to
    the graph settings, then the other changes, each with its rule id."""
    out = []
    if row.get("vllm_error"):
        msg = (row["vllm_error"].get("message") or "").splitlines()
        out.append(f"{row['vllm_error']['type']}: {msg[0] if msg else ''}")
    for f in row.get("findings") or []:
        if str(f.get("rule", "")).startswith("VP3"):
            out.append(f"{f['rule']} {f.get('severity', '')}: {f.get('message', '')}")
    events = [e for e in row.get("events") or [] if e.get("field") not in ("log", "vllm")]
    events.sort(key=lambda e: e["field"] not in _KEY_FIELDS)
    for e in events:
        out.append(f"{e['field']}: {_short(e['before'])} → {_short(e['after'])} ({e['rule']})")
    seen = list(dict.fromkeys(out))
    return seen[:limit] + ([f"… {len(seen) - limit} more"] if len(seen) > limit else [])


def _short(v) -> str:
    if isinstance(v, list) and len(v) > 4:
        return "[" + ", ".join(map(str, v[:3])) + f", … {len(v)} items]"
    return str(v)


def target_label(row: dict) -> str:
    return "pr29558" if row.get("target") == "pr29558" else row.get("vllm_version", "?")
