"""The worked examples of the runtime-stage note (shared docs, runtime-stage.md §3): each
release's predicted final mode and vLLM's warning line, end to end through `check`."""
from __future__ import annotations

import json

import pytest

from vllm_preflight.api import check_inputs

DEFAULT_SIZES = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16))


def runtime(version, gpu, *args, env=(), assume=(), model="Qwen/Qwen3-30B-A3B"):
    rep = check_inputs([], command=["vllm", "serve", model, *args], vllm_version=version, gpu=gpu,
                       env=list(env), assume=list(assume))
    (res,) = rep.results
    assert res.resolved is not None, res.vllm_error
    return res.resolved["runtime"]


def warnings(rt):
    return [e["reason"] for e in rt["events"] if e["level"] == "warning"]


FULL = ("-cc", json.dumps({"cudagraph_mode": "FULL"}))
MTP = ("--speculative-config", json.dumps({"method": "deepseek_mtp", "num_speculative_tokens": 1}))


def ngram(k):
    return ("--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": k,
                                                "prompt_lookup_max": 3}))


# -- 3: Qwen3-MoE on B200 with FULL: the "done when" case
@pytest.mark.parametrize("version", ["0.12.0", "0.13.0", "0.20.2", "0.30.0", "0.33.0"])
def test_b200_full_becomes_full_and_piecewise_with_flashinfer(version):
    rt = runtime(version, "B200", *FULL)
    assert (rt["config_cudagraph_mode"], rt["cudagraph_mode"]) == ("FULL", "FULL_AND_PIECEWISE")
    assert rt["attention"][0]["backend"] == "FLASHINFER" and rt["support"] == "UNIFORM_BATCH"
    assert warnings(rt) == ["CUDAGraphMode.FULL is not supported with FlashInferBackend backend (support: "
                            "AttentionCGSupport.UNIFORM_BATCH); setting cudagraph_mode=FULL_AND_PIECEWISE"]
    # the cubins are a node fact: stated, and here the mode does not depend on it
    assert any(a["fact"] == "flashinfer_trtllm_kernels" for a in rt["assumptions"])
    assert [d for d in rt["depends_on"] if d["fact"] == "flashinfer_trtllm_kernels"] == []


def test_b200_full_without_attention_in_splitting_ops_is_full_decode_only():
    rt = runtime("0.12.0", "B200", "-cc", json.dumps({"cudagraph_mode": "FULL", "splitting_ops": []}))
    assert rt["cudagraph_mode"] == "FULL_DECODE_ONLY"
    assert warnings(rt)[0].endswith("setting cudagraph_mode=FULL_DECODE_ONLY")


# -- 1 / 1b: DeepSeek-V3 (MLA)
def test_deepseek_v3_h200_keeps_full_and_piecewise_and_rounds_sizes_for_mtp():
    rt = runtime("0.12.0", "H200", model="deepseek-ai/DeepSeek-V3")
    assert rt["attention"][0]["backend"] == "FLASH_ATTN_MLA" and rt["support"] == "UNIFORM_BATCH"
    assert rt["cudagraph_mode"] == "FULL_AND_PIECEWISE" and warnings(rt) == []
    fp8 = runtime("0.12.0", "H200", "--kv-cache-dtype", "fp8", model="deepseek-ai/DeepSeek-V3")
    assert fp8["attention"][0]["backend"] == "FLASHMLA" and fp8["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    mtp = runtime("0.12.0", "H200", *MTP, model="deepseek-ai/DeepSeek-V3")
    assert mtp["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert all(s % 2 == 0 for s in mtp["cudagraph_capture_sizes"]) and warnings(mtp) == []


def test_deepseek_v3_b200_mtp_0_12_piecewise_0_33_stays():
    rt = runtime("0.12.0", "B200", *MTP, model="deepseek-ai/DeepSeek-V3")
    assert rt["attention"][0]["backend"] == "CUTLASS_MLA" and rt["cudagraph_mode"] == "PIECEWISE"
    assert warnings(rt) == [
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend "
        "CutlassMLABackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting "
        "cudagraph_mode=PIECEWISE"]
    new = runtime("0.33.0", "B200", *MTP, model="deepseek-ai/DeepSeek-V3")
    assert new["attention"][0]["backend"] == "FLASHINFER_MLA" and new["support"] == "ALWAYS"
    assert new["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    full = runtime("0.33.0", "B200", *FULL, model="deepseek-ai/DeepSeek-V3")
    assert full["cudagraph_mode"] == "FULL" and warnings(full) == []


# -- 2: Llama-3 dense on H200
def test_llama_h200_fa3_always_and_fa2_uniform_batch():
    rt = runtime("0.12.0", "H200", model="meta-llama/Llama-3.1-8B-Instruct")
    assert rt["attention"][0]["backend"] == "FLASH_ATTN" and rt["support"] == "ALWAYS"
    assert rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    fa2 = runtime("0.12.0", "H200", env=[("VLLM_FLASH_ATTN_VERSION", "2")], model="meta-llama/Llama-3.1-8B-Instruct")
    assert fa2["support"] == "UNIFORM_BATCH" and fa2["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert runtime("0.33.0", "H200", model="meta-llama/Llama-3.1-8B-Instruct")["support"] == "ALWAYS"


# -- 4: hybrid Mamba2 + attention
HYBRID = [("model.architecture", "NemotronHForCausalLM")]


def test_hybrid_mamba2_0_12_spec_decode_goes_piecewise():
    rt = runtime("0.12.0", "H200", assume=HYBRID)
    assert rt["support"] == "UNIFORM_SINGLE_TOKEN_DECODE" and rt["support_backend"] == "Mamba2AttentionBackend"
    assert rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    spec = runtime("0.12.0", "H200", *ngram(2), assume=HYBRID)
    assert spec["cudagraph_mode"] == "PIECEWISE"
    assert warnings(spec) == [
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend "
        "Mamba2AttentionBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting "
        "cudagraph_mode=PIECEWISE"]
    full = runtime("0.12.0", "H200", *FULL, assume=HYBRID)
    assert full["cudagraph_mode"] == "FULL_AND_PIECEWISE" and "Mamba2AttentionBackend" in warnings(full)[0]


def test_hybrid_mamba2_0_33_keeps_full_graphs_and_states_the_mamba_block_risk():
    rt = runtime("0.33.0", "H200", *ngram(2), assume=HYBRID)
    assert rt["support"] == "UNIFORM_BATCH" and rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    risk = [a for a in rt["assumptions"] if a["fact"] == "mamba_cache_blocks"]
    assert risk and "exceeds available Mamba cache blocks" in risk[0]["source"]


# -- 5: ngram capture-size rounding
def test_ngram_rounds_capture_sizes_0_12():
    q4 = runtime("0.12.0", "H200", *ngram(3), model="meta-llama/Llama-3.1-8B-Instruct")
    assert q4["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert q4["cudagraph_capture_sizes"][:4] == [4, 8, 16, 24] and q4["max_cudagraph_capture_size"] == 512
    q5 = runtime("0.12.0", "H200", *ngram(4), model="meta-llama/Llama-3.1-8B-Instruct")
    assert q5["cudagraph_capture_sizes"][:6] == [5, 10, 20, 25, 35, 40] and q5["max_cudagraph_capture_size"] == 500
    full = runtime("0.12.0", "H200", *FULL, *ngram(3), model="meta-llama/Llama-3.1-8B-Instruct")
    assert full["cudagraph_mode"] == "FULL"  # S=ALWAYS: FULL stays, and 0.12.0 does not round FULL


def test_ngram_v2_runner_leaves_the_size_list_alone_0_33():
    rt = runtime("0.33.0", "H200", *ngram(3), model="meta-llama/Llama-3.1-8B-Instruct")
    assert rt["model_runner"] == "V2" and rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    v1 = runtime("0.33.0", "H200", *ngram(3), env=[("VLLM_USE_V2_MODEL_RUNNER", "0")],
                 model="meta-llama/Llama-3.1-8B-Instruct")
    assert v1["model_runner"] == "V1" and v1["cudagraph_capture_sizes"][:3] == [4, 8, 16]
    assert rt["cudagraph_capture_sizes"] != v1["cudagraph_capture_sizes"]


# -- 6: FlashInfer chosen explicitly
def test_flashinfer_on_h200_0_12_is_single_token_decode():
    rt = runtime("0.12.0", "H200", *FULL, env=[("VLLM_ATTENTION_BACKEND", "FLASHINFER")])
    assert rt["attention_backend_choice"] == "VLLM_ATTENTION_BACKEND"
    assert rt["support"] == "UNIFORM_SINGLE_TOKEN_DECODE" and rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    spec = runtime("0.12.0", "H200", *FULL, *ngram(2), env=[("VLLM_ATTENTION_BACKEND", "FLASHINFER")])
    assert spec["cudagraph_mode"] == "PIECEWISE" and len(warnings(spec)) == 2


def test_flashinfer_on_h200_0_33_depends_on_the_xqa_cubins():
    rt = runtime("0.33.0", "H200", *ngram(2), "--attention-backend", "FLASHINFER")
    assert rt["support"] == "UNIFORM_BATCH" and rt["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    (dep,) = [d for d in rt["depends_on"] if d["fact"] == "flashinfer_trtllm_kernels"]
    assert dep["cudagraph_mode"] == "PIECEWISE"
    # Model Runner V2 needs a compiled submodule for piecewise graphs: without one, decode-only full graphs
    (sub,) = [d for d in rt["depends_on"] if d["fact"] == "model.compiled_submodule"]
    assert sub["cudagraph_mode"] == "FULL_DECODE_ONLY"


def test_b300_fails_0_12_exact_sm100_trtllm_test():
    b200 = runtime("0.12.0", "B200", *ngram(2))
    b300 = runtime("0.12.0", "B300", *ngram(2))
    assert (b200["support"], b200["cudagraph_mode"]) == ("UNIFORM_BATCH", "FULL_AND_PIECEWISE")
    assert (b300["support"], b300["cudagraph_mode"]) == ("UNIFORM_SINGLE_TOKEN_DECODE", "PIECEWISE")
    assert runtime("0.13.0", "B300", *ngram(2))["cudagraph_mode"] == "FULL_AND_PIECEWISE"  # SM100 family


# -- 7: NEVER
LLAMA4 = [("model.architecture", "Llama4ForConditionalGeneration")]


def test_chunked_local_never_goes_piecewise_and_full_is_refused():
    rt = runtime("0.12.0", "H200", assume=LLAMA4)
    assert rt["cudagraph_mode"] == "PIECEWISE"
    assert warnings(rt) == [
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with ChunkedLocalAttention_8192_16_FlashAttentionBackend "
        "backend (support: AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is "
        "compiled piecewise"]
    full = runtime("0.33.0", "H200", *FULL, assume=LLAMA4)
    assert full["cudagraph_mode"] is None and full["error"]["type"] == "ValueError"
    assert full["error"]["message"].startswith("CUDAGraphMode.FULL is not supported with ChunkedLocalAttention")


def test_triton_mla_on_a100_0_12_is_never():
    rt = runtime("0.12.0", "A100", model="deepseek-ai/DeepSeek-V3")
    assert rt["attention"][0]["backend"] == "TRITON_MLA" and rt["support"] == "NEVER"
    assert rt["cudagraph_mode"] == "PIECEWISE"
    assert runtime("0.33.0", "A100", model="deepseek-ai/DeepSeek-V3")["support"] == "UNIFORM_BATCH"


def test_gpu_cc_replaces_the_capability():
    assert runtime("0.12.0", "H200@10.0", *FULL)["attention"][0]["backend"] == "FLASHINFER"
    assert runtime("0.12.0", "@12.0", *FULL)["attention"][0]["backend"] == "FLASH_ATTN"


# -- per-release behaviour read from source between the recorded releases
def test_attention_backend_env_is_honoured_until_0_14_and_ignored_after():
    env = [("VLLM_ATTENTION_BACKEND", "FLASHINFER")]
    old = runtime("0.14.1", "H200", env=env)
    assert old["attention"][0]["backend"] == "FLASHINFER"
    assert any(e["rule"] == "runtime.attention_backend_env" for e in old["events"])  # deprecated, still read
    new = runtime("0.15.0", "H200", env=env)
    assert new["attention"][0]["backend"] == "FLASH_ATTN"
    assert any(e["rule"] == "runtime.attention_backend_env_ignored" for e in new["events"])


def test_model_runner_v2_by_release():
    assert runtime("0.20.2", "H200")["model_runner"] == "V1"
    assert runtime("0.23.0", "H200", model="meta-llama/Llama-3.1-8B-Instruct")["model_runner"] == "V2"  # listed
    # 0.25.0-0.28.0 default to V2 for any dense generate model too (0.25.0 config/vllm.py:557-574,
    # `... or not model_config.is_moe`; recorded: real 0.25.0 logs V2's unsupported features for
    # llama-dense, golden 0.25.0-0099); an unlisted MoE model stays on V1
    assert runtime("0.25.0", "H200", model="meta-llama/Llama-3.1-8B-Instruct")["model_runner"] == "V2"
    assert runtime("0.25.0", "H200", model="mistralai/Mixtral-8x7B-Instruct-v0.1")["model_runner"] == "V1"
    assert runtime("0.29.0", "H200", model="meta-llama/Llama-3.1-8B-Instruct")["model_runner"] == "V2"
    assert runtime("0.33.0", "H200", env=[("VLLM_USE_V2_MODEL_RUNNER", "0")])["model_runner"] == "V1"


def test_mamba_support_rises_to_uniform_batch_in_0_17():
    assert runtime("0.16.0", "H200", *ngram(2), assume=HYBRID)["cudagraph_mode"] == "PIECEWISE"
    assert runtime("0.17.0", "H200", *ngram(2), assume=HYBRID)["cudagraph_mode"] == "FULL_AND_PIECEWISE"


def test_an_unmodelled_backend_gives_every_outcome_and_no_guess():
    rt = runtime("0.33.0", "H200", "--attention-backend", "TRITON_FLASHINFER")  # TREE_ATTN: gone in 0.33.0
    assert rt["cudagraph_mode"] is None and rt["attention"][0]["support"] is None
    outcomes = {d["alternative"]: d["cudagraph_mode"] for d in rt["depends_on"]}
    assert outcomes == {"ALWAYS": "FULL_AND_PIECEWISE", "UNIFORM_BATCH": "FULL_AND_PIECEWISE",
                        "UNIFORM_SINGLE_TOKEN_DECODE": "FULL_AND_PIECEWISE", "NEVER": "PIECEWISE"}


def test_0_11_0_names_the_metadata_builder():
    rt = runtime("0.11.0", "B200", "-O", json.dumps({"cudagraph_mode": "FULL"}))
    assert warnings(rt) == ["CUDAGraphMode.FULL is not supported with FlashInferMetadataBuilder backend (support: "
                            "AttentionCGSupport.UNIFORM_BATCH); setting cudagraph_mode=FULL_AND_PIECEWISE"]


def test_evidence_says_which_releases_are_backed_by_goldens():
    from vllm_preflight.releases.runtime_rules import runtime_rules

    assert runtime_rules("0.30.0").evidence == "golden" and runtime_rules("0.31.0").evidence == "source"
    assert runtime("0.12.0", "H200")["evidence"] == "golden"


def test_chunked_local_backend_name_loses_the_block_size_in_0_18():
    assert "ChunkedLocalAttention_8192_16_FlashAttentionBackend" in warnings(runtime("0.17.0", "H200", assume=LLAMA4))[0]
    assert "ChunkedLocalAttention_8192_FlashAttentionBackend" in warnings(runtime("0.18.0", "H200", assume=LLAMA4))[0]
