"""What a hazard rule reads: one Resolution, what was written, and a checked-fix helper."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from vllm_preflight.findings import Finding
from vllm_preflight.model import Location, Resolution
from vllm_preflight.written import Written


@dataclass(frozen=True)
class Fix:
    """A single change a deployer would make: words appended to the command, env changes
    (value None unsets the variable), or another target (`pr29558`)."""

    label: str
    words: tuple[str, ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()


@dataclass
class Context:
    """What a hazard rule reads about one resolution."""

    result: Resolution
    written: dict[str, Written]
    rerun: Callable | None = None
    # every hazard rule over another Resolution (hazard_findings): a fix is checked against all of them
    findings_of: Callable | None = None

    # ------------------------------------------------------------ reading
    @property
    def resolved(self) -> dict | None:
        return self.result.resolved

    def started_configs(self) -> dict:
        if self.result.resolved is None:  # rules read configs only once they know vLLM starts
            raise ValueError("no resolved configs: vLLM refuses to start")
        return self.result.resolved

    @property
    def cc(self) -> dict:
        return self.started_configs()["compilation_config"]

    @property
    def parallel(self) -> dict:
        return self.started_configs()["parallel_config"]

    @property
    def release(self):
        from vllm_preflight.releases import PR29558, get_release

        return get_release(PR29558 if self.result.target == "pr29558" else self.result.vllm_version)

    @property
    def env(self) -> dict[str, str]:
        dep = self.result.deployment
        return dict(dep.env) if dep is not None else {}

    def rules_fired(self) -> set[str]:
        return {e.rule for e in self.result.events}

    def cudagraph_mode(self) -> str:
        """The mode that is captured: the runtime stage's where it ran, else config time."""
        runtime = (self.resolved or {}).get("runtime") or {}
        return runtime.get("cudagraph_mode") or self.cc["cudagraph_mode"]

    def location(self, setting: str | None = None) -> Location | None:
        w = self.written.get(setting) if setting else None
        if w is not None and w.location is not None:
            return w.location
        loc = self.result.extra.get("location")
        if isinstance(loc, dict):
            return Location(loc["file"], loc.get("line"), loc.get("column"))
        dep = self.result.deployment
        return getattr(dep, "location", None)

    @property
    def role(self):
        """The server's role in a prefill/decode split (identity.role_of: --role, labels, names, kv_role)."""
        from vllm_preflight.identity import role_of

        return role_of(self.result.deployment)

    def finding(self, code: str, message: str, setting: str | None = None, severity: str = "") -> Finding:
        return Finding(code, message, self.location(setting), severity)

    # ------------------------------------------------------------ fixes
    def checked_fix(self, code: str, candidates: list[Fix], keep_graphs: bool = True, severity: str = "") -> str:
        """' Fix (resolved on vLLM V: ...): LABEL.' for the first candidate that, resolved the same
        way, starts, has no `code` finding, (with keep_graphs) captures CUDA graphs, and has no
        finding at or above the original's severity (`severity`, else the rule's): a fix is clean
        only if it is clean of everything. When every such candidate trades the finding for
        another at that severity, the first is named with what it trades. '' when none starts
        without `code`, or the tool cannot resolve here."""
        from vllm_preflight.findings import RULES, at_least

        dep = self.result.deployment
        if self.rerun is None or dep is None:
            return ""
        severity = severity or RULES[code].severity
        traded = None
        for fix in candidates:
            env = dict(dep.env)
            for k, v in fix.env:
                if v is None:
                    env.pop(k, None)
                else:
                    env[k] = v
            changed = replace(dep, argv=tuple(dep.argv) + fix.words, env=tuple(env.items()))
            other = self.rerun(changed)
            if other.vllm_error is not None:
                continue
            found = list(self.findings_of(other)) if self.findings_of else []
            mode = other.resolved["compilation_config"]["cudagraph_mode"]
            if any(f.rule == code for f in found) or (keep_graphs and not captures_graphs(other)):
                continue
            worse = list(dict.fromkeys(f"{f.rule} ({f.severity})" for f in found if at_least(f.severity, severity)))
            if not worse:
                return (f" Fix (resolved on vLLM {other.vllm_version}: cudagraph_mode {mode}, no {code} and no other "
                        f"finding at {severity} or above): {fix.label}.")
            if traded is None:
                traded = (fix, other, mode, worse)
        if traded is None:
            return ""
        fix, other, mode, worse = traded
        return (f" No clean fix found: {fix.label} (resolved on vLLM {other.vllm_version}: cudagraph_mode {mode}) "
                f"trades {code} for {', '.join(worse)}.")


def captures_graphs(result) -> bool:
    """Whether vLLM captures any CUDA graph for a resolved result (the capture plan decides)."""
    from vllm_preflight.capture.plan import PlanProblem, plan_from_resolved

    if result.resolved is None:
        return False
    try:
        return not plan_from_resolved(result.resolved, result.vllm_version).nothing_captured
    except PlanProblem:
        return False


def shell_words(words: tuple[str, ...]) -> str:
    import shlex

    return " ".join(shlex.quote(w) for w in words)
