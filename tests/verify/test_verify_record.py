"""The record is what a later matrix reads: its schema is ours and every run's record obeys it."""
from __future__ import annotations

import json

import jsonschema
import pytest

from vllm_preflight.verify import record
from vllm_preflight.verify.outcome import Check


def _record(**over):
    base = dict(source="x.sh", target="release", vllm_version="0.13.0", resolved={"a": 1},
                environment={"python": "3.11", "torch": None, "cuda": None, "device": "cpu",
                             "deep_ep": {"installed": False, "apis": [], "detail": "not installed"}},
                tier="cpu", plan=None, checks=[Check("V1", "t", "pass")], timings=[], ranks=[],
                status="pass", exit_code=0, reason="ok")
    base.update(over)
    return record.build(**base)


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(record.schema())


def test_a_built_record_validates_and_is_plain_json():
    rec = _record(checks=[Check("A3", "t", "fail", metrics={"max_abs": float("inf")})], status="fail", exit_code=1)
    record.validate(rec)
    assert json.loads(json.dumps(rec, allow_nan=False))["checks"][0]["metrics"]["max_abs"] == "inf"
    assert rec["input"]["resolved_digest"] == record.digest({"a": 1})


def test_the_digest_ignores_key_order():
    assert record.digest({"a": 1, "b": [1, 2]}) == record.digest({"b": [1, 2], "a": 1})


@pytest.mark.parametrize("bad", [{"status": "maybe"}, {"exit_code": 7}, {"tier": "tpu"}])
def test_the_schema_rejects_what_no_run_produces(bad):
    with pytest.raises(jsonschema.ValidationError):
        record.validate(_record(**bad))


def test_check_statuses_are_closed():
    with pytest.raises(ValueError):
        Check("V1", "t", "sort-of")
