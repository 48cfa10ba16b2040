"""`vllm-preflight check` as a user runs it: exit codes, the JSON contract, messages."""
import json

from click.testing import CliRunner

from vllm_preflight.cli import cli

DEEPEP = ["vllm", "serve", "deepseek-ai/DeepSeek-V3", "--all2all-backend", "deepep_high_throughput",
          "-dp", "8", "--enable-expert-parallel"]


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_releases_turn_cuda_graphs_off_for_deepep_ht_dp8():
    code, out = run("check", "--format", "json", "--", *DEEPEP)
    assert code == 0
    doc = json.loads(out)
    assert doc["format_version"] == 1 and doc["tool_version"]
    (res,) = doc["results"]
    assert res["target"] == "release" and res["vllm_version"] == "0.33.0"
    assert res["source"] == " ".join(DEEPEP)
    assert res["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"
    assert res["vllm_error"] is None
    rules = [e["rule"] for e in res["events"]]
    assert "deepep_ht.disable_cudagraphs" in rules
    assert any("DeepEP: Disabling CUDA Graphs" in e["reason"] for e in res["events"])
    assert {"fact", "value", "source"} <= set(res["assumptions"][0])


def test_pr29558_splits_the_moe_ops_out():
    code, out = run("check", "--target", "pr29558", "--format", "json", "--", *DEEPEP)
    res = json.loads(out)["results"][0]
    # the design keeps graphs, and its default FULL_AND_PIECEWISE puts a FULL graph around the
    # HT dispatch: an error finding (VP301), so exit 1
    assert code == 1 and "VP301" in [f["rule"] for f in res["findings"]]
    assert res["target"] == "pr29558" and res["vllm_version"] == "0.12.0"
    cc = res["resolved"]["compilation_config"]
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert cc["splitting_ops"][-2:] == ["vllm::moe_forward", "vllm::moe_forward_shared"]


def test_text_summary_says_why():
    code, out = run("check", "--vllm-version", "0.13.0", "--", *DEEPEP)
    assert code == 0
    assert "CUDA graphs are OFF" in out and "deepep_ht.disable_cudagraphs" in out


def test_refusal_exits_1_with_vllms_error_type():
    code, out = run("check", "--format", "json", "--", *DEEPEP, "--enable-cuda-graphs")
    assert code == 1
    res = json.loads(out)["results"][0]
    assert res["resolved"] is None
    assert res["vllm_error"]["type"] == "ArgumentError"
    assert "unrecognized arguments" in res["vllm_error"]["message"]


def test_unsupported_version_is_a_usage_error_naming_the_range():
    code, out = run("check", "--vllm-version", "0.10.2", "--", *DEEPEP)
    assert code == 2
    assert "0.11.0" in out and "0.33.0" in out


def test_pr29558_with_another_version_is_a_usage_error():
    code, out = run("check", "--target", "pr29558", "--vllm-version", "0.13.0", "--", *DEEPEP)
    assert code == 2 and "0.12.0" in out


def test_unreadable_file_is_one_line_and_exit_2(tmp_path):
    code, out = run("check", str(tmp_path / "missing.sh"))
    assert code == 2
    assert "missing.sh" in out and "Traceback" not in out


def test_command_file_with_env_words_and_continuations(tmp_path):
    f = tmp_path / "serve.sh"
    f.write_text("#!/bin/bash\n# wide EP\nVLLM_ALL2ALL_BACKEND=deepep_high_throughput \\\n"
                 "  vllm serve deepseek-ai/DeepSeek-V3 -dp 8 \\\n  --enable-expert-parallel  # EP on\n")
    code, out = run("check", "--vllm-version", "0.13.0", "--format", "json", str(f))
    assert code == 0
    res = json.loads(out)["results"][0]
    assert res["source"] == str(f)
    # 0.13.0 still reads the deprecated env var when the flag is absent
    assert res["resolved"]["parallel_config"]["all2all_backend"] == "deepep_high_throughput"
    assert res["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"


def test_env_option_wins_over_leading_words(tmp_path):
    f = tmp_path / "serve.sh"
    f.write_text("VLLM_ALL2ALL_BACKEND=deepep_high_throughput vllm serve deepseek-ai/DeepSeek-V3 -dp 8\n")
    code, out = run("check", "--vllm-version", "0.13.0", "--env", "VLLM_ALL2ALL_BACKEND=deepep_low_latency",
                    "--format", "json", str(f))
    res = json.loads(out)["results"][0]
    assert res["resolved"]["parallel_config"]["all2all_backend"] == "deepep_low_latency"


def test_assume_overrides_model_facts():
    without_ep = [w for w in DEEPEP if w != "--enable-expert-parallel"]
    code, out = run("check", "--vllm-version", "0.14.1", "--assume", "model.is_moe=false", "--format", "json",
                    "--", *without_ep)
    res = json.loads(out)["results"][0]
    # 0.14.0+: the DeepEP rule counts data parallelism only for MoE models
    assert res["resolved"]["compilation_config"]["cudagraph_mode"] != "NONE"
    assert any(a["fact"] == "model.is_moe" and a["value"] is False for a in res["assumptions"])
    # with expert parallelism, a model without experts is refused (ModelConfig.verify_with_parallel_config)
    code, out = run("check", "--vllm-version", "0.14.1", "--assume", "model.is_moe=false", "--format", "json",
                    "--", *DEEPEP)
    assert "Number of experts" in json.loads(out)["results"][0]["vllm_error"]["message"]


def test_bad_assume_is_a_usage_error():
    code, out = run("check", "--assume", "model.nonsense=1", "--", *DEEPEP)
    assert code == 2 and "nonsense" in out
