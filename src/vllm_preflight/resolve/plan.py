"""A release's plan, compiled once: the steps of `path.PATH` that exist on that release, in
vLLM's order (the release's compilation pipeline spliced in, with the steps anchored inside
it), indexed by what each step reads (base/reads.py).

A resolution runs the plan's head (the command, the parser, `vllm serve`'s front door, the
model's config: every deployment has them) and then, of the rest, the always-on steps plus
the steps whose declared inputs the deployment sets: an option in the parsed values, an
environment variable, a model fact. The selection is a bit mask over the plan; the steps of
one mask are looked up once per process (`Plan.selected`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from vllm_preflight.releases import Release, get_release
from vllm_preflight.resolve.base.reads import ALWAYS, Reads, model_facts_set, reads_of
from vllm_preflight.resolve.path import HEAD_ENDS_WITH, PATH, Run
from vllm_preflight.resolve.vllm_config.steps import STEPS

# An option some step writes from others: its readers run when those are set
# (create_speculative_config folds --spec-method/--spec-model/--spec-tokens into the config).
ALIASES = {"spec_method": "speculative_config", "spec_model": "speculative_config", "spec_tokens": "speculative_config"}
ENV_PREFIX = "VLLM_*"  # a step reading every VLLM_ variable (the unknown-variable warning)


@dataclass(frozen=True)
class Planned:
    """One step of a compiled plan and what it reads."""

    name: str
    run: Run
    takes_values: bool  # (state, values); the compilation pipeline's steps take the state alone
    reads: Reads = ALWAYS


@dataclass
class Plan:
    """A release's compiled steps in vLLM's order, indexed by what they read."""

    head: tuple[Planned, ...]  # always run, before the model's facts are known
    body: tuple[Planned, ...]
    always: int = 0  # bit i: body[i] runs whatever the deployment sets
    by_option: dict[str, int] = field(default_factory=dict)
    by_env: dict[str, int] = field(default_factory=dict)
    any_vllm_env: int = 0
    by_model: dict[str, int] = field(default_factory=dict)
    wanted: frozenset[str] = frozenset()  # the model facts some step reads
    _selected: dict[int, tuple[Planned, ...]] = field(default_factory=dict)

    def mask(self, values: dict, env: dict, model_facts: frozenset[str]) -> int:
        """The body steps this deployment's inputs reach."""
        mask = self.always
        by_option = self.by_option
        for dest in values:
            bits = by_option.get(dest)
            if bits:
                mask |= bits
        if env:
            by_env = self.by_env
            for name in env:
                bits = by_env.get(name)
                if bits:
                    mask |= bits
                if name.startswith("VLLM_"):
                    mask |= self.any_vllm_env
        by_model = self.by_model
        for fact in model_facts:
            mask |= by_model.get(fact, 0)
        return mask

    def selected(self, mask: int) -> tuple[Planned, ...]:
        """The body steps of a mask, in order (one tuple per distinct mask, kept)."""
        steps = self._selected.get(mask)
        if steps is None:
            steps = tuple(s for i, s in enumerate(self.body) if mask >> i & 1)
            self._selected[mask] = steps
        return steps

    def steps_for(self, values: dict, env: dict, model_facts: frozenset[str]) -> tuple[Planned, ...]:
        return self.selected(self.mask(values, env, model_facts))


@cache
def plan_for(target: str) -> Plan:
    """The plan `resolve()` runs for a release (or "pr29558")."""
    return compile_plan(get_release(target))


def compile_plan(release: Release) -> Plan:
    anchored: dict[str, list[Planned]] = {}
    for step in PATH:
        if step.after is not None and step.run is not None:
            anchored.setdefault(step.after, []).append(Planned(step.name, step.run, True, reads_of(step.run)))
    ordered: list[Planned] = []
    for step in PATH:
        if step.after is not None:
            continue
        if step.run is None:  # the release's compilation pipeline: always on
            for name in release.pipeline:
                ordered.append(Planned(f"vllm_config.steps.{name}", STEPS[name], False))
                ordered += anchored.get(name, [])
            continue
        ordered.append(Planned(step.name, step.run, True, reads_of(step.run)))
    split = next(i for i, s in enumerate(ordered) if s.name == HEAD_ENDS_WITH) + 1
    plan = Plan(head=tuple(ordered[:split]), body=tuple(ordered[split:]))
    for i, planned in enumerate(plan.body):
        bit, r = 1 << i, planned.reads
        if r.always:
            plan.always |= bit
        for dest in r.options:
            plan.by_option[dest] = plan.by_option.get(dest, 0) | bit
        for alias, dest in ALIASES.items():
            if dest in r.options:
                plan.by_option[alias] = plan.by_option.get(alias, 0) | bit
        for name in r.env:
            if name == ENV_PREFIX:
                plan.any_vllm_env |= bit
            else:
                plan.by_env[name] = plan.by_env.get(name, 0) | bit
        for fact in r.model:
            plan.by_model[fact] = plan.by_model.get(fact, 0) | bit
    plan.wanted = frozenset(plan.by_model)
    return plan


def full_steps(plan: Plan) -> tuple[Planned, ...]:
    """Every body step of the plan (the unpruned resolution the equivalence test compares with)."""
    return plan.body


__all__ = ["Plan", "Planned", "compile_plan", "model_facts_set", "plan_for"]
