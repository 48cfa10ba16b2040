"""vLLM --config YAML: words per release, precedence, and the file folded into commands."""
from __future__ import annotations

import pytest

from conftest import INPUTS, rel
from vllm_preflight.load import load_path
from vllm_preflight.load.bind import bind
from vllm_preflight.releases import get_release

CFG = INPUTS / "vllm-config"


def bound_argv(d, version):
    b = bind(d, get_release(version))
    return b.deployment.argv, b


def test_standalone_config_becomes_vllm_serve_with_model_positional(in_root):
    [d] = load_path(rel(CFG / "deepseek-ep.yaml"))
    assert d.format == "vllm-config" and d.source == rel(CFG / "deepseek-ep.yaml")
    argv, b = bound_argv(d, "0.33.0")
    assert argv[:3] == ("vllm", "serve", "deepseek-ai/DeepSeek-V3")
    assert argv[3:10] == ("--data-parallel-size", "8", "--enable_expert_parallel", "--all2all-backend",
                          "deepep_high_throughput", "--max-num-seqs", "256")
    i = argv.index("--cudagraph-capture-sizes")
    assert argv[i + 1:i + 7] == ("1", "2", "4", "8", "16", "32")  # a list: the flag, then each item
    assert "--enforce-eager" not in argv and "--no-enforce-eager" in argv  # false: --no-KEY from 0.28.0
    assert argv[argv.index("--compilation-config") + 1] == \
        '{"cudagraph_mode": "FULL_AND_PIECEWISE", "pass_config": {"enable_attn_fusion": true}}'
    assert (d.location.line, d.location.column) == (2, 1)


def test_false_is_dropped_before_0_28():
    [d] = load_path(str(CFG / "deepseek-ep.yaml"))
    argv, b = bound_argv(d, "0.20.2")
    assert "--enforce-eager" not in argv and "--no-enforce-eager" not in argv
    [f] = [f for f in b.findings if f.rule == "VP109"]
    assert f.location.line == 9


def test_nested_mapping_is_json_from_0_16_and_a_rejected_repr_before():
    [d] = load_path(str(CFG / "deepseek-ep.yaml"))
    argv, b = bound_argv(d, "0.15.1")
    text = argv[argv.index("--compilation-config") + 1]
    assert text == "{'cudagraph_mode': 'FULL_AND_PIECEWISE', 'pass_config': {'enable_attn_fusion': True}}"
    [f] = [f for f in b.findings if f.rule == "VP106"]
    assert f.severity == "error" and (f.location.line, f.location.column) == (10, 1)
    assert "0.16.0" in f.message
    argv16, b16 = bound_argv(d, "0.16.0")
    assert argv16[argv16.index("--compilation-config") + 1].startswith('{"cudagraph_mode"')
    assert not [f for f in b16.findings if f.rule == "VP106"]


def test_config_in_a_command_goes_after_the_model_and_the_cli_wins(in_root):
    [d] = load_path(rel(CFG / "serve-with-config.sh"))
    argv, _ = bound_argv(d, "0.33.0")
    assert argv[:3] == ("vllm", "serve", "deepseek-ai/DeepSeek-V3")  # `model:` of the file, as vLLM's serve does
    assert argv[-4:] == ("--data-parallel-size", "16", "--port", "8000")
    assert argv.index("--data-parallel-size") < len(argv) - 4  # the file's value comes first, so the CLI wins
    assert d.config_files and d.config_files[0].endswith("deepseek-ep.yaml")


def test_missing_config_file_is_a_finding_not_an_error(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("vllm serve m --config nowhere.yaml -tp 2\n")
    [d] = load_path(str(script))
    assert d.argv == ("vllm", "serve", "m", "--config", "nowhere.yaml", "-tp", "2")
    [f] = d.findings
    assert f.rule == "VP107" and "nowhere.yaml" in f.message


def test_folder_walk_does_not_count_a_folded_config_twice(in_root):
    found = load_path(rel(CFG))
    assert [d.source for d in found] == [rel(CFG / "serve-with-config.sh")]
    explicit = load_path(rel(CFG / "deepseek-ep.yaml"))
    assert [d.format for d in explicit] == ["vllm-config"]


@pytest.mark.parametrize("text,expect", [
    ("tensor_parallel_size: 2\nmodel: m\n", ("vllm", "serve", "m", "--tensor_parallel_size", "2")),
    ("model: m\nmax-model-len: 32k\nswap-space: 4.5\n", ("vllm", "serve", "m", "--max-model-len", "32k", "--swap-space", "4.5")),
    ("model: m\nall2all-backend: null\n", ("vllm", "serve", "m", "--all2all-backend", "None")),
])
def test_values_are_str_of_the_yaml_value(tmp_path, text, expect):
    f = tmp_path / "c.yaml"
    f.write_text(text)
    [d] = load_path(str(f))
    assert bound_argv(d, "0.33.0")[0] == expect


def test_not_every_mapping_is_a_vllm_config(tmp_path):
    from vllm_preflight.errors import InputFailure

    f = tmp_path / "values.yaml"
    f.write_text("replicaCount: 2\nimage:\n  repository: nginx\n")
    with pytest.raises(InputFailure) as e:
        load_path(str(f))
    assert "neither a Kubernetes manifest" in e.value.error.message
