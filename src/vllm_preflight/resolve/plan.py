"""A release's plan: the steps of `path.PATH` that exist on that release, in vLLM's order,
compiled once per release (the compilation pipeline of `releases/changes.py` spliced in, with
the steps anchored inside it)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from vllm_preflight.releases import Release, get_release
from vllm_preflight.resolve.path import PATH, Run
from vllm_preflight.resolve.vllm_config.steps import STEPS


@dataclass(frozen=True)
class Planned:
    name: str
    run: Run
    takes_values: bool  # (state, values); the compilation pipeline's steps take the state alone


@cache
def plan_for(target: str) -> tuple[Planned, ...]:
    """The steps `resolve()` runs for a release (or "pr29558"), in order."""
    return compile_plan(get_release(target))


def compile_plan(release: Release) -> tuple[Planned, ...]:
    anchored: dict[str, list[Planned]] = {}
    for step in PATH:
        if step.after is not None and step.run is not None:
            anchored.setdefault(step.after, []).append(Planned(step.name, step.run, True))
    out: list[Planned] = []
    for step in PATH:
        if step.after is not None:
            continue
        if step.run is None:  # the release's compilation pipeline
            for name in release.pipeline:
                out.append(Planned(f"vllm_config.steps.{name}", STEPS[name], False))
                out += anchored.get(name, [])
            continue
        out.append(Planned(step.name, step.run, True))
    return tuple(out)
