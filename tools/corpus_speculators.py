"""The `speculators` model family (tools/corpus_model_families.py): speculators-format checkpoints
served directly (src/vllm_preflight/resolve/engine/speculators.py): vLLM serves the verifier named
in their config.json with the checkpoint as the draft.

Fixtures `spec-fmt-*` (config.json only) name their verifier by a hub id of the built-in table
(record with HF_HUB_CACHE set to a cache made by tools/speculators_hub_cache.py), or by a path
relative to the repository root (record from there). A verifier folder without a config.json
is kept to 0.33.0, which refuses it before reading it (earlier releases refuse it as any served
folder without a model config)."""
from __future__ import annotations

import json
from pathlib import Path

MODELS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "models"
Pool = list[tuple[str, list[str], dict]]

SC = "--speculative-config"


def _recorded(v: tuple, key: str) -> bool:
    from vllm_preflight.resolve.base.value_facts import _all_facts

    return bool((_all_facts().get(".".join(map(str, v))) or {}).get(key))


def _methods_recorded(v: tuple) -> bool:
    return _recorded(v, "spec_methods")


def _types(v: tuple) -> tuple[str, ...]:
    from vllm_preflight.gpus import DEFAULT_GPU, GPUS
    from vllm_preflight.releases import get_release
    from vllm_preflight.resolve.base.state import State
    from vllm_preflight.resolve.engine import speculators as speculators_format

    return speculators_format._rules(State(release=get_release(".".join(map(str, v))), gpu=GPUS[DEFAULT_GPU],
                                           env={}, model=None))["types"]


def speculators(v: tuple) -> Pool:
    """Every algorithm the releases know (and unknown ones), broken checkpoints, user overrides
    through --speculative-config and --spec-*, and settings that reach the draft checks."""
    llama, qwen, local = "spec-fmt-eagle3-llama-hub", "spec-fmt-eagle3-qwen3-hub", "spec-fmt-eagle3-local"
    pool: Pool = []
    for name in ("spec-fmt-eagle3-llama-hub", "spec-fmt-eagle3-qwen3-hub", "spec-fmt-eagle3-mistral-layer",
                 "spec-fmt-eagle3-short-layer", "spec-fmt-eagle", "spec-fmt-medusa", "spec-fmt-unknown-type",
                 "spec-fmt-no-type", "spec-fmt-no-tokens", "spec-fmt-null-tokens", "spec-fmt-zero-tokens",
                 "spec-fmt-no-layer-config", "spec-fmt-layer-config-list", "spec-fmt-dflash",
                 "spec-fmt-dflash-no-mask", "spec-fmt-peagle", "spec-fmt-dspark", "spec-fmt-dflash2",
                 "spec-fmt-no-verifier", "spec-fmt-empty-methods"):
        pool.append((name, [], {}))
    pool.append((local, [], {}))
    pool.append(("spec-fmt-verifier-int", [], {}))
    if (0, 25, 0) <= v < (0, 33, 0) and ("spec-fmt-medusa", [], {}) in pool:
        # method medusa: 0.25.0-0.32.x load the draft as a Medusa config (speculative.py hf_overrides),
        # refused with the whole model registry in the message (not listed by this port)
        pool.remove(("spec-fmt-medusa", [], {}))
    if v >= (0, 33, 0):  # refused before the verifier is read
        pool.append(("spec-fmt-verifier-here", [], {}))
    # user overrides: dropped before 0.29.0, merged from 0.29.0 (method and model kept)
    for words in (['{"num_speculative_tokens": 2}'], ['{"num_speculative_tokens": 0}'],
                  ['{"method": "ngram", "num_speculative_tokens": 4}'], ['{"model": "some/other-draft"}'],
                  ['{"bogus_key": 1}'], ['{"draft_tensor_parallel_size": 3}'],
                  ['{"max_model_len": 100000000}'], ['{"num_speculative_tokens": 6, "method": "eagle3"}']):
        pool.append((llama, [SC] + words, {}))
    pool.append((qwen, [SC, '{"num_speculative_tokens": 2, "draft_tensor_parallel_size": 1}', "-tp", "2"], {}))
    pool.append((local, [SC, '{"num_speculative_tokens": 1}'], {}))
    pool.append(("spec-fmt-dflash", [SC, '{"num_speculative_tokens": 3}'], {}))
    if v >= (0, 22, 0):  # --spec-method / --spec-tokens meet the checkpoint's own keys
        pool.append((llama, ["--spec-method", "eagle3"], {}))
        pool.append((llama, ["--spec-tokens", "2"], {}))
    # settings the target and draft checks read
    for words in (["-tp", "2"], ["-tp", "3"], ["-tp", "4"], ["-pp", "2"], ["--enforce-eager"], ["-O3"],
                  ["--max-model-len", "4096"], ["--max-num-seqs", "1024", "--max-num-batched-tokens", "2048"],
                  ["-cc", '{"cudagraph_mode": "FULL_DECODE_ONLY"}']):
        pool.append((llama, words, {}))
        pool.append((qwen, words, {}))
    pool.append((local, ["-tp", "3"], {}))
    pool.append(("spec-fmt-eagle3-short-layer", ["--max-model-len", "8192"], {}))
    # --hf-overrides reach the verifier's config (the served model), not the checkpoint's
    pool.append((llama, ["--hf-overrides", '{"max_position_embeddings": 4096}', "--max-model-len", "8192"], {}))
    pool.append((qwen, ["--hf-overrides", '{"num_attention_heads": 12}', "-tp", "8"], {}))
    pool.append(("spec-fmt-dflash", ["-tp", "2"], {}))
    pool.append(("spec-fmt-peagle", ["-pp", "2"], {}))
    # a speculators checkpoint named as the draft of a served model
    draft = '{"model": "{models}/%s", "method": "eagle3", "num_speculative_tokens": 3}'
    pool.append(("llama-dense", [SC, draft % local], {}))
    pool.append(("llama-dense", [SC, draft % "spec-fmt-eagle3-mistral-layer"], {}))
    pool.append(("llama-dense", [SC, draft % "spec-fmt-eagle"], {}))
    if not _methods_recorded(v):
        # a type that is no SpeculativeConfig method fails its literal check, whose message lists the
        # release's methods: releases without that list recorded (base.value_facts.value_facts) leave it out
        known = _types(v) + ("eagle",)
        pool = [p for p in pool if _kind(p[0]) in known or _kind(p[0]) is None]
    if v >= (0, 29, 0) and not _recorded(v, "spec_extra"):  # merged, but whether unknown keys are refused is not recorded
        pool = [p for p in pool if "bogus_key" not in " ".join(p[1])]
    return pool


def _kind(fixture: str) -> str | None:
    """A fixture's speculators_model_type (None: none, or not a speculators checkpoint)."""
    cfg = json.loads((MODELS / fixture / "config.json").read_text())
    return cfg.get("speculators_model_type") if "speculators_config" in cfg else None
