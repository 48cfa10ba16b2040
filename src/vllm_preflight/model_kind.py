"""A model nothing could be read of: both kinds resolved, the difference reported.

modelfacts takes an unreadable model as dense unless the flags require experts; here the
same deployment is resolved again as a mixture-of-experts model, and when the outcome
differs the caller reports `model.is_moe` under depends_on with a VP103 finding naming
both outcomes (issue 9: never guess silently).
"""
from __future__ import annotations

from collections.abc import Callable

from vllm_preflight.differences import outcome_differences
from vllm_preflight.findings import Finding
from vllm_preflight.model import Resolution
from vllm_preflight.modelfacts import UNKNOWN_MODEL

FACT = "model.is_moe"


def assumed_dense(result: Resolution) -> bool:
    return any(a.fact == FACT and a.value is False and str(a.source).startswith(UNKNOWN_MODEL)
               for a in result.assumptions)


def model_kind_dependence(result: Resolution, resolve_as_moe: Callable[[], Resolution]
                          ) -> tuple[list[str], list[Finding]]:
    """(["model.is_moe"], [VP103]) when an unknown model taken as dense would resolve
    differently as MoE; ([], []) otherwise."""
    if not assumed_dense(result):
        return [], []
    other = resolve_as_moe()
    diffs = outcome_differences(result, other, set())
    if not diffs:
        return [], []
    more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
    return [FACT], [Finding("VP103", f"the outcome depends on {FACT} (the model could not be read; resolved as "
                                     f"dense): with {FACT}=true, " + "; ".join(diffs[:3]) + more
                                     + f"; pin it with --assume {FACT}=VALUE", None)]
