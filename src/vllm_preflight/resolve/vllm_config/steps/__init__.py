"""The steps of `VllmConfig.__post_init__` that decide compilation and CUDA-graph settings.

Each step is a small function of the State, kept in a module by concern; the release's
`pipeline` (data) lists which steps run and in which order, and its rule knobs choose between
step variants. Every change goes through `State.set` with a stable rule id and vLLM's own
log message.
"""
from __future__ import annotations

from collections.abc import Callable

from vllm_preflight.resolve.base.compilation_state import MOE_OPS
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.platform import cuda as deepep_ht
from vllm_preflight.resolve.vllm_config.steps import checks, cudagraph_mode, defaults, sequence_parallel, splitting_ops

STEPS = {name: fn for module in (defaults, cudagraph_mode, sequence_parallel, deepep_ht, splitting_ops, checks)
         for name, fn in vars(module).items()
         if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", "") == module.__name__}


def run(state: State, after: dict[str, Callable[[], None]] | None = None) -> None:
    """The release's pipeline; `after` runs checks of __post_init__ that sit between two steps
    (they read engine arguments the steps do not), right after the named step."""
    for name in state.release.pipeline:
        STEPS[name](state)
        if after and name in after:
            after[name]()


__all__ = ["MOE_OPS", "STEPS", "Refusal", "run"]
