"""The model-level refusal corpus (issue 9, round 3): what vLLM checks against the model itself
while it builds its config -- pipeline-parallel support per architecture, multimodal options,
LoRA, max_model_len against the model's own limits, quantization against the checkpoint's
`quantization_config`, the per-architecture config hooks -- and the JSON config options that
pydantic validates (--eplb-config, --kv-events-config, ...).

Each family is a function of the release (a version tuple) returning pool entries
`(fixture model, argv words after the model, env)`; the fixture models are config.json-only
folders under tests/fixtures/models/. `model_family_cases` turns a pool into the corpus that
`tools/record_golden.py VERSION --model-family FAMILY` has real vLLM resolve
(goldens: tests/golden/data/model_families/FAMILY/VERSION.jsonl).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_corpus import vt

Pool = list[tuple[str, list[str], dict]]


def _pp_arch(v: tuple) -> Pool:
    """Pipeline parallelism on architectures with and without `SupportsPP`."""
    return []


def _multimodal(v: tuple) -> Pool:
    """Multimodal options on multimodal and text-only models."""
    return []


def _lora(v: tuple) -> Pool:
    """LoRAConfig fields and its checks against the model: each option (valid, invalid, and
    given without --enable-lora), LoRA with speculative decoding (the token-budget check),
    pooling / MoE / quantized / multimodal models, architectures without `SupportsLoRA`
    (refused at config time from 0.33.0 only), -O levels and cudagraph modes."""
    on = ["--enable-lora"]
    ngram = '{"method": "ngram", "num_speculative_tokens": %d, "prompt_lookup_max": 3}'
    pool: Pool = [
        ("llama-dense", on, {}),
        ("llama-dense", on + ["--max-loras", "4", "--max-lora-rank", "64"], {}),
        ("llama-dense", on + ["--max-loras", "0"], {}),
        ("llama-dense", on + ["--max-loras", "-2", "--max-lora-rank", "8"], {}),
        ("llama-dense", on + ["--max-loras", "4", "--max-cpu-loras", "2"], {}),
        ("llama-dense", on + ["--max-loras", "4", "--max-cpu-loras", "4"], {}),
        ("llama-dense", on + ["--max-loras", "4", "--max-cpu-loras", "0"], {}),
        ("llama-dense", on + ["--max-cpu-loras", "-1", "--max-loras", "3"], {}),
        ("mixtral-moe", on + ["--max-cpu-loras", "8", "--max-loras", "16"], {}),
        ("llama-dense", on + ["--max-lora-rank", "7"], {}),
        ("llama-dense", on + ["--max-lora-rank", "1"], {}),
        ("llama-dense", on + ["--max-lora-rank", "320", "--max-loras", "2"], {}),
        ("llama-dense", on + ["--max-lora-rank", "1024"], {}),
        ("llama-dense", on + ["--max-lora-rank", "sixteen"], {}),
        ("llama-dense", on + ["--lora-dtype", "float32"], {}),
        ("llama-dense", on + ["--lora-dtype", "float16"], {}),
        ("qwen3-moe", on + ["--lora-dtype", "bfloat16", "--fully-sharded-loras", "-tp", "2"], {}),
        ("llama-dense", ["--enable_lora", "--max_loras=2", "--max_cpu_loras=1"], {}),
        # LoRA options without --enable-lora: no LoRAConfig is built
        ("llama-dense", ["--max-loras", "0"], {}),
        ("llama-dense", ["--max-loras", "8", "--max-cpu-loras", "1"], {}),
        ("llama-dense", ["--fully-sharded-loras", "--lora-dtype", "float16"], {}),
        ("llama-dense", ["--max-lora-rank", "7"], {}),
        ("llama-dense", on + ["--no-enable-lora", "--max-loras", "0"], {}),
        ("lora-gpt2-nolora", ["--max-loras", "4"], {}),
        # default modality LoRAs: refused for a text-only model, with or without --enable-lora
        ("llama-dense", ["--default-mm-loras", '{"image": "/adapters/img"}'], {}),
        ("llama-dense", on + ["--default-mm-loras", '{"image": "/adapters/img"}'], {}),
        ("qwen3-moe", on + ["--default-mm-loras", "{}"], {}),
        ("whisper-encdec", on + ["--default-mm-loras", '{"audio": "/adapters/asr"}'], {}),
        ("whisper-encdec", on, {}),
        # speculative decoding: max_num_batched_tokens >= max_num_seqs * (k + 1)
        ("llama-dense", on + ["--speculative-config", ngram % 8], {}),
        ("llama-dense", on + ["--speculative-config", ngram % 7], {}),
        ("llama-dense", ["--speculative-config", ngram % 8], {}),
        ("llama-dense", on + ["--speculative-config", ngram % 4, "--max-num-seqs", "512",
                              "--max-num-batched-tokens", "2048"], {}),
        ("llama-dense", on + ["--speculative-config", ngram % 3, "--max-num-seqs", "512",
                              "--max-num-batched-tokens", "2048"], {}),
        ("qwen3-moe", on + ["--speculative-config", ngram % 2, "--max-num-batched-tokens", "1024",
                            "--max-model-len", "1024"], {}),
        ("mixtral-moe", on + ["--speculative-config", ngram % 1, "--max-num-seqs", "256",
                              "--enforce-eager"], {}),
        # model kinds
        ("mixtral-moe", on + ["--max-loras", "2"], {}),
        ("qwen3-moe", on + ["-tp", "2", "--enable-expert-parallel"], {}),
        ("deepseek-v3-moe", on + ["--max-lora-rank", "32"], {}),
        ("deepseek-v3-fp8-block", on, {}),
        ("lora-llama-fp8", on + ["--max-loras", "2"], {}),
        ("lora-llama-fp8", on + ["-O3"], {}),
        ("gpt-oss-moe", on, {}),
        ("llama-classify", on, {}),
        ("llama-classify", on + ["--max-loras", "2", "--enforce-eager"], {}),
        ("lora-gpt2-nolora", on + ["--max-loras", "0"], {}),
        # compilation: LoRA leaves the compiled settings alone
        ("llama-dense", on + ["-O0"], {}),
        ("llama-dense", on + ["--enforce-eager", "--max-loras", "8"], {}),
        ("llama-dense", on + ["-cc", '{"cudagraph_mode": "FULL"}'], {}),
        ("llama-dense", on + ["-cc", '{"cudagraph_mode": "PIECEWISE", "cudagraph_capture_sizes": [1, 2, 4, 8]}'], {}),
        ("qwen3-moe", on + ["-cc", '{"cudagraph_mode": "FULL_DECODE_ONLY"}', "--max-num-seqs", "48"], {}),
        ("llama-dense", on + ["--max-num-seqs", "16"], {}),
    ]
    if v < (0, 33, 0):
        # without SupportsLoRA: the model runner refuses after the weights load, not the config;
        # 0.33.0's config-time refusal names the model's path (tests/golden/test_lora_arch.py)
        pool += [("lora-gpt2-nolora", on, {}),
                 ("lora-gpt2-nolora", on + ["-O3", "--max-loras", "2"], {}),
                 ("lora-falcon-nolora", on + ["--enforce-eager"], {}),
                 ("lora-falcon-nolora", on + ["-tp", "2"], {})]
    if v >= (0, 11, 1):
        pool += [
            ("llama-dense", on + ["-cc", '{"cudagraph_specialize_lora": false}'], {}),
            ("mixtral-moe", on + ["--max-cudagraph-capture-size", "64", "-cc",
                                  '{"cudagraph_specialize_lora": true}'], {}),
        ]
    if v >= (0, 12, 0):
        pool += [("llama-dense", on + ["-O1"], {}), ("qwen3-moe", on + ["-O3", "--max-loras", "4"], {})]
    else:
        pool += [("llama-dense", on + ["-O3"], {})]
    if v < (0, 12, 0):
        pool += [("llama-dense", on + ["--lora-extra-vocab-size", "128"], {}),
                 ("llama-dense", on + ["--lora-extra-vocab-size", "512"], {}),
                 ("llama-dense", ["--lora-extra-vocab-size", "100"], {})]
    if v < (0, 11, 1):
        pool += [("llama-dense", on + ["--enable-lora-bias"], {}),
                 ("llama-dense", on + ["--max-lora-rank", "1024", "--max-loras", "0"], {}),
                 ("llama-dense", on + ["--cpu-offload-gb", "1"], {"VLLM_USE_V1": "0"}),
                 ("llama-dense", on + ["--cpu-offload-gb", "1"], {})]
    if v >= (0, 14, 0):
        pool += [("llama-dense", on + ["--enable-tower-connector-lora"], {}),
                 ("llama-dense", ["--enable-tower-connector-lora"], {})]
    if v >= (0, 16, 0):
        pool += [("llama-dense", on + ["--specialize-active-lora", "--max-loras", "4"], {}),
                 ("qwen3-moe", on + ["--specialize-active-lora", "-cc",
                                     '{"cudagraph_specialize_lora": false}'], {})]
    if v >= (0, 19, 0):
        pool += [("llama-dense", on + ["--lora-target-modules", "o_proj", "qkv_proj"], {}),
                 ("llama-dense", ["--lora-target-modules", "o_proj"], {})]
    if v >= (0, 20, 0):
        pool += [("llama-dense", on + ["--fully-sharded-loras"], {"VLLM_LORA_ENABLE_DUAL_STREAM": "1"}),
                 ("llama-dense", on, {"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})]
    if v >= (0, 22, 0):  # --convert makes `--runner auto` a pooling runner from 0.22.0
        pool += [("llama-dense", on + ["--convert", "embed"], {})]
        if v < (0, 33, 0):
            pool += [("lora-gpt2-nolora", on + ["--convert", "embed"], {})]
        pool += [("qwen3-moe", on + ["--enable-mixed-moe-lora-format"], {}),
                 ("llama-dense", on + ["--enable-mixed-moe-lora-format"], {})]
    if v >= (0, 26, 0):
        pool += [("mixtral-moe", on + ["--enable-moe-shared-loras"], {}),
                 ("llama-dense", on, {"INKLING_MULTIMEM_AR": "1"})]
    if v >= (0, 31, 0):
        pool += [("llama-dense", on + ["--max-lora-cls-labels", "0"], {}),
                 ("llama-classify", on + ["--max-lora-cls-labels", "4"], {}),
                 ("llama-dense", ["--max-lora-cls-labels", "0"], {}),
                 ("llama-dense", on + ["--max-lora-cls-labels", "-3", "--max-loras", "0"], {})]
    if v >= (0, 33, 0):
        pool += [("qwen3-moe", on + ["--moe-backend", "deep_gemm_mega_moe"], {}),
                 ("qwen3-moe", on + ["--moe-backend", "aiter_mega_moe"], {}),
                 ("qwen3-moe", on + ["--moe-backend", "triton"], {}),
                 ("qwen3-moe", ["--moe-backend", "deep_gemm_mega_moe"], {}),
                 ("lora-gpt2-nolora", on + ["--moe-backend", "deep_gemm_mega_moe"], {}),
                 ("llama-dense", ["--disable-lora", "--max-loras", "0"], {}),
                 ("lora-gpt2-nolora", on + ["--disable-lora"], {})]
    return pool


def _max_model_len(v: tuple) -> Pool:
    """--max-model-len against the model's derived maximum length."""
    return []


def _quantization(v: tuple) -> Pool:
    """--quantization against the checkpoint's quantization_config."""
    return []


def _arch_hooks(v: tuple) -> Pool:
    """Per-architecture config hooks (MODELS_CONFIG_MAP) that refuse a config or change a compiled setting."""
    return []


def _json_options(v: tuple) -> Pool:
    """The JSON config options validated by pydantic (--eplb-config, --kv-events-config, ...)."""
    return []


def _hf_overrides(v: tuple) -> Pool:
    """--hf-overrides changing the model facts the checks read (heads, experts, architecture,
    MLA, nested text_config), flat and nested."""
    dense, moe, ds = "llama-dense", "mixtral-moe", "deepseek-v3-moe"
    ho = "--hf-overrides"
    return [
        (dense, [ho, "{}", "-tp", "2"], {}),
        (dense, [ho, '{"num_attention_heads": 6}', "-tp", "4"], {}),
        (dense, [ho, '{"num_attention_heads": 12}', "-tp", "4"], {}),
        (dense, [ho, '{"num_attention_heads": 12}', "-tp", "8"], {}),
        (moe, [ho, '{"num_attention_heads": 6}', "-tp", "4"], {}),
        (moe, [ho, '{"num_local_experts": 0}', "--enable-expert-parallel"], {}),
        (moe, [ho, '{"num_local_experts": 0}', "-dp", "2"], {}),
        (dense, [ho, '{"num_local_experts": 4}', "--enable-expert-parallel"], {}),
        (dense, [ho, '{"num_key_value_heads": 1}', "-tp", "4", "--decode-context-parallel-size", "2"], {}),
        (dense, [ho, '{"num_key_value_heads": 1}', "-tp", "4", "--decode-context-parallel-size", "4"], {}),
        (dense, [ho, '{"num_key_value_heads": 8}', "-tp", "4", "--decode-context-parallel-size", "2"], {}),
        (ds, [ho, '{"num_attention_heads": 6}', "-tp", "4"], {}),
        (ds, [ho, '{"n_routed_experts": 0}', "--enable-expert-parallel"], {}),
        (moe, [ho, '{"architectures": ["GptOssForCausalLM"]}'], {}),
        (dense, [ho, '{"text_config": {"num_attention_heads": 6}}', "-tp", "4"], {}),
        (dense, [ho, '{"rope_scaling": {"rope_type": "linear", "factor": 2.0}}', "--max-model-len", "16384"], {}),
        (dense, [ho, '{"max_position_embeddings": 4096}', "--max-model-len", "8192"], {}),
        (dense, [ho, '{"max_position_embeddings": 32768}', "--max-model-len", "16384"], {}),
    ] + ([(moe, [ho, '{"num_local_experts": 16}', "-dp", "2", "--enable-expert-parallel",
                 "--all2all-backend", "deepep_high_throughput"], {})] if v >= (0, 11, 1) else [])


MODEL_FAMILIES = {"pp_arch": _pp_arch, "multimodal": _multimodal, "lora": _lora,
                  "max_model_len": _max_model_len, "quantization": _quantization, "arch_hooks": _arch_hooks,
                  "json_options": _json_options, "hf_overrides": _hf_overrides}
FAMILY_CASES = 100  # cases per family and release: the pool once, then seeded repeats


def model_family_cases(version: str, family: str, n: int = FAMILY_CASES, seed: int = 29558) -> list[dict]:
    """One family's corpus for one release: every pool entry once, then seeded repeats with a
    second setting mixed in until `n` cases."""
    r = random.Random(f"{seed}-{version}-{family}")
    v = vt("0.12.0" if version == "pr29558" else version)
    pool = MODEL_FAMILIES[family](v)
    extras = [[], ["-O0"], ["-O3"], ["-tp", "2"], ["--enforce-eager"], ["--max-num-seqs", "64"]]
    cases = []
    for i in range(max(n, len(pool)) if pool else 0):
        if i < len(pool):
            model, words, env = pool[i]
            extra: list[str] = []
        else:
            model, words, env = r.choice(pool)
            extra = r.choice(extras)
            if extra and extra[0] in words:
                extra = []
        argv = ["vllm", "serve", "{models}/" + model] + list(words) + list(extra)
        cases.append({"id": f"{version}-{family}-{i:04d}", "argv": argv, "env": dict(env), "model": model,
                      "gpu": "H200", "axes": [f"family:{family}"] + ([f"extra:{' '.join(extra)}"] if extra else [])})
    return cases
