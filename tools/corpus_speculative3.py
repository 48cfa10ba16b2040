"""The `speculative_3` model family (tools/corpus_model_families.py): the last SpeculativeConfig
draft rules (resolve/speculative/draft_features.py, resolve/speculative/draft_model.py):

  * the Qwen3-Omni DSpark contract (0.29.0+): a Qwen3-Omni target (`spec3-qwen3omni-target`, its
    thinker text_config 256 hidden, 8/4 heads of 32, 4 layers, vocabulary 2048) takes only a
    standalone Qwen3OmniDSparkModel draft matching it; `spec3-omnidspark-ok` keeps every rule and
    each `spec3-omnidspark-*` breaks one (or takes another spelling of a key);
  * a Gemma4 DSpark draft's n_predict defaulting to its block_size (0.26.0-0.30.x);
  * (an MLA (K3) DSpark draft under decode context parallelism, 0.27.0-0.28.x, is not here: the
    oracle fails to inspect K3DSparkModel (its subprocess has no emulated GPU), so that rule is held
    by tests/unit/test_speculative3.py from the source alone);
  * draft_lm_head_quantization against the draft's head dtype (0.33.0).
"""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]

V1 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}

_OMNI_BREAKS = ("noblock", "dflashblock3", "tgthidden512", "hidden512", "kv2", "headdim64", "nolayerids",
                "layerids-unsorted", "layerids-outofrange", "layerids-float", "noaux", "nomarkov", "markov-gated",
                "anchor-off", "bonus-anchor", "draftvocab4096", "nomask", "mask2048", "noisetoken", "mrope",
                "ropescaling-mrope", "qwen3dspark")


def _sc(**kw) -> list[str]:
    return ["--speculative-config", json.dumps(kw)]


def speculative_3(v: tuple) -> Pool:
    m = "{models}/"
    dense, omni, omni_defaults = "llama-dense", "spec3-qwen3omni-target", "spec3-qwen3omni-target-defaults"
    ok = m + "spec3-omnidspark-ok"
    gemma4 = m + "spec3-gemma4dspark-head"
    qwen3dspark = m + "spec2-qwen3dspark-head"
    pool: Pool = [
        # a Qwen3-Omni target: no speculation, ngram, a generic DSpark head, DSpark from the target itself
        (omni, [], {}),
        (omni, _sc(method="ngram", num_speculative_tokens=3, prompt_lookup_max=3), {}),
        (dense, _sc(model=m + "spec-eagle-llama-head", method="eagle", num_speculative_tokens=2), {}),
    ]
    if v >= (0, 25, 0):
        pool += [(omni, _sc(model=qwen3dspark, method="dspark", num_speculative_tokens=4), {}),
                 (omni, _sc(model=qwen3dspark, num_speculative_tokens=4), {}),
                 (omni, _sc(method="dspark", num_speculative_tokens=4), {}),
                 (omni_defaults, _sc(model=qwen3dspark, method="dspark", num_speculative_tokens=4), {}),
                 (dense, _sc(model=qwen3dspark, method="dspark", num_speculative_tokens=4), {})]
    if v >= (0, 29, 0):  # Qwen3OmniDSparkModel is registered (and detected) from 0.29.0
        pool += [(omni, _sc(model=ok, method="dspark", num_speculative_tokens=4), {}),
                 (omni, _sc(model=ok, num_speculative_tokens=4), {}),
                 (omni, _sc(model=ok, method="dspark"), {}),
                 (omni, _sc(model=ok, method="dspark", num_speculative_tokens=3), {}),
                 (omni, _sc(model=ok, method="dspark", num_speculative_tokens=8), {}),
                 (omni, _sc(model=ok, method="dspark", num_speculative_tokens=4), V1),
                 (omni, _sc(model=ok, method="dspark", num_speculative_tokens=4, dspark_draft_topk=16), {}),
                 (omni, _sc(model=ok, method="dspark", num_speculative_tokens=4, dspark_draft_topk=4096), {}),
                 (omni_defaults, _sc(model=ok, method="dspark", num_speculative_tokens=4), {}),
                 (dense, _sc(model=ok, method="dspark", num_speculative_tokens=4), {}),
                 (dense, _sc(model=m + "spec3-omnidspark-tgthidden512", method="dspark", num_speculative_tokens=4),
                  {})]
        pool += [(omni, _sc(model=m + "spec3-omnidspark-" + b, method="dspark", num_speculative_tokens=4), {})
                 for b in _OMNI_BREAKS]
        pool += [(omni, _sc(model=m + "spec3-omnidspark-dflashblock3", method="dspark", num_speculative_tokens=3),
                  {}),
                 (omni, _sc(model=m + "spec3-omnidspark-dflashblock3", method="dspark"), {}),
                 (omni, _sc(model=m + "spec3-omnidspark-noblock", method="dspark"), {})]
    if v >= (0, 26, 0):  # Gemma4 DSpark heads: n_predict from the block size (0.26.0-0.30.x)
        pool += [(dense, _sc(model=gemma4, method="dspark", num_speculative_tokens=k), {}) for k in (2, 3, 4, 6, 8)]
        pool += [(dense, _sc(model=gemma4, method="dspark"), {}),
                 (dense, _sc(model=gemma4), {}),
                 (dense, _sc(model=gemma4, num_speculative_tokens=6), {})]
    if v < (0, 33, 0):  # the field is new in 0.33.0 (how older releases take unknown fields: spec_values)
        return pool
    # draft_lm_head_quantization (0.33.0): the draft's head dtype against the model dtype
    heads = ("fp32head", "fp16head", "modelhead", "badhead")
    pool += [(dense, _sc(model=m + "spec3-eagle-llama-" + h, method="eagle", num_speculative_tokens=2,
                         draft_lm_head_quantization="fp8"), {}) for h in heads]
    pool += [(dense, _sc(model=m + "spec3-eagle-llama-" + h, method="eagle", num_speculative_tokens=2), {})
             for h in heads]
    pool += [
        (dense, _sc(model=m + "spec3-eagle-llama-fp32head", method="eagle", num_speculative_tokens=2,
                    draft_lm_head_quantization="nvfp4") + ["--dtype", "float32"], {}),
        (dense, _sc(model=m + "spec3-eagle-llama-fp16head", method="eagle", num_speculative_tokens=2,
                    draft_lm_head_quantization="fp8") + ["--dtype", "half"], {}),
        (dense, _sc(model=m + "spec3-eagle-llama-fp16head", method="eagle", num_speculative_tokens=2,
                    draft_lm_head_quantization="fp8") + ["--dtype", "float32"], {}),
        (dense, _sc(model=m + "spec-eagle-llama-head", method="eagle", num_speculative_tokens=2,
                    draft_lm_head_quantization="fp8") + ["--dtype", "float16"], {}),
        (dense, _sc(model=m + "spec3-eagle-llama-fp32head", method="draft_model", num_speculative_tokens=2,
                    draft_lm_head_quantization="fp8"), {}),
        ("spec3-deepseek-v3-mtp1-fp32head", _sc(method="mtp", num_speculative_tokens=1,
                                                draft_lm_head_quantization="fp8"), {}),
        ("spec3-deepseek-v3-mtp1-fp32head", _sc(method="mtp", num_speculative_tokens=1), {}),
        ("spec3-deepseek-v3-mtp1-fp32head", _sc(method="mtp", num_speculative_tokens=1,
                                                draft_lm_head_quantization="fp8") + ["--dtype", "float32"], {}),
    ]
    return pool
