"""Validation findings: rule, severity, the offending flag or key, its line and column, a did-you-mean."""
from __future__ import annotations

import textwrap

import pytest

from conftest import recorded
from vllm_preflight.load.bind import bind
from vllm_preflight.load.shell_file import load as load_shell
from vllm_preflight.load.source import Source
from vllm_preflight.releases import get_release
from vllm_preflight.schema.validate import validate_bound


def findings_for(script: str, version: str, path: str = "run.sh"):
    [d] = load_shell(Source(path, textwrap.dedent(script)))
    release = get_release(version)
    b = bind(d, release)
    return b.findings + validate_bound(b, release)


def only(findings, rule):
    hits = [f for f in findings if f.rule == rule]
    assert len(hits) == 1, findings
    return hits[0]


def test_unknown_flag_with_a_did_you_mean_at_its_word():
    f = only(findings_for("vllm serve m \\\n  --tensor-paralel-size 2\n", "0.33.0"), "VP201")
    assert f.severity == "error" and (f.location.line, f.location.column) == (2, 3)
    assert "`--tensor-paralel-size`" in f.message and "did you mean `--tensor-parallel-size`?" in f.message


@pytest.mark.parametrize("version", ["0.13.0", "0.20.2", "0.33.0"])
def test_renamed_pass_config_key_on_newer_releases(version):
    if not recorded(version):
        pytest.skip(f"release data for {version} not recorded yet")
    script = "vllm serve m --compilation-config '{\"pass_config\": {\"enable_attn_fusion\": true}}'\n"
    f = only(findings_for(script, version), "VP203")
    assert f.severity == "error" and "vLLM rejects it" in f.message
    assert "did you mean `fuse_attn_quant`?" in f.message
    assert (f.location.line, f.location.column) == (1, 53)  # the key inside the JSON word


@pytest.mark.parametrize("version", ["0.11.0", "0.11.1", "0.11.2"])
def test_new_pass_config_name_on_0_11(version):
    if not recorded(version):
        pytest.skip(f"release data for {version} not recorded yet")
    f = only(findings_for("vllm serve m --compilation-config.pass_config.fuse_attn_quant=true\n", version), "VP203")
    assert f.severity == "warning" and "ignores it" in f.message
    assert "did you mean `enable_attn_fusion`?" in f.message


def test_all2all_flag_on_0_11_0_points_at_the_environment_variable():
    if not recorded("0.11.0"):
        pytest.skip("release data for 0.11.0 not recorded yet")
    f = only(findings_for("vllm serve m --all2all-backend deepep_high_throughput -dp 8\n", "0.11.0"), "VP201")
    assert "VLLM_ALL2ALL_BACKEND" in f.message and "0.11.1" in f.message


def test_cudagraph_mode_names_any_case_but_only_real_names():
    assert findings_for("vllm serve m -cc.cudagraph_mode=full_and_piecewise\n", "0.33.0") == []
    f = only(findings_for("vllm serve m -cc.cudagraph_mode=FULL_PIECEWISE\n", "0.33.0"), "VP204")
    assert "did you mean `FULL_AND_PIECEWISE`?" in f.message and "(any case)" in f.message
    assert (f.location.line, f.location.column) == (1, 14)


def test_yaml_config_key_is_placed_in_the_yaml_file(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("compilation-config:\n  cudagraph_mode: FULL_PIECEWISE\n  pass_config:\n    enable_attn_fusion: true\n")
    run = tmp_path / "run.sh"
    run.write_text("vllm serve m --config c.yaml\n")
    from vllm_preflight.load import load_path

    [d] = load_path(str(run))
    release = get_release("0.33.0")
    b = bind(d, release)
    found = {f.rule: f for f in validate_bound(b, release)}
    assert (found["VP204"].location.file, found["VP204"].location.line) == (str(cfg), 2)
    assert (found["VP203"].location.line, found["VP203"].location.column) == (4, 5)


def test_choices_types_json_and_duplicates():
    fs = findings_for("vllm serve m --all2all-backend deepep_highthroughput -dp eight --kv-transfer-config '{bad' "
                      "--max-num-seqs 8 --max-num-seqs 16\n", "0.33.0")
    rules = {f.rule: f for f in fs}
    assert "did you mean `deepep_high_throughput`?" in rules["VP202"].message or \
        any("deepep_high_throughput" in f.message for f in fs if f.rule == "VP202")
    assert any("takes an integer; got 'eight'" in f.message for f in fs if f.rule == "VP202")
    assert rules["VP205"].location.column == 86  # the `{` inside the quotes
    assert rules["VP108"].severity == "info"


def test_a_clean_command_has_no_findings():
    assert findings_for("vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel "
                        "--all2all-backend deepep_high_throughput -O3 --max-num-batched-tokens 8k\n", "0.33.0") == []
