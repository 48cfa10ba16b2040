"""The value sets of each release's config checks (releases/data/refusals.json): speculative
methods, KV roles and connectors, structured-output backends, KV-cache dtypes."""
from __future__ import annotations

from functools import lru_cache

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import State


@lru_cache(maxsize=1)
def _all_facts() -> dict:
    return data_file("refusals.json")


def value_facts(state: State) -> dict | None:
    """The recorded value sets of this release (None when it has no record)."""
    return _all_facts().get(state.release.version)
