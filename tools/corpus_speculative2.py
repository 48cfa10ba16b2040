"""The `speculative_2` model family (tools/corpus_model_families.py): what the draft's own
architecture and layers, and a diffusion target, decide about the model runner
(src/vllm_preflight/resolve/speculative/draft_features.py), XPress's top-C (0.33.0), and the drafting slots
against --max-num-batched-tokens / --max-num-scheduled-tokens (vllm_config/post_init_late._drafting_slots).

Draft fixtures (config.json only, Qwen3-shaped, vocabulary 2048 as llama-dense's): DFlash drafts
with full, mixed sliding/full and all-sliding layers, DFlash2 / DFlash2-beam / LiLiCorr candidate-head
drafts, XPress drafts (with and without a config `xpress_topc`); `spec2-llama-canvas` and
`spec2-mixtral-canvas` are llama-dense and mixtral-moe with a `canvas_length` (ModelConfig.is_diffusion);
Qwen3 DSpark heads (block size 4; one with sample_from_anchor off, one whose config asks a top-k
beyond its vocabulary). A DeepSeek V4.1 target (0.30.0+) has no MTP draft. Each draft architecture only where the release
registers it (0.20.0 DFlash, 0.28.0 DFlash2 and Muse Glimmer, 0.31.0 LiLiCorr, 0.33.0 DFlash2-beam and XPress):
an unregistered one is refused with the whole registry listed."""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]

V1 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}
V2 = {"VLLM_USE_V2_MODEL_RUNNER": "1"}


def _sc(**kw) -> list[str]:
    return ["--speculative-config", json.dumps(kw)]


def speculative_2(v: tuple) -> Pool:
    """Each rule with and without its trigger, on Model Runner V1 (VLLM_USE_V2_MODEL_RUNNER=0),
    V2 (=1) and the release's own choice."""
    m = "{models}/"
    dense, canvas, moe, moe_canvas = "llama-dense", "spec2-llama-canvas", "mixtral-moe", "spec2-mixtral-canvas"
    full, mixed = m + "spec2-dflash-qwen3-full", m + "spec2-dflash-qwen3-mixed"
    sliding, dflash2 = m + "spec2-dflash-qwen3-allsliding", m + "spec2-dflash2-qwen3"
    beam, lili = m + "spec2-dflash2beam-qwen3", m + "spec2-lilicorr-qwen3"
    xpress, xpress_topc = m + "spec2-xpress-qwen3", m + "spec2-xpress-qwen3-topc"
    eagle, small, vocab = m + "spec-eagle-llama-head", m + "spec-draft-llama-small", m + "spec-draft-llama-vocab32000"
    dspark, fill_in = m + "spec2-qwen3dspark-head", m + "spec2-qwen3dspark-head-fillin"
    topk, glimmer = m + "spec2-qwen3dspark-head-topk9999", m + "spec2-museglimmer-qwen3"
    ngram = _sc(method="ngram", num_speculative_tokens=3, prompt_lookup_max=3)
    pool: Pool = [
        # a diffusion target (canvas_length): V2 forced 0.24.0-0.28.0, refused on V1 from 0.29.0
        (canvas, [], {}), (canvas, [], V1), (canvas, [], V2), (canvas, ["--enforce-eager"], V1),
        (canvas, ngram, {}), (canvas, ngram, V1), (canvas, ["-O0"], {}),
        (dense, [], V1), (dense, ngram, V1),
        # EAGLE / draft models: no draft feature
        (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=2), V1),
        (dense, _sc(model=small, method="draft_model", num_speculative_tokens=2), V1),
    ]
    if v >= (0, 20, 0):
        for draft in (full, mixed, sliding):
            pool += [(dense, _sc(model=draft, method="dflash", num_speculative_tokens=3), env) for env in ({}, V1, V2)]
        pool += [
            (dense, _sc(model=mixed, num_speculative_tokens=2), V1),  # "dflash" in the path: the method
            (dense, _sc(model=mixed, num_speculative_tokens=2), {}),
            (dense, _sc(model=mixed, method="draft_model", num_speculative_tokens=2), V1),
            (dense, _sc(model=mixed, method="dflash", num_speculative_tokens=3) + ["-tp", "2"], V1),
            (dense, _sc(model=mixed, method="dflash", num_speculative_tokens=3) + ["--enforce-eager"], {}),
            (canvas, _sc(model=mixed, method="dflash", num_speculative_tokens=3), V1),
            (canvas, _sc(model=full, method="dflash", num_speculative_tokens=3), {}),
            # the drafting slots: DFlash drafts in parallel by itself
            (dense, _sc(model=full, method="dflash", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "16", "--max-num-seqs", "4"], {}),
            (dense, _sc(model=full, method="dflash", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "12", "--max-num-seqs", "4"], {}),
            (dense, _sc(model=full, method="dflash", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "5", "--max-num-seqs", "1"], {}),
            (dense, _sc(model=full, method="dflash", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "4", "--max-num-seqs", "1"], {}),
            (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4, parallel_drafting=True)
             + ["--max-num-batched-tokens", "24", "--max-num-seqs", "8"], {}),
            (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4, parallel_drafting=True)
             + ["--max-num-batched-tokens", "25", "--max-num-seqs", "8"], {}),
            (dense, _sc(model=small, method="draft_model", num_speculative_tokens=3)
             + ["--max-num-batched-tokens", "8", "--max-num-seqs", "8"], {}),
        ]
    if v >= (0, 28, 0):  # DFlash2 (a candidate head from 0.31.0)
        pool += [(dense, _sc(model=dflash2, method="dflash", num_speculative_tokens=3), env) for env in ({}, V1, V2)]
        pool += [(dense, _sc(model=dflash2, num_speculative_tokens=3), V1),
                 (dense, _sc(model=dflash2, method="dflash", num_speculative_tokens=3,
                             enable_adaptive_verification=True), V1)]
    if v >= (0, 29, 0):
        pool += [(dense, _sc(model=mixed, method="dflash", num_speculative_tokens=3)
                  + ["--enable-batch-sharded-sampling", "-tp", "2"], V1),
                 (canvas, ["--enable-batch-sharded-sampling", "-tp", "2"], V1)]
    if v >= (0, 30, 0):  # watermarking: DFlash drafts in parallel
        wm = ["--watermark-config", json.dumps({"key": 7})]
        pool += [(dense, _sc(model=full, method="dflash", num_speculative_tokens=3, draft_sample_method="probabilistic")
                  + wm, {}),
                 (dense, _sc(model=full, method="dflash", num_speculative_tokens=3, draft_sample_method="probabilistic")
                  + ["--watermark-config", json.dumps({"key": 7, "allow_target_only_watermarking": True})], {}),
                 (dense, _sc(model=dspark, method="dspark", num_speculative_tokens=3, draft_sample_method="probabilistic")
                  + wm, {})]
    if v >= (0, 30, 0):  # a DeepSeek V4.1 target: no classic MTP draft (DSpark instead)
        v41, mtp1 = "vc2-deepseekv41-no-engram", m + "spec-deepseek-v3-mtp1"
        pool += [(v41, _sc(model=mtp1, num_speculative_tokens=1), {}),
                 (v41, _sc(model=mtp1, method="mtp", num_speculative_tokens=1), {}),
                 (v41, _sc(method="mtp", num_speculative_tokens=1), {}),
                 (v41, _sc(model=m + v41, num_speculative_tokens=1), {}),
                 (v41, _sc(method="dspark", num_speculative_tokens=3), {}),
                 ("deepseek-v3-moe", _sc(model=mtp1, num_speculative_tokens=1), {})]
    if v >= (0, 24, 0):  # V2 forced for a MoE target (not a default V2 model until 0.29.0) / a stock compile
        pool += [(moe, _sc(model=mixed, method="dflash", num_speculative_tokens=3), {}),
                 (moe, _sc(model=full, method="dflash", num_speculative_tokens=3), {}),
                 (moe_canvas, [], {}), (moe_canvas, [], V1),
                 (dense, _sc(model=mixed, method="dflash", num_speculative_tokens=3)
                  + ["-cc.mode=STOCK_TORCH_COMPILE"], {}),
                 (canvas, ["-cc.mode=STOCK_TORCH_COMPILE"], {})]
    if v >= (0, 28, 0):
        pool += [(moe, _sc(model=dflash2, method="dflash", num_speculative_tokens=3), {})]
    if v >= (0, 31, 0):
        pool += [(dense, _sc(model=lili, method="dflash", num_speculative_tokens=3), env) for env in ({}, V1)]
    if v >= (0, 33, 0):
        pool += [(dense, _sc(model=d, method="dflash", num_speculative_tokens=3), env)
                 for d in (beam, xpress, xpress_topc) for env in ({}, V1)]
        pool += [
            (dense, _sc(model=xpress, num_speculative_tokens=3), V1),  # no "dflash" in the path: a draft model
            (dense, _sc(model=xpress, method="dflash", num_speculative_tokens=3, xpress_topc=0), {}),
            (dense, _sc(model=xpress, method="dflash", num_speculative_tokens=3, xpress_topc=2048), {}),
            (dense, _sc(model=xpress, method="dflash", num_speculative_tokens=3, xpress_topc=2049), {}),
            (dense, _sc(model=full, method="dflash", num_speculative_tokens=3, xpress_topc=8), {}),
            (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=3, xpress_topc=8), {}),
            (dense, _sc(model=xpress, method="dflash", num_speculative_tokens=3, enable_adaptive_verification=True)
             + ["--enable-batch-sharded-sampling", "-tp", "2"], V1),
            (dense, _sc(model=xpress, method="dflash", num_speculative_tokens=3) + ["-pcp", "2"], V1),
            # Muse Glimmer's assistant head is a DFlash draft by its architecture (0.28.0+): one more slot
            (dense, _sc(model=glimmer, num_speculative_tokens=3) + ["--max-num-batched-tokens", "4", "--max-num-seqs",
                                                                      "1"], {}),
            (dense, _sc(model=glimmer, num_speculative_tokens=3) + ["--max-num-batched-tokens", "5", "--max-num-seqs",
                                                                      "1"], {}),
            (dense, _sc(model=glimmer, method="draft_model", num_speculative_tokens=3), V1),
        ]
    if v >= (0, 25, 0):  # DSpark drafts: by name or architecture, converted, block size, top-k, slots
        pool += [
            (dense, _sc(model=dspark, method="dspark", num_speculative_tokens=3), {}),
            (dense, _sc(model=dspark, num_speculative_tokens=3), {}),
            (dense, _sc(model=dspark, num_speculative_tokens=3), V1),
            (dense, _sc(model=dspark), {}),
            (dense, _sc(model=full, method="dspark", num_speculative_tokens=3), {}),
            (dense, _sc(method="dspark", num_speculative_tokens=3), {}),
            (dense, _sc(method="dspark", num_speculative_tokens=3), V1),
            (dense, _sc(model=dspark, method="dspark", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "4", "--max-num-seqs", "1"], {}),
            (dense, _sc(model=fill_in, method="dspark", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "5", "--max-num-seqs", "1"], {}),
            (dense, _sc(model=fill_in, method="dspark", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "6", "--max-num-seqs", "1"], {}),
            (dense, _sc(model=dspark, method="dspark", num_speculative_tokens=4)
             + ["--max-num-batched-tokens", "12", "--max-num-seqs", "4"], {}),
        ]
    if v >= (0, 28, 0):
        pool += [(dense, _sc(model=dspark, method="dspark", num_speculative_tokens=3, dspark_draft_topk=k), {})
                 for k in (1, 2048, 2049)]
        pool += [(dense, _sc(model=full, method="dspark", num_speculative_tokens=3, dspark_draft_topk=16), {}),
                 (dense, _sc(model=topk, num_speculative_tokens=3), {})]
    if v >= (0, 25, 0):  # a heterogeneous-vocabulary draft: not on Model Runner V2 from 0.32.0
        hetero = _sc(model=vocab, method="draft_model", num_speculative_tokens=2, use_heterogeneous_vocab=True)
        pool += [(dense, hetero, env) for env in ({}, V1, V2)]
    # --max-num-scheduled-tokens (0.26.0+; an unknown flag before)
    sched = ["--max-num-batched-tokens", "64", "--max-num-seqs", "8", "--max-num-scheduled-tokens"]
    pool += [
        (dense, _sc(model=small, method="draft_model", num_speculative_tokens=3) + sched + ["56"], {}),
        (dense, _sc(model=small, method="draft_model", num_speculative_tokens=3) + sched + ["57"], {}),
        (dense, _sc(model=small, method="draft_model", num_speculative_tokens=3) + sched + ["0"], {}),
        (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4, parallel_drafting=True) + sched + ["40"], {}),
        (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4, parallel_drafting=True) + sched + ["41"], {}),
        (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4) + sched + ["64"], {}),
        (dense, _sc(model=eagle, method="eagle", num_speculative_tokens=4) + sched + ["100"], {}),
        (dense, ngram + sched + ["0"], {}), (dense, ngram + sched + ["1"], {}),
        (dense, sched + ["0"], {}), (dense, sched + ["5000"], {}),
    ]
    if v >= (0, 20, 0):
        pool += [(dense, _sc(model=full, method="dflash", num_speculative_tokens=4) + sched + ["32"], {}),
                 (dense, _sc(model=full, method="dflash", num_speculative_tokens=4) + sched + ["33"], {})]
    return pool
