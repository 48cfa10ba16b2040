"""The `replayssm` model family (tools/corpus_model_families.py): `--use-replayssm` and
`--replayssm-buffer-len` (0.27.0+), VllmConfig's `validate_mamba_cached_kernel`: the
per-architecture support (Nemotron-H and its Puzzle variant, Kimi-Linear from 0.29.0; Mamba2,
Zamba2, Falcon-H1, Granite 4 hybrid, Qwen3-Next, Jamba and a dense Llama refused), the Mamba
backends, prefix caching on/off (the Mamba cache mode), Model Runner V1/V2 by env, speculative
decoding (ngram: no draft model needed) against the buffer length, KDA RecoverSSM with PP and
stochastic rounding, KV connectors. Each with and without its trigger. Releases without the
flags get a few cases that prove argparse refuses them.
Goldens: tests/golden/data/model_families/replayssm/VERSION.jsonl."""
from __future__ import annotations

import json

from gen_corpus import release_options  # tools/ on sys.path

Pool = list[tuple[str, list[str], dict]]

NEM, PUZZLE, KIMI = "replayssm-nemotronh", "replayssm-nemotronh-puzzle", "replayssm-kimi-linear"
UNSUPPORTED = ("replayssm-qwen3-next", "replayssm-falcon-h1", "replayssm-granite4-hybrid", "pp-mamba2",
               "pp-zamba2-hybrid", "pp-jamba-hybrid-moe", "llama-dense")


def _ngram(k: int) -> list[str]:
    return ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": k,
                                                "prompt_lookup_max": 3})]


def _kv(connector: str = "ExampleConnector", role: str = "kv_both") -> list[str]:
    return ["--kv-transfer-config", json.dumps({"kv_connector": connector, "kv_role": role})]


def replayssm(v: tuple) -> Pool:
    opts = release_options(v)
    v1, v2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    pool: Pool = []

    def add(model: str, words: list[str], env: dict | None = None) -> None:
        pool.append((model, words, dict(env or {})))

    on = ["--use-replayssm"]
    off_pc = ["--no-enable-prefix-caching"]
    fi = ["--mamba-backend", "flashinfer"]
    if "use_replayssm" not in opts:  # the flags do not exist yet: argparse refuses them
        add(NEM, on)
        add(NEM, ["--replayssm-buffer-len", "8"])
        add(KIMI if v >= (0, 15) else NEM, on + off_pc)
        add("pp-zamba2-hybrid", [])  # (0.12.0's Transformers has no nemotron_h config to load)
        add("llama-dense", ["--use-replayssm", "--enforce-eager"])
        add("pp-zamba2-hybrid", ["--max-num-seqs", "32"])
        add("llama-dense", ["--enforce-eager", "--max-num-seqs", "16"])
        add("pp-mamba2", ["--enable-prefix-caching"])
        return pool
    # architectures
    for model in UNSUPPORTED:
        add(model, on)
    add("replayssm-qwen3-next", on + off_pc + fi)
    add("pp-mamba2", on + off_pc, v1)
    add("llama-dense", on + _ngram(2))
    for model in (NEM, PUZZLE, KIMI):
        add(model, [])
        add(model, ["--no-use-replayssm"])
        add(model, on)
        add(model, on, v1)
        add(model, on + off_pc, v1)
        add(model, on + off_pc + fi)
    # backends x prefix caching x runner
    for env in ({}, v1, v2):
        add(NEM, on + fi, env)
        add(NEM, on + off_pc + fi, env)
        add(NEM, on + ["--mamba-backend", "triton"], env)
        add(NEM, on + ["--mamba-backend", "cpu"] + off_pc, env)
    add(NEM, on + ["--enable-prefix-caching"], v1)
    add(NEM, on + ["--enable-prefix-caching"] + fi, v1)
    if "mamba_cache_mode" in opts:
        modes = ("align", "none", "all") if v < (0, 32) else ("align", "none")
        for mode in modes:
            add(NEM, on + ["--mamba-cache-mode", mode], v1)
            add(NEM, on + ["--mamba-cache-mode", mode] + fi)
            add(NEM, on + ["--mamba-cache-mode", mode] + off_pc, v1)
            add(KIMI, on + ["--mamba-cache-mode", mode] + _ngram(2), v1)
    # buffer length
    for n in ("0", "1", "4", "16", "17", "64"):
        add(NEM, on + off_pc + fi + ["--replayssm-buffer-len", n])
        add(NEM, on + ["--replayssm-buffer-len", n], v1)
    add(NEM, ["--replayssm-buffer-len", "64"] + fi)
    # speculative decoding on Mamba2 (ngram)
    for env in ({}, v1):
        add(NEM, on + off_pc + fi + _ngram(2), env)
        add(NEM, on + fi + _ngram(2), env)
        add(NEM, on + off_pc + _ngram(2), env)
        add(PUZZLE, on + off_pc + fi + _ngram(1), env)
    add(NEM, on + off_pc + fi + _ngram(15))
    add(NEM, on + off_pc + fi + _ngram(16))
    add(NEM, on + off_pc + fi + _ngram(3) + ["--replayssm-buffer-len", "3"])
    add(NEM, on + off_pc + fi + _ngram(3) + ["--replayssm-buffer-len", "4"])
    add(NEM, on + off_pc + ["--mamba-backend", "triton"] + _ngram(2) + ["--replayssm-buffer-len", "2"])
    add(NEM, on + off_pc + fi + _ngram(1) + ["--replayssm-buffer-len", "1"])
    add(NEM, on + fi + _ngram(2), v2)
    add(NEM, on + off_pc + _ngram(2) + ["--replayssm-buffer-len", "2"])
    add(NEM, on + off_pc + fi + _ngram(2) + ["--replayssm-buffer-len", "20"])
    add(NEM, off_pc + fi + _ngram(2))
    # KDA RecoverSSM (Kimi-Linear with speculative tokens)
    for env in ({}, v1, v2):
        add(KIMI, on + _ngram(2), env)
        add(KIMI, on + off_pc + _ngram(2), env)
        add(KIMI, on + fi + _ngram(2), env)
        add(KIMI, on + _ngram(2) + ["-pp", "2"], env)
    add(KIMI, on + off_pc + _ngram(2) + ["-pp", "2"], v1)
    add(KIMI, on + off_pc + _ngram(4) + ["--replayssm-buffer-len", "2"], v1)
    add(KIMI, on + off_pc + fi + _ngram(2) + ["--replayssm-buffer-len", "32"])
    add(KIMI, on + off_pc + ["--mamba-backend", "cpu"] + _ngram(2), v1)
    add(KIMI, ["-pp", "2"] + _ngram(2))
    if "enable_mamba_cache_stochastic_rounding" in opts:
        sr = ["--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-cache-dtype", "float16"]
        add(KIMI, on + off_pc + fi + sr + _ngram(2), v1)
        add(KIMI, on + off_pc + fi + sr)
        add(NEM, on + off_pc + fi + sr)
        add(NEM, on + off_pc + fi + sr + _ngram(2))
    # KV connectors
    add(NEM, on + off_pc + _kv(), v1)
    add(NEM, on + off_pc + fi + _kv("NixlConnector", "kv_producer"))
    add(NEM, off_pc + fi + _kv())
    if "kv_offloading_size" in opts:  # a connector vLLM makes itself for KV offloading (lmcache's needs
        # the lmcache package on the node, a "node software" assumption: left out)
        add(NEM, on + off_pc + fi + ["--kv-offloading-size", "4"])
        add(NEM, off_pc + fi + ["--kv-offloading-size", "4"])
        add(KIMI, on + _ngram(2) + ["--kv-offloading-size", "2"], v2)
    add(KIMI, on + off_pc + _ngram(2) + _kv(), v1)
    add(KIMI, on + _ngram(2) + _kv("NixlConnector", "kv_consumer"), v2)
    add(KIMI, on + _kv(), v1)
    # other settings beside it
    add(NEM, on + off_pc + ["-pp", "2"], v1)
    add(NEM, on + off_pc + fi + ["-tp", "2", "--enforce-eager"])
    add(NEM, on + off_pc + fi + ["--max-num-seqs", "8"])
    # Kimi-Linear last: the oracle's in-process batch keeps compilation mode NONE for every case
    # resolved after a Kimi one (fork mode is exact but far slower)
    return [c for c in pool if c[0] != KIMI] + [c for c in pool if c[0] == KIMI]
