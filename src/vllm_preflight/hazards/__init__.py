"""Hazard rules (VP3xx): what vLLM accepts, read from the resolved result, that the deployer must know.

`hazard_findings(result)` runs every rule of the registry over one Resolution and returns
Findings. A rule is one small function over a `Context` (the Resolution, what was written,
and a way to resolve a changed deployment, with which a rule checks the fix it suggests).
Rule metadata (name, severity, docs, examples) lives with every other rule in
`vllm_preflight.findings.RULES`; `servers.disagreements` compares the servers of one deployment.
"""
from __future__ import annotations

from vllm_preflight.hazards.context import Context
from vllm_preflight.hazards.registry import HAZARDS


def hazard_findings(result, written=None, rerun=None, findings_of=None) -> list:
    """Findings of every hazard rule for one resolved deployment.

    `written`: {setting: Written} (see `vllm_preflight.written`); `rerun(deployment)`:
    resolves a changed deployment the same way (release, GPU, env, model facts) — without it
    no fix is suggested, since a suggested fix must be one the tool resolved and found clean.
    `findings_of(resolution)`: every hazard rule over a fix's resolution (default: this function;
    check passes its memo, api.shared_findings, as its reruns are api.shared_resolution's).
    """
    from vllm_preflight.hazards import graphs, refusal, settings  # noqa: F401 - they register their rules

    ctx = Context(result, written or {}, rerun, findings_of or hazard_findings)
    out = []
    for rule in HAZARDS.values():
        out.extend(rule(ctx))
    return out


__all__ = ["hazard_findings"]
