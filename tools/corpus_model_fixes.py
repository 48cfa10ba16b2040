"""The `model_fixes` model family (tools/corpus_model_families.py): three fidelity fixes, each
with and without its trigger.

* Hybrid models per release (releases/data/hybrid_archs.json): Kimi-Linear stays hybrid in every
  release (prefix caching by default from 0.28.0, the Mamba cache mode, the chunked-prefill
  assert), a Granite 4 hybrid whose layer_types are all "attention" is not hybrid (0.11.1+),
  other hybrids and a dense model for contrast.
* MTP conversions of SpeculativeConfig.hf_config_override: Nemotron-H (and its Puzzle variant)
  with num_nextn_predict_layers 0/1/2 served with method "mtp" (0.17.0+), a Qwen3.5 text
  checkpoint with mtp_num_hidden_layers (0.28.0+ for the text model type), Kimi-Linear (no
  conversion), with various token counts.
* Mamba stochastic rounding with each Mamba backend (0.20.0+): real vLLM's create_engine_config
  sets it on a copy of the default MambaConfig, so MambaConfig's Blackwell check never runs there.
Goldens: tests/golden/data/model_families/model_fixes/VERSION.jsonl."""
from __future__ import annotations

import json

from gen_corpus import release_options  # tools/ on sys.path

Pool = list[tuple[str, list[str], dict]]

KIMI, NEM = "replayssm-kimi-linear", "replayssm-nemotronh"
MICRO = "fix-granite4-all-attention"
MTP_TARGETS = ("fix-nemotronh-mtp1", "fix-nemotronh-mtp2", "fix-nemotronh-mtp0", "fix-nemotronh-puzzle-mtp1",
               "fix-qwen35-text-mtp1", "fix-kimi-linear-nextn1", NEM)


def _mtp(k: int | None) -> list[str]:
    spec: dict = {"method": "mtp"}
    if k is not None:
        spec["num_speculative_tokens"] = k
    return ["--speculative-config", json.dumps(spec)]


def model_fixes(v: tuple) -> Pool:
    opts = release_options(v)
    pool: Pool = []

    def add(model: str, words: list[str], env: dict | None = None) -> None:
        pool.append((model, words, dict(env or {})))

    # 1. hybrid per release
    for model in (KIMI, MICRO, "replayssm-granite4-hybrid", "pp-zamba2-hybrid", "llama-dense"):
        add(model, [])
        add(model, ["--enable-prefix-caching"])
        add(model, ["--enable-prefix-caching", "--no-enable-chunked-prefill"])
        add(model, ["--no-enable-prefix-caching"])
    add(KIMI, ["--no-enable-chunked-prefill"])
    add(MICRO, ["--no-enable-chunked-prefill"])
    if "mamba_cache_mode" in opts:
        for mode in ("align", "none", "all"):
            add(KIMI, ["--mamba-cache-mode", mode])
            add(KIMI, ["--mamba-cache-mode", mode, "--enable-prefix-caching"])
            add(KIMI, ["--mamba-cache-mode", mode, "--enable-prefix-caching", "--no-enable-chunked-prefill"])
            add(MICRO, ["--mamba-cache-mode", mode, "--enable-prefix-caching"])
    add(KIMI, ["--enable-dbo", "-dp", "2", "-ep"])
    # 2. MTP conversions (before 0.17.0 the release's Transformers loads neither nemotron_h nor
    # qwen3_5_text: the targets there are those it loads, GLM-4 MoE converted since 0.11.0)
    targets = MTP_TARGETS if v >= (0, 17) else ("fix-kimi-linear-nextn1", "pp-glm4moe-mtp", "llama-dense")
    for model in targets:
        for k in (1, 2, 3, None):
            add(model, _mtp(k))
    # later conversions, each from its first release: HY V3 0.20.0, Bailing hybrid 0.25.0 (only the
    # Transformers of the 0.33.0 oracle venv loads bailing_hybrid), Kimi-K3 (its text_config's
    # count) 0.27.0, HY V4 0.29.0
    for first, model in (((0, 20), "fix-hyv3-mtp1"), ((0, 33), "fix-bailing25-mtp1"),
                         ((0, 27), "fix-kimik3-text-mtp1"), ((0, 29), "fix-hyv4-mtp1")):
        if v >= first:
            for k in (1, 2, None):
                add(model, _mtp(k))
    if v >= (0, 33):  # Step-5 (registered from 0.33.0): Step5Config's default is 0 MTP layers
        for model in ("vc2-step5-dense", "fix-step5-mtp2"):
            for k in (1, 2, 3):
                add(model, _mtp(k))
    for model in ("fix-nemotronh-mtp1", "fix-qwen35-text-mtp1") if v >= (0, 17) else ("pp-glm4moe-mtp",):
        add(model, _mtp(1) + ["-pp", "2"])
        add(model, _mtp(4) + ["-tp", "2"])
        add(model, ["--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 1,
                                                        "model": "{models}/" + model})])
    # 3. stochastic rounding x Mamba backend
    if "enable_mamba_cache_stochastic_rounding" in opts:
        sr = ["--enable-mamba-cache-stochastic-rounding"]
        f16 = ["--mamba-ssm-cache-dtype", "float16"]
        backends: list[list[str]] = [[], ["--mamba-backend", "triton"], ["--mamba-backend", "flashinfer"]]
        if v >= (0, 27):
            backends.append(["--mamba-backend", "cpu"])
        for be in backends:
            for model in (NEM, KIMI):
                add(model, sr + f16 + be)
            add(NEM, sr + be)
            add(NEM, f16 + be)
        add(NEM, sr + f16 + ["--mamba-cache-philox-rounds", "4"])
    else:
        add(KIMI, ["--enable-mamba-cache-stochastic-rounding"])
        add(KIMI, ["--mamba-backend", "triton"])
    return pool
