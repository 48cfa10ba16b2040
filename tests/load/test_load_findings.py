"""The finding catalogue: stable codes, unique names, and every rule raised somewhere."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from vllm_preflight.findings import RULES, Finding

SRC = Path(__file__).resolve().parents[2] / "src" / "vllm_preflight"


def test_codes_names_and_severities():
    assert all(re.fullmatch(r"VP[1-9]\d\d", code) for code in RULES)
    names = [r.name for r in RULES.values()]
    assert len(names) == len(set(names)) and all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in names)
    assert {r.severity for r in RULES.values()} <= {"error", "warning", "info"}
    assert all(r.code == code and r.summary.endswith(".") for code, r in RULES.items())


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_is_raised_by_the_code(code):
    text = "\n".join(p.read_text() for p in SRC.rglob("*.py") if p.name != "findings.py")
    assert f'"{code}"' in text


def test_a_finding_takes_its_rules_severity_and_renders_its_place():
    from vllm_preflight.model import Location

    f = Finding("VP201", "`--x` is not an option", Location("run.sh", 3, 7))
    assert f.severity == "error"
    assert f.to_json() == {"rule": "VP201", "severity": "error", "message": "`--x` is not an option",
                           "location": {"file": "run.sh", "line": 3, "column": 7}}
    assert f.render() == "run.sh:3:7: error VP201 `--x` is not an option"
