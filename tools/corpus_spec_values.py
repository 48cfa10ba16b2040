"""The `spec_values` model family (tools/corpus_model_families.py): the value sets of
releases/data/refusals.json, which tools/extract_refusal_facts_static.py reads from every
release's sources -- SpeculativeConfig's method literal (its message lists the release's
methods in order), the MTP aliases renamed to "mtp", the numeric field bounds, the rejection /
draft sampling literals, unknown keys (refused once the config decorator forbids extra, 0.16.0+),
KVTransferConfig's roles / unknown keys / the connector registry, StructuredOutputsConfig's
backends and the kv-cache dtypes (argparse choices until 0.32.x, CacheConfig's list in 0.33.0).
Connectors whose module imports an optional package at config time (LMCacheMPConnector needs
lmcache from 0.17.0 when its class is looked up) are left out: that is node software, not checked.

The pool is the same on every release: what a release does not know is exactly what it refuses."""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]

SC = "--speculative-config"
KV = "--kv-transfer-config"
SO = "--structured-outputs-config"


def _sc(**kw: object) -> list[str]:
    return [SC, json.dumps(kw)]


def spec_values(v: tuple) -> Pool:
    dense, ds = "llama-dense", "deepseek-v3-moe"
    pool: Pool = []
    # methods: unknown ones, spellings, ones that came (or went) in some release
    for m in ("bogus", "NGRAM", "ngram ", "eagle2", "mtp2", "ngram_gpu", "medusa_x", ""):
        pool.append((dense, _sc(method=m, num_speculative_tokens=2), {}))
    pool.append((dense, _sc(method="ngram", num_speculative_tokens=3, prompt_lookup_max=4), {}))
    # MTP aliases on an MTP-capable target (renamed to "mtp", or refused where not in the literal)
    for m in ("deepseek_mtp", "mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp",
              "longcat_flash_mtp", "pangu_ultra_moe_mtp", "deepseek_mtp2"):
        pool.append((ds, _sc(method=m, num_speculative_tokens=1), {}))
    # numeric bounds (pydantic Field gt/ge)
    for key, val in (("num_speculative_tokens", 0), ("num_speculative_tokens", -2), ("prompt_lookup_max", 0),
                     ("prompt_lookup_min", 0), ("draft_tensor_parallel_size", 0), ("max_model_len", 0),
                     ("disable_by_batch_size", 1), ("dspark_draft_topk", 0), ("prompt_lookup_min", -1)):
        cfg: dict = {"method": "ngram", "num_speculative_tokens": 2, key: val}
        pool.append((dense, [SC, json.dumps(cfg)], {}))
    pool.append((dense, _sc(method="ngram", num_speculative_tokens=2, prompt_lookup_max=3, prompt_lookup_min=1), {}))
    # rejection / draft sampling literals
    for name, text in (("rejection_sample_method", "fly"), ("rejection_sample_method", "standard"),
                       ("rejection_sample_method", "bogus"), ("draft_sample_method", "bogus"),
                       ("draft_sample_method", "greedy")):
        pool.append((dense, [SC, json.dumps({"method": "ngram", "num_speculative_tokens": 2, name: text})], {}))
    # unknown keys (one, two, next to a bad literal)
    pool += [(dense, _sc(method="ngram", num_speculative_tokens=2, bogus_key=1), {}),
             (dense, _sc(method="ngram", num_speculative_tokens=2, bogus_key=1, other_key="x"), {}),
             (dense, _sc(method="ngram", num_speculative_tokens=2, speculative_model="x"), {}),
             (dense, _sc(method="ngram", num_speculative_tokens=2, rejection_sample_method="bogus", bogus_key=1), {}),
             (dense, _sc(method="bogus", num_speculative_tokens=2, bogus_key=1), {}),
             # several failing fields: pydantic counts them all and shows the first declared
             (dense, _sc(method="bogus", num_speculative_tokens=0), {}),
             (dense, _sc(method="ngram", num_speculative_tokens=2, prompt_lookup_max=0,
                         rejection_sample_method="bogus"), {})]
    # KV transfer: roles, unknown keys, connectors
    for kv in ({"kv_connector": "NixlConnector", "kv_role": "kv_bogus"},
               {"kv_connector": "NixlConnector", "kv_role": "KV_BOTH"},
               {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
               {"kv_connector": "NixlConnector", "kv_role": "kv_both", "bogus_key": 1},
               {"kv_connector": "NixlConnector", "kv_role": "kv_producer", "kv_buffer_device": "cuda"},
               {"kv_connector": "FooConnector", "kv_role": "kv_both"},
               {"kv_connector": "DecodeBenchConnector", "kv_role": "kv_both"},
               {"kv_connector": "HiSparseConnector", "kv_role": "kv_both"},
               {"kv_connector": "ExampleConnector", "kv_role": "kv_both"},
               {"kv_connector": "SharedStorageConnector", "kv_role": "kv_both"},
               {"kv_connector": "MooncakeConnector", "kv_role": "kv_both"},
               {"kv_connector": "OffloadingConnector", "kv_role": "kv_both"},
               {"kv_connector": "NixlConnector"}):
        pool.append((dense, [KV, json.dumps(kv), "--enforce-eager"], {}))
    # structured outputs backends
    for b in ("bogus", "xgrammar", "guidance", "outlines", "lm-format-enforcer", "auto", "XGRAMMAR"):
        pool.append((dense, [SO, json.dumps({"backend": b})], {}))
    # kv-cache dtypes
    for d in ("bogus", "fp8", "fp8_e5m2", "fp8_inc", "bfloat16", "FP8"):
        pool.append((dense, ["--kv-cache-dtype", d], {}))
    return pool
