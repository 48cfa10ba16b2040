"""The `vllm_config_2` model family (tools/corpus_model_families.py): the VllmConfig.__post_init__
refusals ported in src/vllm_preflight/resolve/vllm_config/post_init.py and post_init_late.py after the `vllm_config`
family: HiSparse (--attention-config hisparse_config or a HiSparseConnector, 0.30.0+) with
Model Runner V1, PP, DCP, cudagraph_mode FULL, --no-scheduler-reserve-full-isl, a model without
index_topk and --disable-hybrid-kv-cache-manager; DeepSeek V4.1 Engram with DBO / microbatching
(0.30.0+); a KV connector without sleep-mode support under --enable-sleep-mode (0.33.0);
compile range endpoints (--compilation-config compile_ranges_endpoints, 0.18.0+); too few
batched-token slots for the speculative lookahead (0.33.0; parallel drafting before it is not covered); watermarking with speculative
decoding (0.30.0+). Each with and without its trigger.
Goldens: tests/golden/data/model_families/vllm_config_2/VERSION.jsonl."""
from __future__ import annotations

from gen_corpus import release_options  # tools/ on sys.path

Pool = list[tuple[str, list[str], dict]]


def vllm_config_2(v: tuple) -> Pool:
    dense, ds32, ds32_no_topk = "llama-dense", "hook-deepseekv32", "hook-deepseekv32-no-index-topk"
    engram, no_engram = "vc2-deepseekv41-engram", "vc2-deepseekv41-no-engram"
    ds = "deepseek-v3-moe"
    v1, v2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    opts = release_options(v)
    pool: Pool = []

    def add(model: str, words: list[str], env: dict | None = None) -> None:
        pool.append((model, words, dict(env or {})))

    # HiSparse
    hs = ["--attention-config", '{"hisparse_config": {}}']
    hs_conn = ["--kv-transfer-config", '{"kv_connector": "HiSparseConnector", "kv_role": "kv_both"}']
    for model in (ds32, dense, ds32_no_topk):
        add(model, hs)
    add(ds32, hs, v1)
    add(ds32, hs, v2)
    add(ds32, hs + ["-pp", "2"])
    add(ds32, hs + ["-tp", "2", "-dcp", "2"])
    add(ds32, hs + ["--compilation-config", '{"cudagraph_mode": "FULL"}'])
    add(ds32, hs + ["--compilation-config", '{"cudagraph_mode": "FULL_AND_PIECEWISE"}'])
    add(ds32, hs + ["--compilation-config", '{"cudagraph_mode": "PIECEWISE"}'])
    add(ds32, hs + ["--enforce-eager"])
    add(ds32, hs + ["--disable-hybrid-kv-cache-manager"])
    add(dense, hs + ["-pp", "2"])
    add(ds32, hs_conn)
    add(ds32, hs_conn, v1)
    add(dense, hs_conn)
    add(ds32, hs + hs_conn + ["-pp", "2"])
    add(ds32, ["--attention-config", '{"hisparse_config": null}', "-pp", "2"])
    if "scheduler_reserve_full_isl" in opts:
        add(ds32, hs + ["--no-scheduler-reserve-full-isl"])
        add(ds32, hs + ["--scheduler-reserve-full-isl"])
        add(ds32, ["--no-scheduler-reserve-full-isl"])
    # Engram with DBO / microbatching (DeepSeek V4.1: releases before 0.30.0 cannot load its config at all,
    # an unknown Transformers model type this port does not model)
    if v >= (0, 30, 0):
        for model in (engram, no_engram):
            add(model, [])
            add(model, ["--enable-dbo"])
            if model == engram:
                add(model, ["--ubatch-size", "2"])  # (without Engram: DBO's all2all check with ubatch_size, not ported)
        add(engram, ["--enable-dbo", "--all2all-backend", "deepep_low_latency", "-dp", "2", "--enable-expert-parallel"])
        add(engram, ["--ubatch-size", "1"])
    add(ds32, ["--enable-dbo"])
    # KV connectors under sleep mode
    # (MoRIIOConnector, which never supports sleep mode, is left out: the oracle's venv lacks msgpack)
    for conn, extra in (("MooncakeStoreConnector", ""), ("NixlConnector", ""),
                        ("MooncakeConnector", ""), ("MooncakeConnector", (', "kv_connector_extra_config": '
                                                     '{"mooncake_protocol": "tcp"}')),
                        ("ExampleConnector", "")):
        kv = f'{{"kv_connector": "{conn}", "kv_role": "kv_both"{extra}}}'
        add(dense, ["--enable-sleep-mode", "--kv-transfer-config", kv])
        if conn in ("MooncakeStoreConnector", "MooncakeConnector") and not extra:
            add(dense, ["--kv-transfer-config", kv])
    add(dense, ["--enable-sleep-mode", "--kv-transfer-config",
                '{"kv_connector": "MooncakeConnector", "kv_role": "kv_both"}'], {"MC_INTRANODE_NVLINK": "1"})
    multi = ('{"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": '
             '{"connectors": [{"kv_connector": "NixlConnector", "kv_role": "kv_both"}, '
             '{"kv_connector": "%s", "kv_role": "kv_both"}]}}')
    add(dense, ["--enable-sleep-mode", "--kv-transfer-config", multi % "MooncakeStoreConnector"])
    add(dense, ["--kv-transfer-config", multi % "MooncakeStoreConnector"])
    add(dense, ["--enable-sleep-mode", "--kv-transfer-config", multi % "ExampleConnector"])
    # compile range endpoints
    key = "compile_ranges_endpoints" if v >= (0, 18, 0) else "compile_ranges_split_points"
    for points in ("[0]", "[-4]", "[1]", "[8]", "[16, 0]", "[2048, 4096]", "[100000]"):
        add(dense, ["--compilation-config", f'{{"{key}": {points}}}'])
    add(dense, ["--compilation-config", f'{{"{key}": [0]}}', "--enforce-eager"])
    add(dense, [f"-cc.{key}=[0]"])
    # speculative lookahead slots
    ngram = '{"method": "ngram", "num_speculative_tokens": %d, "prompt_lookup_max": 3}'
    for mnbt, k in ((4, 4), (5, 4), (3, 4), (8, 7), (8, 8)):
        add(dense, ["--max-num-batched-tokens", str(mnbt), "--max-num-seqs", "1", "--max-model-len", "16",
                    "--speculative-config", ngram % k])
    add(dense, ["--max-num-batched-tokens", "4", "--max-num-seqs", "1", "--max-model-len", "16"])
    mtp_k = '{"method": "mtp", "num_speculative_tokens": K}'
    for mnbt, k in ((4, 4), (5, 4), (2, 3), (3, 2)):
        add("deepseek-v3-moe", ["--max-num-batched-tokens", str(mnbt), "--max-num-seqs", "1", "--max-model-len", "16",
                                "--speculative-config", mtp_k.replace("K", str(k))])
    add("deepseek-v3-moe", ["--max-num-batched-tokens", "1", "--max-num-seqs", "1", "--max-model-len", "16",
                            "--speculative-config", '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'])
    # watermarking with speculative decoding
    if "watermark_config" in opts:
        mtp = '{"method": "mtp", "num_speculative_tokens": 1%s}'
        prob = ', "draft_sample_method": "probabilistic"'
        gumbel, dual, target = '{"key": 7}', '{"key": 7, "algorithm": "dual_key_gumbel"}', \
            '{"key": 7, "allow_target_only_watermarking": true}'
        for wm in (gumbel, dual, target):
            add(dense, ["--watermark-config", wm])
            add(ds, ["--watermark-config", wm, "--speculative-config", mtp % prob])
        add(ds, ["--watermark-config", dual, "--speculative-config", mtp % ""])
        add(ds, ["--watermark-config", dual, "--speculative-config", mtp % ', "draft_sample_method": "greedy"'])
        add(ds, ["--watermark-config", dual, "--speculative-config", mtp % (prob + ', "parallel_drafting": true')])
        add(ds, ["--watermark-config", dual, "--speculative-config", mtp % (prob + ', "parallel_drafting": false')])
        add(ds, ["--watermark-config", dual, "--speculative-config",
                 mtp % (prob + ', "rejection_sample_method": "standard"')])
        add(ds, ["--watermark-config", '{"key": 7, "algorithm": "gumbel"}', "--speculative-config", mtp % prob])
        add(ds, ["--watermark-config", dual, "--speculative-config",
                 f'{{"method": "deepseek_mtp", "num_speculative_tokens": 1{prob}}}'])
        add(ds, ["--watermark-config", dual, "-sc.method=mtp", "-sc.num_speculative_tokens=1",
                 "-sc.draft_sample_method=probabilistic"])
        add(dense, ["--watermark-config", dual, "--speculative-config",
                    f'{{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3{prob}}}'])
        add(dense, ["--watermark-config", target, "--speculative-config",
                    f'{{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3{prob}}}'])
        add(dense, ["--watermark-config", gumbel, "--speculative-config",
                    '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'])
    # the V1 runner's unsupported list: a draft lm_head quantization, Step5 (0.33.0)
    if v >= (0, 33, 0):
        lm = '{"method": "mtp", "num_speculative_tokens": 1, "draft_lm_head_quantization": "Q"}'
        for q, env in (("fp8", v1), ("fp8", v2), ("fp8", {}), ("nvfp4", v1)):
            add(ds, ["--speculative-config", lm.replace("Q", q)], env)
        add(ds, ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}'], v1)
        for env in (v1, v2, {}):
            add("vc2-step5-dense", [], env)
        add("vc2-step5-dense", ["--enforce-eager"], v1)
    return pool
