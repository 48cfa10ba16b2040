"""The plan rows: written value and place, vLLM's default, every change with its rule and cause."""
from __future__ import annotations

from pathlib import Path

from vllm_preflight.api import check_inputs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def rows_of(res) -> dict[str, dict]:
    return {r["setting"]: r for r in res.extra["plan"]}


def test_default_then_rule_then_written_place():
    [res] = check_inputs([str(EXAMPLES / "deepep-ht-dp8.sh")], vllm_version="0.13.0").results
    rows = rows_of(res)
    cg = rows["cudagraph_mode"]
    assert cg["written"] is None and cg["default_from"] == "-O2 default"  # vLLM 0.13.0's O2 table
    assert [(c["rule"], c["before"], c["after"], c["cause"]) for c in cg["changes"]] == [
        ("deepep_ht.disable_cudagraphs", "FULL_AND_PIECEWISE", "NONE", "all2all_backend")]
    a2a = rows["all2all_backend"]
    assert a2a["written"]["value"] == "deepep_high_throughput"
    assert a2a["written"]["where"].endswith("examples/deepep-ht-dp8.sh:7:5") and not a2a["changes"]
    assert res.extra["summary"]["line"].startswith(
        "cudagraph_mode NONE (the -O2 default was FULL_AND_PIECEWISE): ")


def test_the_same_append_twice_is_one_change_with_repeats():
    """vLLM appends +quant_fp8 twice for block-FP8 models (both events are in the JSON events)."""
    [res] = check_inputs([], command=["vllm", "serve", "deepseek-ai/DeepSeek-V3"]).results
    custom = rows_of(res)["custom_ops"]
    assert [(c["rule"], c["repeats"]) for c in custom["changes"]] == [("quant.blocked_fp8_custom_op", 2)]
    assert [e.rule for e in res.events].count("quant.blocked_fp8_custom_op") == 2


def test_chain_from_fusion_to_full():
    [res] = check_inputs([], command=["vllm", "serve", "Qwen/Qwen3-0.6B", "-cc.pass_config.fuse_attn_quant=true",
                                      "-cc.custom_ops+=+quant_fp8"], vllm_version="0.33.0").results
    rows = rows_of(res)
    assert rows["splitting_ops"]["changes"][0]["cause"] == "pass_config.fuse_attn_quant"
    assert rows["cudagraph_mode"]["changes"][-1]["cause"] == "splitting_ops"
    assert rows["pass_config.fuse_attn_quant"]["written"]["value"] is True


def test_env_is_where_the_backend_was_written():
    [res] = check_inputs([], command=["vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8",
                                      "--enable-expert-parallel"],
                         env=[("VLLM_ALL2ALL_BACKEND", "deepep_high_throughput")], vllm_version="0.13.0").results
    a2a = rows_of(res)["all2all_backend"]
    assert a2a["written"] == {"value": "deepep_high_throughput", "where": "env VLLM_ALL2ALL_BACKEND"}
    assert res.resolved["compilation_config"]["cudagraph_mode"] == "NONE"  # 0.13.0 reads the env as fallback


def test_refusal_has_no_plan_and_an_error_finding():
    [res] = check_inputs([], command=["vllm", "serve", "Qwen/Qwen3-0.6B", "-cc", '{"cudagraph_mode": "SOMETIMES"}']).results
    assert res.extra["plan"] == [] and res.extra["summary"]["refused"]
    assert [f["rule"] for f in res.extra["findings"] if f["severity"] == "error"][-1] == "VP300"
