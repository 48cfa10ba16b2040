"""The verify record: one JSON document per run, validated against `result.schema.json` before
it is printed or written, so that a later matrix can read records from many nodes."""
from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from pathlib import Path

from vllm_preflight import __version__
from vllm_preflight.verify.outcome import Check

SCHEMA_PATH = Path(__file__).with_name("result.schema.json")
SCHEMA_ID = "vllm-preflight/verify-record/1"


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def digest(resolved: dict | None) -> str | None:
    if resolved is None:
        return None
    canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def build(*, source: str, target: str, vllm_version: str | None, resolved: dict | None, environment: dict,
          tier: str, plan: dict | None, checks: list[Check], timings: list[dict], ranks: list[dict],
          status: str, exit_code: int, reason: str, missing: list[str] | None = None) -> dict:
    outcome = {"status": status, "exit_code": exit_code, "reason": reason}
    if missing:
        outcome["missing"] = list(missing)
    return _finite({
        "schema": SCHEMA_ID,
        "tool": {"name": "vllm-preflight", "version": __version__},
        "input": {"source": source, "target": target, "vllm_version": vllm_version,
                  "resolved_digest": digest(resolved)},
        "environment": environment,
        "tier": tier,
        "plan": plan,
        "checks": [c.to_json() for c in checks],
        "timings": timings,
        "ranks": ranks,
        "outcome": outcome,
    })


def _finite(value):
    """inf/nan are not JSON: a comparison that could not be made reports them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def validate(record: dict) -> None:
    """Raise jsonschema.ValidationError when the record does not match the schema (a bug)."""
    import jsonschema

    jsonschema.Draft202012Validator(schema()).validate(json.loads(json.dumps(record, default=str)))


def dumps(record: dict) -> str:
    return json.dumps(record, indent=2, sort_keys=False, default=str)
