"""What a step of the path reads: the declaration every check carries, and the model facts a
deployment sets.

A step declares the engine options (argparse dests), environment variables and model facts it
reads (`@reads(...)`), or that it always runs (`always=True`: it builds the state later steps
read, or its defaults alone can refuse or change a setting). A release's plan (resolve/plan.py)
indexes its steps by these, and a resolution runs the steps whose inputs the deployment sets
(plus the always-on ones): a step none of whose inputs is set is one that does nothing for this
deployment. tests/golden/test_plan_equivalence.py resolves every golden both ways.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from vllm_preflight.releases.architectures import MAMBA_ARCHS, arch_support, registry_is_hybrid


@dataclass(frozen=True)
class Reads:
    options: frozenset[str] = frozenset()  # engine option dests (set: present in the parsed values)
    env: frozenset[str] = frozenset()  # environment variables (set: present); "VLLM_*": any VLLM_ name
    model: frozenset[str] = frozenset()  # model facts (MODEL_FACTS: the tags a model sets)
    always: bool = False


ALWAYS = Reads(always=True)
F = TypeVar("F", bound=Callable)


def reads(*options: str, env: tuple[str, ...] = (), model: tuple[str, ...] = (), always: bool = False
          ) -> Callable[[F], F]:
    """Declare what a step reads (kept on the function as `.reads`; nothing is wrapped)."""
    unknown = set(model) - set(MODEL_FACTS)
    if unknown:
        raise ValueError(f"unknown model facts {sorted(unknown)}")

    def mark(fn: F) -> F:
        fn.reads = Reads(frozenset(options), frozenset(env), frozenset(model), always)  # type: ignore[attr-defined]
        return fn
    return mark


def reads_of(fn: Callable) -> Reads:
    """A step without a declaration always runs."""
    return getattr(fn, "reads", ALWAYS)


# The model facts a step may read, each with what makes a model set it (a fact a model does not
# set leaves the step that reads it with nothing to do).
def _quantized(state, facts) -> bool:
    """A checkpoint quantization config anywhere vLLM looks (config.json's quantization_config or
    compression_config, also under text_config), or quantized facts given by --assume."""
    if facts.quantized:
        return True
    found = facts.__dict__.get("_quantization")
    raw = facts.raw_config
    keys: dict = found if isinstance(found, dict) else raw if isinstance(raw, dict) else {}
    nested = keys.get("text_config")
    text: dict = nested if isinstance(nested, dict) else {}
    return any(cfg.get(k) is not None for cfg in (keys, text) for k in ("quantization_config", "compression_config"))


MODEL_FACTS: dict[str, Callable] = {
    "quantized": _quantized,
    "moe": lambda state, facts: facts.is_moe,
    "mla": lambda state, facts: facts.is_mla,
    "pooling": lambda state, facts: facts.is_pooling,
    "encoder_decoder": lambda state, facts: facts.is_encoder_decoder,
    "blocked_fp8": lambda state, facts: facts.blocked_fp8,
    "hybrid": lambda state, facts: facts.architecture in MAMBA_ARCHS
    or registry_is_hybrid(state.release.key, facts.architecture),
    "multimodal": lambda state, facts: bool(getattr(arch_support(state.release.version, facts.architecture),
                                                    "is_multimodal", True)),
    # the architecture itself (a hook keyed by it, a draft read from it): every model sets it
    "architecture": lambda state, facts: True,
}


def model_facts_set(state, wanted: frozenset[str] | None = None) -> frozenset[str]:
    """The model facts (of `wanted`, default all) this deployment's model sets. A model's facts
    are an immutable value shared by every deployment of the model: the answer is kept with them,
    per release."""
    facts = state.model
    if facts is None:
        return frozenset()
    names = frozenset(MODEL_FACTS) if wanted is None else wanted
    memo = facts.__dict__.get("_facts_set")
    if memo is None:
        memo = {}
        object.__setattr__(facts, "_facts_set", memo)
    key = (state.release.version, names)
    found = memo.get(key)
    if found is None:
        found = frozenset(name for name in names if MODEL_FACTS[name](state, facts))
        memo[key] = found
    return found
