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

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_model_fixes  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_mtp2  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_quant2  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_quant3  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_reasoning  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_replayssm  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_serve_stage  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_spec_parallel  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_spec_values  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_speculative2  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_speculative3  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_speculators  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_subconfigs  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_vllm_config2  # type: ignore[import-not-found]  # tools/ on sys.path
import corpus_vllm_config3  # type: ignore[import-not-found]  # tools/ on sys.path
from gen_corpus import vt

Pool = list[tuple[str, list[str], dict]]


def _pp_arch(v: tuple) -> Pool:
    """Pipeline parallelism on architectures with and without `SupportsPP` (dense, MoE,
    multimodal, encoder-decoder, pooling, Mamba and hybrids), `-pp 2/4/8` alone and with TP,
    spelled both ways, next to the checks vLLM runs before it (heads, EP) and after it (DCP,
    async scheduling), through the Transformers backend and the pooling adapters."""
    pp2 = ["-pp", "2"]
    no_pp = [("whisper-encdec", pp2), ("whisper-encdec", ["-pp", "2", "-tp", "2"]),
             ("whisper-encdec", ["--pipeline-parallel-size", "4"]), ("whisper-encdec", ["-pp", "1"]),
             ("whisper-encdec", ["-pp", "2", "-tp", "3"]),  # heads (4) % 3 first
             ("pp-bert-embed", pp2), ("pp-bert-embed", ["-pp", "2", "--runner", "pooling"]),
             ("pp-bert-embed", ["-pp", "2", "--enable-expert-parallel"]),  # EP before PP
             ("pp-roberta-classify", pp2), ("pp-xlm-roberta-embed", ["-pp", "4", "-tp", "2"]),
             ("pp-modernbert-embed", pp2), ("pp-gpt2-classify", pp2), ("pp-gemma3-text-embed", pp2),
             ("pp-mamba2", pp2), ("pp-mamba2", ["-pp", "2", "--async-scheduling"]),
             ("pp-mamba2", ["-pp", "1", "-tp", "2"]),
             ("pp-zamba2-hybrid", pp2), ("pp-zamba2-hybrid", ["-pp", "2", "-tp", "2", "-dcp", "2"]),
             ("pp-idefics3-mm", pp2), ("pp-idefics3-mm", ["-pp", "4", "-tp", "2"])]
    with_pp = [("llama-dense", pp2), ("llama-dense", ["-pp", "4", "-tp", "2"]), ("llama-dense", ["-pp", "8"]),
               ("llama-dense", ["-pp", "2", "--async-scheduling"]),
               ("llama-dense", ["-pp", "2", "--model-impl", "transformers"]),
               ("llama-dense", ["-pp", "2", "--runner", "pooling", "--convert", "embed"]),
               ("llama-dense", ["-pp", "2", "--runner", "pooling", "--convert", "classify"]),
               ("llama-dense", ["--pipeline-parallel-size", "2", "-tp", "2", "-dcp", "2"]),
               ("llama-classify", pp2), ("mixtral-moe", ["-pp", "2", "-tp", "2", "--enable-expert-parallel"]),
               ("qwen3-moe", pp2), ("deepseek-v3-moe", ["-pp", "2", "-tp", "2"]), ("gpt-oss-moe", pp2),
               ("pp-gpt2-lm", pp2), ("pp-mamba1", pp2), ("pp-jamba-hybrid-moe", pp2),
               ("pp-jamba-hybrid-moe", ["-pp", "2", "-tp", "2"]), ("pp-qwen2-vl-mm", pp2),
               ("pp-qwen2-vl-mm", ["-pp", "2", "-tp", "2"]), ("pp-qwen2-reward", pp2),
               ("pp-phi3-dense", ["-pp", "4"]), ("len-llava-text-config", pp2)]
    # multi-token-prediction classes served as the model: SupportsPP until 0.13.0, not from 0.14.0,
    # DeepSeek's again from 0.30.0 (the releases where the registry's answer changes)
    changing = [("pp-deepseek-mtp", pp2), ("pp-deepseek-mtp", ["-pp", "2", "-tp", "2"]),
                ("pp-glm4moe-mtp", pp2)]
    return [(m, w, {}) for m, w in no_pp + with_pp + changing]


def _multimodal(v: tuple) -> Pool:
    """Multimodal options on multimodal and text-only models: ModelConfig's typed arguments
    (refused for any model), MultiModalConfig's fields and validator (multimodal models only),
    and the checks ModelConfig and VllmConfig add per release (pruning method, renderer workers,
    FP8 scale paths, tensor IPC, processor device, EC producer, --language-model-only)."""
    lim, mm = "--limit-mm-per-prompt", "mm-qwen2-vl"
    pool: Pool = [
        # text-only models: the typed arguments are still checked, the rest ignored
        ("llama-dense", [lim, '{"image": -1}'], {}), ("llama-dense", [lim, '{"image": 2.5}'], {}),
        ("llama-dense", ["--media-io-kwargs", '{"video": 3}'], {}),
        ("llama-dense", ["--mm-processor-kwargs", "[1]"], {}),
        ("llama-dense", ["--mm-processor-cache-gb", "-1"], {}),
        ("llama-dense", ["--mm-shm-cache-max-object-size-mb", "64"], {}),
        ("llama-dense", ["--video-pruning-rate", "1.5"], {}),
        ("qwen3-moe", [lim, '{"image": {"count": 1, "foo": "x"}}'], {}),
        ("qwen3-moe", ["--mm-encoder-tp-mode", "data", "-tp", "2"], {}),
        # multimodal architectures as they are
        ("mm-qwen2-vl", [], {}), ("mm-qwen2.5-vl", [], {}), ("mm-llava", [], {}), ("mm-gemma3", [], {}),
        ("mm-mistral3", [], {}), ("mm-internvl", [], {}), ("mm-llama4", [], {}),
        # --limit-mm-per-prompt: accepted shapes
        (mm, [lim, '{"image": 2, "video": 0}'], {}),
        ("mm-qwen2.5-vl", [lim, ('{"image": {"count": 2, "width": 512, "height": 512}, '
                                 '"video": {"count": 1, "num_frames": 32}}')], {}),
        ("mm-gemma3", [lim, '{"image": "3"}'], {}), ("mm-llava", [lim, '{"foo": {"count": 1, "bar": 2}}'], {}),
        ("mm-internvl", [lim, '{"image": true}'], {}), ("mm-llama4", [lim, "{}"], {}),
        ("mm-mistral3", [lim, '{"image": {"count": "2"}, "video": 2.0}'], {}),
        # --limit-mm-per-prompt: refused shapes and values
        ("mm-llava", [lim, '{"image": -1}'], {}), ("mm-gemma3", [lim, '{"image": {"count": 1, "foo": 2}}'], {}),
        (mm, [lim, '{"video": {"count": 1, "num_frames": 0}}'], {}),
        ("mm-qwen2.5-vl", [lim, '{"audio": {"length": -1}}'], {}),
        ("mm-mistral3", [lim, '{"image": {"count": -2, "width": 0}}'], {}),
        ("mm-internvl", [lim, '{"image": 2.5}'], {}), ("mm-llama4", [lim, "[1, 2]"], {}), (mm, [lim, "5"], {}),
        ("mm-llava", [lim, '{"image": null}'], {}), ("mm-gemma3", [lim, '{"image": "abc"}'], {}),
        ("mm-mistral3", [lim, '{"image": [1]}'], {}), (mm, [lim, '{"image": -1, "video": {"count": -1}}'], {}),
        ("mm-qwen2.5-vl", [lim, '{"image": {"count": 1}, "video": 2.5}'], {}),
        ("mm-llava", [lim, '{"image": {"count": "x"}}'], {}), (mm, [lim, '{"custom": -3}'], {}),
        ("mm-internvl", [lim, '{"video": {"count": 1, "fps": 2, "height": -4}}'], {}),
        # processor cache and its shared-memory object size
        (mm, ["--mm-processor-cache-gb", "-1"], {}), ("mm-llava", ["--mm-processor-cache-gb", "0"], {}),
        ("mm-gemma3", ["--mm-processor-cache-gb", "nan"], {}),
        ("mm-qwen2.5-vl", ["--mm-shm-cache-max-object-size-mb", "64"], {}),
        ("mm-qwen2.5-vl", ["--mm-shm-cache-max-object-size-mb", "64", "--mm-processor-cache-type", "shm"], {}),
        ("mm-internvl", ["--mm-shm-cache-max-object-size-mb", "-1", "--mm-processor-cache-type", "shm"], {}),
        ("mm-llama4", ["--mm-shm-cache-max-object-size-mb", "128"], {}),
        ("mm-mistral3", ["--mm-processor-cache-gb", "-1", "--mm-shm-cache-max-object-size-mb", "-1"], {}),
        (mm, ["--mm-processor-cache-gb", "-1", lim, '{"image": -1}'], {}),
        ("whisper-encdec", ["--mm-processor-cache-gb", "-1"], {}),
        ("whisper-encdec", [lim, '{"audio": -1}'], {}),
        # encoder TP mode
        (mm, ["--mm-encoder-tp-mode", "data", "-tp", "2"], {}), ("mm-llava", ["--mm-encoder-tp-mode", "data"], {}),
        ("mm-llama4", ["--mm-encoder-tp-mode", "weights"], {}),
        # the pruning rate
        ("mm-qwen2.5-vl", ["--video-pruning-rate", "1.0"], {}), (mm, ["--video-pruning-rate", "0.5"], {}),
        ("mm-llava", ["--video-pruning-rate", "nan"], {}),
        (mm, ["--mm-processor-cache-gb", "-1", "--video-pruning-rate", "2"], {}),
        # media IO and processor kwargs
        (mm, ["--media-io-kwargs", '{"video": {"num_frames": 40}}'], {}),
        ("mm-llava", ["--media-io-kwargs", '{"video": {"num_frames": 40}, "image": [1]}'], {}),
        ("mm-gemma3", ["--media-io-kwargs", "[1]"], {}),
        ("mm-qwen2.5-vl", ["--mm-processor-kwargs", '{"max_pixels": 1003520}'], {}),
        ("mm-mistral3", ["--mm-processor-kwargs", "5"], {}), ("mm-llama4", ["--mm-processor-kwargs", "null"], {}),
        (mm, [lim, '{"image": 1, "video": 2.5}', "--media-io-kwargs", "[1]"], {}),
        (mm, ["--skip-mm-profiling", "--interleave-mm-strings"], {}),
        # other spellings of the same options
        ("mm-gemma3", ["--limit_mm_per_prompt", '{"image": -1}'], {}),
        ("mm-llava", ["--limit-mm-per-prompt.video=0", "--limit-mm-per-prompt.image=2"], {}),
        ("mm-qwen2.5-vl", ["--limit-mm-per-prompt.image={\"count\": 1, \"width\": 0}"], {}),
        ("mm-internvl", ["--mm-processor-cache-gb=-1"], {}), ("llama-dense", ["--mm_processor_cache_gb=-1"], {}),
    ]
    if v >= (0, 11, 1):  # --mm-encoder-attn-backend and --enable-mm-embeds
        pool += [
            (mm, ["--mm-encoder-attn-backend", "XFORMERS"], {}), ("mm-gemma3", ["--mm-encoder-attn-backend", "foo"], {}),
            ("mm-llava", ["--mm-encoder-attn-backend", "flash_attn"], {}),
            ("mm-qwen2.5-vl", ["--mm-encoder-attn-backend", "TORCH_SDPA"], {}),
            ("mm-internvl", ["--mm-encoder-attn-backend", "xformers", "--mm-processor-cache-gb", "-1"], {}),
            ("llama-dense", ["--mm-encoder-attn-backend", "foo"], {}),
            ("mm-llama4", [lim, '{"image": 0, "video": 0}', "--enable-mm-embeds"], {}),
        ]
    if v < (0, 13, 0):  # deprecated spellings of the cache size and the encoder TP mode
        pool += [
            (mm, ["--disable-mm-preprocessor-cache", "--mm-processor-cache-gb", "-1"], {}),
            ("mm-llava", ["--enable-multimodal-encoder-data-parallel"], {}),
            (mm, [], {"VLLM_MM_INPUT_CACHE_GIB": "-2"}), ("llama-dense", [], {"VLLM_MM_INPUT_CACHE_GIB": "8"}),
        ]
    if v >= (0, 15, 0):
        pool += [(mm, ["--mm-encoder-only"], {})]
    if v >= (0, 17, 0):
        pool += [(mm, ["--language-model-only"], {}), ("llama-dense", ["--language-model-only"], {}),
                 ("mm-gemma3", ["--language-model-only", lim, '{"image": -1}'], {})]
    if v >= (0, 19, 0):
        pool += [(mm, ["--renderer-num-workers", "2"], {}), (mm, ["--renderer-num-workers", "2", "--runner", "pooling"], {}),
                 (mm, ["--renderer-num-workers", "4", "--mm-processor-cache-gb", "0"], {}),
                 (mm, ["--mm-tensor-ipc", "torch_shm"], {}),
                 ("mm-llava", ["--mm-tensor-ipc", "torch_shm"], {"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}),
                 ("llama-dense", ["--mm-tensor-ipc", "torch_shm"], {})]
    if v >= (0, 21, 0):
        pool += [(mm, ["--mm-encoder-fp8-scale-path", "/nonexistent/scales.json"], {}),
                 (mm, ["--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", "/nonexistent/scales.json"], {}),
                 ("mm-qwen2.5-vl", ["--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path",
                                    "/nonexistent/scales.json"], {}),
                 ("mm-qwen2.5-vl", ["--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path",
                                    "/tmp/scales.json", "--mm-encoder-fp8-scale-path", "/tmp/scales.json"], {}),
                 (mm, ["--mm-encoder-attn-dtype", "fp8"], {}),
                 ("mm-llava", ["--mm-encoder-fp8-scale-save-margin", "0"], {})]
    if v >= (0, 25, 0):
        pool += [(mm, ["--mm-ipc-gpu-memory-gb", "-1"], {}), ("llama-dense", ["--mm-ipc-gpu-memory-gb", "-1"], {})]
    if v >= (0, 27, 0):
        pool += [("mm-qwen2.5-vl", ["--video-pruning-rate", "0.5", "--video-pruning-method", "vidcom2"], {}),
                 ("mm-qwen2.5-vl", ["--video-pruning-rate", "0", "--video-pruning-method", "vidcom2"], {}),
                 (mm, ["--video-pruning-rate", "0.5", "--video-pruning-method", "vidcom2"], {}),
                 ("mm-qwen2.5-vl", ["--video-pruning-rate", "0.3", "--video-pruning-method", "evs"], {})]
    if v >= (0, 28, 0):
        pool += [(mm, ["--mm-processor-device", "cuda"], {}), ("mm-llava", ["--mm-processor-device", "cpu"], {}),
                 (mm, ["--mm-processor-kwargs", '{"device": "bogus"}'], {}),
                 ("mm-gemma3", ["--mm-processor-kwargs", '{"device": "cuda:1"}'], {}),
                 ("mm-gemma3", ["--mm-processor-kwargs", '{"device": "cpu"}', "--mm-processor-device", "cuda"], {}),
                 ("llama-dense", ["--mm-processor-device", "cuda"], {})]
    if v >= (0, 29, 0):
        ec = '{"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"}'
        pool += [(mm, ["--language-model-only", "-cc", '{"cudagraph_mm_encoder": true}'], {}),
                 ("llama-dense", ["--ec-transfer-config", ec], {})]
    return pool


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
        # (0.11.0's Whisper tokenizer fails under the transformers the oracle installs: AttributeError)
        *([("whisper-encdec", on + ["--default-mm-loras", '{"audio": "/adapters/asr"}'], {}),
           ("whisper-encdec", on, {})] if v >= (0, 11, 1) else []),
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
        # no Inkling model here: resolving one leaves real vLLM's process in a state where every
        # later case compiles with mode NONE (the oracle's one-process batch); its LoRA check is
        # in tests/unit/test_lora_checks.py
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
    """--max-model-len against the model's derived maximum length: position keys (max_position_embeddings,
    n_positions, max_seq_len, seq_length, model_max_length, max_target_positions, none at all), RoPE
    scaling types (linear, dynamic, yarn with and without original_max_position_embeddings, llama3,
    longrope/su, a null factor, an integer factor, Gemma3's pre-scaled length), sliding windows,
    a multimodal text_config, an encoder-decoder; values below, at, just above and far above the
    limit, human-readable forms, -1 / auto (0.14.0+), 0 and tiny lengths, and
    VLLM_ALLOW_LONG_MAX_MODEL_LEN set to values that do and do not allow."""
    def m(n) -> list[str]:
        return ["--max-model-len", str(n)]
    allow, deny = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "0"}
    pool: Pool = [
        ("llama-dense", m(8192), {}), ("llama-dense", m(8193), {}), ("llama-dense", m(100000), {}),
        ("llama-dense", m(4096), {}), ("llama-dense", m("8k"), {}), ("llama-dense", m("8K"), {}),
        ("llama-dense", m("9K"), {}), ("llama-dense", m("8.2k"), {}), ("llama-dense", m(1), {}),
        ("llama-dense", m(16), {}), ("llama-dense", m(0), {}), ("llama-dense", m(-1), {}),
        ("llama-dense", m(8193), allow), ("llama-dense", m(8193), deny),
        ("llama-dense", m(8193), {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "true"}),
        ("llama-dense", m(8193), {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "yes"}),
        ("llama-dense", m(1000000), {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": " TRUE "}),
        ("len-llama-linear-rope", [], {}), ("len-llama-linear-rope", m(8192), {}),
        ("len-llama-linear-rope", m(8193), {}),
        ("len-llama-dynamic-rope", m(16384), {}), ("len-llama-dynamic-rope", m(16385), {}),
        ("len-llama-dynamic-rope", m(20000), allow),
        ("len-llama3-rope", [], {}), ("len-llama3-rope", m(131072), {}), ("len-llama3-rope", m(131073), {}),
        ("len-llama3-rope", m("128K"), {}), ("len-llama3-rope", m("1M"), {}),
        ("len-llama-seq-length", [], {}), ("len-llama-seq-length", m(4096), {}),
        ("len-llama-seq-length", m(4097), {}),
        ("len-llama-int-factor", m(6144), {}), ("len-llama-int-factor", m(6145), {}),
        ("len-llama-null-factor", [], {}), ("len-llama-null-factor", m(4097), {}),
        ("len-llama-no-mpe", [], {}), ("len-llama-no-mpe", m(2048), {}), ("len-llama-no-mpe", m(2049), {}),
        ("len-qwen2-yarn", [], {}), ("len-qwen2-yarn", m(32768), {}), ("len-qwen2-yarn", m(32769), {}),
        ("len-qwen2-yarn", m(131072), {}), ("len-qwen2-yarn", m(131073), {}),
        ("len-qwen2-yarn", m(131073), allow), ("len-qwen2-yarn", m(-1), {}),
        ("len-qwen2-yarn-no-ompe", [], {}), ("len-qwen2-yarn-no-ompe", m(32769), {}),
        ("len-phi3-longrope", [], {}), ("len-phi3-longrope", m(4097), {}),
        ("len-phi3-longrope", m(131072), {}), ("len-phi3-longrope", m(131073), {}),
        ("len-mistral-swa", [], {}), ("len-mistral-swa", m(32769), {}),
        ("len-mistral-swa", ["--disable-sliding-window"], {}),
        ("len-mistral-swa", ["--disable-sliding-window"] + m(4096), {}),
        ("len-mistral-swa", ["--disable-sliding-window"] + m(4097), {}),
        ("len-mistral-swa", ["--disable-sliding-window"] + m(8192), allow),
        ("len-cohere-model-max-length", [], {}), ("len-cohere-model-max-length", m(8193), {}),
        ("len-cohere-model-max-length", m(131072), {}), ("len-cohere-model-max-length", m(131073), {}),
        ("len-gpt2-n-positions", [], {}), ("len-gpt2-n-positions", m(1024), {}),
        ("len-gpt2-n-positions", m(1025), {}),
        ("len-mamba-no-keys", [], {}), ("len-mamba-no-keys", m(1000000), {}), ("len-mamba-no-keys", m(-1), {}),
        ("len-gemma3-text-linear", [], {}), ("len-gemma3-text-linear", m(131072), {}),
        ("len-gemma3-text-linear", m(131073), {}),
        ("len-gemma3-text-linear", ["--disable-sliding-window"] + m(513), {}),
        ("len-llava-text-config", [], {}), ("len-llava-text-config", m(8192), {}),
        ("len-llava-text-config", m(8193), {}),
        ("whisper-encdec", [], {}), ("whisper-encdec", m(448), {}), ("whisper-encdec", m(449), {}),
        ("gpt-oss-moe", m(8192), {}), ("gpt-oss-moe", m(8193), {}),
        ("deepseek-v3-moe", m(8193), {}),
    ]
    if v < (0, 29):  # MPT: a config without RoPE keyed by max_seq_len (its architecture left vLLM in 0.29.0)
        pool += [("len-mpt-max-seq-len", m(2048), {}), ("len-mpt-max-seq-len", m(2049), {})]
    if v >= (0, 14):  # human_readable_int_or_auto: "auto" and -1 ask for the derived length
        pool += [("llama-dense", m("auto"), {}), ("len-qwen2-yarn", m("AUTO"), {}), ("llama-dense", m(-2), {})]
    if v >= (0, 12):  # other families' fixtures: encoders (absolute and RoPE), hybrids, Mamba, multimodal
        pool += [("pp-modernbert-embed", m(1025), {}), ("pp-xlm-roberta-embed", m(515), {}),
                 ("pp-zamba2-hybrid", m(4097), {})]
        if not (0, 14) <= v < (0, 30):  # 0.16.0 cannot build Mamba2's arch config (no num_attention_heads)
            pool += [("pp-mamba2", m(1000000000), {})]
        if not (0, 30) <= v < (0, 31):
            pool += [("mm-gemma3", m(131073), {}), ("mm-qwen2-vl", m(32769), {})]
    if v < (0, 11, 1):
        # 0.11.0 installs Transformers 5 under code written for 4: Whisper's tokenizer, Gemma3's
        # per-layer RoPE and Llava's model inspection fail before the length is derived, and its
        # scheduler (not this family) takes -1 and 0
        pool = [e for e in pool if e[0] not in ("whisper-encdec", "len-gemma3-text-linear", "len-llava-text-config")
                and e[1][-1:] not in (["-1"], ["0"])]
    elif (0, 30) <= v < (0, 31):  # 0.30.0 with Transformers 5.24 fails to inspect Llava (recorded)
        pool = [e for e in pool if e[0] != "len-llava-text-config"]
    return pool


def _quantization(v: tuple) -> Pool:
    """--quantization against the checkpoint's quantization_config: for each kind of checkpoint
    (fp8 per-tensor and blocked, GPTQ 3/4/8-bit sym/asym and marlin_24, AWQ, compressed-tensors,
    bitsandbytes, ModelOpt FP8/NVFP4/mixed, MXFP4, FBGEMM, experts_int8, auto-round, a quant
    config in text_config or compression_config, an unknown method) the matching value, the
    override names, mismatching and unknown values, several --dtype; and methods given for an
    unquantized model."""
    gptq_fast = "gptq_marlin" if v < (0, 22, 0) else "auto_gptq"
    awq_fast = "awq_marlin" if v < (0, 24, 0) else "auto_awq"
    Q, D = "--quantization", "--dtype"
    pool: dict[str, list[list[str]]] = {
        "quant-fp8-tensor": [[], [Q, "fp8"], [Q, "gptq"], [Q, "fp8", D, "float32"], [D, "float16"], [Q, "fp8_dynamic"]],
        "quant-fp8-dynamic-fp16": [[], [D, "bfloat16"], [Q, "awq"]],
        "quant-fp8-fp32": [[], [D, "float"], [Q, "fp8", D, "half"]],
        "quant-fp8-block-qwen3-moe": [[], [Q, "fp8"], [Q, "compressed-tensors"], [Q, "fp8", "-tp", "2"]],
        "deepseek-v3-fp8-block": [[Q, "fp8"], [Q, "modelopt"], [D, "float16"]],
        "quant-fp8-classify-fp32": [[], [Q, "fp8"], [D, "float32"]],
        "quant-gptq-4bit-sym": [[], [Q, "gptq"], [Q, "gptq_marlin"], [Q, "marlin"], [Q, gptq_fast], [Q, "awq"],
                                [Q, "moe_wna16"], [D, "bfloat16"], [Q, "gptq", D, "bfloat16"], [Q, "GPTQ"],
                                [Q, "gptq_bitblas"]],
        "quant-gptq-8bit-sym-bf16": [[], [Q, "gptq"], [D, "float32"], [Q, "gptq_marlin", D, "float16"]],
        "quant-gptq-4bit-asym": [[], [Q, "gptq_marlin"], [Q, "moe_wna16"], [D, "bfloat16"]],
        "quant-gptq-8bit-asym": [[], [D, "half"], [Q, "gptq", D, "float16"], [Q, "marlin"]],
        "quant-gptq-3bit": [[], [Q, "gptq"], [Q, "marlin"]],
        "quant-gptq-4bit-moe": [[], [Q, "moe_wna16"], [Q, "gptq"], [Q, "fp8"]],
        "quant-gptq-marlin24": [[], [Q, "gptq"], [Q, "gptq_marlin_24"], [Q, "gptq_marlin"]],
        "quant-awq-4bit": [[], [Q, "awq"], [Q, "awq_marlin"], [Q, "marlin"], [Q, awq_fast], [Q, "gptq"],
                           [Q, "moe_wna16"], [Q, "awq", D, "bfloat16"], [D, "float32"]],
        "quant-awq-4bit-bf16-gemv": [[], [Q, "awq", D, "half"], [Q, "awq_marlin"]],
        "quant-awq-8bit": [[], [Q, "awq"], [Q, "awq_marlin"], [Q, "moe_wna16"]],
        "quant-compressed-tensors-fp8": [[], [Q, "compressed-tensors"], [Q, "compressed_tensors"], [Q, "fp8"],
                                         [D, "float32"]],
        "quant-compressed-tensors-w4a16": [[], [Q, "compressed-tensors", D, "float16"], [Q, "gptq"]],
        "quant-compressed-tensors-fp8-block": [[], [Q, "compressed-tensors"]],
        "quant-compression-config-key": [[], [Q, "compressed-tensors"]],
        "quant-bnb-4bit": [[], [Q, "bitsandbytes"], [Q, "fp8"], [D, "float32"]],
        "quant-bnb-8bit": [[], [Q, "bitsandbytes"], [Q, "bitsandbytes", "--enforce-eager"]],
        "quant-modelopt-fp8": [[], [Q, "modelopt"], [Q, "fp8"], [Q, "foo"], [D, "float32"]],
        "quant-modelopt-fp4": [[], [Q, "modelopt_fp4"], [Q, "gptq"], [D, "float32"]],
        "quant-modelopt-producer-fp8": [[], [Q, "modelopt"], [Q, "fp8"]],
        "quant-modelopt-mixed": [[], [Q, "modelopt_mixed"]],
        "quant-mxfp4-moe": [[], [Q, "mxfp4"], [Q, "fp8"], [D, "float16"], [Q, "humming"]],
        "quant-mxfp4-qwen3-moe": [[], [Q, "mxfp4"], [Q, "gpt_oss_mxfp4"]],
        "quant-unknown-method": [[], [Q, "superquant"], [Q, "fp8"]],
        "quant-no-method": [[], [Q, "fp8"], [Q, "gptq"]],
        "quant-fbgemm-fp8": [[], [Q, "fbgemm_fp8"], [Q, "fp8"]],
        "quant-experts-int8-moe": [[], [Q, "experts_int8"], [D, "float32"]],
        "quant-auto-round": [[], [Q, "auto-round"], [Q, "inc"], [Q, "gptq"]],
        "quant-llava-text-config-awq": [[], [Q, "awq"], [Q, "fp8"]],
        "llama-dense": [[Q, "fp8"], [Q, "bitsandbytes"], [Q, "gptq"], [Q, "awq", D, "half"], [Q, "gguf"],
                        [Q, "fp_quant"], [Q, "nonsense"], [Q, "experts_int8"], [Q, "compressed-tensors"],
                        [Q, "mxfp4"], [Q, "modelopt"], [Q, "fp8", D, "float32"], [Q, "torchao"]],
        "qwen3-moe": [[Q, "fp8", D, "float32"], [Q, "experts_int8"], [Q, "moe_wna16"]],
    }
    if v >= (0, 17, 0):
        # NVFP4 checkpoints turn on the act+quant fusion pass from 0.17.0 (VllmConfig
        # enable_act_fusion: model_config.is_nvfp4_quantized): with each -O level
        pool["quant-modelopt-fp4"] += [["-O0"], ["-O3"], ["-O1"], [Q, "modelopt_fp4", "-O1"],
                                       [D, "float32"], [Q, "modelopt_fp4", D, "float"]]
    if v >= (0, 20, 0):
        pool["quant-fp8-tensor"].append([Q, "deepseek_v4_fp8"])
    if v < (0, 12, 0) or (0, 30, 0) <= v < (0, 33, 0):
        # the oracle's real vLLM 0.11.x and 0.30.0 cannot inspect the Llava classes at all
        # ("failed to be inspected"), whatever the quantization: the text_config checkpoint is
        # left out there
        del pool["quant-llava-text-config-awq"]
    if v < (0, 12, 0):
        # 0.11.x builds TorchAOConfig() without arguments, which imports the torchao package
        # (not installed with vLLM): a property of the machine, not of the command
        pool["llama-dense"].remove([Q, "torchao"])
    if v >= (0, 14, 0):  # the flag exists from 0.14.0 (with the deprecated-method check)
        pool["quant-fbgemm-fp8"].append([Q, "fbgemm_fp8", "--allow-deprecated-quantization"])
    if v >= (0, 20, 0):  # online quantization shorthands
        pool["llama-dense"] += [[Q, "fp8_per_tensor"], [Q, "fp8_per_block"], [Q, "online"]]
    return [(model, words, {}) for model, variants in pool.items() for words in variants]


def _arch_hooks(v: tuple) -> Pool:
    """Per-architecture config hooks (MODELS_CONFIG_MAP) that refuse a config or change a compiled
    setting, each condition on and off, on the releases that have the architecture (fixtures
    tests/fixtures/models/hook-*; resolve/vllm_config/model_hooks.py)."""
    spec = "--speculative-config"
    ngram = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'
    pool: Pool = [
        # gpt-oss: the largest capture size 1024 unless capture sizes are set
        ("gpt-oss-moe", [], {}),
        ("gpt-oss-moe", ["--max-cudagraph-capture-size", "256"], {}),
        ("gpt-oss-moe", ["--cudagraph-capture-sizes", "1", "2", "4", "8"], {}),
        # DeepSeek V3.2: index_topk asserted (breakable graphs by default from 0.29.0)
        ("hook-deepseekv32", [], {}),
        ("hook-deepseekv32", [], {"VLLM_USE_BREAKABLE_CUDAGRAPH": "0"}),
        ("hook-deepseekv32-no-index-topk", [], {}), ("hook-deepseekv32-type-without-index-topk", [], {}),
        # config-class / activation asserts of the encoder and reranker hooks
        ("hook-gtemodel-bert-config", [], {}),
        ("hook-gtenewmodel-bert-config", [], {}),
        ("hook-nomicbertmodel-bert-config", [], {}),
        ("hook-qwen3seqcls-reranker", [], {}),
        ("hook-qwen3seqcls-reranker-no-tokens", [], {}),
        ("hook-qwen3seqcls-reranker-three-tokens", [], {}),
        # mamba: FULL_AND_PIECEWISE before the defaults (0.11.0); prefix caching needs chunked prefill (0.32.0+)
        ("hook-mamba2", [], {}), ("hook-mamba2", ["-O0"], {}),
        ("hook-mamba2", ["--no-enable-chunked-prefill"], {}),
        ("hook-mamba2", ["--enable-prefix-caching", "--no-enable-chunked-prefill"], {}),
    ]
    if v >= (0, 14, 0):
        pool += [("hook-llamabidirectional-avg", [], {}), ("hook-llamabidirectional-cls", ["-O0"], {}),
                 ("hook-llamabidirectional-max", [], {}), ("hook-llamabidirectional-seqcls-last", [], {})]
        if v >= (0, 29, 0):  # before: an AttributeError from the config itself
            pool.append(("hook-llamabidirectional-no-pooling", [], {}))
    if v >= (0, 17, 0):
        pool += [("hook-llamanemotronvl-last", [], {}), ("hook-llamanemotronvl-mean", [], {}),
                 ("hook-llamanemotronvl-no-pooling", [], {})]
    if v >= (0, 33, 0):  # earlier releases' Transformers do not build this config.json's text config
        pool += [("hook-diffusiongemma", [], {}), ("hook-diffusiongemma", ["--attention-backend", "FLASHINFER"], {}),
                 ("hook-diffusiongemma", ["--max-num-seqs", "32"], {}),
                 ("hook-diffusiongemma", ["--max-num-seqs", "300"], {}),
                 ("hook-diffusiongemma", ["--attention-backend", "TRITON_ATTN"], {}),
                 ("hook-diffusiongemma", ["--diffusion-config", '{"canvas_length": 8}'], {})]
    if v >= (0, 25, 0):
        pool += [("hook-unlimitedocr", ["--attention-backend", b], {})
                 for b in ("FLASHINFER", "FLEX_ATTENTION", "TRITON_ATTN", "FLASH_ATTN")]
    if v >= (0, 26, 0):
        pool += [("hook-longcatflashngram", [], {}), ("hook-longcatflashngram", ["-cc", '{"mode": 3}'], {}),
                 ("hook-longcatflashngram", ["-cc", '{"cudagraph_mode": "PIECEWISE"}'], {})]
    if v >= (0, 27, 0):
        pool += [(f"hook-colqwen35-{x}", [], {})
                 for x in ("causal", "bidirectional", "no-contract", "sideways", "conflict")]
    if v >= (0, 29, 0):
        pool += [("hook-qwen4exp", [], {}), ("hook-qwen4exp", [spec, ngram], {}),
                 ("hook-qwen4exp", ["-pp", "2"], {}),
                 ("hook-qwen4exp-ple", ["-pp", "2"], {}), ("hook-qwen4exp-ple", ["--enable-dbo"], {}),
                 ("hook-qwen4exp-ple", [], {}), ("hook-qwen4exp-qsa", ["--enable-dbo"], {}),
                 ("hook-qwen4exp-qsa", ["-pp", "2"], {}), ("hook-qwen4exp-vl-ple", ["-pp", "2"], {}),
                 ("hook-qwen4exp-qsa", ["--ubatch-size", "2"], {}),
                 ("hook-qwen4exp", ["-tp", "2", "-dp", "2", "-pp", "2", "--enable-expert-parallel"], {}),
                 ("hook-qwen4exp", [], {"VLLM_USE_BREAKABLE_CUDAGRAPH": "0"}),
                 ("hook-qwen4exp", ["--no-enable-chunked-prefill"], {})]
    if v >= (0, 33, 0):
        pool += [("hook-aliceai", [], {}), ("hook-aliceai", ["-pp", "2"], {}),
                 ("hook-aliceai", [spec, ngram], {}), ("hook-aliceai-mtp-layers", [], {}),
                 ("hook-aliceai-negative-eigenvalues", [], {}), ("hook-aliceai-no-kda-key", [], {}),
                 ("hook-aliceai-softmax-router", [], {}), ("hook-aliceai-no-bias-correction", [], {}),
                 ("hook-aliceai", ["--no-enable-chunked-prefill"], {})]
        pool += [(f"hook-d3{x}", [], {}) for x in ("", "-format-2", "-no-decision-config", "-mean-pooling",
                                                   "-sliding-attention", "-noncausal", "-codes-mismatch")]
    return pool


def _json_options(v: tuple) -> Pool:
    """The JSON config options validated by pydantic (--eplb-config, --kv-events-config, ...):
    per option of the release, an empty object, a non-object, an unknown key, and per field
    (from releases/data/json_options.json) its default, a wrong type, each bound and a bad
    literal; several errors at once, nested classes, dotted keys, EPLB's model validator and
    ParallelConfig's redundant-experts check, and --hf-overrides values the parser keeps as text."""
    import json

    data = json.loads((Path(__file__).resolve().parents[1] / "src" / "vllm_preflight" / "releases" / "data"
                       / "json_options.json").read_text())
    version = next((r for r in data["releases"] if vt(r) == v), None)
    options = data["releases"].get(version, {}) if version else {}
    dense, moe = "llama-dense", "mixtral-moe"
    pool: Pool = []

    def add(model: str, words: list[str]) -> None:
        pool.append((model, words, {}))

    def flag(dest: str) -> str:
        return "--" + dest.replace("_", "-")

    def bad_value(typ):
        if typ == "int":
            return "abc"
        if typ == "float":
            return "fast"
        if typ == "bool":
            return "maybe"
        if typ == "str":
            return 5
        if isinstance(typ, dict):
            if "opt" in typ:
                return bad_value(typ["opt"])
            if "lit" in typ:
                return "not-a-choice" if any(isinstance(x, str) for x in typ["lit"]) else 99
            if "list" in typ:
                return "x"
            if "dict" in typ:
                return [1]
            if "cls" in typ:
                return 3
        return None

    def coerced(typ):
        """A value pydantic's lax JSON mode accepts for the type."""
        return {"int": "12", "float": 2, "bool": "yes"}.get(typ) if isinstance(typ, str) else None

    for dest, key in sorted(options.items()):
        cls = data["classes"][key]
        ported = dest in ("kv_transfer_config", "structured_outputs_config")  # their literals: kv_transfer/ and config/structured_outputs.py
        # a pooler config on a generative model changes its CUDA graphs from 0.13.0 (VllmConfig reads
        # `pooler_config is not None`): its own case below; the pool reads it on a pooling model
        model = moe if dest in ("eplb_config", "aux_output_config") else "llama-classify" \
            if dest == "pooler_config" else dense
        f = flag(dest)
        add(model, [f, "{}"])
        add(model, [f, '{"not_a_field": 1}'])
        add(model, [f, "[1]"] if len(pool) % 2 else [f, "7"])
        bads = []
        for name, typ, bounds, custom in cls["fields"]:
            if isinstance(custom, dict):  # an enum looked up by name: a name in any case, a bad name, a number
                add(model, [f, json.dumps({name: custom["enum_names"][0].lower()})])
                add(model, [f, json.dumps({name: "no-such-backend"})])
                add(model, [f, json.dumps({name: 5})])
                if custom["auto"]:
                    add(model, [f, json.dumps({name: "AUTO"})])
                continue
            if custom is True or typ == "any":
                continue  # its own field validator (not modelled), or a type not modelled
            inner = typ.get("opt", typ) if isinstance(typ, dict) else typ
            lits = inner.get("lit") if isinstance(inner, dict) else None
            if custom == "norm" and lits:  # lower-cased, dashes to underscores, then the literal
                add(model, [f, json.dumps({name: str(lits[0]).upper().replace("_", "-")})])
            if custom == "none_ok":
                add(model, [f, json.dumps({name: None})])
            if name in cls.get("defaults", {}):
                add(model, [f, json.dumps({name: cls["defaults"][name]})])
            bad = bad_value(typ)
            if bad is not None:
                add(model, [f, json.dumps({name: bad})])
                bads.append((name, bad))
            ok = coerced(typ.get("opt") if isinstance(typ, dict) else typ)
            # ProfilerConfig's model validator ties each option to the profiler chosen (not ported)
            if ok is not None and not bounds and cls["name"] != "ProfilerConfig":
                add(model, [f, json.dumps({name: ok})])
            for b, limit in bounds.items():
                if b in ("gt", "lt"):
                    add(model, [f, json.dumps({name: limit})])
                elif b == "ge":
                    add(model, [f, json.dumps({name: limit - 1})])
                elif b == "le":
                    add(model, [f, json.dumps({name: limit + 1})])
                elif b == "min_length":
                    add(model, [f, json.dumps({name: [] if "list" in json.dumps(typ) else {}})])
            if isinstance(typ, dict) and "cls" in typ:
                add(model, [f, json.dumps({name: {"not_a_field": 1}})])
        if len(bads) >= 2 and not ported:
            add(model, [f, json.dumps({bads[-1][0]: bads[-1][1], "zz_unknown": 0, bads[0][0]: bads[0][1]})])
    if "eplb_config" in options:
        ep = ["-ep", "-tp", "2"]
        add(moe, ["--eplb-config", '{"num_redundant_experts": -1}'])
        add(moe, ["--eplb-config.num_redundant_experts", "-2"])
        add(moe, ["--eplb-config.window_size=0"])
        add(moe, ["--eplb-config", '{"num_redundant_experts": 2}'])
        add(moe, ["--eplb-config", '{"num_redundant_experts": "3"}'])
        add(moe, ["--eplb-config", '{"num_redundant_experts": 2}', "--enable-eplb"] + ep)
        add(moe, ["--eplb-config", '{"num_redundant_experts": 0, "window_size": 10}', "--enable-eplb"] + ep)
        add(moe, ["--enable-eplb", "--eplb-config", '{"step_interval": 100}'] + ep)
        add(moe, ["--eplb-config", '{"use_async": true, "communicator": "pynccl"}'])
        add(moe, ["--eplb-config", '{"use_async": true, "communicator": "torch_nccl"}'])
        add(moe, ["--eplb-config", '{"use_async": false, "communicator": "pynccl"}'])
        add(moe, ["--eplb-config", '{"communicator": "torch_gloo"}'])
        add(moe, ["--eplb-config", '{"communicator": "nccl"}'])
        add(moe, ["--eplb-config", '{"policy": "greedy", "use_async": true}'])
        add(moe, ["--eplb-config", '{"log_balancedness": true, "log_balancedness_interval": 0}'])
        add(moe, ["--eplb-config", '{"log_balancedness": "on", "log_balancedness_interval": -3}'])
        add(moe, ["--eplb-config", '{"window_size": 1.5, "step_interval": 2.0}'])
        add(moe, ["--eplb-config", '{"window_size": null}'])
        add(moe, ["--eplb-config", "null"])
        add(moe, ["--eplb-config", "{bad json"])
        add(moe, ["--enable-eplb", "--eplb-config", '{"num_redundant_experts": -1}'] + ep)
        if v < (0, 12):  # the deprecated --num-redundant-experts replaces --eplb-config's count
            add(moe, ["--num-redundant-experts", "2"])
            add(moe, ["--num-redundant-experts", "0", "--eplb-config", '{"num_redundant_experts": 2}'])
            add(moe, ["--eplb-config", '{"num_redundant_experts": 2}', "--num-redundant-experts", "1"])
    if "kv_events_config" in options:
        add(dense, ["--kv-events-config", '{"enable_kv_cache_events": true, "publisher": "zmq"}'])
        add(dense, ["--kv-events-config", '{"publisher": "kafka", "hwm": "lots", "endpoint": 5}'])
        add(dense, ["--kv-events-config", '{"publisher": null}'])
        add(dense, ["--kv-events-config.buffer_steps", "x1"])
    if "ec_transfer_config" in options:
        add(dense, ["--ec-transfer-config", '{"ec_role": "ec_both", "ec_port": "p"}'])
        add(dense, ["--ec-transfer-config", '{"ec_role": "ec_producer", "ec_buffer_size": "1e9"}'])
        add(dense, ["--ec-transfer-config", '{"ec_role": "producer"}'])
        add(dense, ["--ec-transfer-config", '{"ec_connector": "ECExampleConnector"}'])
    if "pooler_config" in options and (0, 12) <= v < (0, 14):
        # 0.12.x-0.13.x: a pooler config without pooling_type on a generative decoder crashes vLLM.
        # A pooler config that passes turns a generative model's full CUDA graphs off (VllmConfig reads
        # `pooler_config is not None`); resolve/vllm_config/steps/cudagraph_mode.py reads pooling models only, so
        # the pool leaves that case out
        add(dense, ["--pooler-config", "{}"])
    if "aux_output_config" in options:
        add(dense, ["--aux-output-config", '{"enable_return_routed_experts": true}'])
        add(moe, ["--aux-output-config", '{"enable_return_routed_experts": true}', "--no-enable-prefix-caching"])
        add(moe, ["--aux-output-config", '{"enable_return_routed_experts": true, "max_bytes": 4096}'])
    if "engram_config" in options:
        add(moe, ["--engram-config", '{"cpu_offload": false}'])
    for words in (["--hf-overrides", "abc"], ["--hf-overrides", "[1, 2]"], ["--hf-overrides", "5"],
                  ["--hf-overrides", '{"max_position_embeddings": 4096}'], ["--hf-overrides", " {} "],
                  ["--hf-overrides", "{bad}"], ["--hf-overrides", "None"], ["--additional-config", "{x}"],
                  ["--additional-config", '{"k": 1}'], ["--model-loader-extra-config", "{'a': 1}"]):
        add(dense, words)
    return pool


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


def _runner_convert(v: tuple) -> Pool:
    """--runner / --convert on generative, pooling and MoE models: whether the pooling runner (and
    its graph defaults) applies; `--convert` alone implies pooling from 0.22.0."""
    converts = ["embed", "classify"] + (["reward"] if v < (0, 12, 0) else [])
    pool: Pool = []
    for model in ("llama-dense", "mixtral-moe", "llama-classify"):
        pool += [(model, [], {}), (model, ["--runner", "pooling"], {}), (model, ["--runner", "generate"], {}),
                 (model, ["--runner", "auto", "--convert", "none"], {})]
        for c in converts:
            pool += [(model, ["--convert", c], {}), (model, ["--runner", "generate", "--convert", c], {}),
                     (model, ["--runner", "pooling", "--convert", c], {}),
                     (model, ["--convert", c, "-cc", '{"cudagraph_mode": "FULL_AND_PIECEWISE"}'], {})]
    # a --pooler-config kept on a generative model turns full graphs off too (0.12.0-0.13.x need
    # its pooling_type, else ModelConfig crashes on the generative runner)
    for model in ("llama-dense", "mixtral-moe"):
        pool += [(model, ["--pooler-config", '{"pooling_type": "MEAN"}'], {}),
                 (model, ["--pooler-config", '{"pooling_type": "LAST", "normalize": true}', "-O3"], {}),
                 (model, ["--runner", "generate", "--pooler-config", '{"pooling_type": "CLS"}'], {})]
    # parameters PoolerConfig removed (0.26.0+: refused before its fields are read)
    pool += [("llama-classify", ["--pooler-config", '{"task": "score"}'], {}),
             ("llama-classify", ["--pooler-config", '{"task": "encode", "normalize": false}'], {}),
             ("llama-classify", ["--pooler-config", '{"task": "embed"}'], {})]
    return pool


def _world_size(v: tuple) -> Pool:
    """PP x TP (x PCP) against one node's 8 GPUs, with and without --nnodes or an executor backend
    (tensor parallel stays <= 4 in accepted cases: the recording machine's host memory trips the
    swap-space check at 8)."""
    dense, moe = "llama-dense", "mixtral-moe"
    pool: Pool = [(dense, ["-tp", "4", "-pp", "4"], {}), (dense, ["-tp", "2", "-pp", "4"], {}),
                  (dense, ["-tp", "4", "-pp", "3"], {}), (dense, ["-pp", "16"], {}), (dense, ["-pp", "9"], {}),
                  (dense, ["-tp", "4", "-pp", "2", "-dp", "2"], {}), (dense, ["-tp", "4", "-pp", "4", "-dp", "2"], {}),
                  (moe, ["-tp", "4", "-pp", "4", "--enable-expert-parallel"], {}),
                  (moe, ["-tp", "2", "-pp", "2", "-dp", "4", "--enable-expert-parallel"], {}),
                  (dense, ["-tp", "4", "-pp", "4", "--distributed-executor-backend", "mp"], {}),
                  (dense, ["-tp", "4", "-pp", "4", "--distributed-executor-backend", "uni"], {}),
                  (dense, ["-tp", "16"], {}), (dense, ["-tp", "4", "-pp", "4", "--enforce-eager"], {}),
                  (dense, ["-pp", "2", "--distributed-executor-backend", "uni"], {}),
                  (dense, ["-pp", "2", "--distributed-executor-backend", "external_launcher"], {}),
                  (dense, ["-pp", "2", "--distributed-executor-backend", "ray"], {}),
                  (dense, ["--max-num-partial-prefills", "2"], {}),
                  (dense, ["--max-long-partial-prefills", "2", "--max-num-partial-prefills", "2"], {}),
                  (dense, ["--logits-processor-pattern", "foo.*"], {})]
    if v >= (0, 11, 1):
        pool += [(dense, ["-tp", "4", "-pp", "4", "--nnodes", "2"], {}),
                 (dense, ["-tp", "4", "-pp", "4", "--nnodes", "1"], {}),
                 (dense, ["-tp", "4", "-pp", "4", "--nnodes", "2", "--node-rank", "1"], {})]
    return pool


def _spec_flags(v: tuple) -> Pool:
    """--spec-method / --spec-model / --spec-tokens (0.22.0+; unrecognized before), alone, together
    and next to --speculative-config's same keys."""
    dense, ds = "llama-dense", "deepseek-v3-moe"
    sc = "--speculative-config"
    return [(dense, ["--spec-method", "ngram", "--spec-tokens", "3"], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "5", "-O3"], {}),
            (dense, ["--spec-method", "ngram"], {}), (dense, ["--spec-tokens", "2"], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "0"], {}),
            (dense, ["--spec-method", "eagle", "--spec-tokens", "2"], {}),
            (dense, ["--spec-method", "bogus", "--spec-tokens", "2"], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "x"], {}),
            (dense, ["--spec-method", "ngram", sc, '{"num_speculative_tokens": 3}'], {}),
            (dense, ["--spec-tokens", "3", sc, '{"method": "ngram"}'], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "3", sc, '{"method": "ngram"}'], {}),
            (dense, ["--spec-tokens", "3", sc, '{"method": "ngram", "num_speculative_tokens": 2}'], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "3", "--async-scheduling"], {}),
            (dense, ["--spec-method", "ngram", "--spec-tokens", "3", "-cc", '{"cudagraph_mode": "FULL"}'], {}),
            (ds, ["--spec-method", "mtp", "--spec-tokens", "1"], {}),
            (ds, ["--spec-method", "deepseek_mtp", "--spec-tokens", "2"], {}),
            (ds, ["--spec-method", "mtp", "--spec-tokens", "1", "-dp", "2", "--enable-expert-parallel"], {})]


def _json_text(v: tuple) -> Pool:
    """JSON-typed options given text: EngineArgs' parse_type/optional_type wording for bad JSON,
    `None`/empty meaning unset for the optional ones, JSON of the wrong shape."""
    mm, dense = "mm-qwen2-vl", "llama-dense"
    pool: Pool = []
    for opt in ("--limit-mm-per-prompt", "--media-io-kwargs", "--mm-processor-kwargs"):
        for text in ("abc", "{bad", "None", "{}"):
            pool.append((mm, [opt, text], {}))
    for opt in ("--override-generation-config", "--speculative-config", "--default-mm-loras"):
        for text in ("abc", "None", "[1, 2]"):
            pool.append((mm if opt == "--default-mm-loras" else dense, [opt, text], {}))
    pool += [(dense, ["--limit-mm-per-prompt", '{"image": 2}'], {}), (mm, ["--limit-mm-per-prompt", '{"image": 2}'], {}),
             (mm, ["--mm-processor-kwargs", '{"max_pixels": 1024}'], {})]
    return pool


def _v2_features(v: tuple) -> Pool:
    """Features the V2 model runner lacks, async scheduling with speculative options, LoRA with DBO."""
    dense, ds, moe = "llama-dense", "deepseek-v3-moe", "mixtral-moe"
    v2, v1 = {"VLLM_USE_V2_MODEL_RUNNER": "1"}, {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    sc = "--speculative-config"
    mtp = '{"method": "mtp", "num_speculative_tokens": 1%s}'
    ngram = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3%s}'
    nopad, pard = ', "disable_padded_drafter_batch": true', ', "parallel_drafting": true'
    ec = '{"ec_connector": "ECExampleConnector", "ec_role": "ec_consumer"}'
    dbo = ["--enable-dbo", "--all2all-backend", "deepep_low_latency"]
    feats = [["--logits-processors", "mypkg.procs:MyProc"],
             ["--kv-sharing-fast-prefill"], ["--ec-transfer-config", ec], ["--enable-prompt-embeds"],
             ["--logprobs-mode", "raw_logits"], ["--logprobs-mode", "processed_logits"],
             ["--logprobs-mode", "raw_logprobs"], ["-pp", "2", "--distributed-executor-backend", "external_launcher"],
             ["--distributed-executor-backend", "external_launcher"], ["--enable-lora"] + dbo, dbo,
             ["--enable-lora"]]
    pool: Pool = []
    for words in feats:
        pool += [(dense, words, v2), (dense, words, {})]
    # routed experts capture on MoE models under V2 only (0.31.0+ refuse it for a dense model or V1, unported)
    pool += [(moe, ["--enable-return-routed-experts"], v2), (moe, ["--enable-return-routed-experts"], {}),
             (moe, ["--enable-lora", "--enable-expert-parallel"] + dbo, v2),
             (moe, ["--enable-return-routed-experts", "--kv-sharing-fast-prefill", "--enable-prompt-embeds"], v2),
             (moe, ["--logits-processors", "a.b:C", "--ec-transfer-config", ec, "--enable-return-routed-experts"], v2),
             (dense, ["--enable-lora", "-pp", "2"] + dbo, v2),
             (dense, ["--enable-lora", "--kv-sharing-fast-prefill"] + dbo, v2),
             (dense, ["-dcp", "2", "-tp", "2"] + dbo, v2),
             (dense, ["--kv-sharing-fast-prefill"], v1), (dense, ["--enable-prompt-embeds"], v1),
             (ds, [sc, mtp % pard], v2), (ds, [sc, mtp % pard], {}), (ds, [sc, mtp % ""], v2),
             (ds, [sc, mtp % pard, "--enable-return-routed-experts"], v2),
             (ds, ["--async-scheduling", sc, mtp % nopad], {}), (ds, ["--async-scheduling", sc, mtp % nopad], v2),
             (ds, ["--async-scheduling", sc, mtp % nopad], v1), (ds, [sc, mtp % nopad], {}),
             (ds, ["--async-scheduling", sc, mtp % ', "disable_padded_drafter_batch": false'], {}),
             (ds, ["--async-scheduling", sc, mtp % (nopad + pard)], v2),
             (dense, ["--async-scheduling", sc, ngram % nopad], {}), (dense, ["--async-scheduling", sc, ngram % nopad], v1),
             (dense, [sc, ngram % nopad], v2), (dense, ["--no-async-scheduling", sc, ngram % nopad], {}),
             (ds, ["--async-scheduling", "--spec-method", "mtp", "--spec-tokens", "1", sc,
                   '{"disable_padded_drafter_batch": true}'], {})]
    return pool


def _validators(v: tuple) -> Pool:
    """Multi-node parallel asserts and the remaining config-class validators: --nnodes / --node-rank
    against the world size, the load-balancing modes (hybrid, external, by rank or start rank),
    the data-parallel and executor backends next to --nnodes."""
    dense, moe = "llama-dense", "mixtral-moe"
    pool: Pool = [(dense, ["--data-parallel-rank", "0"], {}), (moe, ["--data-parallel-rank", "0"], {}),
                  (moe, ["-dp", "2", "--data-parallel-rank", "1"], {}),
                  (dense, ["-dp", "2", "--data-parallel-rank", "1"], {}),
                  (moe, ["-dp", "2", "--data-parallel-rank", "1", "--data-parallel-size-local", "2"], {}),
                  (moe, ["-dp", "2", "--data-parallel-external-lb"], {}),
                  (moe, ["--data-parallel-external-lb"], {}),
                  (moe, ["-dp", "2", "--data-parallel-hybrid-lb"], {}),
                  (moe, ["-dp", "4", "--data-parallel-hybrid-lb", "--data-parallel-size-local", "2"], {}),
                  (moe, ["-dp", "4", "--data-parallel-hybrid-lb", "--data-parallel-size-local", "1"], {}),
                  (moe, ["-dp", "4", "--data-parallel-start-rank", "2", "--data-parallel-size-local", "2"], {}),
                  (moe, ["-dp", "4", "--data-parallel-start-rank", "0", "--data-parallel-size-local", "1"], {}),
                  (dense, ["-dp", "4", "--data-parallel-start-rank", "2", "--data-parallel-size-local", "1"], {}),
                  (moe, ["-dp", "2", "--data-parallel-hybrid-lb", "--data-parallel-external-lb"], {}),
                  (dense, ["--data-parallel-hybrid-lb", "--data-parallel-external-lb"], {})]
    if v >= (0, 11, 1):
        pool += [(dense, ["--nnodes", "2"], {}), (dense, ["-tp", "2", "--nnodes", "2", "--node-rank", "1"], {}),
                 (dense, ["-tp", "2", "--nnodes", "3"], {}), (dense, ["-tp", "4", "--nnodes", "2", "--node-rank", "2"], {}),
                 (dense, ["-tp", "4", "--nnodes", "2", "--node-rank", "5"], {}),
                 (dense, ["-tp", "4", "--nnodes", "2", "--node-rank", "-1"], {}),
                 (dense, ["-pp", "2", "--nnodes", "2", "--data-parallel-backend", "ray"], {}),
                 (dense, ["-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "ray"], {}),
                 (dense, ["-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "external_launcher"], {}),
                 (dense, ["-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "uni"], {}),
                 (dense, ["-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "mp"], {}),
                 (moe, ["-dp", "2", "--nnodes", "2", "--node-rank", "1", "--data-parallel-external-lb"], {}),
                 (moe, ["-dp", "2", "-tp", "2", "--nnodes", "4", "--node-rank", "3", "--data-parallel-external-lb"], {}),
                 (moe, ["-dp", "4", "--nnodes", "2", "--node-rank", "1", "--data-parallel-external-lb"], {}),
                 (moe, ["-dp", "4", "--nnodes", "2", "--node-rank", "1", "--data-parallel-external-lb",
                        "--data-parallel-rank", "3"], {}),
                 (moe, ["-dp", "4", "--nnodes", "2", "--node-rank", "1"], {}),
                 (moe, ["-dp", "4", "--nnodes", "2", "--node-rank", "1", "--data-parallel-hybrid-lb"], {}),
                 (moe, ["-dp", "2", "-tp", "2", "--nnodes", "2", "--data-parallel-size-local", "1"], {}),
                 (moe, ["-dp", "2", "--nnodes", "2", "--data-parallel-backend", "ray", "--data-parallel-hybrid-lb"], {}),
                 (moe, ["-dp", "2", "--nnodes", "2", "--data-parallel-backend", "ray", "--data-parallel-hybrid-lb",
                        "--data-parallel-external-lb"], {})]
    so = "--structured-outputs-config"
    pool += [(dense, [so, '{"reasoning_parser": "bogus"}'], {}), (dense, [so, '{"reasoning_parser": "qwen3"}'], {}),
             (dense, [so, '{"reasoning_parser": "Qwen3", "disable_any_whitespace": true}'], {}),
             (dense, [so, '{"reasoning_parser": ""}'], {})]
    if v >= (0, 12, 0):
        pool += [(dense, ["-tp", "2", "-pcp", "2", "--nnodes", "2"], {}),
                 (dense, ["-tp", "2", "-pcp", "2", "--nnodes", "3"], {})]
    if v >= (0, 13, 0):
        pc = "--profiler-config"
        for cfg in ({"profiler": "torch"}, {"profiler": "torch", "torch_profiler_dir": "/tmp/prof"},
                    {"torch_profiler_dir": "/tmp/prof"}, {"profiler": "cuda", "torch_profiler_dir": "/tmp/p"},
                    {"profiler": "cuda"}, {"profiler": "cuda", "capture_torch_profiler": True},
                    {"profiler": "proton"}, {"profiler": "cuda", "proton_data": "trace"},
                    {"profiler": "proton", "proton_profiler_dir": "/tmp/p", "proton_output_format": "chrome_trace"},
                    {"profiler": "proton", "proton_profiler_dir": "s3://b/p"},
                    {"profiler": "proton", "proton_profiler_dir": "/tmp/p", "proton_data": "trace",
                     "proton_output_format": "hatchet"},
                    {"profiler": "proton", "proton_profiler_dir": "/tmp/p", "proton_graph_attribution": True,
                     "proton_data": "trace"},
                    {"profiler": "cuda", "torch_profiler_activities": ["CPU"]},
                    {"profiler": "torch", "torch_profiler_dir": "/tmp/p", "torch_profiler_activities": ["CPU", "CPU"]}):
            pool.append((dense, [pc, json.dumps(cfg)], {}))
    if v >= (0, 20, 0):
        ir: list[dict[str, object]] = [{"rms_norm": "native, vllm_c"}, {"rms_norm": [1]}, {"rms_norm": 5},
                                       {"rms_norm": None}, {"rms_norm": ["native", 2]}, {"rms_norm": {"a": "b"}},
                                       {"fused_add_rms_norm": ["native"]}]
        for ir_cfg in ir:
            pool.append((dense, ["--ir-op-priority", json.dumps(ir_cfg)], {}))
    if v >= (0, 27, 0):
        pool += [(moe, ["-dp", "2", "--enable-fault-tolerance"], {}),
                 (moe, ["-dp", "2", "--data-parallel-rank", "1", "--enable-fault-tolerance"], {})]
    if (0, 11, 1) <= v < (0, 13, 0):  # the registry check of 0.11.1-0.12.0, reached from the flag too
        pool += [(dense, ["--reasoning-parser", "bogus"], {}), (dense, ["--reasoning-parser", "qwen3"], {})]
    return pool


def _mamba_quant(v: tuple) -> Pool:
    """Mamba/hybrid asserts by release and the quantization config validation left: pure mamba
    and hybrid models with prefix caching, chunked prefill, the mamba cache mode (0.15.0+) and
    the block size; ModelOpt checkpoints whose kv-cache algo, excluded modules or group size
    have the wrong type, NVFP4 legacy layouts missing required fields; compressed-tensors
    config groups without targets or weights, or quantizing activations without saying how."""
    pool: Pool = []
    mamba = ["pp-mamba1", "pp-mamba2", "pp-zamba2-hybrid", "pp-jamba-hybrid-moe", "hook-mamba2"]
    words: list[list[str]] = [[], ["--enable-prefix-caching"], ["--no-enable-prefix-caching"],
                              ["--enable-prefix-caching", "--no-enable-chunked-prefill"],
                              ["--no-enable-chunked-prefill"], ["--enable-prefix-caching", "--block-size", "32"]]
    if v >= (0, 15, 0):
        words += [["--mamba-cache-mode", "align"], ["--mamba-cache-mode", "all"], ["--mamba-cache-mode", "none"],
                  ["--enable-prefix-caching", "--mamba-cache-mode", "align", "--no-enable-chunked-prefill"],
                  ["--enable-prefix-caching", "--mamba-cache-mode", "all"]]
    for i, m in enumerate(mamba):
        for j, w in enumerate(words):
            if (i + j) % 2 == 0 or m in ("pp-mamba2", "pp-zamba2-hybrid"):
                pool.append((m, w, {}))
    Q = "--quantization"
    quant: dict[str, list[list[str]]] = {
        "mq-modelopt-fp8-kv-int": [[], [Q, "modelopt"]], "mq-modelopt-fp8-kv-list": [[]],
        "mq-modelopt-fp8-ignore-text": [[], [Q, "modelopt"]], "mq-modelopt-nvfp4-group-text": [[], [Q, "modelopt_fp4"]],
        "mq-modelopt-nvfp4-group-digits": [[]], "mq-modelopt-nvfp4-group-list": [[]],
        "mq-modelopt-nvfp4-group-float": [[]], "mq-modelopt-legacy-nvfp4-no-group": [[], [Q, "modelopt_fp4"]],
        "mq-modelopt-legacy-nvfp4-bare": [[]], "mq-modelopt-legacy-fp8-exclude-dict": [[]],
        "mq-modelopt-legacy-fp8-kv-bool": [[]], "mq-modelopt-legacy-nvfp4-full": [[], ["--dtype", "float16"]],
        "quant-modelopt-fp4": [[]], "quant-modelopt-fp8": [[]],
        "mq-ct-no-targets": [[]], "mq-ct-targets-null": [[]], "mq-ct-weights-null": [[]],
        "mq-ct-int-quantized-no-input": [[], ["--dtype", "float16"]], "mq-ct-float-quantized-no-input": [[]],
        "mq-ct-attention-only-group": [[]], "mq-ct-group-format-int-quantized": [[]],
        "mq-ct-actorder-group": [[]], "mq-ct-actorder-true": [[]], "mq-ct-actorder-weight": [[]],
    }
    for m, ws in quant.items():
        pool += [(m, w, {}) for w in ws]
    return pool


def _speculative(v: tuple) -> Pool:
    """SpeculativeConfig with a draft model read from its own config.json: the method detected
    from the draft (EAGLE/EAGLE-3 by folder name, Medusa, MLP speculator, MTP by model type, a
    plain draft model; MLP speculators are left out: their class is in no release's registry and
    the refusal lists the whole registry), n_predict defaulting and dividing num_speculative_tokens, the draft's
    tensor parallel size and attention heads, max_model_len against the draft's and the target's,
    EAGLE-3's target families (until 0.16.x), equal vocabularies for draft models (0.15.0+), a
    `tensor_parallel_size` key (0.15.0+), and each rule without its trigger."""
    m = "{models}/"
    dense, ds, moe, qwen = "llama-dense", "deepseek-v3-moe", "mixtral-moe", "qwen3-moe"

    def sc(**kw) -> list[str]:
        return ["--speculative-config", json.dumps(kw)]

    eagle, eagle3, unnamed = m + "spec-eagle-llama-head", m + "spec-eagle3-llama-head", m + "spec-head-llama-unnamed"
    small, vocab, heads6 = m + "spec-draft-llama-small", m + "spec-draft-llama-vocab32000", m + "spec-draft-llama-6heads"
    medusa = m + "spec-medusa-heads"
    mtp1, mtp2 = "spec-deepseek-v3-mtp1", "spec-deepseek-v3-mtp2"
    pool: list[tuple[str, list[str]]] = [
        # EAGLE heads: method given, detected from the folder name, no token count
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=3)),
        (dense, sc(model=eagle, num_speculative_tokens=2)),
        (dense, sc(model=eagle, method="eagle")),
        (dense, sc(model=eagle, method="eagle3", num_speculative_tokens=2)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=3) + ["-tp", "4"]),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=3) + ["-pp", "2"]),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=3, max_model_len=4096)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=3, max_model_len=1024)),
        (dense, sc(model=eagle, num_speculative_tokens=1) + ["--async-scheduling"]),
        (dense, sc(model=eagle3, method="eagle3", num_speculative_tokens=3)),
        (dense, sc(model=eagle3, num_speculative_tokens=4)),
        (dense, sc(model=eagle3, num_speculative_tokens=2) + ["-tp", "2"]),
        (ds, sc(model=eagle3, method="eagle3", num_speculative_tokens=2)),
        (moe, sc(model=eagle3, num_speculative_tokens=2)),
        (qwen, sc(model=eagle3, method="eagle3", num_speculative_tokens=2)),
        (moe, sc(model=eagle, method="eagle", num_speculative_tokens=2)),
        # a head whose name says nothing: the method decides
        (dense, sc(model=unnamed, method="eagle", num_speculative_tokens=2)),
        (dense, sc(model=unnamed, method="eagle3", num_speculative_tokens=2)),
        (dense, sc(model=unnamed, num_speculative_tokens=2)),
        (dense, sc(model=unnamed, method="medusa", num_speculative_tokens=2)),
        (dense, sc(model=unnamed, method="mtp", num_speculative_tokens=1)),
        # draft models: same and another vocabulary, heads against TP, draft TP
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=3)),
        (dense, sc(model=small, num_speculative_tokens=3)),
        (dense, sc(model=small, method="draft_model")),
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=3) + ["-tp", "8"]),
        (dense, sc(model=heads6, method="draft_model", num_speculative_tokens=3, draft_tensor_parallel_size=1)
         + ["-tp", "4"]),
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=3, max_model_len=5000)),
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=3, max_model_len=4096)),
        (dense, sc(model=vocab, method="draft_model", num_speculative_tokens=2)),
        (dense, sc(model=vocab, num_speculative_tokens=2)),
        (dense, sc(model=vocab, method="eagle", num_speculative_tokens=2)),
        (dense, sc(model=heads6, method="draft_model", num_speculative_tokens=2) + ["-tp", "4"]),
        (dense, sc(model=heads6, method="draft_model", num_speculative_tokens=2) + ["-tp", "2"]),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2) + ["-tp", "4"]),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2, draft_tensor_parallel_size=1)
         + ["-tp", "4"]),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2, draft_tensor_parallel_size=2)
         + ["-tp", "4"]),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2, draft_tensor_parallel_size=4)
         + ["-tp", "4"]),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2, max_model_len=12000)),
        (dense, sc(model=heads6, method="eagle", num_speculative_tokens=2, max_model_len=6000)
         + ["--max-model-len", "4096"]),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=2, tensor_parallel_size=2)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=2, draft_tensor_parallel_size=3)
         + ["-tp", "2"]),
        # Medusa heads (no n_predict: the token count is required)
        (dense, sc(model=medusa, method="medusa", num_speculative_tokens=2)),
        (dense, sc(model=medusa, num_speculative_tokens=4)),
        (dense, sc(model=medusa, method="medusa")),
        (dense, sc(model=medusa, num_speculative_tokens=3) + ["-tp", "4"]),
        (dense, sc(model=medusa, num_speculative_tokens=3) + ["-pp", "2"]),
        (dense, sc(model=medusa, num_speculative_tokens=3, draft_tensor_parallel_size=2) + ["-tp", "4"]),
        # MTP: the target's own layers (n_predict = num_nextn_predict_layers), or named as the draft
        (mtp1, sc(method="mtp", num_speculative_tokens=1)),
        (mtp1, sc(method="mtp", num_speculative_tokens=3)),
        (mtp1, sc(method="mtp", num_speculative_tokens=1) + ["-pp", "2"]),  # the MTP class's PP support
        (mtp2, sc(method="mtp", num_speculative_tokens=3)),
        (mtp2, sc(method="mtp", num_speculative_tokens=4)),
        (mtp2, sc(method="deepseek_mtp", num_speculative_tokens=1)),
        (mtp2, sc(method="mtp")),
        (mtp1, sc(model=m + mtp2, num_speculative_tokens=3)),
        (mtp1, sc(model=m + mtp2)),
        (mtp1, sc(model=m + mtp1, method="mtp", num_speculative_tokens=2)),
        (ds, sc(method="mtp", num_speculative_tokens=3)),
        (ds, sc(model=m + ds, num_speculative_tokens=2)),
        (mtp1, sc(model=m + mtp1, method="eagle", num_speculative_tokens=1)),
        # the target itself as the draft
        (dense, sc(model=m + dense, method="draft_model", num_speculative_tokens=2)),
        (dense, sc(model=m + dense, num_speculative_tokens=2) + ["-tp", "2"]),
        # field combinations of later releases (unknown keys before them)
        (dense, sc(method="ngram", num_speculative_tokens=3, index_share_for_mtp_iteration=True)),
        (mtp1, sc(method="mtp", num_speculative_tokens=1, index_share_for_mtp_iteration=False)),
        (dense, sc(method="ngram", num_speculative_tokens=3, enable_adaptive_verification=True,
                   use_local_argmax_reduction=True)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=2, draft_lm_head_quantization="fp8")),
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=2, draft_lm_head_quantization="fp8")),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="synthetic",
                   synthetic_acceptance_rates=[0.9, 0.8, 0.5])),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="synthetic",
                   synthetic_acceptance_rates=[0.9, 0.8])),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="synthetic",
                   synthetic_acceptance_length=5.0)),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="synthetic")),
        (dense, sc(method="ngram", num_speculative_tokens=3, synthetic_acceptance_length=2.0)),
        (dense, sc(model=vocab, method="draft_model", num_speculative_tokens=2, use_heterogeneous_vocab=True)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=2, use_heterogeneous_vocab=True)),
        (dense, sc(model=small, method="draft_model", num_speculative_tokens=2, use_heterogeneous_vocab=True,
                   draft_sample_method="probabilistic")),
        (dense, sc(method="ngram", num_speculative_tokens=1, rejection_sample_method="fly")),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="fly", fly_window_size=3)),
        (dense, sc(method="ngram", num_speculative_tokens=3, rejection_sample_method="fly")),
        (dense, sc(method="custom_class", num_speculative_tokens=2)),
        (dense, sc(method="extract_hidden_states", num_speculative_tokens=1)),
        (dense, sc(model=eagle, method="eagle", num_speculative_tokens=2, dspark_draft_topk=4)),
    ]
    return [(t, w, {}) for t, w in pool]


def _vllm_config(v: tuple) -> Pool:
    """The rest of VllmConfig.__post_init__ and its model validators: adaptive speculative
    verification (0.28.0+: DSpark only; 0.29.0+ refused by the V1 runner, with LoRA, without
    CUDA graphs, with PP), routed experts (0.22.0-0.30.x early checks; 0.31.0+ the AuxOutput
    connector, which needs Model Runner V2), per-request speculative metrics and batch-sharded
    sampling (0.29.0+), KV-sharing fast prefill with MTP, NVFP4 KV cache on MLA (0.21.0+), a
    float KV cache dtype against the model's (0.33.0), --mamba-block-size without prefix
    caching, Mamba stochastic rounding (0.20.0+), LoRA with DBO on Model Runner V2."""
    dense, moe, ds, mamba, hybrid = "llama-dense", "mixtral-moe", "deepseek-v3-moe", "pp-mamba2", "pp-jamba-hybrid-moe"
    v2, v1 = {"VLLM_USE_V2_MODEL_RUNNER": "1"}, {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    sc = "--speculative-config"
    ngram = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3%s}'
    mtp = '{"method": "mtp", "num_speculative_tokens": 1%s}'
    adapt = ', "enable_adaptive_verification": true'
    nixl = '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'
    multi = ('{"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": '
             '{"connectors": [{"kv_connector": "NixlConnector", "kv_role": "kv_both"}]}}')
    example = '{"kv_connector": "ExampleConnector", "kv_role": "kv_both"}'
    pool: Pool = [(dense, ["--kv-sharing-fast-prefill", sc, ngram % ""], {}),
                  (ds, ["--kv-sharing-fast-prefill", sc, mtp % ""], {}),
                  (ds, ["--kv-sharing-fast-prefill", sc, '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'], {}),
                  (ds, ["--kv-sharing-fast-prefill"], {}),
                  (dense, ["--kv-cache-dtype", "float16"], {}), (dense, ["--kv-cache-dtype", "bfloat16"], {}),
                  (dense, ["--kv-cache-dtype", "bfloat16", "--dtype", "float16"], {}),
                  (dense, ["--kv-cache-dtype", "float16", "--dtype", "float32"], {}),
                  (dense, ["--kv-cache-dtype", "float16", "--dtype", "half"], {})]
    if v >= (0, 11, 1):
        pool += [(mamba, ["--mamba-block-size", "64"], {}), (mamba, ["--mamba-block-size", "64", "--enable-prefix-caching"], {}),
                 (dense, ["--mamba-block-size", "64"], {}), (dense, ["--mamba-block-size", "64", "--no-enable-prefix-caching"], {}),
                 (hybrid, ["--mamba-block-size", "256"], {}), (hybrid, ["--mamba-block-size", "256", "--enable-prefix-caching"], {})]
    if v >= (0, 14, 0):
        pool += [(moe, ["--enable-return-routed-experts"], {}), (moe, ["--enable-return-routed-experts"], v1),
                 (dense, ["--enable-return-routed-experts"], v1), (dense, ["--enable-return-routed-experts"], {}),
                 (moe, ["--enable-return-routed-experts", "-pp", "2"], {}),
                 (moe, ["--enable-return-routed-experts", "-pp", "2"], v2),
                 (ds, ["--enable-return-routed-experts", "-dcp", "2", "-tp", "2"], {}),
                 (moe, ["--enable-return-routed-experts", "--kv-transfer-config", nixl], {}),
                 (moe, ["--enable-return-routed-experts", "--kv-transfer-config", multi], {}),
                 (moe, ["--enable-return-routed-experts", "--kv-transfer-config", nixl], v1),
                 (moe, ["--enable-return-routed-experts", "--no-enable-prefix-caching"], {}),
                 (moe, ["--enable-return-routed-experts", "--enforce-eager"], v1),
                 (moe, ["--kv-transfer-config", nixl], {}),
                 (moe, ["--enable-return-routed-experts", "--no-async-scheduling"], {}),
                 (ds, ["--enable-return-routed-experts", "--no-async-scheduling", "-pp", "2", "-tp", "2", "-dcp", "2"], {})]
    if v >= (0, 20, 0):
        pool += [(mamba, ["--enable-mamba-cache-stochastic-rounding"], {}),
                 (mamba, ["--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-cache-dtype", "float16"], {}),
                 (dense, ["--enable-mamba-cache-stochastic-rounding"], {}),
                 (hybrid, ["--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-cache-dtype", "float32"], {})]
    if v >= (0, 21, 0):
        pool += [(ds, ["--kv-cache-dtype", "nvfp4"], {}), (dense, ["--kv-cache-dtype", "nvfp4"], {}),
                 (ds, ["--kv-cache-dtype", "fp8"], {})]
    if v >= (0, 30, 0):
        pool += [(ds, ["--kv-cache-dtype", "nvfp4_ds_mla"], {}), (ds, ["--kv-cache-dtype", "nvfp4_4over6"], {})]
    if v >= (0, 21, 0):  # a KV connector with PyTorch's expandable segments
        seg = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
        pool += [(dense, ["--kv-transfer-config", nixl], seg), (moe, ["--kv-transfer-config", multi], seg),
                 (dense, ["--kv-transfer-config", nixl, "--enable-sleep-mode"], seg),
                 (dense, ["--kv-transfer-config", nixl], {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False"}),
                 (dense, [], seg)]
        if v >= (0, 22, 0):
            pool.append((dense, ["--kv-transfer-config", nixl, "--enable-cumem-allocator"], seg))
    if v >= (0, 28, 0):
        pool += [(dense, [sc, ngram % adapt], {}), (dense, [sc, ngram % adapt, "--enforce-eager"], {}),
                 (dense, [sc, ngram % adapt, "-pp", "2"], {}), (dense, [sc, ngram % adapt, "--enable-lora"], {}),
                 (dense, [sc, ngram % adapt], v1), (dense, [sc, ngram % adapt], v2),
                 (dense, [sc, ngram % adapt, "-cc", '{"cudagraph_mode": "PIECEWISE"}'], {}),
                 (dense, [sc, ngram % adapt, "-cc", '{"cudagraph_mode": "FULL_DECODE_ONLY"}'], {}),
                 (dense, [sc, ngram % ', "enable_adaptive_verification": false'], {}),
                 (ds, [sc, mtp % adapt], {}), (ds, [sc, mtp % adapt, "--enforce-eager"], {}),
                 (ds, [sc, mtp % (adapt + ', "use_local_argmax_reduction": true')], {}),
                 (ds, ["--enable-return-routed-experts", sc, mtp % adapt], {}),
                 (ds, ["--enable-return-routed-experts", sc, mtp % ""], {})]
    if v >= (0, 29, 0):
        pool += [(dense, ["--per-request-spec-decode-metrics", "summary"], {}),
                 (dense, ["--per-request-spec-decode-metrics", "detailed", sc, ngram % ""], {}),
                 (dense, ["--per-request-spec-decode-metrics", "none"], {}),
                 (dense, ["--enable-batch-sharded-sampling"], {}), (dense, ["--enable-batch-sharded-sampling", "-tp", "2"], {}),
                 (dense, ["--enable-batch-sharded-sampling", "-tp", "4", "--max-num-seqs", "2"], {}),
                 (dense, ["--enable-batch-sharded-sampling", "-tp", "2", "--max-logprobs", "-1"], {}),
                 (dense, ["--enable-batch-sharded-sampling", "--max-logprobs", "-1"], {}),
                 (dense, ["--enable-batch-sharded-sampling", "-tp", "2", sc, ngram % adapt], {}),
                 (dense, ["--enable-batch-sharded-sampling", "-tp", "2"], v1),
                 (dense, ["--enable-batch-sharded-sampling", "-tp", "2", sc, ngram % adapt], v1)]
    if v >= (0, 30, 0):
        dbo = ["--enable-dbo", "--all2all-backend", "deepep_low_latency", "-dp", "2", "--enable-expert-parallel"]
        pool += [(moe, ["--enable-lora"] + dbo, v2), (moe, dbo, v2), (moe, ["--enable-lora"] + dbo, {})]
    if v >= (0, 31, 0):
        pool += [(moe, ["--aux-output-config", '{"enable_return_routed_experts": true}'], {}),
                 (moe, ["--aux-output-config", '{"enable_return_routed_experts": true}'], v1),
                 (dense, ["--aux-output-config", '{"enable_return_routed_experts": true}'], v2)]
    if v >= (0, 11, 1):  # async scheduling asked for on an executor without it
        pool += [(dense, ["--async-scheduling", "--distributed-executor-backend", "ray", "-tp", "2"], {}),
                 (dense, ["--async-scheduling", "--distributed-executor-backend", "uni"], {}),
                 (dense, ["--async-scheduling", "--distributed-executor-backend", "mp", "-tp", "2"], {})]
    if v >= (0, 28, 0):  # sampling distribution replay
        rsm = "--return-sampling-mask"
        pool += [(dense, [rsm], {}), (dense, [rsm, "--logprobs-mode", "processed_logprobs"], {}),
                 (dense, [rsm, "--logprobs-mode", "processed_logprobs"], v1),
                 (dense, [rsm, "--logprobs-mode", "processed_logprobs", sc, ngram % ""], {}),
                 (dense, [rsm, "--logprobs-mode", "processed_logprobs", sc, ngram % adapt], {}),
                 (dense, [rsm, "--logprobs-mode", "processed_logprobs", "--logits-processors", "a.b:C"], v2),
                 (dense, [rsm, "--logprobs-mode", "raw_logits"], v2)]
    if v >= (0, 29, 0):  # trace replay; NIXL with context parallelism
        pool += [(dense, ["--enable-trace-replay"], {}), (dense, ["--enable-trace-replay"], v1),
                 (ds, ["-tp", "4", "-dcp", "2", "--kv-transfer-config", nixl], {}),
                 (ds, ["-tp", "2", "-dcp", "2", "--kv-transfer-config", nixl], {}),
                 (ds, ["-tp", "4", "-dcp", "2", "--kv-transfer-config", multi], {}),
                 (dense, ["-tp", "2", "-pcp", "2", "--kv-transfer-config", nixl], {}),
                 (ds, ["-tp", "2", "-dcp", "2", "--kv-transfer-config", example], {})]
    if v >= (0, 12, 0):  # the context-parallel KV interleave size (asserts 0.12.0-0.17.x)
        dcp = ["-tp", "2", "-dcp", "2"]
        pool += [(ds, dcp + ["--cp-kv-cache-interleave-size", "128", "--block-size", "64"], {}),
                 (ds, dcp + ["--cp-kv-cache-interleave-size", "64", "--block-size", "128"], {}),
                 (ds, dcp + ["--dcp-kv-cache-interleave-size", "128", "--block-size", "64"], {}),
                 (ds, dcp + ["--cp-kv-cache-interleave-size", "48", "--block-size", "64"], {}),
                 (dense, ["--cp-kv-cache-interleave-size", "2", sc, ngram % ""], {}),
                 (dense, ["--cp-kv-cache-interleave-size", "2"], {})]
    if v >= (0, 13, 0):  # the hybrid KV cache manager asked for where vLLM would turn it off
        hma, l4 = ["--no-disable-hybrid-kv-cache-manager"], "mm-llama4"
        allow = "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"
        pool += [(l4, hma, {}), (l4, hma, {allow: "0"}), (l4, hma, {allow: "1"}), (l4, [], {allow: "0"}),
                 (l4, ["--disable-hybrid-kv-cache-manager"], {allow: "0"}), (dense, hma, {}),
                 (dense, hma + ["--kv-events-config", '{"enable_kv_cache_events": true}'], {})]
        if v >= (0, 33, 0):
            pool.append((l4, ["--enable-hybrid-kv-cache-manager"], {allow: "0"}))
    if v >= (0, 28, 0):  # the Proton profiler against CUDA graphs
        pc, proton = "--profiler-config", '{"profiler": "proton", "proton_profiler_dir": "/tmp/p"%s}'
        attr = ', "proton_graph_attribution": true, "proton_data": "tree"'
        pool += [(dense, [pc, proton % ""], {}), (dense, [pc, proton % "", "--enforce-eager"], {}),
                 (dense, [pc, proton % "", "-cc", '{"cudagraph_mode": "NONE"}'], {}),
                 (dense, [pc, proton % attr], {}), (dense, [pc, proton % attr], v1),
                 (dense, [pc, proton % ', "proton_mode": "pcsampling"'], {}),
                 (dense, [pc, proton % ', "proton_mode": "pcsampling"', "--enforce-eager"], {})]
    if v >= (0, 31, 0):  # the MoonEP all2all backend
        ep = ["--all2all-backend", "moonep", "-dp", "2", "--enable-expert-parallel"]
        pool += [(moe, ep, {}), (moe, ep + ["--dtype", "float16"], {}), (moe, ep + ["--enable-eplb"], {}),
                 (moe, ep + ["--expert-placement-strategy", "round_robin"], {}),
                 ("quant-fp8-block-qwen3-moe", ep, {}), (dense, ["--all2all-backend", "moonep"], {})]
    return pool

def _quant_schemes(v: tuple) -> Pool:
    """Config-time validation of checkpoint quantization configs beyond the method: the
    compressed-tensors library's QuantizationArgs for weights / input / output activations
    (valid and invalid values of every field, each strategy, several schemes: W4A16, FP8
    channel/token, FP8 block, NVFP4, W8A8 int), sparsity and transform configs, config groups missing;
    Fp8Config's activation scheme and weight block size; Quark's export / kv-cache groups;
    a torchao checkpoint; a bitsandbytes one stored as bfloat16; auto-round bits, keys, data type; FP-Quant keys and
    pseudoquantization."""
    models = ["qs-ct-w4a16-group128", "qs-ct-fp8-channel-token", "qs-ct-fp8-block", "qs-ct-nvfp4",
              "qs-ct-w8a8-int-channel-token", "qs-ct-num-bits-text", "qs-ct-num-bits-numeric-text",
              "qs-ct-num-bits-fraction", "qs-ct-type-unknown", "qs-ct-type-null", "qs-ct-type-upper-float",
              "qs-ct-symmetric-invalid", "qs-ct-symmetric-text-yes", "qs-ct-group-size-negative",
              "qs-ct-group-size-text", "qs-ct-group-size-zero", "qs-ct-group-size-float", "qs-ct-group-no-size",
              "qs-ct-channel-with-group-size", "qs-ct-channel-minus-one", "qs-ct-strategy-unknown",
              "qs-ct-strategy-upper", "qs-ct-strategy-number", "qs-ct-block-no-structure",
              "qs-ct-structure-no-block", "qs-ct-block-structure-text", "qs-ct-block-structure-three",
              "qs-ct-block-structure-word", "qs-ct-token-static", "qs-ct-tensor-group-no-size",
              "qs-ct-dynamic-channel", "qs-ct-dynamic-local-tensor", "qs-ct-dynamic-text", "qs-ct-dynamic-two",
              "qs-ct-actorder-weight-channel", "qs-ct-actorder-static-group", "qs-ct-actorder-unknown",
              "qs-ct-actorder-number", "qs-ct-actorder-dynamic-channel", "qs-ct-actorder-false",
              "qs-ct-scale-dtype", "qs-ct-scale-dtype-unknown", "qs-ct-zp-dtype-number", "qs-ct-observer-number",
              "qs-ct-observer-kwargs-list", "qs-ct-extra-key", "qs-ct-float-16bit", "qs-ct-weights-list",
              "qs-ct-input-acts-invalid", "qs-ct-input-acts-extra", "qs-ct-output-acts-invalid",
              "qs-ct-output-acts-valid", "qs-ct-sparsity-24", "qs-ct-sparsity-no-format",
              "qs-ct-sparsity-no-targets", "qs-ct-sparsity-targets-text", "qs-ct-no-config-groups",
              "qs-ct-multi-errors", "qs-ct-targets-int", "qs-ct-int-quantized-fp8-weights-no-input",
              "qs-ct-two-groups-second-bad",
              "qs-fp8-no-activation-scheme", "qs-fp8-activation-unknown", "qs-fp8-static", "qs-fp8-block-three-dims",
              "qs-fp8-block-static", "qs-fp8-block-int",
              "qs-quark-fp8-kv", "qs-quark-fp8-no-kv", "qs-quark-no-export", "qs-quark-export-no-kv-group",
              "qs-quark-kv-unmatched", "qs-quark-kv-output-differs", "qs-quark-kv-output-null",
              "qs-quark-kv-output-missing", "qs-quark-no-global-config", "qs-torchao-int4",
              "qs-ct-transform-hadamard", "qs-ct-transform-bad-location", "qs-ct-transform-missing-type",
              "qs-ct-transform-extra-key", "qs-bnb-4bit-storage-bf16", "qs-auto-round-5bit", "qs-auto-round-no-sym",
              "qs-auto-round-no-bits", "qs-fp-quant-mxfp4", "qs-fp-quant-pseudo", "qs-fp-quant-no-method"]
    if v < (0, 27, 0):  # from 0.27.0 the supported data types are a set of strings, printed in hash order
        models.append("qs-auto-round-float-dtype")
    Q, D = "--quantization", "--dtype"
    flagged: Pool = [("qs-ct-w4a16-group128", [Q, "compressed-tensors"], {}), ("qs-ct-fp8-block", [D, "float16"], {}),
                     ("qs-ct-num-bits-text", [Q, "compressed-tensors"], {}), ("qs-ct-nvfp4", ["-O0"], {}),
                     ("qs-fp8-static", [Q, "fp8"], {}), ("qs-fp8-block-static", [D, "float32"], {}),
                     ("qs-quark-fp8-kv", [Q, "quark"], {}), ("qs-quark-fp8-no-kv", [D, "float32"], {}),
                     ("qs-quark-no-global-config", [D, "float16"], {}), ("qs-torchao-int4", [Q, "torchao"], {})]
    if v >= (0, 14, 0):  # FP-Quant is deprecated in later releases: past that check, its own
        flagged.append(("qs-fp-quant-pseudo", ["--allow-deprecated-quantization"], {}))
    return flagged + [(m, [], {}) for m in models]


MODEL_FAMILIES = {"pp_arch": _pp_arch, "multimodal": _multimodal, "lora": _lora,
                  "max_model_len": _max_model_len, "quantization": _quantization, "arch_hooks": _arch_hooks,
                  "json_options": _json_options, "hf_overrides": _hf_overrides,
                  "runner_convert": _runner_convert, "world_size": _world_size,
                  "spec_flags": _spec_flags, "json_text": _json_text, "v2_features": _v2_features,
                  "validators": _validators, "mamba_quant": _mamba_quant,
                  "speculative": _speculative, "vllm_config": _vllm_config,
                  "quant_schemes": _quant_schemes}
MODEL_FAMILIES["serve_stage"] = corpus_serve_stage.serve_stage  # `vllm serve` itself (tools/corpus_serve_stage.py)
MODEL_FAMILIES["subconfigs"] = corpus_subconfigs.subconfigs  # flag-built sub-configs (tools/corpus_subconfigs.py)
MODEL_FAMILIES["quant_schemes_2"] = corpus_quant2.quant_schemes_2  # tools/corpus_quant2.py
MODEL_FAMILIES["quant_schemes_3"] = corpus_quant3.quant_schemes_3  # tools/corpus_quant3.py
MODEL_FAMILIES["spec_parallel"] = corpus_spec_parallel.spec_parallel  # tools/corpus_spec_parallel.py
MODEL_FAMILIES["reasoning_parser"] = corpus_reasoning.reasoning_parser  # tools/corpus_reasoning.py
MODEL_FAMILIES["vllm_config_2"] = corpus_vllm_config2.vllm_config_2  # tools/corpus_vllm_config2.py
MODEL_FAMILIES["vllm_config_3"] = corpus_vllm_config3.vllm_config_3  # tools/corpus_vllm_config3.py
MODEL_FAMILIES["speculative_2"] = corpus_speculative2.speculative_2  # draft features, slots (tools/corpus_speculative2.py)
MODEL_FAMILIES["speculative_3"] = corpus_speculative3.speculative_3  # Qwen3-Omni DSpark, ... (tools/corpus_speculative3.py)
MODEL_FAMILIES["speculators"] = corpus_speculators.speculators  # tools/corpus_speculators.py
MODEL_FAMILIES["model_fixes"] = corpus_model_fixes.model_fixes  # hybrid per release, MTP conversions (tools/corpus_model_fixes.py)
MODEL_FAMILIES["mtp_conversions_2"] = corpus_mtp2.mtp_conversions_2  # MiMo-V2, Inkling, Qwen4-Exp MTP (tools/corpus_mtp2.py)
MODEL_FAMILIES["replayssm"] = corpus_replayssm.replayssm  # ReplaySSM / RecoverSSM (tools/corpus_replayssm.py)
MODEL_FAMILIES["spec_values"] = corpus_spec_values.spec_values  # refusals.json value sets (tools/corpus_spec_values.py)
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
