"""Per-architecture config hooks (resolve/vllm_config/model_hooks.py): where each rule starts or changes,
read from vLLM's models/config.py per release. Real vLLM agrees on 0.12.0, pr29558 and 0.33.0
(tests/golden/data/model_families/arch_hooks/); these pin the release boundaries between."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.modelfacts import facts_from_config, model_facts
from vllm_preflight.resolve import resolve


def _res(model: str, words: list[str], target: str, env: dict | None = None):
    argv = ("vllm", "serve", str(MODELS / model)) + tuple(words)
    return resolve(Deployment(argv=argv, env=tuple((env or {}).items()), source="t"), target)


def _error(model: str, words: list[str], target: str, env: dict | None = None):
    err = _res(model, words, target, env).vllm_error
    return None if err is None else (err.type, err.message)


def _mode(model: str, words: list[str], target: str, env: dict | None = None) -> str:
    res = _res(model, words, target, env)
    assert res.vllm_error is None, res.vllm_error
    return res.resolved["compilation_config"]["mode"]


def test_config_value_reads_raw_keys_and_survives_assume():
    facts = facts_from_config({"architectures": ["X"], "pooling": "avg", "text_config": {"hc_count": 1}})
    assert facts.config_value("pooling") == "avg"
    assert facts.config_value("hc_count", 4) == 4  # top level only
    assert facts.config_value("hc_count", 4, text=True) == 1
    facts, _ = model_facts(str(MODELS / "hook-aliceai-softmax-router"), None, {"is_moe": "true"})
    assert facts.is_moe and facts.config_value("router_score_function") == "softmax"


def test_breakable_graphs_by_default_follow_each_release_list():
    # DeepseekV32ForCausalLM joined the list in 0.29.0; the variable set at all opts out
    assert _mode("hook-deepseekv32", [], "0.28.0") == "VLLM_COMPILE"
    assert _mode("hook-deepseekv32", [], "0.29.0") == "NONE"
    assert _mode("hook-deepseekv32", [], "0.29.0", {"VLLM_USE_BREAKABLE_CUDAGRAPH": "0"}) == "VLLM_COMPILE"
    # Qwen4Exp* only from 0.30.0
    assert _mode("hook-qwen4exp", [], "0.29.0") == "VLLM_COMPILE"
    assert _mode("hook-qwen4exp", [], "0.30.0") == "NONE"


def test_qwen4exp_moe_sequence_parallel_needs_pp1_from_0_32_0():
    words = ["-tp", "2", "-dp", "2", "-pp", "2", "--enable-expert-parallel"]
    assert _error("hook-qwen4exp", words, "0.31.0") is None
    assert _error("hook-qwen4exp", words, "0.32.0") == (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, Qwen4Exp MoE SP requires PP=1")
    # without EP there is no MoE sequence parallelism
    assert _error("hook-qwen4exp", ["-tp", "2", "-dp", "2", "-pp", "2"], "0.33.0") is None


def test_qwen4exp_spec_methods():
    ngram = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'
    assert _error("hook-qwen4exp", ["--speculative-config", ngram], "0.33.0") is None
    draft = '{"model": "' + str(MODELS / "llama-dense") + '", "num_speculative_tokens": 2}'
    err = _error("hook-qwen4exp", ["--speculative-config", draft], "0.33.0")
    assert err is not None and err[0] == "NotImplementedError" and "native MTP" in err[1]


def test_llama_bidirectional_without_pooling_per_release():
    assert _error("hook-llamabidirectional-no-pooling", [], "0.28.0") == (
        "AttributeError", "'LlamaConfig' object has no attribute 'pooling'")
    typ, msg = _error("hook-llamabidirectional-no-pooling", [], "0.29.0")
    assert typ == "ValidationError" and "for ModelConfig" in msg and "requires a 'pooling' field" in msg
    assert _error("hook-llamabidirectional-avg", [], "0.14.0") is None


def test_nemotron_vl_pooling_must_be_text_from_0_28_0():
    assert _error("hook-llamanemotronvl-no-pooling", [], "0.27.0") == (
        "ValidationError", "1 validation error for ModelConfig\n  Value error, pool_type None not supported")
    assert _error("hook-llamanemotronvl-no-pooling", [], "0.28.0") == (
        "ValidationError", "1 validation error for ModelConfig\n  Assertion failed, ")


def test_colqwen35_contract_is_checked_from_0_27_0():
    assert _error("hook-colqwen35-no-contract", [], "0.26.0") is None
    typ, msg = _error("hook-colqwen35-no-contract", [], "0.27.0")
    assert typ == "ValidationError" and "must declare retrieval_attention_contract" in msg
    typ, msg = _error("hook-colqwen35-conflict", [], "0.33.0")
    assert msg.endswith("declarations: ['causal', 'bidirectional']")


@pytest.mark.parametrize("target,stage,example", [
    ("0.12.0", "VllmConfig", "offline_inference/qwen3_reranker.py"),
    ("0.13.0", "VllmConfig", "offline_inference/offline_reranker.py"),
    ("0.14.0", "ModelConfig", "pooling/score/qwen3_reranker_offline.py"),
])
def test_reranker_assert_moves_to_model_config_in_0_14_0(target, stage, example):
    typ, msg = _error("hook-qwen3seqcls-reranker-no-tokens", [], target)
    assert typ == "ValidationError" and msg.startswith(f"1 validation error for {stage}\n  Assertion failed, ")
    assert msg.endswith("/examples/" + example)
    assert _error("hook-qwen3seqcls-reranker", [], target) is None


def test_diffusion_gemma_caps_default_max_num_seqs_and_counts_its_canvas():
    # the canvas counts as speculative tokens: 0.33.0 covers the one 257-token decode batch that fits
    res = _res("hook-diffusiongemma", [], "0.33.0")
    assert res.resolved["compilation_config"]["max_cudagraph_capture_size"] == 512
    assert 257 in res.resolved["compilation_config"]["cudagraph_capture_sizes"]
    canvas = ["--diffusion-config", '{"canvas_length": 8}']
    res = _res("hook-diffusiongemma", canvas, "0.24.0")  # 8 sequences x 9 tokens x 2
    assert res.resolved["compilation_config"]["max_cudagraph_capture_size"] == 144
    res = _res("hook-diffusiongemma", canvas + ["--max-num-seqs", "4"], "0.24.0")  # set below 128: kept
    assert res.resolved["compilation_config"]["max_cudagraph_capture_size"] == 72


def test_unlimited_ocr_fa4_follows_the_gpu():
    res = _res("hook-unlimitedocr", ["--attention-backend", "FLASH_ATTN"], "0.25.0")
    assert res.vllm_error is None  # H200 (SM 9.0): FA4 available
    assert any(a.fact == "node.fa4_available" and a.value is True for a in res.assumptions)
    err = _error("hook-unlimitedocr", ["--attention-backend", "FLASHINFER"], "0.25.0")
    assert err is not None and err[1].endswith(
        "Unlimited-OCR: unsupported attention backend <AttentionBackendEnum.FLASHINFER: "
        "'vllm.v1.attention.backends.flashinfer.FlashInferBackend'> for R-SWA. "
        "Use FLASH_ATTN (FA4), TRITON_ATTN or FLEX_ATTENTION.")


def test_alice_ai_refuses_aux_hidden_state_methods():
    from vllm_preflight.resolve.base.state import Refusal
    from vllm_preflight.resolve.vllm_config import model_hooks

    state = SimpleNamespace(parallel={"pipeline_parallel_size": 1}, speculative_method_resolved="eagle3")
    with pytest.raises(Refusal) as e:
        model_hooks.alice_ai(state, {})  # type: ignore[arg-type]
    assert e.value.message == ("AliceAI does not support speculative method 'eagle3' because it requires "
                               "auxiliary hidden states")


@pytest.mark.parametrize("target", ["0.12.0", "0.33.0"])
def test_deepseek_v32_needs_index_topk_in_the_file(target):
    # model_type deepseek_v32 loads vLLM's DeepseekV3Config (no index_topk default) in every release
    assert _error("hook-deepseekv32-type-without-index-topk", [], target) == (
        "ValidationError", "1 validation error for VllmConfig\n  Assertion failed, ")
    assert _error("hook-deepseekv32", ["-tp", "2"], target) is None


def test_mamba_prefix_caching_needs_chunked_prefill_per_release():
    words = ["--enable-prefix-caching", "--no-enable-chunked-prefill"]
    # 0.22.0-0.27.x: Mamba2 supports mamba cache mode "all" and gets it by default
    assert _error("hook-mamba2", words, "0.27.0") is None
    # 0.28.0-0.31.x: "align" unless "all" is asked for
    align = "1 validation error for VllmConfig\n  Assertion failed, Chunked prefill is required for mamba cache mode 'align'."
    assert _error("hook-mamba2", words, "0.28.0") == ("ValidationError", align)
    assert _error("hook-mamba2", words + ["--mamba-cache-mode", "all"], "0.28.0") is None
    # 0.32.0+ (no "all" mode any more): always; 0.33.0 words it differently
    assert _error("hook-mamba2", words, "0.32.0") == ("ValidationError", align)
    assert _error("hook-mamba2", words, "0.33.0")[1].endswith("Chunked prefill is required for Mamba prefix caching.")
    # prefix caching is off by default for a pure mamba model, on for a generative hybrid one
    assert _error("hook-mamba2", ["--no-enable-chunked-prefill"], "0.33.0") is None
    assert _error("hook-qwen4exp", ["--no-enable-chunked-prefill"], "0.30.0") == ("ValidationError", align)
