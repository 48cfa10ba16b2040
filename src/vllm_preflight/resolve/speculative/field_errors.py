"""pydantic's field validation of `--speculative-config` (SpeculativeConfig), before any of its
own checks: the method literal, the numeric `Field` bounds, the sampling-method literals and,
where the config decorator forbids extra keys (0.16.0+), every unknown key.

pydantic validates every field and reports them all: the message counts the failing fields
("2 validation errors for SpeculativeConfig") and we show the first, in the class's
declaration order (the order below holds in every release 0.11.0-0.33.0, read in each
speculative.py), unknown keys last in the order given. The value sets are the release's
record in releases/data/refusals.json (tools/extract_refusal_facts_static.py)."""
from __future__ import annotations

from vllm_preflight.resolve.base.state import Refusal, State

CLS = "SpeculativeConfig"
# SpeculativeConfig's declaration order of the fields that carry a value check
ORDER = ("num_speculative_tokens", "method", "draft_tensor_parallel_size", "max_model_len", "disable_by_batch_size",
         "prompt_lookup_max", "prompt_lookup_min", "rejection_sample_method", "draft_sample_method",
         "dspark_draft_topk", "xpress_topc", "fly_window_size", "fly_entropy_threshold", "fly_entropy_top_k")


def _literal(name: str, allowed, value) -> str:
    shown = ", ".join(f"'{v}'" for v in allowed[:-1]) + f" or '{allowed[-1]}'"
    return f"{name}\n  Input should be {shown} [type=literal_error, input_value={value!r}]"


def check(state: State, spec: dict, rec: dict) -> None:
    """Raise pydantic's ValidationError for the fields of `spec` that fail (none: return)."""
    from vllm_preflight.resolve.speculative.draft_model import _LITERALS

    found: list[tuple[str, str]] = []
    method = spec.get("method")
    if method is not None and method not in rec["spec_methods"]:
        found.append(("method", _literal("method", rec["spec_methods"], method)))
    for name, bound in rec["spec_bounds"].items():
        v = spec.get(name)
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            continue
        if "gt" in bound and not v > bound["gt"]:
            found.append((name, f"{name}\n  Input should be greater than {bound['gt']}"))
        elif "ge" in bound and not v >= bound["ge"]:
            found.append((name, f"{name}\n  Input should be greater than or equal to {bound['ge']}"))
    for name, variants in _LITERALS:
        allowed = None
        for first, values in variants:
            if state.release.key >= first:
                allowed = values
        value = spec.get(name)
        if allowed is not None and value is not None and value not in allowed:
            found.append((name, _literal(name, allowed, value)))
    found.sort(key=lambda f: ORDER.index(f[0]) if f[0] in ORDER else len(ORDER))
    errors = [text for _, text in found]
    if rec.get("spec_extra") == "forbid" and rec.get("spec_fields"):
        errors += [f"{k}\n  Unexpected keyword argument [type=unexpected_keyword_argument, input_value={spec[k]!r}]"
                   for k in spec if k not in rec["spec_fields"]]
    if errors:
        n = len(errors)
        raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {CLS}\n{errors[0]}")
