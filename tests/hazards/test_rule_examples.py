"""Every rule of the registry is documented and its two examples behave: one fires, one does not."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.findings import RULES
from vllm_preflight.rule_docs import explain_text

DOCUMENTED = list(RULES)  # every rule: its sections and its two examples


def _check(tmp_path, example) -> list[dict]:
    """The example through the command line, as a user runs it (from the example's folder)."""
    path = tmp_path / example.file
    path.write_text(example.script + "\n")
    for name, text in example.extra:
        (tmp_path / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        out = CliRunner().invoke(cli, ["check", "--format", "json", *example.options, example.file])
    finally:
        os.chdir(cwd)
    data = json.loads(out.stdout)
    assert data["results"], f"{example.file} holds no server: {out.output}"
    return [f for r in data["results"] for f in r["findings"]]


@pytest.mark.parametrize("code", DOCUMENTED)
def test_rule_has_sections_and_examples(code):
    rule = RULES[code]
    assert rule.why and rule.fix and rule.source, f"{code} lacks why/fix/source"
    assert rule.triggers is not None and rule.passes is not None, f"{code} lacks its two examples"
    text = explain_text(rule)
    assert "Fires on" in text and "Does not fire on" in text and rule.source in text


@pytest.mark.parametrize("code", DOCUMENTED)
def test_trigger_example_fires(code, tmp_path):
    fired = [f for f in _check(tmp_path, RULES[code].triggers) if f["rule"] == code]
    assert fired, f"{code} did not fire on its triggering example"
    assert all(f["severity"] == RULES[code].severity for f in fired)
    assert all(f["location"] and f["location"]["line"] for f in fired), "a hazard finding names its line"


@pytest.mark.parametrize("code", DOCUMENTED)
def test_passing_example_does_not_fire(code, tmp_path):
    assert not [f for f in _check(tmp_path, RULES[code].passes) if f["rule"] == code]
