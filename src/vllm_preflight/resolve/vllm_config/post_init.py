"""The rest of `VllmConfig.__post_init__` and its model validators: refusals that no other
module ports (the others are ported next to the config they belong to).

Four hooks, in vLLM's order:
  `early`         right after ModelConfig.verify_with_parallel_config: the float KV cache dtype
                  (0.33.0), adaptive verification's method rule, routed experts (0.22.0-0.30.x),
                  sampling distribution / trace replay (0.28.0+ / 0.29.0+), NIXL with context
                  parallelism (0.29.0+), Mamba stochastic rounding (0.20.0+), DeepSeek V4.1
                  Engram with DBO, watermarking with speculative decoding and HiSparse on
                  Model Runner V1 (0.30.0+);
  `after_async`   after the async-scheduling block: the executor backend, the Proton profiler
                  without eager mode (0.28.0-0.29.x), --per-request-spec-decode-metrics (0.29.0+);
  `after_capture_sizes` right after the CUDA-graph sizes (a pipeline hook): KV-sharing fast
                  prefill with EAGLE, the KV interleave size against the block size (0.12.0-0.17.x);
  `before_runner` after the compilation steps: HiSparse's checks (0.30.0+), the speculative
                  drafting / lookahead slots (0.20.0+);
  `after_runner`  after the model runners' validation: the Proton profiler (0.30.0+),
                  batch-sharded sampling and adaptive verification (0.29.0+), compile range
                  points (0.13.0+), MoonEP (0.31.0+),
                  the AuxOutput connector (0.31.0+), an explicitly enabled hybrid KV cache
                  manager (0.13.0+), HiSparse without it (0.30.0+), KV connectors without
                  sleep-mode support (0.33.0) or with expandable segments (0.21.0+); then the
                  model validators (NVFP4 KV cache with MLA, --mamba-block-size).
`dbo_thresholds` (ParallelConfig._verify_args: parallel/parallel_config.py) checks the DBO token
thresholds against the number of microbatches (0.30.0+).
Each rule is keyed by the first release that has it (read in each release's vllm/config/vllm.py
and speculative.py); a rule's wording changes are keyed the same way.
"""
from __future__ import annotations

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json
from vllm_preflight.resolve.vllm_config.common import (
    _adaptive,
    _has_connector,
    _kv,
    _parallel_drafting,
    _pyd,
    _since,
    _spec,
)
from vllm_preflight.resolve.vllm_config.model_runner import uses_v2_runner


# ------------------------------------------------------------------------------- early
@reads("kv_cache_dtype", "dtype")
def float_kv_cache(state: State, values: dict) -> None:
    """0.33.0 `_reject_mismatched_float_kv_cache` (config/vllm.py:1492): an explicit
    float16/bfloat16 KV cache must match the model's dtype."""
    cache = values.get("kv_cache_dtype")
    if not _since(state, (0, 33, 0)) or cache not in ("float16", "bfloat16") or state.model is None:
        return
    from vllm_preflight.resolve.model.quantization import model_dtype

    dtype = model_dtype(state.model, values, bool(state.model_cfg.get("is_pooling")))
    if dtype is None or dtype == cache:
        return
    allowed = f"`auto` or `{dtype}`" if dtype in ("float16", "bfloat16") else "`auto`"
    raise _pyd(f'kv_cache_dtype="{cache}" is incompatible with dtype="{dtype}". Please set '
               f"`--kv-cache-dtype` to {allowed}.")


@reads("speculative_config")
def adaptive_method(state: State, values: dict) -> None:
    """SpeculativeConfig's rule for enable_adaptive_verification (0.28.0 speculative.py:1141:
    DSpark only; 0.30.0 :1563, 0.33.0 :1712: any method but not with use_local_argmax_reduction)."""
    spec = _spec(values)
    if not spec or not _adaptive(values) or not _since(state, (0, 28, 0)) or spec.get("method") == "dspark":
        return
    if not _since(state, (0, 30, 0)):
        raise _pyd("Adaptive verification only supported with DSpark", "SpeculativeConfig")
    if spec.get("use_local_argmax_reduction") is True:
        raise _pyd("Adaptive verification estimates per-position acceptance from the draft logits, which "
                   "use_local_argmax_reduction never materializes. Disable one of them.", "SpeculativeConfig")


@reads("enable_return_routed_experts", "aux_output_config", "kv_transfer_config", "prefill_context_parallel_size")
def routed_experts_early(state: State, values: dict) -> None:
    """0.22.0-0.30.x (config/vllm.py 0.22.0 :844, 0.30.0 :1279-1310): routed experts capture
    refuses PP, context parallelism (0.28.0+) and any KV-transfer instance."""
    if not values.get("enable_return_routed_experts") or not _since(state, (0, 22, 0)) or _since(state, (0, 31, 0)):
        return
    par = state.parallel
    if par["pipeline_parallel_size"] > 1:
        raise _pyd("--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).")
    if _since(state, (0, 28, 0)) and ((par.get("decode_context_parallel_size") or 1) > 1
                                      or (values.get("prefill_context_parallel_size") or 1) > 1):
        raise _pyd("--enable-return-routed-experts is incompatible with context parallelism (DCP > 1 or PCP > 1).")
    kv = _kv(values)
    if kv is not None and kv.get("kv_connector") is not None and kv.get("kv_role") is not None:
        raise _pyd("--enable-return-routed-experts is incompatible with KV connectors (PD disaggregation, "
                   "KV cache offload).")


@reads("return_sampling_mask", "logits_processors", "logprobs_mode", "speculative_config", env=("VLLM_USE_V2_MODEL_RUNNER",))
def sampling_replay(state: State, values: dict) -> None:
    """0.28.0+ `_verify_sampling_replay_config` (--return-sampling-mask): Model Runner V2, no
    speculative decoding (0.32.0+: no adaptive verification), no custom logits processors, and
    logprobs mode processed_logprobs. (Diffusion models, also refused, are not modelled.)"""
    if not _since(state, (0, 28, 0)) or not values.get("return_sampling_mask"):
        return
    if not uses_v2_runner(state):
        raise _pyd("sampling distribution replay requires Model Runner V2")
    if _since(state, (0, 32, 0)):
        if _adaptive(values):
            raise _pyd("sampling distribution replay with speculative decoding requires fixed verification "
                       "boundaries; disable adaptive verification")
    elif _spec(values) is not None:
        raise _pyd("sampling distribution replay does not support speculative decoding")
    if values.get("logits_processors"):
        raise _pyd("sampling distribution replay does not support custom logits processors")
    if (values.get("logprobs_mode") or "raw_logprobs") != "processed_logprobs":
        raise _pyd("sampling distribution replay requires logprobs_mode='processed_logprobs' so that returned "
                   "logprobs are normalized over the same nucleus as the sampling mask")


@reads("enable_trace_replay", env=("VLLM_USE_V2_MODEL_RUNNER",))
def trace_replay(state: State, values: dict) -> None:
    """0.29.0+ `_verify_trace_replay_config` (--enable-trace-replay): Model Runner V2."""
    if not _since(state, (0, 29, 0)) or not values.get("enable_trace_replay"):
        return
    if not uses_v2_runner(state):
        raise _pyd("trace replay requires Model Runner V2")


@reads("kv_transfer_config", "prefill_context_parallel_size")
def nixl_context_parallel(state: State, values: dict) -> None:
    """0.29.0+ asserts for a NixlConnector (directly or in a MultiConnector): 0.29.x no PCP, DCP 1
    or the TP size, DCP only for MLA and not for hybrid models; 0.30.0+ DCP 1 or the transfer
    size max(TP, PCP), DCP only for MLA (0.29.0 config/vllm.py:1147-1168, 0.33.0 :1572-1590)."""
    kv = _kv(values)
    if not _since(state, (0, 29, 0)) or kv is None or not _has_connector(kv, "NixlConnector"):
        return
    par = state.parallel
    dcp, tp = par.get("decode_context_parallel_size") or 1, par["tensor_parallel_size"]
    pcp = values.get("prefill_context_parallel_size") or 1

    def fail(message: str) -> Refusal:
        return Refusal("ValidationError", f"1 validation error for VllmConfig\n  Assertion failed, {message}")

    if _since(state, (0, 30, 0)):
        if dcp not in (1, max(tp, pcp)):
            raise fail(f"decode_context_parallel_size={dcp} must be 1 or equal to the NIXL transfer parallel "
                       f"size={max(tp, pcp)}.")
    else:
        if pcp != 1:
            raise fail("NIXL does not support prefill context parallelism.")
        if dcp not in (1, tp):
            raise fail(f"decode_context_parallel_size={dcp} must be 1 or equal to tensor_parallel_size={tp} when "
                       "using NixlConnector.")
    if state.model is not None and not state.model.is_mla and dcp != 1:
        raise fail("PD with decode_context_parallel_size > 1 is only supported for MLA models.")
    if not _since(state, (0, 30, 0)) and dcp > 1 and state.model is not None:
        from vllm_preflight.resolve.vllm_config.model_hooks import _is_hybrid

        if _is_hybrid(state, state.model.architecture):
            raise fail("PD with decode_context_parallel_size > 1 is not supported for hybrid Mamba/SSM models.")


@reads("enable_mamba_cache_stochastic_rounding", "mamba_ssm_cache_dtype")
def stochastic_rounding(state: State, values: dict) -> None:
    """0.20.0+ (0.33.0 config/vllm.py:1594): stochastic rounding of the Mamba cache needs a
    float16 SSM cache."""
    if not _since(state, (0, 20, 0)) or not values.get("enable_mamba_cache_stochastic_rounding"):
        return
    if values.get("mamba_ssm_cache_dtype") != "float16":
        raise _pyd("Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it "
                   "explicitly, by specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding "
                   "by not specifying `--enable-mamba-cache-stochastic-rounding`.")


@reads("engram_config", "enable_dbo", "ubatch_size")
def engram_microbatching(state: State, values: dict) -> None:
    """0.30.0+ `_resolve_and_verify_engram_config` (0.33.0 config/vllm.py:1474): DeepSeek V4.1
    with Engram layers refuses DBO and microbatching (--enable-dbo or --ubatch-size > 1)."""
    if not _since(state, (0, 30, 0)) or state.model is None or state.model.architecture != "DeepseekV41ForCausalLM":
        return
    if not values.get("enable_dbo") and (values.get("ubatch_size") or 0) <= 1:
        return
    raw = state.model.raw_config or {}
    text = raw.get("text_config")
    if raw.get("engram_layer_ids") or (isinstance(text, dict) and text.get("engram_layer_ids")):
        raise _pyd("DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set "
                   "--ubatch-size to 0.")


@reads("watermark_config", "speculative_config")
def watermarking(state: State, values: dict) -> None:
    """0.30.0+ (0.30.0 `_check_watermarking_unsupported` config/vllm.py:1143, 0.32.0+
    `_check_supports_watermarking`, 0.33.0 :1343-1400): a --watermark-config with speculative
    decoding needs probabilistic draft sampling, standard rejection sampling, no parallel drafting
    (but DSpark's; 0.33.0 also DFlash's), an EAGLE/EAGLE3/MTP/DSpark method (0.33.0 also DFlash)
    and an algorithm that watermarks drafts unless target-only watermarking is allowed.
    (0.33.0's DFlash candidate-head drafters are not checked: their draft architecture.)"""
    wm = option_json(values, "watermark_config")
    spec = _spec(values)
    if _since(state, (0, 30, 0)) and isinstance(wm, dict):
        state.model_cfg["watermark"] = True  # vllm_config/model_runner.choose_runner: V2 whatever the env (0.30.0 use_v2_model_runner)
    if not _since(state, (0, 30, 0)) or not isinstance(wm, dict) or spec is None:
        return
    if spec.get("draft_sample_method", "greedy") != "probabilistic":
        raise _pyd("Speculative decoding with watermarking requires draft_sample_method='probabilistic'.")
    if spec.get("rejection_sample_method", "standard") != "standard":
        raise _pyd("Speculative decoding with watermarking requires rejection_sample_method='standard'.")
    method = state.speculative_method_resolved or state.speculative_method or ""
    parallel_ok = ("dflash", "dspark") if _since(state, (0, 33, 0)) else ("dspark",)
    if _parallel_drafting(state, spec, method) and method not in parallel_ok:
        raise _pyd("Parallel speculative drafting is not supported with watermarking.")
    if _since(state, (0, 33, 0)):
        if method not in ("dflash", "dspark", "eagle", "eagle3", "mtp"):
            raise _pyd("Watermarking supports only dflash, dspark, eagle, eagle3 and mtp speculative decoding.")
    elif method not in ("dspark", "eagle", "eagle3", "mtp"):
        raise _pyd("Watermarking supports only autoregressive model-based speculative decoding.")
    algorithm = wm.get("algorithm", "gumbel")
    if wm.get("allow_target_only_watermarking") is not True and algorithm != "dual_key_gumbel":
        raise _pyd(f"The '{algorithm}' watermarking algorithm does not support speculative decoding. Set "
                   "allow_target_only_watermarking=true to leave draft tokens unwatermarked.")


def _hisparse(state: State, values: dict) -> bool:
    """AttentionConfig.hisparse_config set (--attention-config), or a HiSparseConnector, which
    turns it on (0.30.0+)."""
    if not _since(state, (0, 30, 0)):
        return False
    ac = option_json(values, "attention_config")
    if isinstance(ac, dict) and ac.get("hisparse_config") is not None:
        return True
    kv = _kv(values)
    return kv is not None and _has_connector(kv, "HiSparseConnector")


@reads("attention_config", "kv_transfer_config", env=("VLLM_USE_V2_MODEL_RUNNER",))
def hisparse_runner(state: State, values: dict) -> None:
    """0.30.0+ VllmConfig.use_v2_model_runner (0.33.0 config/vllm.py:732): HiSparse takes Model
    Runner V2 and refuses VLLM_USE_V2_MODEL_RUNNER=0."""
    if not _hisparse(state, values):
        return
    state.model_cfg["hisparse"] = True  # vllm_config/model_runner.choose_runner: V2 whatever the features
    env = state.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if env is None:
        return
    try:
        off = not bool(int(env))
    except ValueError:
        return  # vLLM's env reader fails on it; not modelled here
    if off:
        raise _pyd("HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0.")


@reads("attention_config", "kv_transfer_config", "scheduler_reserve_full_isl")
def hisparse_checks(state: State, values: dict) -> None:
    """0.30.0+ (0.30.0 config/vllm.py:1640, 0.33.0 :1883-1911): HiSparse refuses PP, DCP,
    cudagraph_mode FULL (0.32.0+), --no-scheduler-reserve-full-isl (0.31.0+) and a model whose
    config has no index_topk. (Its CUDA-only check always passes here.)"""
    if not _hisparse(state, values):
        return
    par = state.parallel
    if par["pipeline_parallel_size"] > 1:
        raise _pyd("HiSparse does not support pipeline parallelism.")
    if (par.get("decode_context_parallel_size") or 1) > 1:
        raise _pyd("HiSparse does not support decode context parallelism.")
    if _since(state, (0, 32, 0)) and state.cc.get("cudagraph_mode") == "FULL":
        raise _pyd("HiSparse does not support cudagraph_mode=FULL; use FULL_AND_PIECEWISE (the default), which "
                   "captures FULL graphs for decode batches.")
    if _since(state, (0, 31, 0)) and values.get("scheduler_reserve_full_isl") is False:
        raise _pyd("HiSparse requires --scheduler-reserve-full-isl; remove --no-scheduler-reserve-full-isl.")
    raw = (state.model.raw_config or {}) if state.model is not None else None
    if raw is None:
        return
    text = raw.get("text_config")
    flat = state.model is not None and state.model.architecture == "DeepseekV41ForCausalLM"
    if "index_topk" not in raw and not (flat and isinstance(text, dict) and "index_topk" in text):
        raise _pyd("HiSparse is only supported for DSA models with index_topk.")


# ------------------------------------------------------------------------- after_async
@reads("per_request_spec_decode_metrics", "speculative_config")
def per_request_spec_decode_metrics(state: State, values: dict) -> None:
    """0.29.0+ (0.33.0 config/vllm.py:1733-1741), after the explicit async-scheduling block and
    the Proton check: per-request speculative metrics need a speculative config."""
    metrics = values.get("per_request_spec_decode_metrics")
    if _since(state, (0, 29, 0)) and metrics not in (None, "none") and _spec(values) is None:
        raise _pyd("--per-request-spec-decode-metrics requires speculative decoding to be enabled "
                   "(via --speculative-config).")


def _proton(values: dict) -> dict | None:
    pc = option_json(values, "profiler_config")
    return pc if isinstance(pc, dict) and pc.get("profiler") == "proton" else None


@reads("profiler_config")
def proton_eager(state: State, values: dict) -> None:
    """0.28.0-0.29.x (0.28.0 config/vllm.py:1292-1302): the Proton profiler wants no CUDA graphs,
    read right after --enforce-eager is applied, before the mode gets its default: only
    --enforce-eager or an explicit cudagraph_mode NONE pass."""
    if not _since(state, (0, 28, 0)) or _since(state, (0, 30, 0)) or _proton(values) is None:
        return
    given = state.cc.get("cudagraph_mode") if "cudagraph_mode" in state.cc_given else None
    if state.model_cfg.get("enforce_eager") or (given is not None and str(given).upper() == "NONE"):
        return
    raise _pyd("The Proton profiler requires CUDA graphs to be disabled. Use --enforce-eager or set "
               "--compilation-config.cudagraph_mode=none.")


@reads("async_scheduling", "distributed_executor_backend")
def async_executor(state: State, values: dict) -> None:
    """--async-scheduling on an executor without async scheduling (0.11.1-0.18.x: only mp, uni
    and external_launcher, 0.12.0 config/vllm.py:523-558; 0.19.0+ the executor class says so,
    and of the built-in ones only Ray's does not)."""
    backend = values.get("distributed_executor_backend")
    if not values.get("async_scheduling") or not _since(state, (0, 11, 1)) or backend is None:
        return
    if _since(state, (0, 19, 0)):
        if backend == "ray":
            raise _pyd("`ray` does not support async scheduling yet.")
    elif backend not in ("mp", "uni", "external_launcher"):
        raise _pyd("Currently, async scheduling only supports `mp`, `uni`, or `external_launcher` distributed "
                   f"executor backend, but you chose `{backend}`.")


