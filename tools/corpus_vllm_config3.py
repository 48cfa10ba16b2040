"""The `vllm_config_3` model family (tools/corpus_model_families.py): microbatching with
--ubatch-size above 1 (ParallelConfig.use_ubatching, 0.14.0+) against the all2all backends DBO
allows, with and without --enable-dbo, the DBO token thresholds and the Model Runner V2 choice;
HiSparse forcing Model Runner V2 (0.30.0+) beside features V2 lacks (speculative decoding, DBO,
microbatching, prompt embeds). Each with and without its trigger.
Goldens: tests/golden/data/model_families/vllm_config_3/VERSION.jsonl."""
from __future__ import annotations

from gen_corpus import release_options  # tools/ on sys.path

Pool = list[tuple[str, list[str], dict]]


def vllm_config_3(v: tuple) -> Pool:
    dense, moe, ds, ds32 = "llama-dense", "mixtral-moe", "deepseek-v3-moe", "hook-deepseekv32"
    v1, v2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    opts = release_options(v)
    pool: Pool = []

    def add(model: str, words: list[str], env: dict | None = None) -> None:
        pool.append((model, words, dict(env or {})))

    ep = ["-dp", "2", "--enable-expert-parallel"]
    backends = ("deepep_low_latency", "deepep_high_throughput", "nixl_ep", "allgather_reducescatter", "naive")
    if "ubatch_size" in opts:
        for ub in ("0", "1", "2", "3", "4"):
            add(moe, ep + ["--ubatch-size", ub])
        for b in backends:
            if "all2all_backend" in opts:
                add(moe, ep + ["--all2all-backend", b, "--ubatch-size", "2"])
                add(ds, ep + ["--all2all-backend", b, "--ubatch-size", "3"], v2)
        add(dense, ["--ubatch-size", "2"])
        add(dense, ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency"])
        add(dense, ["--ubatch-size", "1", "--all2all-backend", "naive"])
        add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency"], v1)
        add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency"], v2)
        add(moe, ep + ["--ubatch-size", "2", "--enable-dbo", "--all2all-backend", "deepep_low_latency"])
        add(moe, ep + ["--ubatch-size", "3", "--enable-dbo", "--all2all-backend", "naive"])
        add(moe, ep + ["--ubatch-size", "0", "--enable-dbo", "--all2all-backend", "nixl_ep"])
        for thr in ("1", "2", "3", "4"):
            add(moe, ep + ["--ubatch-size", "3", "--all2all-backend", "deepep_low_latency",
                           "--dbo-decode-token-threshold", thr])
            add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency",
                           "--dbo-prefill-token-threshold", thr])
        add(moe, ep + ["--enable-dbo", "--all2all-backend", "deepep_low_latency", "--dbo-decode-token-threshold", "1"])
        add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency", "-pp", "2"], v2)
        add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency", "--speculative-config",
                       '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'], v2)
        add(moe, ep + ["--ubatch-size", "2", "--all2all-backend", "deepep_low_latency", "--enforce-eager"])
    else:
        for model in (moe, ds):
            for b in backends:
                if "all2all_backend" in opts:
                    add(model, ep + ["--all2all-backend", b, "--enable-dbo"])
                    add(model, ep + ["--all2all-backend", b])
            add(model, ep + ["--enable-dbo"])
            add(model, ["-tp", "2", "--enable-dbo"])
        add(dense, ["--enable-dbo"])
        add(dense, ["--enable-dbo", "--all2all-backend", "deepep_low_latency"])
        add(dense, ["--no-enable-dbo", "--all2all-backend", "naive"])
    _drafting_slots(v, add)
    if "attention_config" not in opts:
        return pool
    # HiSparse takes Model Runner V2 whatever else is set
    hs = ["--attention-config", '{"hisparse_config": {}}']
    hs_conn = ["--kv-transfer-config", '{"kv_connector": "HiSparseConnector", "kv_role": "kv_both"}']
    ngram = ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}']
    for extra in (ngram, ["--enable-prompt-embeds"], ["--enable-dbo", "-dp", "2", "--enable-expert-parallel", "--all2all-backend",
                                                       "deepep_low_latency"], []):
        add(ds32, hs + extra)
        add(ds32, hs_conn + extra)
        add(ds32, extra)
        add(ds32, hs + extra, v2)
    if "ubatch_size" in opts:
        add(ds32, hs + ["--ubatch-size", "2", "-dp", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"])
        add(ds32, hs + ["--ubatch-size", "2", "-dp", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"], v2)
    add(ds32, hs + ["--logprobs-mode", "raw_logits"])
    add(ds32, hs + ["--enable-return-routed-experts"])
    add(ds32, hs + ngram + ["--enforce-eager"])
    return pool


def _drafting_slots(v: tuple, add) -> None:
    """Scheduler slots for drafting: parallel drafting (MTP/EAGLE-3) and draft models against
    --max-num-batched-tokens / --max-num-seqs (0.20.0-0.27.x: slots x max_num_seqs; 0.28.0+:
    the slots alone)."""
    ds, dense = "deepseek-v3-moe", "llama-dense"
    small, eagle3 = "{models}/spec-draft-llama-small", "{models}/spec-eagle3-llama-head"
    short = ["--max-model-len", "16"]
    mtp = '{"method": "mtp", "num_speculative_tokens": %d, "parallel_drafting": %s}'
    for mnbt, mns, k, par in ((4, 2, 3, "true"), (5, 2, 3, "true"), (2, 1, 3, "true"), (3, 1, 3, "true"),
                              (4, 4, 2, "true"), (8, 4, 2, "true"), (2, 2, 3, "false"), (3, 1, 4, "true")):
        add(ds, ["--max-num-batched-tokens", str(mnbt), "--max-num-seqs", str(mns), *short,
                 "--speculative-config", mtp % (k, par)])
    e3 = '{"method": "eagle3", "model": "%s", "num_speculative_tokens": %d, "parallel_drafting": %s}'
    for mnbt, mns, k, par in ((4, 2, 3, "true"), (2, 1, 3, "true"), (6, 2, 3, "true"), (2, 2, 2, "false")):
        add(dense, ["--max-num-batched-tokens", str(mnbt), "--max-num-seqs", str(mns), *short,
                    "--speculative-config", e3 % (eagle3, k, par)])
    dm = '{"method": "draft_model", "model": "%s", "num_speculative_tokens": %d%s}'
    for mnbt, mns, k, extra in ((2, 2, 2, ""), (3, 2, 2, ""), (1, 1, 2, ""), (4, 2, 2, ', "parallel_drafting": true'),
                                (2, 1, 2, ', "parallel_drafting": true'), (3, 1, 2, ', "parallel_drafting": true')):
        add(dense, ["--max-num-batched-tokens", str(mnbt), "--max-num-seqs", str(mns), *short,
                    "--speculative-config", dm % (small, k, extra)])
