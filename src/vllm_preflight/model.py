"""The nouns passed between stages: what the user wrote, and what vLLM makes of it.

Plain frozen data; no stage reaches back into another. Loaders produce Deployments,
the resolver turns one Deployment into a Resolution, reporters render Resolutions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Location:
    """Where something was written: 1-based line and column."""

    file: str
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column}


@dataclass(frozen=True)
class Assumption:
    """A fact the tool had to take as given (a model fact, a default version...)."""

    fact: str
    value: Any
    source: str

    def to_json(self) -> dict:
        return {"fact": self.fact, "value": self.value, "source": self.source}


@dataclass(frozen=True)
class Deployment:
    """One vLLM server as written: its command words and its environment.

    `argv` is the server command itself (`vllm serve MODEL ...` or
    `python -m vllm.entrypoints.openai.api_server ...`), env words already split off.
    `env` is the deployment's environment, never the tool's own.
    """

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    source: str = "<command line>"
    location: Location | None = None
    vllm_version: str | None = None  # a hint from the deployment (an image tag), if any
    assumptions: tuple[Assumption, ...] = ()
    base_dir: str | None = None  # relative model paths are read from here
    # optional packages the launch shows on the node, (("ray", True),) for a Ray-based launch;
    # the resolver takes them over its per-release assumption (resolve: State.node)
    node_facts: tuple[tuple[str, bool], ...] = ()
    # the server's role in a prefill/decode split (identity.role_of reads it): `role` as the user
    # stated it (`--role`, a deployment file's `role:`), `role_source` saying where; `role_hints`
    # what the deployment's structure says, strongest first: ((role, why), ...)
    role: str | None = None
    role_source: str = ""
    role_hints: tuple[tuple[str, str], ...] = ()

    @property
    def env_map(self) -> dict[str, str]:
        return dict(self.env)


@dataclass(slots=True)
class Event:
    """One change the resolver made to a setting, and why.

    `rule` is a stable dotted id of the step (e.g. `deepep_ht.disable_cudagraphs`);
    `reason` carries vLLM's own log line where vLLM logs one.
    """

    field: str
    before: Any
    after: Any
    rule: str
    reason: str
    level: str = "info"  # the level vLLM logs it at: info | warning | debug

    def to_json(self) -> dict:
        return {"field": self.field, "before": self.before, "after": self.after,
                "rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class VllmError:
    """vLLM would refuse to start: the exception type its caller sees, and its message."""

    type: str
    message: str

    def to_json(self) -> dict:
        return {"type": self.type, "message": self.message}


@dataclass
class Resolution:
    """What one target (a vLLM release, or the pr29558 design) makes of one Deployment."""

    source: str
    target: str  # "release" | "pr29558"
    vllm_version: str
    resolved: dict | None
    vllm_error: VllmError | None
    events: list[Event] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)
    deployment: Deployment | None = None
    extra: dict = field(default_factory=dict)  # later issues add keys (location, findings...)

    @property
    def starts(self) -> bool:
        return self.vllm_error is None

    def to_json(self) -> dict:
        out = {
            "source": self.source,
            "target": self.target,
            "vllm_version": self.vllm_version,
            "resolved": self.resolved,
            "vllm_error": self.vllm_error.to_json() if self.vllm_error else None,
            "events": [e.to_json() for e in self.events],
            "assumptions": [a.to_json() for a in self.assumptions],
        }
        out.update(self.extra)
        return out
