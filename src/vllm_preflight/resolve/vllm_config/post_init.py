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
`dbo_thresholds` (called from engine.apply, ParallelConfig._verify_args) checks the DBO token
thresholds against the number of microbatches (0.30.0+).
Each rule is keyed by the first release that has it (read in each release's vllm/config/vllm.py
and speculative.py); a rule's wording changes are keyed the same way.
"""
from __future__ import annotations

from vllm_preflight.resolve.base.state import Refusal, State, option_json


def _pyd(message: str, cls: str = "VllmConfig") -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n  Value error, {message}")


def _since(state: State, first: tuple[int, int, int]) -> bool:
    return state.release.key >= first


def _spec(values: dict) -> dict | None:
    spec = option_json(values, "speculative_config")
    return spec if isinstance(spec, dict) else None


def _adaptive(values: dict) -> bool:
    spec = _spec(values)
    return bool(spec and spec.get("enable_adaptive_verification") is True)


def _kv(values: dict) -> dict | None:
    kv = option_json(values, "kv_transfer_config")
    return kv if isinstance(kv, dict) else None


def _has_connector(kv: dict, name: str) -> bool:
    """KVTransferConfig.has_connector: the connector itself, or a MultiConnector child."""
    if kv.get("kv_connector") == name:
        return True
    extra = kv.get("kv_connector_extra_config")
    children = extra.get("connectors") if isinstance(extra, dict) else None
    return kv.get("kv_connector") == "MultiConnector" and isinstance(children, list) and any(
        isinstance(c, dict) and c.get("kv_connector") == name for c in children)


def _routed_experts(state: State) -> bool:
    """--enable-return-routed-experts, or the AuxOutput config asking for it (0.31.0+: read by
    json_options.after_parallel)."""
    return bool(state.model_cfg.get("aux_output_enabled"))


def prefix_caching(state: State, values: dict) -> bool | None:
    """CacheConfig.enable_prefix_caching as create_engine_config leaves it: the flag, else the
    model's default (ModelConfig.is_prefix_caching_supported; off with prefill context
    parallelism). None where this port does not know the default (pooling models)."""
    given = values.get("enable_prefix_caching")
    if given is not None:
        return bool(given)
    if (values.get("prefill_context_parallel_size") or 1) > 1 and _since(state, (0, 12, 0)):
        return False
    if state.model_cfg.get("is_pooling"):
        return None
    from vllm_preflight.resolve.vllm_config.model_hooks import _MAMBA_ARCHS, _is_hybrid

    arch = state.model.architecture if state.model is not None else ""
    if arch in _MAMBA_ARCHS:  # attention-free: on only while 0.11.x defaults to "not hybrid"
        return not _since(state, (0, 12, 0))
    if _is_hybrid(state, arch):
        # off by default until 0.28.0 (0.11.1 arg_utils.py:1847, 0.12.0-0.25.x
        # is_prefix_caching_supported, 0.26.0-0.27.x "opt-in for now"; 0.28.0 arg_utils.py:2650)
        return _since(state, (0, 28, 0))
    return True


# ------------------------------------------------------------------------------- early
def early(state: State, values: dict) -> None:
    """The checks of VllmConfig.__post_init__ between verify_with_parallel_config and the
    quantization config (this port runs them after its own parallel checks)."""
    _float_kv_cache(state, values)
    _adaptive_method(state, values)
    _routed_experts_early(state, values)
    _sampling_replay(state, values)
    _trace_replay(state, values)
    _nixl_context_parallel(state, values)
    _stochastic_rounding(state, values)
    _engram_microbatching(state, values)
    _watermarking(state, values)
    _hisparse_runner(state, values)


def _float_kv_cache(state: State, values: dict) -> None:
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


def _adaptive_method(state: State, values: dict) -> None:
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


def _routed_experts_early(state: State, values: dict) -> None:
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


def _sampling_replay(state: State, values: dict) -> None:
    """0.28.0+ `_verify_sampling_replay_config` (--return-sampling-mask): Model Runner V2, no
    speculative decoding (0.32.0+: no adaptive verification), no custom logits processors, and
    logprobs mode processed_logprobs. (Diffusion models, also refused, are not modelled.)"""
    if not _since(state, (0, 28, 0)) or not values.get("return_sampling_mask"):
        return
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if not _uses_v2_runner(state):
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


def _trace_replay(state: State, values: dict) -> None:
    """0.29.0+ `_verify_trace_replay_config` (--enable-trace-replay): Model Runner V2."""
    if not _since(state, (0, 29, 0)) or not values.get("enable_trace_replay"):
        return
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if not _uses_v2_runner(state):
        raise _pyd("trace replay requires Model Runner V2")


def _nixl_context_parallel(state: State, values: dict) -> None:
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


def _stochastic_rounding(state: State, values: dict) -> None:
    """0.20.0+ (0.33.0 config/vllm.py:1594): stochastic rounding of the Mamba cache needs a
    float16 SSM cache."""
    if not _since(state, (0, 20, 0)) or not values.get("enable_mamba_cache_stochastic_rounding"):
        return
    if values.get("mamba_ssm_cache_dtype") != "float16":
        raise _pyd("Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it "
                   "explicitly, by specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding "
                   "by not specifying `--enable-mamba-cache-stochastic-rounding`.")


def _engram_microbatching(state: State, values: dict) -> None:
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


def _watermarking(state: State, values: dict) -> None:
    """0.30.0+ (0.30.0 `_check_watermarking_unsupported` config/vllm.py:1143, 0.32.0+
    `_check_supports_watermarking`, 0.33.0 :1343-1400): a --watermark-config with speculative
    decoding needs probabilistic draft sampling, standard rejection sampling, no parallel drafting
    (but DSpark's; 0.33.0 also DFlash's), an EAGLE/EAGLE3/MTP/DSpark method (0.33.0 also DFlash)
    and an algorithm that watermarks drafts unless target-only watermarking is allowed.
    (0.33.0's DFlash candidate-head drafters are not checked: their draft architecture.)"""
    wm = option_json(values, "watermark_config")
    spec = _spec(values)
    if _since(state, (0, 30, 0)) and isinstance(wm, dict):
        state.model_cfg["watermark"] = True  # runtime._runner: V2 whatever the env (0.30.0 use_v2_model_runner)
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


def _hisparse_runner(state: State, values: dict) -> None:
    """0.30.0+ VllmConfig.use_v2_model_runner (0.33.0 config/vllm.py:732): HiSparse takes Model
    Runner V2 and refuses VLLM_USE_V2_MODEL_RUNNER=0."""
    if not _hisparse(state, values):
        return
    state.model_cfg["hisparse"] = True  # runtime._runner: V2 whatever the features
    env = state.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if env is None:
        return
    try:
        off = not bool(int(env))
    except ValueError:
        return  # vLLM's env reader fails on it; not modelled here
    if off:
        raise _pyd("HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0.")


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


def dbo_thresholds(state: State, values: dict) -> None:
    """0.30.0+ ParallelConfig._verify_args, last (0.30.0 config/parallel.py:1090-1100, 0.33.0
    :1178-1187): with microbatching on, both DBO token thresholds (defaults 32 and 512) must be
    at least the number of microbatches (2 with DBO, else --ubatch-size)."""
    from vllm_preflight.resolve.vllm_config.steps.checks import use_ubatching

    if not _since(state, (0, 30, 0)) or not use_ubatching(state):
        return
    n = 2 if state.parallel["enable_dbo"] else state.parallel["ubatch_size"]
    decode, prefill = values.get("dbo_decode_token_threshold"), values.get("dbo_prefill_token_threshold")
    if min(32 if decode is None else decode, 512 if prefill is None else prefill) < n:
        raise _pyd("dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the number of "
                   f"microbatches ({n}).", "ParallelConfig")


# ------------------------------------------------------------------------- after_async
def after_async(state: State, values: dict) -> None:
    """The last check of the explicit async-scheduling block (the executor backend), then
    0.29.0+ (0.33.0 config/vllm.py:1733-1741): per-request speculative metrics need a
    speculative config."""
    _async_executor(state, values)
    _proton_eager(state, values)
    metrics = values.get("per_request_spec_decode_metrics")
    if _since(state, (0, 29, 0)) and metrics not in (None, "none") and _spec(values) is None:
        raise _pyd("--per-request-spec-decode-metrics requires speculative decoding to be enabled "
                   "(via --speculative-config).")


def _proton(values: dict) -> dict | None:
    pc = option_json(values, "profiler_config")
    return pc if isinstance(pc, dict) and pc.get("profiler") == "proton" else None


def _proton_eager(state: State, values: dict) -> None:
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


def _async_executor(state: State, values: dict) -> None:
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


# ------------------------------------------------------------------ around the runners
def _use_eagle(state: State) -> bool:
    """SpeculativeConfig.use_eagle: EAGLE/EAGLE3/MTP (and MTP aliases), DFlash from 0.20.0,
    DSpark from 0.25.0."""
    method = state.speculative_method_resolved or state.speculative_method
    if not method:
        return False
    eagle = ["eagle", "eagle3", "mtp"]
    if _since(state, (0, 20, 0)):
        eagle.append("dflash")
    if _since(state, (0, 25, 0)):
        eagle.append("dspark")
    return method in eagle or method.endswith("_mtp")


def after_capture_sizes(state: State, values: dict) -> None:
    """Right after _set_cudagraph_sizes, before the splitting ops and the piecewise / DBO asserts
    (a pipeline hook, resolve/steps): 0.11.1+ KV-sharing fast prefill refuses EAGLE-like drafting
    (0.12.0 config/vllm.py:719, 0.33.0 :2015-2027); then, after the platform's config update,
    0.12.0-0.17.x the block size against the context-parallel KV interleave size (with DCP) and
    0.12.0 that interleave size with speculative decoding (0.12.0 :782-810)."""
    if _since(state, (0, 11, 1)) and values.get("kv_sharing_fast_prefill") and _use_eagle(state):
        raise _pyd("Fast prefill optimization for KV sharing is not compatible with EAGLE as EAGLE requires "
                   "correct logits for all tokens while fast prefill gives incorrect logits for prompt tokens.")
    _cp_interleave(state, values)


def before_runner(state: State, values: dict) -> None:
    """After the compilation steps, before the model runners' validation: HiSparse and the
    drafting slots."""
    hisparse_checks(state, values)
    _lookahead_slots(state, values)


def _lookahead_slots(state: State, values: dict) -> None:
    """0.33.0 `_set_max_num_scheduled_tokens` (config/vllm.py:2371): max_num_batched_tokens must
    exceed VllmConfig.num_lookahead_tokens: num_speculative_tokens for EAGLE/EAGLE3/MTP and draft
    models, one more for DFlash and for a DSpark draft with sample_from_anchor off (n-gram and the
    others reserve none). Before 0.33.0: `_drafting_slots`. Here the max_num_scheduled_tokens
    <= 0 refusal is unreachable (SchedulerConfig's ge=1; no drafting slots are subtracted)."""
    spec = _spec(values)
    if spec is None:
        return
    method = state.speculative_method_resolved or state.speculative_method or ""
    k = state.num_speculative_tokens
    if not _since(state, (0, 33, 0)):
        _drafting_slots(state, values, method, k, _parallel_drafting(state, spec, method))
        return
    from vllm_preflight.resolve.speculative.draft_features import dspark_fill_in

    if method == "dflash" or dspark_fill_in(state):
        lookahead = k + 1
    elif method in ("eagle", "eagle3", "mtp", "draft_model", "dspark"):
        lookahead = k
    else:
        return
    mnbt = state.scheduler.get("max_num_batched_tokens")
    if isinstance(mnbt, int) and lookahead and mnbt <= lookahead:
        raise _pyd("VllmConfig does not have enough slots to schedule a token and support the speculative decoding "
                   f"settings. Got max_num_batched_tokens={mnbt} and num_lookahead_tokens={lookahead}.")


def _parallel_drafting(state: State, spec: dict, method: str) -> bool:
    """SpeculativeConfig.parallel_drafting as __post_init__ leaves it: as given, and on for a DFlash
    draft (0.20.0+) or a DSpark one (0.25.0+) whatever was given (0.28.0 speculative.py:1046)."""
    native = ("dflash", "dspark") if _since(state, (0, 25, 0)) else ("dflash",)
    return spec.get("parallel_drafting") is True or method in native


def _drafting_slots(state: State, values: dict, method: str, k: int, parallel: bool) -> None:
    """0.17.0-0.32.x `_set_max_num_scheduled_tokens` with SpeculativeConfig.max_num_new_slots_for_drafting
    (parallel drafting: --speculative-config parallel_drafting, DFlash always).
    0.17.0-0.27.x (0.20.0 config/speculative.py:954-967): K-1 slots per request with parallel
    drafting, one more for a draft model; max_num_scheduled_tokens = max_num_batched_tokens -
    slots x max_num_seqs, refused at <= 0 from 0.20.0 (0.20.0 config/vllm.py:1392; 0.17.0-0.19.x
    let it go negative). 0.28.0-0.32.x (0.28.0 config/speculative.py:1421-1460): DFlash K, parallel
    drafting K-1 (a draft model K), a draft model 1; max_num_batched_tokens must exceed them
    (0.28.0 config/vllm.py, "does not have enough slots"). A --max-num-scheduled-tokens given
    (0.26.0+) replaces the derived value: 0 is refused as a derived one is (its field allows 0 until
    0.31.x), and 0.26.0-0.27.x refuse one that leaves fewer than the slots free (0.26.0
    config/vllm.py:1689-1739)."""
    mnbt, mns = state.scheduler.get("max_num_batched_tokens"), state.scheduler.get("max_num_seqs")
    if not isinstance(mnbt, int) or not isinstance(mns, int) or not _since(state, (0, 20, 0)):
        return
    given = values.get("max_num_scheduled_tokens") if _since(state, (0, 26, 0)) else None
    given = given if isinstance(given, int) and not isinstance(given, bool) else None
    draft_model = method == "draft_model"
    if not _since(state, (0, 28, 0)):
        delta = ((k - 1 if parallel else 0) + (1 if draft_model else 0)) * mns
        left = mnbt - delta if given is None else given
        if left <= 0:
            raise _pyd(f"max_num_scheduled_tokens is set to {left} based on the speculative decoding settings, which "
                       "does not allow any tokens to be scheduled. Increase max_num_batched_tokens to accommodate "
                       "the additional draft token slots, or decrease num_speculative_tokens or max_num_seqs.")
        if mnbt < left + delta:
            raise _pyd("VllmConfig received max_num_scheduled_tokens but it does not have enough slots to support the "
                       f"speculative decoding settings. It should be greater by at least {delta}, but got "
                       f"max_num_batched_tokens={mnbt} and max_num_scheduled_tokens={left}.")
        return
    if given is not None and given <= 0:
        raise _pyd(f"max_num_scheduled_tokens is set to {given} based on the speculative decoding settings, which "
                   "does not allow any tokens to be scheduled. Increase max_num_batched_tokens to accommodate the "
                   "additional draft token slots, or decrease num_speculative_tokens.")
    if method == "dflash":
        slots = k
    elif parallel:
        slots = k if draft_model else k - 1
    else:
        slots = 1 if draft_model else 0
    if mnbt <= slots:
        raise _pyd("VllmConfig does not have enough slots to schedule a token and support the speculative decoding "
                   f"settings. Got max_num_batched_tokens={mnbt} and scheduled_token_delta={slots}.")


def _cp_interleave(state: State, values: dict) -> None:
    """0.12.0-0.17.x asserts (0.12.0 config/vllm.py:780-809, 0.17.0 :1022-1046): with DCP the
    block size must be a multiple of (and at least) cp_kv_cache_interleave_size, which a
    dcp_kv_cache_interleave_size > 1 overrides; 0.12.0 also refuses an interleave size > 1 with
    any speculative config. The block size is the platform's default 16 unless given; for MLA
    and hybrid models (other defaults) only a given --block-size is checked."""
    if not _since(state, (0, 12, 0)) or _since(state, (0, 18, 0)):
        return
    par = state.parallel
    cp = values.get("cp_kv_cache_interleave_size") or 1
    if (par.get("decode_context_parallel_size") or 1) > 1:
        dcp_size = values.get("dcp_kv_cache_interleave_size") or 1
        if dcp_size > 1 and cp != dcp_size:
            cp = dcp_size
            state.log("warning", "cp_kv_cache_interleave_size is overridden by dcp_kv_cache_interleave_size. And "
                                 "dcp-kv-cache-interleave-size will be deprecated when PCP is fully supported.",
                      once=True)
        block = values.get("block_size")
        if block is None and state.model is not None and not state.model.is_mla:
            from vllm_preflight.resolve.runtime import _has_inner_state

            block = None if _has_inner_state(state) else 16
        if isinstance(block, int) and isinstance(cp, int) and cp > 0 and not (cp <= block and block % cp == 0):
            raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, "
                                             f"Block_size({block}) should be greater than or equal to and divisible "
                                             f"by cp_kv_cache_interleave_size ({cp}).")
    if state.release.key < (0, 13, 0) and cp != 1 and _spec(values) is not None:
        raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, MTP with "
                                         "cp_kv_cache_interleave_size > 1 is not supported now.")


def v1_features(state: State, values: dict) -> dict[str, bool]:
    """Features of _get_v1_model_runner_unsupported_features this module reads (0.29.0+):
    adaptive draft verification, batch-sharded sampling, a draft lm_head quantization and Step5
    models (0.33.0)."""
    spec = _spec(values)
    arch = state.model.architecture if state.model is not None else ""
    return {"adaptive": _adaptive(values), "batch_sharded": bool(values.get("enable_batch_sharded_sampling")),
            "draft_lm_head_quant": bool(spec and spec.get("draft_lm_head_quantization") is not None),
            "step5": arch in ("Step5ForCausalLM", "Step5ForConditionalGeneration")}


def after_runner(state: State, values: dict) -> None:
    """What `__post_init__` checks after the model runners' validation, then the model
    validators that run once it returns."""
    _routed_experts_0_21(state, values)
    _profiler(state, values)
    _batch_sharded_sampling(state, values)
    _adaptive_verification(state, values)
    _compile_range_endpoints(state, values)
    _moonep(state, values)
    _aux_output(state, values)
    _hybrid_kv_cache_manager(state, values)
    _hisparse_hma(state, values)
    _kv_sleep_mode(state, values)
    _kv_transfer_expandable_segments(state, values)
    _nvfp4_mla(state, values)
    _mamba_block_size(state, values)
    from vllm_preflight.resolve.vllm_config import replayssm as replayssm_checks

    replayssm_checks.check(state, values)  # validate_mamba_cached_kernel, the last model validator


def _async_on(state: State, values: dict) -> bool:
    """SchedulerConfig.async_scheduling once 0.21.0's __post_init__ has decided it: as given,
    else off for pooling models, speculative methods other than EAGLE/MTP/DFlash/NGram-GPU
    (and extract_hidden_states), a drafter without padded batches, or the ray executor."""
    given = values.get("async_scheduling")
    if given is not None:
        return bool(given)
    if state.model_cfg.get("is_pooling"):
        return False
    spec = _spec(values)
    if spec is not None:
        method = state.speculative_method_resolved or state.speculative_method or ""
        if method not in ("eagle", "eagle3", "extract_hidden_states", "mtp", "dflash", "ngram_gpu") \
                and not method.endswith("_mtp"):
            return False
        if spec.get("disable_padded_drafter_batch"):
            return False
    return values.get("distributed_executor_backend") != "ray"


def _routed_experts_0_21(state: State, values: dict) -> None:
    """0.21.x `_validate_return_routed_experts` (0.21.0 config/vllm.py:1202-1206, :1898-1941):
    routed experts capture is not yet validated with PP, PCP, DCP or async scheduling (which is
    on by default)."""
    if state.release.key[:2] != (0, 21) or not values.get("enable_return_routed_experts"):
        return
    par, found = state.parallel, []
    pp, dcp = par["pipeline_parallel_size"], par.get("decode_context_parallel_size") or 1
    pcp = values.get("prefill_context_parallel_size") or 1
    if pp > 1:
        found.append(f"pipeline parallelism (pipeline_parallel_size={pp})")
    if pcp > 1:
        found.append(f"prefill context parallelism (prefill_context_parallel_size={pcp})")
    if dcp > 1:
        found.append(f"decode context parallelism (decode_context_parallel_size={dcp})")
    if _async_on(state, values):
        found.append("async scheduling")
    if found:
        raise _pyd("--enable-return-routed-experts is not yet validated with: " + ", ".join(found)
                   + ". Disable these features or omit --enable-return-routed-experts.")


def _profiler(state: State, values: dict) -> None:
    """0.30.0+ `_validate_profiler_config` (0.30.0 config/vllm.py, 0.33.0 :3264-3300): graph
    attribution needs Model Runner V2; with CUDA graphs (the final mode, or the encoder's unless
    eager) PC sampling is refused and attribution is required."""
    pc = _proton(values)
    if not _since(state, (0, 30, 0)) or pc is None:
        return
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if pc.get("proton_graph_attribution") is True and not _uses_v2_runner(state):
        raise _pyd("Proton CUDA graph attribution requires the V2 model runner.")
    graphs = (state.cc.get("cudagraph_mode") or "NONE") != "NONE" or (
        bool(state.cc.get("cudagraph_mm_encoder")) and not state.model_cfg.get("enforce_eager"))
    if not graphs:
        return
    mode = pc.get("proton_mode")
    if isinstance(mode, str) and mode and mode.split(":", 1)[0].lower() == "pcsampling":
        raise _pyd("Proton PC sampling requires CUDA graphs to be disabled. Use --enforce-eager.")
    if pc.get("proton_graph_attribution") is not True:
        raise _pyd("Proton profiling with CUDA graphs requires proton_graph_attribution=True to capture replayed "
                   "kernels. Enable attribution or use --enforce-eager.")


def _compile_range_endpoints(state: State, values: dict) -> None:
    """0.13.0+ `_set_compile_ranges` asserts each point the user gave is positive (0.13.0-0.17.x
    compile_ranges_split_points, "split point"; 0.18.0+ compile_ranges_endpoints, "endpoint";
    0.33.0 config/vllm.py:2728), whatever the compilation mode."""
    if not _since(state, (0, 13, 0)):
        return
    key, word = ("compile_ranges_endpoints", "endpoint") if _since(state, (0, 18, 0)) else \
        ("compile_ranges_split_points", "split point")
    points = state.cc.get(key) if key in state.cc_given else None
    for x in points if isinstance(points, list) else []:
        if isinstance(x, int) and not isinstance(x, bool) and x <= 0:
            raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, "
                                             f"Invalid compile range {word}: {x}")


def _moonep(state: State, values: dict) -> None:
    """0.31.0+ (0.33.0 config/vllm.py:2105-2137): the MoonEP all2all backend takes unquantized
    BF16 models, no EPLB and linear expert placement."""
    if not _since(state, (0, 31, 0)) or state.parallel.get("all2all_backend") != "moonep":
        return
    quant = state.model_cfg.get("quantization")
    if quant is not None:
        raise _pyd(f"The moonep all2all backend currently supports unquantized BF16 models only; got "
                   f"quantization={quant!r}. Use a different --all2all-backend for quantized models.")
    from vllm_preflight.resolve.model.quantization import model_dtype

    dtype = model_dtype(state.model, values, bool(state.model_cfg.get("is_pooling"))) if state.model else None
    if dtype is not None and dtype != "bfloat16":
        raise _pyd(f"The moonep all2all backend currently supports BF16 models only; got dtype=torch.{dtype}. Use "
                   "a different --all2all-backend or --dtype bfloat16.")
    if values.get("enable_eplb"):
        raise _pyd("The moonep all2all backend does not support EPLB yet: EPLB rearranges expert parameters in a "
                   "layout MoonEP's replicated [E+B] weights do not follow. Disable --enable-eplb or use a "
                   "different --all2all-backend.")
    placement = values.get("expert_placement_strategy") or "linear"
    if placement != "linear":
        raise _pyd("The moonep all2all backend requires linear expert placement: its load-time all-gather assumes "
                   "each rank holds a contiguous chunk of the global expert range. Got "
                   f"--expert-placement-strategy {placement!r}.")


def _batch_sharded_sampling(state: State, values: dict) -> None:
    """0.29.0+ `_validate_batch_sharded_sampling`: the reasons an explicitly enabled
    batch-sharded sampler cannot run (0.29.0-0.32.0 also adaptive verification)."""
    if not _since(state, (0, 29, 0)) or not values.get("enable_batch_sharded_sampling"):
        return
    blockers = []
    tp = state.parallel["tensor_parallel_size"]
    mns = state.scheduler.get("max_num_seqs") or 0
    if tp <= 1:
        blockers.append("tensor_parallel_size is 1, so there is nothing to shard")
    elif mns < tp:
        blockers.append(f"max_num_seqs ({mns}) is below tensor_parallel_size ({tp})")
    max_logprobs = values.get("max_logprobs")
    if isinstance(max_logprobs, int) and max_logprobs < 0:
        blockers.append("max_logprobs is -1, allowing vocab-size logprob requests")
    if _since(state, (0, 33, 0)):
        if values.get("return_sampling_mask"):
            blockers.append("return_sampling_mask is set and the batch-sharded gather does not forward "
                            "sampling masks")
    elif _adaptive(values):
        blockers.append("it does not yet work with adaptive verification, which decides the per-request "
                        "logits counts on the GPU, where the CPU-side shard plan cannot see them")
    if blockers:
        raise _pyd("Batch-sharded sampling was explicitly enabled via the --enable-batch-sharded-sampling flag, "
                   "but is not supported in this configuration for the following reason(s): "
                   f"{'; '.join(blockers)}.")


def _adaptive_verification(state: State, values: dict) -> None:
    """0.29.0+ `_validate_adaptive_verification`: not with LoRA, not without CUDA graphs
    (0.29.0: mode NONE; 0.30.0+: without full graphs), not with PP."""
    if not _since(state, (0, 29, 0)) or not _adaptive(values):
        return
    if values.get("enable_lora"):
        raise _pyd("Adaptive verification is not currently compatible with LoRA")
    from vllm_preflight.resolve.base import modes

    mode = state.cc.get("cudagraph_mode") or "NONE"
    if not _since(state, (0, 30, 0)):
        if mode == "NONE":
            raise _pyd("Adaptive verification is not currently compatible with enforce_eager/cudagraph_mode=none")
    elif not modes.has_full_cudagraphs(mode):
        raise _pyd("Adaptive verification requires full CUDA graphs. Use cudagraph mode FULL, FULL_DECODE_ONLY, "
                   "or FULL_AND_PIECEWISE, or disable adaptive verification.")
    if state.parallel["pipeline_parallel_size"] > 1:
        raise _pyd("Adaptive verification is not currently compatible with pipeline parallelism")


_AUX_PD_CONNECTORS = ("NixlConnector", "NixlPullConnector", "NixlPushConnector", "MoRIIOConnector",
                      "MooncakeConnector")


def _aux_output(state: State, values: dict) -> None:
    """0.31.0+ `_verify_aux_output_compatibility` (0.31.0 config/vllm.py:1160, 0.33.0 :1187):
    Model Runner V2 first, then a generate runner, an MoE model, prefix caching, and none of
    adaptive verification, PP, context parallelism or a PD connector."""
    if not _since(state, (0, 31, 0)) or not _routed_experts(state):
        return
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if not _uses_v2_runner(state):
        raise _pyd("AuxOutput Connector requires Model Runner V2; set VLLM_USE_V2_MODEL_RUNNER=1.")
    if state.model_cfg.get("is_pooling"):
        raise _pyd("AuxOutput Connector only supports generate runners.")
    if state.model is not None and not state.model.is_moe:
        raise _pyd("AuxOutput Connector only supports MoE models.")
    if prefix_caching(state, values) is False:
        raise _pyd("AuxOutput Connector requires prefix caching.")
    if _adaptive(values):
        raise _pyd("--enable-return-routed-experts is incompatible with adaptive speculative verification.")
    par = state.parallel
    if par["pipeline_parallel_size"] > 1:
        raise _pyd("--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).")
    if (par.get("decode_context_parallel_size") or 1) > 1 or (par.get("prefill_context_parallel_size") or 1) > 1:
        raise _pyd("--enable-return-routed-experts is incompatible with context parallelism (DCP/PCP > 1).")
    kv = _kv(values)
    if kv is not None:
        for name in _AUX_PD_CONNECTORS:
            if _has_connector(kv, name):
                raise _pyd(f"--enable-return-routed-experts is incompatible with {name}; PD auxiliary output is "
                           "not supported.")


def _hybrid_kv_cache_manager(state: State, values: dict) -> None:
    """0.13.0+: the hybrid KV cache manager enabled explicitly (--no-disable-hybrid-kv-cache-manager,
    0.33.0 also --enable-hybrid-kv-cache-manager) where vLLM would turn it off: KV cache events
    (0.13.0-0.20.x), chunked local attention with EAGLE-like drafting, or without
    VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE (default 0 in 0.13.0, 1 from 0.14.0)
    (0.13.0 config/vllm.py:895-940, 0.33.0 :2233-2289). A KV connector's own HMA support only
    matters when nothing was asked."""
    if not _since(state, (0, 13, 0)) or values.get("disable_hybrid_kv_cache_manager") is not False:
        return
    need = not _since(state, (0, 21, 0)) and option_json(values, "kv_events_config") is not None
    raw = state.model.raw_config if state.model is not None else None
    text = raw.get("text_config") if isinstance(raw, dict) and isinstance(raw.get("text_config"), dict) else raw
    if isinstance(text, dict) and text.get("attention_chunk_size") is not None:
        env = state.env.get("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE",
                            "1" if _since(state, (0, 14, 0)) else "0")
        try:
            allowed = bool(int(env))
        except ValueError:
            return  # vLLM's env reader fails on it; not modelled here
        need = need or _use_eagle(state) or not allowed
    if need:
        flag = "--enable-hybrid-kv-cache-manager" if _since(state, (0, 33, 0)) else \
            "--no-disable-hybrid-kv-cache-manager"
        raise _pyd("Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. "
                   f"Consider omitting the {flag} flag to let vLLM decide automatically.")


def _hisparse_hma(state: State, values: dict) -> None:
    """0.30.0+ (0.33.0 config/vllm.py:2296): HiSparse needs the hybrid KV cache manager. Only an
    explicit --disable-hybrid-kv-cache-manager is modelled (not a connector without HMA support
    that turns the manager off)."""
    if values.get("disable_hybrid_kv_cache_manager") is True and _hisparse(state, values):
        raise _pyd("HiSparse requires the hybrid KV cache manager; remove --disable-hybrid-kv-cache-manager or use "
                   "connectors that support HMA.")


_MOONCAKE_NO_SLEEP_ENV = ("MC_FORCE_MNNVL", "MC_INTRANODE_NVLINK", "MC_USE_TENT", "MC_USE_TEV1")


def _sleep_mode_ok(state: State, kv: dict) -> bool:
    """KVConnectorBase_V1.supports_sleep_mode (0.33.0): yes by default; never for
    MooncakeStoreConnector and MoRIIOConnector; MooncakeConnector only over RDMA (no NVLink / TENT
    environment variable, mooncake_protocol rdma); a MultiConnector when all its children can."""
    name = kv.get("kv_connector")
    extra = kv.get("kv_connector_extra_config")
    extra = extra if isinstance(extra, dict) else {}
    if name in ("MooncakeStoreConnector", "MoRIIOConnector"):
        return False
    if name == "MooncakeConnector":
        return not any(v in state.env for v in _MOONCAKE_NO_SLEEP_ENV) and \
            extra.get("mooncake_protocol", "rdma") == "rdma"
    if name == "MultiConnector":
        children = extra.get("connectors")
        return all(_sleep_mode_ok(state, c) for c in children if isinstance(c, dict)) \
            if isinstance(children, list) else True
    return True


def _kv_sleep_mode(state: State, values: dict) -> None:
    """0.33.0 `_verify_kv_transfer_compat` (config/vllm.py:1255-1267): with --enable-sleep-mode
    the KV connector must follow sleep mode's KV cache remap."""
    kv = _kv(values)
    if not _since(state, (0, 33, 0)) or kv is None or kv.get("kv_connector") is None:
        return
    if values.get("enable_sleep_mode") and not _sleep_mode_ok(state, kv):
        raise _pyd(f"{kv['kv_connector']} does not support sleep mode.")


def _kv_transfer_expandable_segments(state: State, values: dict) -> None:
    """0.21.0+ `_verify_kv_transfer_compat` (0.21.0 config/vllm.py:735-756, 0.33.0 :1246-1302): a
    KV connector with PYTORCH_CUDA_ALLOC_CONF's expandable_segments:True needs the cumem allocator
    (0.21.x: sleep mode; sleep mode turns the cumem allocator on in later releases). Not checked:
    a connector that only --kv-offloading-size names, and 0.33.0's sleep-mode support per connector."""
    kv = _kv(values)
    if not _since(state, (0, 21, 0)) or kv is None or kv.get("kv_connector") is None:
        return
    if "expandable_segments:True" not in state.env.get("PYTORCH_CUDA_ALLOC_CONF", ""):
        return
    if values.get("enable_sleep_mode") or (_since(state, (0, 22, 0)) and values.get("enable_cumem_allocator")):
        return
    if _since(state, (0, 22, 0)):
        unless = "enable_cumem_allocator"
        either = "enable the cumem allocator (sleep mode does this automatically and also routes"
    else:
        unless, either = "enable_sleep_mode", "enable sleep mode (which routes"
    raise _pyd(f"KV connector {kv['kv_connector']} is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
               f"unless {unless} is also enabled. PyTorch's CUDA VMM allocator can remap KV cache virtual addresses "
               "to different physical pages, invalidating any pinned/registered KV memory (e.g. IB memory regions "
               f"registered by NIXL or Mooncake). Either unset expandable_segments:True or {either} KV allocations "
               "through CuMemAllocator's pool, where expandable_segments is automatically disabled).")


def _nvfp4_mla(state: State, values: dict) -> None:
    """0.21.0+ model validator `validate_nvfp4_kv_cache_with_mla`: the plain NVFP4 KV layout
    is not for MLA models (0.30.0+: the *_ds_mla layouts are, and the message names them)."""
    cache = str(values.get("kv_cache_dtype") or "auto")
    if not _since(state, (0, 21, 0)) or state.model is None or not state.model.is_mla:
        return
    if _since(state, (0, 30, 0)):
        if not cache.startswith("nvfp4") or cache.endswith("_ds_mla"):
            return
        hint = "'fp8', 'auto', or 'nvfp4_ds_mla' with a sparse MLA backend"
    else:
        if cache != "nvfp4":
            return
        hint = "'fp8' or 'auto'"
    raise _pyd("nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use a "
               f"different --kv-cache-dtype (e.g., {hint}) for MLA models such as DeepSeek.")


def _mamba_block_size(state: State, values: dict) -> None:
    """0.11.1+ model validator `validate_mamba_block_size`: a --mamba-block-size other than
    max_model_len needs prefix caching."""
    size = values.get("mamba_block_size")
    if not _since(state, (0, 11, 1)) or size is None or size == state.model_cfg.get("max_model_len"):
        return
    if prefix_caching(state, values) is False:
        raise _pyd("--mamba-block-size can only be set with --enable-prefix-caching")
