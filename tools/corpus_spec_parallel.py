"""The `spec_parallel` model family (tools/corpus_model_families.py): SpeculativeConfig's
`_verify_args` checking the draft's ModelConfig against the draft parallel config. For ngram
(ngram_gpu 0.20.0+) the draft is the target itself, so the target's heads / expert-parallel /
pipeline-parallel / decode-context-parallel refusals surface as SpeculativeConfig's
(resolve/model/verify_with_parallel_config.py); a draft model's parallel config inherits
expert parallelism 0.30.0-0.31.x, only for a MoE draft from 0.32.0
(resolve/speculative/draft_model.verify_args). Each with and without its trigger, and without
speculative decoding for comparison.
Goldens: tests/golden/data/model_families/spec_parallel/VERSION.jsonl."""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]


def _sc(**kw) -> list[str]:
    return ["--speculative-config", json.dumps(kw)]


def spec_parallel(v: tuple) -> Pool:
    m = "{models}/"
    ngram = _sc(method="ngram", num_speculative_tokens=3, prompt_lookup_max=3)
    ngram_alias = _sc(model="[ngram]", num_speculative_tokens=2, prompt_lookup_max=2)
    eagle = _sc(model=m + "spec-eagle-llama-head", method="eagle", num_speculative_tokens=2)
    eagle3 = _sc(model=m + "spec-eagle3-llama-head", method="eagle3", num_speculative_tokens=2)
    small = _sc(model=m + "spec-draft-llama-small", method="draft_model", num_speculative_tokens=2)
    mtp = _sc(method="mtp", num_speculative_tokens=1)
    pool: Pool = [
        # ngram: the target meets the parallel config inside SpeculativeConfig
        ("llama-dense", ngram + ["--enable-expert-parallel"], {}),
        ("llama-dense", ngram_alias + ["--enable-expert-parallel"], {}),
        ("llama-dense", ngram + ["-ep"], {}),  # the short spelling (0.13.0+)
        ("llama-dense", ["--enable-expert-parallel"], {}),  # the same refusal from VllmConfig
        ("llama-dense", ngram + ["-tp", "3"], {}),
        ("llama-dense", ngram + ["-tp", "2", "--enable-expert-parallel"], {}),
        ("llama-dense", ngram + ["-pp", "2"], {}),
        ("whisper-encdec", ngram + ["-pp", "2"], {}),
        ("pp-bert-embed", ngram + ["-pp", "2"], {}),
        ("pp-mamba2", ngram + ["-pp", "2"], {}),
        ("llama-dense", ngram + ["-tp", "2", "-dcp", "2"], {}),
        ("llama-dense", ["-tp", "2", "-dcp", "2"], {}),
        ("mixtral-moe", ngram + ["--enable-expert-parallel", "-tp", "2"], {}),
        ("mixtral-moe", ngram + ["--enable-expert-parallel", "-dp", "2"], {}),
        ("qwen3-moe", ngram + ["-tp", "3"], {}),
        ("deepseek-v3-moe", ngram + ["--enable-expert-parallel", "-tp", "2", "-dcp", "2"], {}),
        # draft models: expert parallelism inherited by a dense draft 0.30.0-0.31.x
        ("mixtral-moe", eagle + ["--enable-expert-parallel"], {}),
        ("mixtral-moe", eagle3 + ["--enable-expert-parallel", "-tp", "2"], {}),
        ("qwen3-moe", eagle3 + ["--enable-expert-parallel"], {}),
        ("deepseek-v3-moe", eagle3 + ["--enable-expert-parallel"], {}),
        ("mixtral-moe", small + ["--enable-expert-parallel"], {}),
        ("mixtral-moe", eagle, {}),
        ("mixtral-moe", small + ["-tp", "2"], {}),
        ("llama-dense", eagle + ["--enable-expert-parallel"], {}),
        ("spec-deepseek-v3-mtp1", mtp + ["--enable-expert-parallel"], {}),
        ("spec-deepseek-v3-mtp1", mtp + ["--enable-expert-parallel", "-tp", "2"], {}),
    ]
    if v >= (0, 11, 1):  # 0.11.0's swap-space check trips at tp 8 on the recording machine (README)
        pool += [("llama-dense", ngram + ["-tp", "8", "-dcp", "8"], {})]
    if v >= (0, 20, 0):
        pool += [("llama-dense", _sc(method="ngram_gpu", num_speculative_tokens=2, prompt_lookup_max=2)
                  + ["--enable-expert-parallel"], {}),
                 ("llama-dense", _sc(method="ngram_gpu", num_speculative_tokens=2, prompt_lookup_max=2)
                  + ["-tp", "3"], {})]
    return pool
