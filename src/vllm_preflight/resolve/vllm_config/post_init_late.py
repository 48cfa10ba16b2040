"""The second half of VllmConfig.__post_init__ (vllm/config/vllm.py): after the CUDA-graph sizes
(KV-sharing fast prefill with EAGLE, the KV interleave size), before the model runners'
validation (HiSparse, drafting and lookahead slots), and after it (profiler, batch-sharded
sampling, adaptive verification, compile ranges, MoonEP, AuxOutput, the hybrid KV cache
manager, KV connectors and sleep mode / expandable segments; then the model validators)."""
from __future__ import annotations

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json
from vllm_preflight.resolve.cache.cache_config import prefix_caching
from vllm_preflight.resolve.vllm_config.common import (
    _adaptive,
    _has_connector,
    _kv,
    _parallel_drafting,
    _pyd,
    _routed_experts,
    _since,
    _spec,
)
from vllm_preflight.resolve.vllm_config.model_runner import uses_v2_runner
from vllm_preflight.resolve.vllm_config.post_init import _hisparse, _proton


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


@reads("kv_sharing_fast_prefill", "cp_kv_cache_interleave_size", "dcp_kv_cache_interleave_size", "decode_context_parallel_size", "prefill_context_parallel_size", "block_size", "speculative_config")
def after_capture_sizes(state: State, values: dict) -> None:
    """Right after _set_cudagraph_sizes, before the splitting ops and the piecewise / DBO asserts
    (a pipeline hook, resolve/vllm_config/steps): 0.11.1+ KV-sharing fast prefill refuses EAGLE-like drafting
    (0.12.0 config/vllm.py:719, 0.33.0 :2015-2027); then, after the platform's config update,
    0.12.0-0.17.x the block size against the context-parallel KV interleave size (with DCP) and
    0.12.0 that interleave size with speculative decoding (0.12.0 :782-810)."""
    if _since(state, (0, 11, 1)) and values.get("kv_sharing_fast_prefill") and _use_eagle(state):
        raise _pyd("Fast prefill optimization for KV sharing is not compatible with EAGLE as EAGLE requires "
                   "correct logits for all tokens while fast prefill gives incorrect logits for prompt tokens.")
    _cp_interleave(state, values)


@reads("speculative_config", "max_num_scheduled_tokens")
def lookahead_slots(state: State, values: dict) -> None:
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
            from vllm_preflight.resolve.vllm_config.model_runner import has_inner_state

            block = None if has_inner_state(state) else 16
        if isinstance(block, int) and isinstance(cp, int) and cp > 0 and not (cp <= block and block % cp == 0):
            raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, "
                                             f"Block_size({block}) should be greater than or equal to and divisible "
                                             f"by cp_kv_cache_interleave_size ({cp}).")
    if state.release.key < (0, 13, 0) and cp != 1 and _spec(values) is not None:
        raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, MTP with "
                                         "cp_kv_cache_interleave_size > 1 is not supported now.")


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


@reads("enable_return_routed_experts", "async_scheduling", "distributed_executor_backend", "prefill_context_parallel_size", "speculative_config")
def routed_experts_0_21(state: State, values: dict) -> None:
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


@reads("profiler_config", env=("VLLM_USE_V2_MODEL_RUNNER",))
def profiler(state: State, values: dict) -> None:
    """0.30.0+ `_validate_profiler_config` (0.30.0 config/vllm.py, 0.33.0 :3264-3300): graph
    attribution needs Model Runner V2; with CUDA graphs (the final mode, or the encoder's unless
    eager) PC sampling is refused and attribution is required."""
    pc = _proton(values)
    if not _since(state, (0, 30, 0)) or pc is None:
        return
    if pc.get("proton_graph_attribution") is True and not uses_v2_runner(state):
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


@reads(always=True)
def compile_range_endpoints(state: State, values: dict) -> None:
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


@reads("all2all_backend", "dtype", "enable_eplb", "expert_placement_strategy", env=("VLLM_ALL2ALL_BACKEND",))
def moonep(state: State, values: dict) -> None:
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


@reads("enable_batch_sharded_sampling", "max_logprobs", "return_sampling_mask", "speculative_config")
def batch_sharded_sampling(state: State, values: dict) -> None:
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


@reads("speculative_config", "enable_lora")
def adaptive_verification(state: State, values: dict) -> None:
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


@reads("enable_return_routed_experts", "aux_output_config", "enable_prefix_caching", "kv_transfer_config", "prefill_context_parallel_size", "speculative_config", env=("VLLM_USE_V2_MODEL_RUNNER",))
def aux_output(state: State, values: dict) -> None:
    """0.31.0+ `_verify_aux_output_compatibility` (0.31.0 config/vllm.py:1160, 0.33.0 :1187):
    Model Runner V2 first, then a generate runner, an MoE model, prefix caching, and none of
    adaptive verification, PP, context parallelism or a PD connector."""
    if not _since(state, (0, 31, 0)) or not _routed_experts(state):
        return
    if not uses_v2_runner(state):
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


@reads("disable_hybrid_kv_cache_manager", "kv_events_config", env=("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE",))
def hybrid_kv_cache_manager(state: State, values: dict) -> None:
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


@reads("attention_config", "disable_hybrid_kv_cache_manager", "kv_transfer_config")
def hisparse_hma(state: State, values: dict) -> None:
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


@reads("kv_transfer_config", "enable_sleep_mode")
def kv_sleep_mode(state: State, values: dict) -> None:
    """0.33.0 `_verify_kv_transfer_compat` (config/vllm.py:1255-1267): with --enable-sleep-mode
    the KV connector must follow sleep mode's KV cache remap."""
    kv = _kv(values)
    if not _since(state, (0, 33, 0)) or kv is None or kv.get("kv_connector") is None:
        return
    if values.get("enable_sleep_mode") and not _sleep_mode_ok(state, kv):
        raise _pyd(f"{kv['kv_connector']} does not support sleep mode.")


@reads("kv_transfer_config", "enable_cumem_allocator", "enable_sleep_mode", env=("PYTORCH_CUDA_ALLOC_CONF",))
def kv_transfer_expandable_segments(state: State, values: dict) -> None:
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


@reads("kv_cache_dtype")
def nvfp4_mla(state: State, values: dict) -> None:
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


@reads("mamba_block_size", "enable_prefix_caching", "prefill_context_parallel_size")
def mamba_block_size(state: State, values: dict) -> None:
    """0.11.1+ model validator `validate_mamba_block_size`: a --mamba-block-size other than
    max_model_len needs prefix caching."""
    size = values.get("mamba_block_size")
    if not _since(state, (0, 11, 1)) or size is None or size == state.model_cfg.get("max_model_len"):
        return
    if prefix_caching(state, values) is False:
        raise _pyd("--mamba-block-size can only be set with --enable-prefix-caching")
