"""Models the tool cannot read are never guessed silently (issue 9)."""
from __future__ import annotations

import json
from pathlib import Path

from vllm_preflight.api import check_inputs
from vllm_preflight.model import Assumption, Resolution, VllmError
from vllm_preflight.model_kind import model_kind_dependence
from vllm_preflight.modelfacts import KNOWN_MODELS, facts_from_config, model_facts

DATA = Path(__file__).resolve().parents[2] / "src" / "vllm_preflight" / "releases" / "data" / "models.json"


def _one(argv, version="0.14.0"):
    report = check_inputs([], command=argv, vllm_version=version)
    [r] = report.results
    return r


def test_expert_flags_make_an_unknown_model_moe():
    # 0.14.0+ exempts dense models from the DeepEP-HT rule: guessing dense would keep FULL graphs
    r = _one(["vllm", "serve", "acme/private-moe", "-dp", "8", "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput"])
    [a] = [a for a in r.assumptions if a.fact == "model.is_moe"]
    assert a.value is True and "--enable-expert-parallel" in a.source
    assert r.resolved["compilation_config"]["cudagraph_mode"] == "NONE"


def test_env_backend_alone_makes_an_unknown_model_moe():
    facts, assumed = model_facts("acme/x", None, {}, experts_wanted="VLLM_ALL2ALL_BACKEND=deepep_high_throughput")
    assert facts.is_moe and "VLLM_ALL2ALL_BACKEND" in assumed[0].source


def test_unknown_model_without_expert_flags_is_a_stated_assumption():
    r = _one(["vllm", "serve", "acme/private", "-tp", "2"])
    [a] = [a for a in r.assumptions if a.fact == "model.is_moe"]
    assert a.value is False and "unknown model" in a.source and "checked too" in a.source


def test_a_pinned_kind_is_not_an_assumption_of_ours():
    report = check_inputs([], command=["vllm", "serve", "acme/private", "-dp", "8"], vllm_version="0.14.0",
                          assume=[("model.is_moe", "true")])
    [r] = report.results
    assert [a.value for a in r.assumptions if a.fact == "model.is_moe"] == [True]
    assert "model.is_moe" not in r.extra["depends_on"]


def _res(mode=None, error=None, dense=True) -> Resolution:
    res = Resolution(source="s", target="release", vllm_version="0.14.0",
                     resolved=None if error else {"compilation_config": {"cudagraph_mode": mode}},
                     vllm_error=VllmError("ValueError", error) if error else None)
    if dense:
        res.assumptions.append(Assumption("model.is_moe", False, "unknown model `m` (...)"))
    return res


def test_model_kind_dependence_reports_both_outcomes():
    on, findings = model_kind_dependence(_res("FULL_AND_PIECEWISE"), lambda: _res("NONE", dense=False))
    assert on == ["model.is_moe"]
    [f] = findings
    assert f.rule == "VP103" and "NONE instead of FULL_AND_PIECEWISE" in f.message
    assert model_kind_dependence(_res("FULL"), lambda: _res("FULL", dense=False)) == ([], [])
    on, [f] = model_kind_dependence(_res("FULL"), lambda: _res(error="boom", dense=False))
    assert "would refuse" in f.message


def test_model_kind_dependence_leaves_read_models_alone():
    res = _res("FULL", dense=False)
    called = []
    assert model_kind_dependence(res, lambda: called.append(1)) == ([], []) and not called


# The MoE families deployers run with wide EP (issue 9), each from its config.json keys.
MOE_FAMILIES = {
    "DeepSeek V2": "deepseek-ai/DeepSeek-V2", "DeepSeek V3": "deepseek-ai/DeepSeek-V3",
    "DeepSeek R1": "deepseek-ai/DeepSeek-R1", "DeepSeek V3.1": "deepseek-ai/DeepSeek-V3.1",
    "DeepSeek V3.2": "deepseek-ai/DeepSeek-V3.2-Exp", "Qwen2 MoE": "Qwen/Qwen1.5-MoE-A2.7B",
    "Qwen3 MoE": "Qwen/Qwen3-235B-A22B", "Mixtral": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "Llama 4": "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "Kimi K2": "moonshotai/Kimi-K2-Instruct",
    "GLM-4.5": "zai-org/GLM-4.5", "GLM-4.6": "zai-org/GLM-4.6", "gpt-oss": "openai/gpt-oss-120b",
    "MiniMax": "MiniMaxAI/MiniMax-M2",
}


def test_table_covers_the_wide_ep_moe_families():
    for family, hub_id in MOE_FAMILIES.items():
        assert hub_id in KNOWN_MODELS, family
        facts = KNOWN_MODELS[hub_id]
        assert facts.is_moe and facts.num_attention_heads > 0, family


def test_table_entries_are_config_json_keys_read_like_a_local_file():
    data = json.loads(DATA.read_text())["models"]
    for hub_id, entry in data.items():
        cfg = entry["config"]
        assert cfg["architectures"] and "model_type" in cfg, hub_id
        assert KNOWN_MODELS[hub_id] == facts_from_config(cfg)
    # MLA: DeepSeek V2/V3 and Kimi K2 carry kv_lora_rank; fp8 block weights add +quant_fp8
    assert KNOWN_MODELS["moonshotai/Kimi-K2-Instruct"].is_mla
    assert KNOWN_MODELS["deepseek-ai/DeepSeek-V3"].blocked_fp8
    assert not KNOWN_MODELS["deepseek-ai/DeepSeek-V2-Lite"].blocked_fp8
    assert not KNOWN_MODELS["meta-llama/Llama-3.3-70B-Instruct"].is_moe
