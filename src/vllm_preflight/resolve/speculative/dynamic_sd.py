"""Dynamic speculative decoding: `speculative_config.num_speculative_tokens_per_batch_size` (0.24.0+).

A schedule of inclusive batch-size ranges `[[start, end, k], ...]` picks the number of draft
tokens per step. At config time vLLM (a) validates the field's type (pydantic
`list[tuple[int, int, int]] | None`), (b) switches it off for DP > 1 (0.26.0+) and, on the V1
model runner, for methods without support (0.33.0+), (c) turns FULL-capable graph modes into
PIECEWISE (0.24.0 always; 0.25.0+ only on the V1 runner) and (d) captures the uniform-decode
sizes of every tier of the schedule (0.29.0+). The schedule's own rules (ranges positive,
sorted, starting at 1) are checked only when the scheduler starts, after the weights have
loaded (`scheduler_refusal`, reported by the runtime stage); at config time an invalid schedule
keeps the single static tier.
"""
from __future__ import annotations

from vllm_preflight.resolve.base.state import Refusal

FIELD = "num_speculative_tokens_per_batch_size"


def _int_error(value) -> tuple[str, str] | None:
    """pydantic's lax int: bools, ints, integral floats and integer strings pass."""
    if isinstance(value, (bool, int)):
        return None
    if isinstance(value, float):
        return None if value.is_integer() else (
            "int_from_float", "Input should be a valid integer, got a number with a fractional part")
    if isinstance(value, str):
        try:
            int(value.strip())
            return None
        except ValueError:
            return "int_parsing", "Input should be a valid integer, unable to parse string as an integer"
    return "int_type", "Input should be a valid integer"


def _err(loc: str, kind: str, msg: str, value) -> tuple[str, str]:
    """One pydantic error: its location, and its message with the details pydantic appends."""
    return loc, f"{msg} [type={kind}, input_value={value!r}, input_type={type(value).__name__}]"


def _errors(value) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        return [_err(FIELD, "list_type", "Input should be a valid list", value)]
    out: list[tuple[str, str]] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, list):
            out.append(_err(f"{FIELD}.{i}", "tuple_type", "Input should be a valid tuple", entry))
            continue
        for j, item in enumerate(entry[:3]):
            err = _int_error(item)
            if err:
                out.append(_err(f"{FIELD}.{i}.{j}", err[0], err[1], item))
        if len(entry) > 3:
            out.append(_err(f"{FIELD}.{i}", "too_long",
                            f"Tuple should have at most 3 items after validation, not {len(entry)}", entry))
        out += [_err(f"{FIELD}.{i}.{j}", "missing", "Field required", entry) for j in range(len(entry), 3)]
    return out


def validate(value) -> list[tuple[int, int, int]] | None:
    """The field as pydantic builds it, or the ValidationError vLLM reports."""
    if value is None:
        return None
    errors = _errors(value)
    if errors:
        n = len(errors)
        head = f"{n} validation error{'s' if n > 1 else ''} for SpeculativeConfig"
        raise Refusal("ValidationError", head + "".join(f"\n{loc}\n  {msg}" for loc, msg in errors))
    return [(int(float(a)) if not isinstance(a, str) else int(a.strip()),
             int(float(b)) if not isinstance(b, str) else int(b.strip()),
             int(float(k)) if not isinstance(k, str) else int(k.strip())) for a, b, k in value]


def scheduler_refusal(schedule: list[tuple[int, int, int]], max_batch: int, max_k: int) -> str | None:
    """The ValueError message the scheduler raises for a schedule when the engine starts
    (v1/spec_decode/dynamic/utils.py `build_dynamic_sd_schedule_lookup`, the same file in
    0.24.0-0.33.0), or None: each entry in the order written, then the sorted ranges."""
    if max_batch <= 0:
        return "vllm_max_batch_size must be > 0."
    if max_k <= 0:
        return "vllm_num_speculative_tokens must be > 0."
    if not schedule:
        return "num_speculative_tokens_per_batch_size must not be empty."
    for start, end, k in schedule:
        if start <= 0 or end <= 0:
            return f"Batch-size range ({start}, {end}) must be positive."
        if start > end:
            return f"Batch-size range start must be <= end for ({start}, {end}, {k})."
        if k < 0:
            return "num_speculative_tokens_per_batch_size values must be >= 0."
    prev_end = 0
    for start, end, _ in sorted(schedule, key=lambda e: e[0]):
        if start <= prev_end:
            return "Batch-size ranges must be non-overlapping and sorted."
        prev_end = end
    if min(start for start, _, _ in schedule) != 1:
        return "The first batch-size range must start at 1 so every runtime batch size has a defined schedule."
    return None


def dense_lookup(schedule: list[tuple[int, int, int]], max_batch: int, max_k: int) -> list[int] | None:
    """batch size -> k for 1..max_batch (index 0 unused), as the scheduler expands it: ranges
    sorted, gaps and the tail carry the previous k, every k clamped to num_speculative_tokens.
    None where the scheduler would refuse the schedule (vLLM's capture sizing then keeps the
    single static tier)."""
    if scheduler_refusal(schedule, max_batch, max_k) is not None:
        return None
    ranges = sorted(schedule, key=lambda e: e[0])
    dense = [0] * (max_batch + 1)
    nxt, last = 1, None
    for start, end, k in ranges:
        if start > nxt and last is not None:
            for b in range(nxt, min(start, max_batch + 1)):
                dense[b] = min(max_k, last)
        for b in range(max(start, nxt), min(end, max_batch) + 1):
            dense[b] = min(max_k, k)
        nxt, last = max(nxt, end + 1), k
        if nxt > max_batch:
            break
    tail = min(max_k, last if last is not None else 0)  # `last` is set: the schedule is not empty
    for b in range(nxt, max_batch + 1):
        dense[b] = tail
    return dense


def decode_tiers(schedule: list[tuple[int, int, int]] | None, q: int, max_num_seqs: int,
                 max_k: int) -> list[tuple[int, int]]:
    """(query length, widest batch at it) for each tier; one static tier without a usable schedule."""
    dense = dense_lookup(schedule, max_num_seqs, max_k) if schedule is not None else None
    if dense is None:
        return [(q, max_num_seqs)]
    widest: dict[int, int] = {}
    for batch, k in enumerate(dense[1:], start=1):
        widest[k + 1] = batch
    return list(widest.items())
