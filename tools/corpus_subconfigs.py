"""The `subconfigs` model family (tools/corpus_model_families.py): the sub-configs
`create_engine_config` builds from plain flags and their validators
(src/vllm_preflight/resolve/cache/, scheduler/ and config/): every bounded field of CacheConfig,
SchedulerConfig, LoadConfig, ObservabilityConfig and the offload configs at and beside each bound
(from releases/data/subconfig_fields.json), several failing fields at once, SchedulerConfig's
active-sequence and long-prefill checks, ObservabilityConfig's trace modules, version text and
histogram buckets, OffloadConfig's prefetch rules, --attention-backend / --mamba-backend /
--mamba-ssu-algorithm / --kda-prefill-backend, the KV offloading size, the MoE-EP kernel backends
(all2all passthrough), and the JSON options' Literal-or-str unions, backend_per_kind and
__post_init__ checks (--attention-config, --weight-transfer-config, --ec-manager-config).
Goldens: tests/golden/data/model_families/subconfigs/VERSION.jsonl."""
from __future__ import annotations

import json
from pathlib import Path

Pool = list[tuple[str, list[str], dict]]
DATA = Path(__file__).resolve().parents[1] / "src" / "vllm_preflight" / "releases" / "data"


def _value(limit: float, step: int, typ) -> str:
    v = limit + step
    inner = typ.get("opt", typ) if isinstance(typ, dict) else typ
    if inner == "int":
        return str(int(v))
    return str(float(v)) if step else str(limit)


def subconfigs(v: tuple) -> Pool:
    from vllm_preflight.releases import get_release
    from vllm_preflight.releases.versions import version_key

    rels = json.loads((DATA / "subconfig_fields.json").read_text())["releases"]
    version = next((r for r in rels if version_key(r) == v), None)
    opts = get_release(version).options.by_dest if version else {}
    dense, moe, encdec = "llama-dense", "mixtral-moe", "whisper-encdec"
    pool: Pool = []
    cfg: dict
    buckets: object

    def add(model: str, words: list[str]) -> None:
        pool.append((model, words, {}))

    def has(*dests: str) -> bool:
        return all(d in opts for d in dests)

    # every bounded field: failing at its bound, passing beside it
    for cls, rows in sorted((rels.get(version) or {}).items()):
        for field, dest, bounds, typ in rows:
            if dest not in opts or dest in ("swap_space",):
                continue  # swap space: its upper limit is the host's memory (not a deployment fact)
            flag = "--" + dest.replace("_", "-")
            for b, limit in bounds.items():
                fail, ok = {"gt": (0, 1), "ge": (-1, 0), "lt": (0, -1), "le": (1, 0)}[b]
                add(dense, [f"{flag}={_value(limit, fail, typ)}"])
                if cls != "SchedulerConfig" or field not in ("max_num_batched_tokens", "max_num_seqs"):
                    add(dense, [f"{flag}={_value(limit, ok, typ)}"])
    if has("swap_space"):
        add(dense, ["--swap-space=-1"])
        add(dense, ["--swap-space", "0"])
        add(dense, ["--gpu-memory-utilization=0", "--swap-space=-1", "--cpu-offload-gb=-2"])
    add(dense, ["--gpu-memory-utilization", "1.5"])
    add(dense, ["--gpu-memory-utilization", "0.95"])
    add(dense, ["--gpu-memory-utilization", "1.0001"])
    add(dense, ["--cpu-offload-gb=-1"])
    for dest in ("gpu_memory_utilization", "cpu_offload_gb", "kv_cache_metrics_sample", "watermark"):
        if has(dest):  # NaN fails every bound: pydantic-core names the first it checks (le, lt, ge, gt)
            add(dense, ["--" + dest.replace("_", "-"), "nan"])
    add(dense, ["--gpu-memory-utilization=-inf"])
    add(dense, ["--cpu-offload-gb", "inf"])
    add(dense, ["--cpu-offload-gb", "2.5"])
    add(moe, ["--gpu-memory-utilization", "2", "--max-num-seqs", "0"])
    if has("mamba_block_size"):
        add(dense, ["--gpu-memory-utilization=0", "--mamba-block-size=0"])
        add(dense, ["--mamba-block-size=-8", "--gpu-memory-utilization", "1.2"])
    add(dense, ["--max-num-seqs=0", "--max-num-batched-tokens=0"])
    if has("stream_interval"):
        add(dense, ["--max-num-seqs=0", "--stream-interval=0"])
    # SchedulerConfig.verify_max_model_len
    if has("max_num_partial_prefills"):
        add(dense, ["--max-num-partial-prefills", "2"])
        add(dense, ["--max-long-partial-prefills", "0"])
    add(dense, ["--long-prefill-token-threshold", "999999"])
    add(dense, ["--long-prefill-token-threshold", "8192"])
    add(dense, ["--long-prefill-token-threshold", "8193"])
    add(encdec, ["--long-prefill-token-threshold", "999999"])
    if has("max_num_active_seqs"):
        add(dense, ["--max-num-active-seqs", "9999"])
        add(dense, ["--max-num-active-seqs", "64", "--max-num-seqs", "64"])
        add(dense, ["--max-num-active-seqs", "65", "--max-num-seqs", "64"])
        add(moe, ["--max-num-active-seqs", "512"])
    # ObservabilityConfig
    add(dense, ["--collect-detailed-traces", "worker"])
    add(dense, ["--collect-detailed-traces", "all", "--otlp-traces-endpoint", "http://localhost:4317"])
    add(dense, ["--collect-detailed-traces", "model", "worker", "--otlp-traces-endpoint", "grpc://h:4317"])
    add(dense, ["--otlp-traces-endpoint", "http://localhost:4317"])
    combos = [c for c in (opts["collect_detailed_traces"].choices or ()) if isinstance(c, str) and "," in c] \
        if has("collect_detailed_traces") else []
    for c in combos[:3]:
        add(dense, ["--collect-detailed-traces", c])
        add(dense, ["--collect-detailed-traces", "all", c, "--otlp-traces-endpoint", "http://x:4317"])
    if has("show_hidden_metrics_for_version"):
        for text in ("abc", "0.7", "v1.2.3rc1", "1.0.0+local.1", "1..2", "", "0.10.post1.dev3", "latest"):
            add(dense, ["--show-hidden-metrics-for-version", text])
    if has("kv_cache_metrics_sample"):
        add(dense, ["--kv-cache-metrics-sample", "1.5", "--show-hidden-metrics-for-version", "x.y"])
    if has("custom_histogram_buckets"):
        h = "--custom-histogram-buckets"
        for buckets in ({"bogus": [1]}, {"request_latency": [2, 1]}, {"request_latency": []},
                        {"time_to_first_token": [0, 1]}, {"request_latency": [1, True]},
                        {"inter_token_latency": [0.5, 1, 2.5]}, {"request_latency": "x"}, [1],
                        {"request_latency": [1, "a"]}, {"iteration_tokens": [1, 1]},
                        {"request_tokens": [-1]}, {"kv_cache_residency": [1.5, 3]}):
            add(dense, [h, json.dumps(buckets)])
    # OffloadConfig
    if has("offload_group_size"):
        add(dense, ["--offload-group-size", "2", "--offload-num-in-group", "3"])
        add(dense, ["--offload-group-size", "4", "--offload-num-in-group", "2", "--offload-prefetch-step", "0"])
        add(dense, ["--offload-group-size", "2", "--offload-num-in-group", "2"])
        add(dense, ["--offload-num-in-group", "5"])
        add(dense, ["--offload-prefetch-step", "0"])
        if has("offload_backend"):
            add(dense, ["--offload-backend", "prefetch"])
            add(dense, ["--offload-backend", "uva", "--offload-group-size", "2", "--offload-num-in-group", "3"])
            add(dense, ["--offload-backend", "prefetch", "--offload-group-size", "8"])
    if has("kda_prefill_backend"):
        for b in opts["kda_prefill_backend"].choices or ("fused", "flashkda"):
            if b is not None:
                add(dense, ["--kda-prefill-backend", str(b)])
    # --attention-backend (0.13.0+) and the Mamba flags (0.20.0+)
    if has("attention_backend"):
        for words in (["bogus"], ["auto"], ["flash_attn"], ["FLASHINFER"], ["xformers"], ["Triton_Attn"]):
            add(dense, ["--attention-backend"] + words)
        if has("attention_config"):
            ac = "--attention-config"
            add(dense, ["--attention-backend", "FLASHINFER", ac, '{"backend": "TRITON_ATTN"}'])
            add(dense, ["--attention-backend", "FLASHINFER", ac, '{"backend": "auto"}'])
            add(dense, ["--attention-backend", "nope", ac, '{"backend": "FLASH_ATTN"}'])
    if has("mamba_backend"):
        for b in ("bogus", "cpu", "FlashInfer", "triton"):
            add(dense, ["--mamba-backend", b])
    if has("mamba_ssu_algorithm"):
        add(dense, ["--mamba-ssu-algorithm", "simple"])
        add(dense, ["--mamba-ssu-algorithm", "vertical", "--mamba-backend", "flashinfer"])
        add(dense, ["--mamba-ssu-algorithm", "auto", "--mamba-backend", "bogus"])
        add(dense, ["--mamba-ssu-algorithm", "horizontal", "--mamba-backend", "cpu"])
    # KV offloading needs a size (0.11.1-0.13.x); lmcache with a size needs the lmcache package (host)
    if has("kv_offloading_backend"):
        add(dense, ["--kv-offloading-backend", "native"])
        add(dense, ["--kv-offloading-backend", "lmcache"])
        add(dense, ["--kv-offloading-size", "4", "--kv-offloading-backend", "native"])
        add(moe, ["--kv-offloading-backend", "native", "-tp", "2"])
        add(dense, ["--kv-offloading-size", "4"])
    # the MoE-EP megakernel backends (0.29.0+)
    if has("moe_backend"):
        ep = [b for b in (opts["moe_backend"].choices or ()) if isinstance(b, str) and b.startswith("flashinfer_moe_ep")]
        for b in ep:
            add(moe, ["--moe-backend", b])
            add(dense, ["--moe-backend", b])
            add(moe, ["--moe-backend", b, "--all2all-backend", "deepep_low_latency", "-dp", "2", "-ep"])
            add(moe, ["--moe-backend", b, "-dp", "2", "-ep"])
        add(moe, ["--moe-backend", "triton", "-dp", "2", "-ep", "--all2all-backend", "deepep_high_throughput"])
    # JSON options: Literal-or-str unions, backend_per_kind, __post_init__ checks
    if has("weight_transfer_config"):
        for cfg in ({"backend": 5}, {"backend": "foo"}, {"backend": "nccl"}, {"backend": None}, {"backend": True},
                    {"backend": ["ipc"]}, {"backend": 1.5, "bogus": 1}):
            add(dense, ["--weight-transfer-config", json.dumps(cfg)])
    jo = json.loads((DATA / "json_options.json").read_text())
    key = (jo["releases"].get(version) or {}).get("attention_config")
    fields = {f[0] for f in jo["classes"][key]["fields"]} if key else set()
    ac = "--attention-config"
    if "indexer_kv_dtype" in fields:
        for cfg in ({"indexer_kv_dtype": 5}, {"indexer_kv_dtype": "foo"}, {"indexer_kv_dtype": "fp8"},
                    {"indexer_kv_dtype": ["fp8"]}, {"indexer_kv_dtype": None}, {"indexer_kv_dtype": False}):
            add(dense, [ac, json.dumps(cfg)])
    if "minimax_m3_indexer_cp" in fields:
        for cfg in ({"minimax_m3_indexer_cp": True, "indexer_kv_dtype": "mxfp4"},
                    {"minimax_m3_indexer_cp": True, "indexer_kv_dtype": "fp8_e4m3"},
                    {"minimax_m3_indexer_cp": "yes", "indexer_kv_dtype": "whatever"},
                    {"minimax_m3_indexer_cp": True}, {"minimax_m3_indexer_cp": False, "indexer_kv_dtype": "nvfp4"}):
            add(dense, [ac, json.dumps(cfg)])
    if "backend_per_kind" in fields:
        for cfg in ({"backend_per_kind": {"bogus": "FLASH_ATTN"}}, {"backend_per_kind": {"full_attention": "nope"}},
                    {"backend_per_kind": {"full_attention": "flashinfer", "mamba": "TRITON_ATTN"}},
                    {"backend_per_kind": {"sliding_window": "flash_attn", "Full_Attention": "FLASH_ATTN"}},
                    {"backend_per_kind": {}}, {"backend_per_kind": {"full_attention": 5}}, {"backend_per_kind": ["x"]},
                    {"backend_per_kind": {"mamba": "bogus", "nope": "x"}}, {"backend_per_kind": {"full_attention": "auto"}}):
            add(dense, [ac, json.dumps(cfg)])
    pkey = (jo["releases"].get(version) or {}).get("pooler_config")
    pfields = {f[0] for f in jo["classes"][pkey]["fields"]} if pkey else set()
    if "seq_pooling_type" in pfields:  # PoolerConfig.__post_init__ (0.14.0+), on a pooling model
        pc = "--pooler-config"
        for cfg in ({"pooling_type": "MEAN", "seq_pooling_type": "CLS"}, {"pooling_type": "ALL", "tok_pooling_type": "STEP"},
                    {"pooling_type": "LAST", "tok_pooling_type": "ALL"}, {"pooling_type": "MEAN"},
                    {"seq_pooling_type": "CLS", "tok_pooling_type": "ALL"}, {"pooling_type": None, "seq_pooling_type": "LAST"}):
            add("llama-classify", [pc, json.dumps(cfg)])
        if "logit_sigma" in pfields:
            for cfg in ({"logit_sigma": 0}, {"logit_sigma": 0.0, "logit_mean": 1}, {"logit_sigma": 2.5},
                        {"logit_sigma": -0.0}, {"logit_sigma": False}, {"logit_sigma": None, "pooling_type": "CLS"}):
                add("llama-classify", [pc, json.dumps(cfg)])
    if has("watermark_config"):  # WatermarkConfig(**value) (0.30.0+)
        for text in ("{}", '{"key": 5}', '{"key": -1, "alpha": 2}', '{"alpha": 2, "bogus": 1}',
                     '{"key": 18446744073709551616}', '{"key": 18446744073709551615, "algorithm": "dual_key_gumbel"}',
                     '{"key": "12", "context_width": 0, "prf": "x"}', "[1]", "5", "null",
                     '{"key": 1, "deduplicate_contexts": "none", "deduplicate_contexts_max_history": 0}'):
            add(dense, ["--watermark-config", text])
    if has("diffusion_config"):  # DiffusionConfig(**value) (0.24.0+)
        for text in ("{}", '{"canvas_length": 0}', '{"canvas_length": 64, "max_denoising_steps": "x"}',
                     '{"bogus": 1}', "[]", '{"canvas_length": null}'):
            add(dense, ["--diffusion-config", text])
    if has("ec_manager_config"):
        for cfg in ({"manager_config": {"a": 1}}, {"manager_config": {}},
                    {"manager_config": {"a": 1}, "encoder_cache_manager_cls": "pkg.Mgr"}):
            add(dense, ["--ec-manager-config", json.dumps(cfg)])
    return pool
