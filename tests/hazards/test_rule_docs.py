"""docs/rules.md is generated from the registry; it must not go stale."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.findings import RULES
from vllm_preflight.rule_docs import markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_docs_rules_md_is_current():
    assert DOC.read_text() == markdown(), "regenerate: vllm-preflight rules --format markdown > docs/rules.md"


def test_rules_lists_every_rule_and_explain_finds_each():
    out = CliRunner().invoke(cli, ["rules"]).output
    assert all(code in out for code in RULES)
    for code, rule in RULES.items():
        text = CliRunner().invoke(cli, ["explain", code]).output
        assert text.startswith(f"{code} {rule.name} ({rule.severity})")


def test_explain_unknown_rule_is_a_usage_error_with_a_hint():
    r = CliRunner().invoke(cli, ["explain", "VP3O1"])
    assert r.exit_code == 2 and "did you mean VP301" in r.output
