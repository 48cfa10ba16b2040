"""pydantic's Field(gt=/ge=/lt=/le=) bounds of the config classes built from plain flags: every
failing field, in declaration order, in one ValidationError. The bounded fields and the flag
each is read from are data per release (releases/data/subconfig_fields.json, written by
tools/extract_subconfig_fields.py)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import Refusal, State


@lru_cache(maxsize=1)
def _data() -> dict:
    return data_file("subconfig_fields.json")["releases"]


def _number(limit: float) -> str:
    """A bound as pydantic-core prints it (Rust's Display: 1.0 is `1`)."""
    if isinstance(limit, float) and limit.is_integer():
        return str(int(limit))
    return str(limit)


# pydantic-core's order (le, lt, ge, gt): it shows for NaN, which fails every comparison
_WORDS = (("le", "less than or equal to", "less_than_equal", lambda v, b: v <= b),
          ("lt", "less than", "less_than", lambda v, b: v < b),
          ("ge", "greater than or equal to", "greater_than_equal", lambda v, b: v >= b),
          ("gt", "greater than", "greater_than", lambda v, b: v > b))


def _bound_error(value: Any, bounds: dict) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    for key, words, code, ok in _WORDS:
        if key in bounds and not ok(value, bounds[key]):
            return (f"Input should be {words} {_number(bounds[key])} [type={code}, input_value={value!r}, "
                    f"input_type={type(value).__name__}]")
    return None


def field_errors(state: State, cls: str, values: dict, given: dict | None = None) -> list[tuple[str, str]]:
    """(field, message) for each bounded field of `cls` whose value fails; `given` holds values
    vLLM computed itself (by field name) in place of the flag's."""
    rows = _data().get(state.release.version, {}).get(cls, [])
    out = []
    for field, dest, bounds, _typ in rows:
        value = given[field] if given and field in given else values.get(dest)
        if value is None:
            continue
        message = _bound_error(value, bounds)
        if message:
            out.append((field, message))
    return out


def raise_field_errors(cls: str, errors: list[tuple[str, str]]) -> None:
    if errors:
        n = len(errors)
        body = "\n".join(f"{field}\n  {message}" for field, message in errors)
        raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {cls}\n{body}")


def bounded_dests(*classes: str) -> tuple[str, ...]:
    """The options whose values the Field bounds of these classes check, in any release (what
    the steps checking them read)."""
    return tuple(sorted({row[1] for rel in _data().values() for cls in classes for row in rel.get(cls, [])}))
