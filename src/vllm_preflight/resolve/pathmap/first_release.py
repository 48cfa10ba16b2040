"""The map's table of the first release of each rule."""
from __future__ import annotations

from vllm_preflight.resolve.pathmap.table import Section

SECTIONS = (
Section(
    'Which release each check starts in',
    "Value sets (speculative methods, KV roles and connectors, structured-output backends, KV-cache\ndtypes) come from `tools/extract_refusal_facts.py` run in each installed release: 0.12.0, 0.13.0,\n0.21.0, 0.24.0, 0.27.0 and 0.33.0 (`releases/data/refusals.json`). On other releases those value checks are\nskipped and the report says so. The first release of each rule was found by reading every\nrelease's sources (0.20.2's config files are 0.20.1's, and 0.30.0 changes none of these rules) and is keyed in\n`releases/changes.py`:",
    (
    ('SchedulerConfig size bounds (`ge=1`)', '0.11.1'),
    ('async scheduling + PP refused', '0.11.1–0.14.1; none 0.15.0–0.30.0; V1 runner only: 0.31.0–0.32.0 in `_validate_v1_model_runner` (0.31.0 `config/vllm.py:2051-2054`, `:3120-3124`), 0.33.0 up front (`:1653-1680`)'),
    ("V1 runner's own refusals (prefill context parallel, DSpark)", '0.29.0 (`config/vllm.py:1653-1656`)'),
    ('draft-model speculation refused up front', '0.11.0–0.14.1'),
    ('KV connector looked up in `VllmConfig`', '0.17.0 with full CUDA graphs only, kept in every later release; any KV-transfer config without `--[no-]disable-hybrid-kv-cache-manager` from 0.22.0 (`:1440-1451`; 0.33.0 `:2257-2264`); registry per release from `kv_connector/factory.py` (P2pNcclConnector through 0.23.0)'),
    ('executor class looked up by name (`module.Class`)', '0.19.0'),
    ('parallel sizes are `ge=1` fields', '0.23.0'),
    ('`tp % dcp` checked in `ParallelConfig`', '0.16.0 (message gains a space in 0.26.0)'),
    ('LongCat-Flash-Ngram hook', '0.26.0'),
    ('conflicting `custom_ops` refused; new DCP wording', '0.27.0'),
    ('ray not installed with vLLM', '0.18.0 (wheel METADATA: `ray[cgraph]>=2.48.0` through 0.17.1); msgpack only with ray'),
    ('V2 model runner by default', 'listed architectures 0.22.0 (dense, unquantized), 0.24.0 (listed), 0.25.0 (listed or dense), 0.27.0 (hybrid only if listed); every model from 0.29.0 (`:645-677`) unless a feature V2 lacks'),
    ('sequence-parallel / async-TP pass keys', '`enable_sequence_parallelism`/`enable_async_tp` 0.11.x; `enable_sp`/`fuse_gemm_comms` 0.12.0–0.31.0; none from 0.32.0'),
    ('gpt-oss hook: 992 sizes (0.11.0), largest size 1024 (0.11.1+)', '0.11.0'),
    ('`--kv-cache-dtype` checked by `CacheConfig`, hidden `--no-enable-x` spellings', '0.33.0'),
    ('dynamic speculative decoding: PIECEWISE override on any runner; V1 runner only (with a hint); off for DP > 1; capture sizes per tier; off for unsupported V1-runner methods', '0.24.0; 0.25.0; 0.26.0; 0.29.0; 0.33.0'),
    ('`max_model_len` against the model', "LongRoPE default 0.11.1; `rope_parameters` and no sliding-window NotImplementedError 0.12.0; `-1`/`auto`, `ge=-1`, float derived length 0.14.0; null RoPE factor falls back 0.18.0; Transformers 5 (YaRN's original length filled in) 0.20.0 (and 0.11.0); positive-integer check 0.23.0; YaRN no longer scaled 0.30.0"),
    ('quantization', "fp_quant 0.11.1; deprecated methods and `--allow-deprecated-quantization`, ModelOpt producer algos 0.14.0; auto-round as inc 0.15.0; bitblas/marlin_24/ipex removed, exact-FP8 ModelOpt claim 0.16.0; modelopt_mixed, NVFP4 act fusion 0.17.0; gpt_oss_mxfp4, deepseek_v4_fp8, humming (gguf claims any checkpoint until 0.23) 0.20.0; humming refuses gpt-oss MXFP4 0.21.0; gptq → auto_gptq, online shorthands 0.22.0; awq → auto_awq, gguf removed 0.24.0; legacy ModelOpt configs 0.26.0; bitsandbytes removed 0.28.0; GPTQ act-order refused 0.30.0; ModelOpt MIXED_PRECISION's NVFP4 layers in act fusion 0.32.0; MIXED_PRECISION in the ModelOpt producer layout 0.33.0"),
    ('PP support per architecture', 'MTP classes lose `SupportsPP` 0.14.0; DeepseekV4 gains it 0.21.0; MiniMaxM3Sparse 0.25.0; DiffusionGemma loses it 0.27.0; the class test takes the base-class form 0.28.0; DeepSeekMTP and DeepseekV32/Dots3Note/InternS2Mobius/Qwen3.5 MTP classes gain it 0.30.0'),
    ('LoRA', 'fields checked in `__post_init__` (0.11.0) become pydantic fields, rank choices in the parser, speculative token budget 0.11.1; `max_cpu_loras` message ends with a period 0.14.0; `VLLM_LORA_ENABLE_DUAL_STREAM` read as an integer 0.20.0; Inkling 0.26.0; `max_lora_cls_labels` 0.31.0; MegaMoE backends and `SupportsLoRA` at config time 0.33.0'),
    ('multimodal', 'dict limits, MultiModalConfig bounds and shm validator, encoder attention backend 0.11.1; XFORMERS refused 0.12.0; no processor cache for encoder-decoder models 0.13.0; renderer workers, `torch_shm` 0.19.0; FP8 scale paths 0.21.0; `mm_ipc_gpu_memory_gb` 0.25.0; video pruning method per architecture 0.27.0; processor device 0.28.0; EC producer and `--language-model-only` with encoder graphs 0.29.0'),
    ('JSON options', "EPLB `ge=0` 0.11.1, `use_async` 0.12.0, policy and model validator 0.14.0, unknown keys refused (classes with vLLM's `@config`) 0.16.0, `gt=0` bounds and communicator 0.20.0, `use_async` default 0.23.0; `--attention-config` 0.13.0; `--kernel-config` 0.16.0; PoolerConfig's removed parameters 0.26.0 (escaping argparse 0.28.0); Engram 0.30.0; AuxOutput 0.31.0"),
    ('`--convert` implies the pooling runner; `--spec-*` flags', '0.22.0'),
    ('`_check_feature_supported`', '`--logits-processor-pattern` refused until 0.16.x; concurrent partial prefill until 0.26.x; PP with another executor in every release'),
    ("world size against one node's GPUs", '0.11.1 ("Tensor parallel size ..."), 0.13.0 ("World size ...")'),
    ('V2 runner with a feature it lacks', '0.20.0 ("VLLM_USE_V2_MODEL_RUNNER does not yet support"), 0.23.0 ("Model Runner V2 does not yet support")'),
    ('V2 runner feature list', 'routed experts, logits processors, KV-sharing fast prefill, EC transfer 0.20.0; parallel drafting, prompt embeds, logprobs modes 0.22.0; PP with external_launcher, elastic EP 0.24.0; logprobs modes dropped 0.26.0; routed experts, EC transfer dropped 0.28.0; prompt embeds dropped 0.29.0; KV-sharing dropped, DBO sub-features 0.30.0; logits processors dropped 0.31.0; stock compile, SP, elastic EP dropped 0.32.0'),
    ('multi-node launch options', '`--nnodes` 0.11.1; executor list "mp, uni or external_launcher" 0.13.0; non-MoE external DP refused 0.21.0; "Invalid data-parallel launch options" ValueErrors, fault tolerance needs external LB 0.27.0; PCP in the world size 0.30.0; "cannot unambiguously identify" 0.31.0'),
    ('Mamba cache modes', 'all/align with prefix caching, align needs chunked prefill 0.15.0; align x speculative decoding assert 0.15.0-0.16.x; Mamba2Config without heads refused 0.14.0-0.17.1'),
    ('`vllm serve` front door', 'registries sorted 0.11.1; api_server_count default from `-dp`/hybrid LB, `--headless` check, "Cannot use both" LB wording 0.15.0; `--use-gpu-for-pooling-score` 0.17.x; gRPC server 0.18.0; elastic-EP single server 0.19.0; multi-port external LB, "more than one" LB wording, Rust front end 0.22.0; per-request metrics, multi-port keyfile/certfile pair 0.25.0; SSE keep-alive 0.29.0; gRPC port 0.32.0; reasoning-effort map 0.33.0 (`serve/serve.py: FIRST`)'),
    ('`--reasoning-parser` looked up at engine-config time', '0.20.0 (`none` means no parser from 0.33.0)'),
    ('speculative draft models', '0.15.0, 0.16.0, 0.17.0 (`draft_model` default method), 0.18.0, 0.19.1, 0.20.0 (dflash, synthetic acceptance), 0.21.0, 0.22.0, 0.25.0, 0.26.0 (`custom_class`), 0.28.0, 0.29.0, 0.30.0, 0.33.0 (`speculative/draft_model.py: _RULES`)'),
    ('compressed-tensors library pins', "0.11.0 → 0.11.0; 0.11.1 → 0.12.2; 0.14.0 → 0.13.0; 0.19.0 → 0.14.0.1; 0.19.1 → 0.15.0.1; 0.23.0 → 0.17.0; vLLM's own steps 0.15.0, 0.17.0, 0.22.0 (sparsity refused), 0.23.0 (output activations), 0.30.0"),
    ("VllmConfig's remaining refusals", 'adaptive verification 0.28.0 (DSpark only), 0.29.0, 0.30.0; AuxOutput 0.21.0, 0.22.0, 0.28.0, 0.31.0; sampling replay 0.28.0, trace replay 0.29.0; NIXL × CP 0.29.0; MoonEP 0.31.0; explicit HMA 0.13.0; expandable segments 0.21.0; stochastic rounding 0.20.0; NVFP4 KV on MLA 0.21.0 (`vllm_config/post_init.py`, `post_init_late.py`)'),
    ('sub-config validators', 'field bounds per release (`subconfig_fields.json`); `--attention-backend` 0.13.0 (`auto` 0.20.0); PoolerConfig 0.14.0 (`logit_sigma` 0.20.0); OffloadConfig prefetch 0.17.0; `--mamba-backend` 0.20.0; diffusion config 0.24.0; AttentionConfig `backend_per_kind` 0.26.0; long-prefill threshold, `--mamba-ssu-algorithm` 0.27.0; EncoderCacheManagerConfig 0.28.0; MoE-EP kernel backends 0.29.0; watermark config, `--kda-prefill-backend` 0.30.0; active seqs 0.31.0; histogram buckets, all2all passthrough 0.32.0'),
    ), header=("rule", "first release")),
)
