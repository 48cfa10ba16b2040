"""The verify record: one JSON document per run, validated against `result.schema.json` before
it is printed or written, so that a later matrix can read records from many nodes."""
from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
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
          status: str, exit_code: int, reason: str, missing: list[str] | None = None,
          date: str | None = None) -> dict:
    outcome = {"status": status, "exit_code": exit_code, "reason": reason}
    if missing:
        outcome["missing"] = list(missing)
    return _finite({
        "schema": SCHEMA_ID,
        "tool": {"name": "vllm-preflight", "version": __version__},
        "date": date or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
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
    import jsonschema  # type: ignore[import-untyped]  # no type hints shipped; types-jsonschema is not in the lint extra

    jsonschema.Draft202012Validator(schema()).validate(json.loads(json.dumps(record, default=str)))


def dumps(record: dict) -> str:
    return json.dumps(record, indent=2, sort_keys=False, default=str)


def file_name(record: dict) -> str:
    """`<date>-<tier>-<target>-<vllm version>-<digest prefix>.json`: sorts by date; two runs in the
    same second of the same deployment still get distinct files (see `write_into`)."""
    date = record["date"].replace(":", "").replace("-", "")
    digest8 = (record["input"]["resolved_digest"] or "sha256:none").split(":", 1)[1][:8]
    version = record["input"]["vllm_version"] or "unknown"
    safe = "".join(ch if ch.isalnum() or ch in "._" else "_" for ch in f"{record['tier']}-{record['input']['target']}-{version}")
    return f"{date}-{safe}-{digest8}.json"


def write_into(directory: str, record: dict) -> str:
    """`verify --record DIR`: one JSON file per run, written whole (temp file + rename) so that a
    reader never sees half a record; never overwrites an earlier run's file."""
    os.makedirs(directory, exist_ok=True)
    base = file_name(record)
    path = os.path.join(directory, base)
    n = 1
    while os.path.exists(path):
        path = os.path.join(directory, base[:-5] + f"-{n}.json")
        n += 1
    fd, tmp = tempfile.mkstemp(prefix=".pf-record-", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(dumps(record) + "\n")
    os.replace(tmp, path)
    return path
