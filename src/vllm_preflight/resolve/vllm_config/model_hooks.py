"""Per-architecture config hooks that refuse a config or change a compiled setting (issue 9).

vLLM's `VllmConfig.try_verify_and_update_config`, the first step of `__post_init__`, looks
the model's architecture up in `MODELS_CONFIG_MAP` (vllm/model_executor/models/config.py)
and lets that class check and adjust the config (`verify_and_update_config`). From 0.14.0
the same map also has a ModelConfig-stage hook (`verify_and_update_model_config`, run at the
end of ModelConfig construction, so its ValueError reads "validation error for
ModelConfig"). Hooks that only touch pooling, RoPE or cache settings are not ported; the
list with file:line per release is in docs/config-path-map.md.

Each hook below is one small function; `VLLM_HOOKS` / `MODEL_HOOKS` key them by
architecture with the first release that has them (and the release where a hook's own
rule changes is read from `_SINCE`). Both stages run from `try_verify_and_update_config` (the
registry's step where VllmConfig.__post_init__ begins, resolve/path.py), model stage first. hf_config keys
come from config.json (`ModelFacts.config_value`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vllm_preflight.releases.architectures import MAMBA_ARCHS
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json, validation_error
from vllm_preflight.resolve.model.arch_config import _is_hybrid

Values = dict[str, Any]


def _since(state: State, first: tuple) -> bool:
    return state.release.key >= first


def _model_error(message: str, kind: str = "Value error") -> Refusal:
    """A ValueError (or AssertionError) raised by a ModelConfig-stage hook: ModelConfig is a
    pydantic dataclass, so its caller sees a ValidationError; other exceptions pass as they are."""
    return Refusal("ValidationError", f"1 validation error for ModelConfig\n  {kind}, {message}")


def _attention_backend(values: Values) -> str | None:
    """The attention backend the user chose (--attention-backend, or --attention-config's
    backend); None for automatic selection."""
    chosen = values.get("attention_backend")
    if not chosen:
        ac = option_json(values, "attention_config")
        if isinstance(ac, dict):
            chosen = ac.get("backend")
    if not chosen or str(chosen).strip().lower() == "auto":
        return None
    return str(chosen).strip().upper()


# ------------------------------------------------------------------ VllmConfig stage
def gpt_oss(state: State, values: Values) -> None:
    """GptOssForCausalLM: the largest capture size goes to 1024 unless the user set capture
    sizes or their maximum (0.11.1+; read in every release's models/config.py); 992 on 0.11.0."""
    cc = state.cc
    if "max_cudagraph_capture_size" not in state.release.facts["compilation_fields"]:
        # 0.11.0: a single scheduler size below 992 becomes the 992-wide list (1, 2, 4, 8..248, 256..992)
        sched = state.scheduler
        sizes = sched.get("cuda_graph_sizes") or [min(sched["max_num_seqs"] * 2, 512)]
        if len(sizes) == 1 and sizes[0] < 992:
            sched["cuda_graph_sizes"] = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 993, 16))
            state.log("info", "Overriding max cuda graph capture size to 992 for performance.")
        return
    if cc.get("cudagraph_capture_sizes") is None and cc.get("max_cudagraph_capture_size") is None:
        cc["max_cudagraph_capture_size"] = 1024
        state.log("info", "Overriding max cuda graph capture size to 1024 for performance.")


def longcat_flash_ngram(state: State, values: Values) -> None:
    """LongcatFlashNgramForCausalLM (0.26.0+): no compilation and FULL graphs unless the user
    set them."""
    cc = state.cc
    if cc.get("mode") is None:
        cc["mode"] = "NONE"
    if cc.get("cudagraph_mode") is None:
        cc["cudagraph_mode"] = "FULL"


# AliceAI refuses the speculative methods that need auxiliary hidden states
_ALICE_AUX_METHODS = ("dflash", "dspark", "eagle3", "extract_hidden_states")


def alice_ai(state: State, values: Values) -> None:
    """AliceAIForCausalLM (0.33.0): no pipeline parallelism, no speculative method that needs
    auxiliary hidden states."""
    if state.parallel.get("pipeline_parallel_size", 1) != 1:
        raise Refusal("NotImplementedError", "AliceAI does not support pipeline parallelism; "
                      "pipeline_parallel_size=1 is required")
    method = state.speculative_method_resolved
    if method in _ALICE_AUX_METHODS:
        raise Refusal("NotImplementedError", f"AliceAI does not support speculative method {method!r} "
                      "because it requires auxiliary hidden states")


# ParallelConfig.use_sequence_parallel_moe: these backends with EP, TP > 1 and DP > 1
_MOE_SP_BACKENDS = ("allgather_reducescatter", "deepep_high_throughput", "deepep_low_latency", "deepep_v2",
                    "flashinfer_nvlink_one_sided", "passthrough", "mori_high_throughput", "mori_low_latency",
                    "nixl_ep")


def qwen4_exp(state: State, values: Values) -> None:
    """Qwen4Exp* (0.29.0+): hyper-connections required; MoE sequence parallelism (0.32.0+) and
    the n-gram PLE embedding need PP=1; PLE/QSA exclude dual-batch overlap and microbatching;
    speculative decoding only with MTP or n-gram proposers."""
    facts = state.model
    if facts is None:
        return
    if int(facts.config_value("hc_count", 4, text=True)) <= 1:
        raise validation_error("Qwen4Exp requires hc_count > 1")
    par = state.parallel
    pp = par.get("pipeline_parallel_size", 1)
    if _since(state, _SINCE["qwen4_exp_moe_sp"]) and pp != 1 and par.get("enable_expert_parallel") \
            and par.get("tensor_parallel_size", 1) > 1 and par.get("data_parallel_size", 1) > 1 \
            and par.get("all2all_backend") in _MOE_SP_BACKENDS:
        raise validation_error("Qwen4Exp MoE SP requires PP=1")
    ple = bool(facts.config_value("ple_layer_ids", None, text=True))
    qsa = facts.config_value("indexer_n_heads", None, text=True) is not None
    if (ple or qsa) and (par.get("enable_dbo") or int(values.get("ubatch_size") or 0) > 1):
        raise Refusal("NotImplementedError", "Qwen4Exp PLE/QSA does not support dual-batch overlap or microbatching")
    if ple and pp > 1:
        raise Refusal("NotImplementedError", "Qwen4Exp N-gram PLE embedding requires pipeline_parallel_size=1 "
                      "because non-first pipeline ranks do not receive the raw input_ids it needs. "
                      "Please run with PP=1.")
    method = state.speculative_method_resolved
    if method is not None and method not in ("mtp", "ngram", "ngram_gpu"):
        raise Refusal("NotImplementedError", "Qwen4Exp speculative decoding supports only its native MTP "
                      "checkpoint and linear n-gram proposers")


# MambaModelConfig's own graph mode (0.11.0 only): the mamba architectures of the map and
# the hybrid ones (IsHybrid in 0.11.0's registry: `_is_hybrid`, which also counts the
# MiniMaxForCausalLM / MiniMaxM1ForCausalLM aliases of MiniMaxText01's class) get
# FULL_AND_PIECEWISE when no mode is set, except these two (by registered name,
# 0.11.0 model_executor/models/config.py:301-304)
_MAMBA_ARCHS = MAMBA_ARCHS
_NO_FULL_GRAPHS_0_11 = ("Lfm2ForCausalLM", "MiniMaxText01ForCausalLM")


def mamba_0_11(state: State, values: Values) -> None:
    """MambaModelConfig on 0.11.0 (also run for hybrid models): cudagraph_mode
    FULL_AND_PIECEWISE when the user set none, before the defaults (so even with -O0)."""
    arch = state.model.architecture if state.model is not None else ""
    if arch in _NO_FULL_GRAPHS_0_11 or state.cc.get("cudagraph_mode") is not None:
        return
    msg = ("Hybrid or mamba-based model detected: setting cudagraph mode to FULL_AND_PIECEWISE in order to "
           "optimize performance.")
    state.log("info", msg)
    state.set("cc.cudagraph_mode", "FULL_AND_PIECEWISE", "model_hooks.mamba", msg)


# the assert's text, by first release
_MAMBA_CHUNKED_MESSAGES = (((0, 15, 0), "Chunked prefill is required for mamba cache mode 'align'."),
                           ((0, 33, 0), "Chunked prefill is required for Mamba prefix caching."))


# hybrid, with SupportsMambaPrefixCaching until it left the registry (0.15.0 bamba.py:396-404)
_BAMBA = {"BambaForCausalLM": (0, 24, 0)}


# classes with SupportsMambaPrefixCaching (mamba cache mode "all"), 0.15.0-0.31.x
_MAMBA_ALL_MODE = frozenset({"MambaForCausalLM", "FalconMambaForCausalLM", "Mamba2ForCausalLM", "FalconH1ForCausalLM",
                             "GraniteMoeHybridForCausalLM", "JambaForCausalLM", "JambaForSequenceClassification",
                             "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "Zamba2ForCausalLM"})


def mamba_prefix_caching(state: State, values: Values) -> None:
    """MambaModelConfig (mamba and hybrid models) with prefix caching on: 0.22.0-0.31.x pick a
    mamba cache mode ("all" where the model supports it, else "align"; from 0.28.0 "align"
    unless the user asked for "all") and "align" needs chunked prefill; from 0.32.0 prefix
    caching always needs it. Prefix caching is on by default for generative hybrid models from
    0.28.0: until 0.25.x they do not support it, and 0.26.0-0.27.x keep it opt-in (0.26.0
    engine/arg_utils.py:2518-2522; pure mamba models are attention-free: off)."""
    arch = state.model.architecture if state.model is not None else ""
    caching = values.get("enable_prefix_caching")
    if caching is None:
        caching = _is_hybrid(state, arch) and not state.model_cfg.get("is_pooling") \
            and _since(state, _SINCE["hybrid_prefix_caching_default"])
    if not caching:
        return
    all_mode = arch in _MAMBA_ALL_MODE or (arch in _BAMBA and state.release.key < _BAMBA[arch])
    if not _since(state, _SINCE["mamba_chunked_prefill_assert"]):
        mode = values.get("mamba_cache_mode") or "none"
        if mode == "none":
            aligned_default = _since(state, _SINCE["mamba_align_by_default"])
            mode = "align" if aligned_default or not all_mode else "all"
        if mode == "all" and not all_mode:
            mode = "align"
        if mode != "align":
            return
    if not state.scheduler.get("enable_chunked_prefill"):
        msg = ""
        for first, text in _MAMBA_CHUNKED_MESSAGES:
            if _since(state, first):
                msg = text
        raise validation_error(msg, "Assertion failed")
    if not _since(state, _SINCE["mamba_align_speculative_ok"]) and values.get("speculative_config") is not None:
        # 0.15.0-0.16.x: the second assert of mode "align" (0.15.0 models/config.py:356-359)
        raise validation_error("Mamba cache mode 'align' is currently not compatible with speculative decoding.",
                               "Assertion failed")


def deepseek_v32(state: State, values: Values) -> None:
    """DeepseekV32ForCausalLM (every release): the config must carry `index_topk` (a bare
    assert: pydantic's "Assertion failed, " with no text). Every release loads model_type
    deepseek_v32 with its own DeepseekV3Config, which has no default for it: only the key in
    config.json counts (even null)."""
    facts = state.model
    if facts is None or facts.raw_config is None:
        return
    if "index_topk" not in facts.raw_config:
        raise validation_error("", "Assertion failed")


def diffusion_gemma(state: State, values: Values) -> None:
    """DiffusionGemmaForBlockDiffusion (0.24.0+): FlashInfer is refused; at least the default
    max_num_seqs (128) becomes 8, which also shrinks the CUDA graph capture sizes."""
    if _attention_backend(values) == "FLASHINFER":
        raise validation_error("FlashInfer does not support DiffusionGemma's mixed causal/bidirectional "
                               "attention. Use --attention-backend FLASH_ATTN or TRITON_ATTN instead.")
    # the DiffusionConfig it creates when none is given: each request decodes a whole canvas,
    # which vLLM counts as speculative tokens (VllmConfig.num_speculative_tokens) when it sizes
    # the CUDA graphs
    given = option_json(values, "diffusion_config")
    canvas = given.get("canvas_length") if isinstance(given, dict) else None
    if canvas is None and not isinstance(given, dict):
        canvas = state.model.config_value("canvas_length", 256) if state.model is not None else 256
    if isinstance(canvas, int) and not state.num_speculative_tokens:
        state.num_speculative_tokens = canvas
    sched = state.scheduler
    if sched.get("max_num_seqs", 0) >= 128:
        state.set("scheduler.max_num_seqs", 8, "model_hooks.diffusion_gemma",
                  "DiffusionGemma: the diffusion sampler's memory limits max_num_seqs to 8 when it is not set "
                  "below the default (128)")


# the class path of an AttentionBackendEnum member (its repr is in vLLM's message), for the
# backends a CUDA deployment may name; the same path in every release 0.25.0-0.33.0
_B = "vllm.v1.attention.backends."
_BACKEND_PATHS = {
    "FLASH_ATTN_DIFFKV": _B + "flash_attn_diffkv.FlashAttentionDiffKVBackend",
    "TRITON_ATTN_DIFFKV": _B + "triton_attn_diffkv.TritonAttentionDiffKVBackend",
    "TRITON_FLASH_ATTN": _B + "triton_flash_attn.TritonFlashAttentionBackend",
    "FLASHINFER": _B + "flashinfer.FlashInferBackend",
    "TRITON_FLASHINFER": _B + "triton_flashinfer.TritonFlashInferBackend",
    "FLASHINFER_MLA": _B + "mla.flashinfer_mla.FlashInferMLABackend",
    "TOKENSPEED_MLA": _B + "mla.tokenspeed_mla.TokenspeedMLABackend",
    "FLASHINFER_MLA_SPARSE": _B + "mla.flashinfer_mla_sparse.FlashInferMLASparseTRTLLMBackend",
    "FLASHINFER_MLA_SPARSE_SM90": _B + "mla.flashinfer_mla_sparse_sm90.FlashInferMLASparseSM90Backend",
    "FLASHINFER_MLA_SPARSE_SM120": _B + "mla.flashinfer_mla_sparse.FlashInferMLASparseSM120Backend",
    "TRITON_MLA": _B + "mla.triton_mla.TritonMLABackend",
    "CUTLASS_MLA": _B + "mla.cutlass_mla.CutlassMLABackend",
    "FLASHMLA": _B + "mla.flashmla.FlashMLABackend",
    "FLASHMLA_SPARSE": _B + "mla.flashmla_sparse.FlashMLASparseBackend",
    "FLASH_ATTN_MLA": _B + "mla.flashattn_mla.FlashAttnMLABackend",
    "FLASH_ATTN_MLA_SPARSE": _B + "mla.flashattn_mla_sparse.FlashAttnMLASparseBackend",
    "NO_ATTENTION": _B + "no_attention.NoAttentionBackend",
    "CPU_ATTN": _B + "cpu_attn.CPUAttentionBackend",
    "TURBOQUANT": _B + "turboquant_attn.TurboQuantAttentionBackend",
    "HPC_ATTN": _B + "hpc_attn.HpcAttentionBackend",
    "B12X": _B + "b12x.B12xPagedAttentionBackend",
}


def unlimited_ocr(state: State, values: Values) -> None:
    """UnlimitedOCRForCausalLM (0.25.0+): R-SWA attention runs on FLASH_ATTN (only with FA4),
    TRITON_ATTN or FLEX_ATTENTION; any other backend is refused. FA4 is available where the
    vLLM wheel's flash-attention build imports its FA4 kernels and the GPU is SM 9.x, 10.x or
    11.x: the GPU is known, the build is stated as an assumption (the standard wheel: present)."""
    backend = _attention_backend(values)
    fa4 = state.gpu.capability[0] in (9, 10, 11)
    if backend in (None, "FLASH_ATTN"):
        from vllm_preflight.model import Assumption

        state.assumptions.append(Assumption(
            "node.fa4_available", fa4, "Unlimited-OCR asks vLLM's is_fa_version_supported(4): the GPU must be "
            "SM 9.x/10.x/11.x and the installed vllm-flash-attn must import its FA4 kernels (taken as the "
            "standard wheel, which ships them); without FA4, FLASH_ATTN is refused with RuntimeError and no "
            "backend means TRITON_ATTN"))
    if backend == "FLASH_ATTN" and not fa4:
        raise Refusal("RuntimeError", "Unlimited-OCR: --attention-config backend=FLASH_ATTN requires FA4 "
                      "(rswa_mask_mod), but FA4 is not available on this device/installation. Use "
                      "backend=TRITON_ATTN or FLEX_ATTENTION, or upgrade vllm-flash-attn.")
    if backend is not None and backend not in ("FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION"):
        path = _BACKEND_PATHS.get(backend)
        shown = f"<AttentionBackendEnum.{backend}: '{path}'>" if path else f"<AttentionBackendEnum.{backend}>"
        raise validation_error(f"Unlimited-OCR: unsupported attention backend {shown} for R-SWA. "
                               "Use FLASH_ATTN (FA4), TRITON_ATTN or FLEX_ATTENTION.")


# ------------------------------------------------------------------ ModelConfig stage
def alice_ai_model(state: State, values: Values) -> None:
    """AliceAIForCausalLM (0.33.0): the checkpoint must say kda_allow_negative_eigenvalues=false,
    router_score_function='sigmoid' and router_bias_correction=true."""
    facts = state.model
    if facts is None:
        return
    if facts.config_value("kda_allow_negative_eigenvalues") is not False:
        raise Refusal("NotImplementedError", "AliceAI requires kda_allow_negative_eigenvalues=false")
    if facts.config_value("router_score_function") != "sigmoid":
        raise _model_error("AliceAI requires router_score_function='sigmoid'")
    if facts.config_value("router_bias_correction") is not True:
        raise _model_error("AliceAI requires router_bias_correction=true")


_POOLING_TYPES = ("avg", "cls", "last")


def llama_bidirectional(state: State, values: Values) -> None:
    """LlamaBidirectional* (0.14.0+): the config's `pooling` must be avg, cls or last. Before
    0.29.0 a config without the key fails on the attribute itself."""
    facts = state.model
    if facts is None:
        return
    raw = facts.raw_config or {}
    if "pooling" not in raw and not _since(state, _SINCE["llama_bidirectional_pooling_required"]):
        raise Refusal("AttributeError", "'LlamaConfig' object has no attribute 'pooling'")
    pooling = raw.get("pooling")
    if pooling is None and _since(state, _SINCE["llama_bidirectional_pooling_required"]):
        raise _model_error("This bidirectional model requires a 'pooling' field in its HF config (one of 'avg', "
                           "'cls', 'last'), but none was found. Unlike the VL variants, no default is assumed here "
                           "because silently picking a pooling for an embedding model can produce wrong embeddings.")
    if not isinstance(pooling, (str, int, float, bool, type(None))):
        return  # an unhashable value fails inside vLLM with a TypeError: not modelled
    if pooling not in _POOLING_TYPES:
        raise _model_error(f"pool_type {pooling!r} not supported")


def llama_nemotron_vl(state: State, values: Values) -> None:
    """LlamaNemotronVL* (0.17.0+): `pooling` (top level, else llm_config's, default avg) must be
    avg, cls or last; 0.28.0+ first asserts it is a string."""
    facts = state.model
    if facts is None:
        return
    pooling = facts.config_value("pooling")
    llm = facts.config_value("llm_config")
    if pooling is None and isinstance(llm, dict):
        pooling = llm.get("pooling", "avg")
    if not isinstance(pooling, str) and _since(state, _SINCE["nemotron_vl_pooling_str"]):
        raise _model_error("", "Assertion failed")
    if not isinstance(pooling, (str, int, float, bool, type(None))):
        return
    if pooling not in _POOLING_TYPES:
        raise _model_error(f"pool_type {pooling!r} not supported")


def colqwen3_5(state: State, values: Values) -> None:
    """ColQwen3_5 (0.27.0+): the checkpoint declares retrieval_attention_contract 'causal' or
    'bidirectional' (top level and/or text_config, the same everywhere)."""
    facts = state.model
    if facts is None:
        return
    raw = facts.raw_config or {}
    configs = [raw] + ([raw["text_config"]] if isinstance(raw.get("text_config"), dict) else [])
    declared = [c["retrieval_attention_contract"] for c in configs
                if c.get("retrieval_attention_contract") is not None]
    if not declared:
        raise _model_error("ColQwen3.5 checkpoints must declare retrieval_attention_contract as 'causal' or "
                           "'bidirectional'")
    if any(d not in ("causal", "bidirectional") for d in declared) or len(set(map(repr, declared))) != 1:
        raise _model_error(f"unsupported or conflicting ColQwen3.5 retrieval_attention_contract declarations: "
                           f"{declared!r}")


def d3(state: State, values: Values) -> None:
    """D3ForSequenceClassification (0.33.0): the Decision 3.0 `decision_config` (format 1, last
    pooling, causal or noncausal_full_attention, one token id per code). vLLM reads it from
    decision_config.json next to a bare Qwen3_5Model; here from config.json's own key."""
    facts = state.model
    if facts is None:
        return
    decision = facts.config_value("decision_config")
    if not isinstance(decision, dict):
        raise _model_error("Decision 3.0 checkpoints need a decision_config.json")
    if decision.get("format_version") != 1:
        raise _model_error(f"unsupported decision_config.json format_version {decision.get('format_version')!r}; "
                           "vLLM reads version 1")
    if decision.get("pooling", "last") != "last":
        raise _model_error(f"unsupported decision_config.json pooling {decision['pooling']!r}")
    mode = decision.get("attention_mode", "causal")
    if mode not in ("causal", "noncausal_full_attention"):
        raise _model_error(f"unsupported decision_config.json attention_mode {mode!r}")
    codes, token_ids = decision.get("codes"), decision.get("token_ids")
    if not codes or not isinstance(token_ids, list) or len(codes) != len(token_ids):
        raise _model_error("decision_config.json must list one token id per answer code")


# ------------------------------------------------------------------ bare asserts (VllmConfig stage
# before 0.14.0, ModelConfig stage from then on: both read "Assertion failed, " in pydantic's text)
def _assert_failed(state: State, message: str = "") -> Refusal:
    if _since(state, _SINCE["asserts_in_model_config"]):
        return _model_error(message, "Assertion failed")
    return validation_error(message, "Assertion failed")


def _config_class_is(facts, class_name: str, model_type: str) -> bool:
    """Whether transformers builds `class_name` for this config: the remote code's class
    (auto_map AutoConfig) when the config names one, else the built-in class of model_type."""
    auto = facts.config_value("auto_map")
    if isinstance(auto, dict) and isinstance(auto.get("AutoConfig"), str):
        return auto["AutoConfig"].rsplit(".", 1)[-1] == class_name
    return facts.config_value("model_type") == model_type


def _gte(class_name: str, model_type: str) -> Hook:
    def gte(state: State, values: Values) -> None:
        """GteModel (GteConfig) / GteNewModel (NewConfig), every release: the config class and
        hidden_act 'gelu' are asserted."""
        facts = state.model
        if facts is None:
            return
        if not _config_class_is(facts, class_name, model_type) or facts.config_value("hidden_act", "gelu") != "gelu":
            raise _assert_failed(state)
    return gte


def nomic_bert(state: State, values: Values) -> None:
    """NomicBertModel, every release: NomicBertConfig with a swiglu/gelu activation, equal MLP
    and QKV biases, no rotary scale base, no interleaved rotary embedding (bare asserts)."""
    facts = state.model
    if facts is None:
        return
    get = facts.config_value
    biases = {repr(get(k)) for k in ("mlp_fc1_bias", "mlp_fc2_bias", "qkv_proj_bias") if k in (facts.raw_config or {})}
    if not _config_class_is(facts, "NomicBertConfig", "nomic_bert") \
            or get("activation_function", "swiglu") not in ("swiglu", "gelu") or len(biases) > 1 \
            or get("rotary_emb_scale_base") is not None or get("rotary_emb_interleaved"):
        raise _assert_failed(state)


def qwen3_reranker(state: State, values: Values) -> None:
    """Qwen3ForSequenceClassification, every release: an original Qwen3 reranker config
    (is_original_qwen3_reranker) must name its two classifier_from_token tokens."""
    facts = state.model
    if facts is None or not facts.config_value("is_original_qwen3_reranker"):
        return
    tokens = facts.config_value("classifier_from_token")
    if tokens is None or (hasattr(tokens, "__len__") and len(tokens) != 2):
        url = "offline_inference/qwen3_reranker.py"
        for first, path in _QWEN3_RERANKER_EXAMPLE:
            if _since(state, first):
                url = path
        raise _assert_failed(state, "Try loading the original Qwen3 Reranker?, see: "
                                    f"https://github.com/vllm-project/vllm/tree/main/examples/{url}")


# the example vLLM's message points to, by first release
_QWEN3_RERANKER_EXAMPLE = (((0, 11, 0), "offline_inference/qwen3_reranker.py"),
                           ((0, 13, 0), "offline_inference/offline_reranker.py"),
                           ((0, 14, 0), "pooling/score/qwen3_reranker_offline.py"))


# ------------------------------------------------------------------ breakable CUDA graphs by default
def breakable_by_default(state: State, architecture: str) -> None:
    """0.23.0+: `VllmConfig.__post_init__` turns VLLM_USE_BREAKABLE_CUDAGRAPH on for the
    architectures of its list (unless the variable is set at all), which means compile mode
    NONE (steps/defaults.py `breakable_cudagraph`)."""
    if "VLLM_USE_BREAKABLE_CUDAGRAPH" in state.env:
        return
    archs: frozenset = frozenset()
    for first, default_archs in _BREAKABLE:
        if _since(state, first):
            archs = default_archs
    listed = state.model.config_value("architectures") if state.model is not None else None
    names = set(listed) if isinstance(listed, list) else {architecture}  # every listed class counts
    if names & archs:
        state.env["VLLM_USE_BREAKABLE_CUDAGRAPH"] = "1"
        msg = "Auto-enabling VLLM_USE_BREAKABLE_CUDAGRAPH=1. Set VLLM_USE_BREAKABLE_CUDAGRAPH=0 to opt out."
        state.log("info", msg, once=True)
        state.note("compilation_config.mode", "model_hooks.breakable_by_default", msg)


_V4 = frozenset({"DeepseekV4ForCausalLM", "DeepSeekV4MTPModel"})
_V24 = _V4 | {"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"}
_V26 = _V24 | {"InklingForCausalLM", "InklingForConditionalGeneration"}
_V27 = _V26 | {"KimiK3ForConditionalGeneration", "KimiK3MTPModel", "KimiLinearForCausalLM"}
_V29 = _V27 | {"DeepseekV32ForCausalLM", "DeepseekV32MTPModel", "Dots3NoteForCausalLM", "Dots3NoteMTPModel",
               "GlmMoeDsaForCausalLM", "HYV4ForCausalLM", "HYV4MTPModel"}
_V30 = _V29 | {"DeepseekV41ForCausalLM", "DeepseekV4ForConditionalGeneration", "Glm5NextForCausalLM",
               "Glm5NextForConditionalGeneration", "Glm5NextMTPModel", "Qwen4ExpForCausalLM",
               "Qwen4ExpForConditionalGeneration", "Qwen4ExpMTP"}
_V33 = _V30 | {"AliceAIForCausalLM", "BeamForCausalLM", "MuseSpark1xForCausalLM",
               "MuseSparkForConditionalGeneration", "Step5ForCausalLM", "Step5ForConditionalGeneration"}
# (first release, the architectures whose graphs are breakable by default from then on)
_BREAKABLE: tuple[tuple[tuple, frozenset], ...] = (
    ((0, 23, 0), _V4), ((0, 24, 0), _V24), ((0, 26, 0), _V26), ((0, 27, 0), _V27), ((0, 29, 0), _V29),
    ((0, 30, 0), _V30), ((0, 33, 0), _V33))

# where a hook's own rule changes (first release)
_SINCE = {
    "mamba_chunked_prefill_assert": (0, 32, 0),  # whatever the mamba cache mode
    "mamba_cache_mode_asserts": (0, 15, 0),  # MambaModelConfig picks a mamba cache mode
    "mamba_align_speculative_ok": (0, 17, 0),  # 0.15.0-0.16.x: mode "align" asserts no speculative config
    "mamba_align_by_default": (0, 28, 0),
    "mamba_cache_mode_deprecated": (0, 33, 0),
    "mamba_all_mode_deprecated": (0, 30, 0),  # until 0.32.0
    "hybrid_prefix_caching_default": (0, 28, 0),
    "mamba_graph_mode_dropped": (0, 11, 1),
    "asserts_in_model_config": (0, 14, 0),
    "qwen4_exp_moe_sp": (0, 32, 0),
    "llama_bidirectional_pooling_required": (0, 29, 0),
    "nemotron_vl_pooling_str": (0, 28, 0),
}

Hook = Callable[[State, Values], None]
_QWEN4 = ((0, 29, 0), qwen4_exp)
# architecture -> (first release with the hook, hook): VllmConfig.verify_and_update_config
VLLM_HOOKS: dict[str, tuple[tuple, Hook]] = {
    "GptOssForCausalLM": ((0, 11, 0), gpt_oss),
    "LongcatFlashNgramForCausalLM": ((0, 26, 0), longcat_flash_ngram),
    "AliceAIForCausalLM": ((0, 33, 0), alice_ai),
    "Qwen4ExpForCausalLM": _QWEN4, "Qwen4ExpForConditionalGeneration": _QWEN4, "Qwen4ExpMTP": _QWEN4,
    "DeepseekV32ForCausalLM": ((0, 11, 0), deepseek_v32),
    "DiffusionGemmaForBlockDiffusion": ((0, 24, 0), diffusion_gemma),
    "UnlimitedOCRForCausalLM": ((0, 25, 0), unlimited_ocr),
}
_GTE = _gte("GteConfig", "gte")
_GTE_NEW = _gte("NewConfig", "new")
# the asserting hooks: VllmConfig stage before 0.14.0, ModelConfig stage from 0.14.0
ASSERT_HOOKS: dict[str, Hook] = {
    "GteModel": _GTE, "GteNewModel": _GTE_NEW, "GteNewForSequenceClassification": _GTE_NEW,
    "NomicBertModel": nomic_bert, "Qwen3ForSequenceClassification": qwen3_reranker,
}
for _arch, _hook in ASSERT_HOOKS.items():
    VLLM_HOOKS[_arch] = ((0, 11, 0), _hook)
_BIDIR = ((0, 14, 0), llama_bidirectional)
_NVL = ((0, 17, 0), llama_nemotron_vl)
# architecture -> (first release, hook): ModelConfig's verify_and_update_model_config
MODEL_HOOKS: dict[str, tuple[tuple, Hook]] = {
    "AliceAIForCausalLM": ((0, 33, 0), alice_ai_model),
    "LlamaBidirectionalModel": _BIDIR, "LlamaBidirectionalForSequenceClassification": _BIDIR,
    "LlamaNemotronVLModel": _NVL, "LlamaNemotronVLForSequenceClassification": _NVL,
    "ColQwen3_5": ((0, 27, 0), colqwen3_5),
    "D3ForSequenceClassification": ((0, 33, 0), d3),
}
# hooks that check only the model's config.json keys (named here): with no config.json read (an
# architecture pinned by --assume model.architecture) they have nothing to check
CONFIG_KEYS: dict[Hook, tuple[str, ...]] = {
    alice_ai_model: ("kda_allow_negative_eigenvalues", "router_score_function", "router_bias_correction"),
    llama_bidirectional: ("pooling",), llama_nemotron_vl: ("pooling", "llm_config"),
    colqwen3_5: ("retrieval_attention_contract",), d3: ("decision_config",),
    _GTE: ("model_type", "hidden_act"), _GTE_NEW: ("model_type", "hidden_act"),
    nomic_bert: ("model_type", "activation_function", "mlp_fc1_bias", "rotary_emb_scale_base"),
    qwen3_reranker: ("is_original_qwen3_reranker", "classifier_from_token"), deepseek_v32: ("index_topk",),
}


def _config_not_read(state: State, arch: str, hook: Hook) -> bool:
    """True (and the check stated as an assumption, not a refusal) when `hook` reads only
    config.json keys and no config.json was read: "not read" is never "refused"."""
    keys = CONFIG_KEYS.get(hook)
    if keys is None or state.model is None or state.model.raw_config is not None:
        return False
    from vllm_preflight.model import Assumption

    state.assumptions.append(Assumption(
        "model.config", None, f"not checked: vLLM's {arch} hook reads the model's config.json "
        f"({', '.join(keys)}), which was not read here; it is assumed to pass"))
    return True


# kept for callers of the first version of this module
HOOKS = {arch: hook for arch, (_, hook) in VLLM_HOOKS.items()}


@reads("enable_prefix_caching", "mamba_cache_mode", "speculative_config", model=("architecture",))
def try_verify_and_update_config(state: State, values: Values) -> None:
    """The model-stage hook, then the VllmConfig-stage hook (then, for hybrid and mamba
    models, the mamba hook), then the breakable-graph default."""
    arch = state.facts.architecture or ""
    vals = values
    if _since(state, _SINCE["mamba_cache_mode_deprecated"]) and vals.get("mamba_cache_mode") is not None:
        # EngineArgs.create_engine_config, before CacheConfig (0.33.0 arg_utils.py:2304-2305), any model
        state.log("warning", "--mamba-cache-mode is deprecated and will be removed in v0.33.0. It has no effect: "
                             "Mamba prefix caching follows --enable-prefix-caching.", once=True)
    if vals.get("mamba_cache_mode") == "all" and _since(state, _SINCE["mamba_all_mode_deprecated"]) \
            and state.release.key < (0, 32, 0):
        # CacheConfig's mamba_cache_mode validator, 0.30.0-0.31.x (0.30.0 config/cache.py:321-330), any model
        state.log("warning", "Mamba cache mode 'all' is deprecated and will be removed in an upcoming release. If "
                             "this is a problem, please open an issue at https://github.com/vllm-project/vllm/issues.",
                  once=True)
    for table in (MODEL_HOOKS, VLLM_HOOKS):
        entry = table.get(arch)
        if entry is not None and _since(state, entry[0]) and not _config_not_read(state, arch, entry[1]):
            entry[1](state, vals)
    if state.release.key < _SINCE["mamba_graph_mode_dropped"] and (arch in _MAMBA_ARCHS or _is_hybrid(state, arch)):
        mamba_0_11(state, vals)
    if _since(state, _SINCE["mamba_cache_mode_asserts"]) and (arch in _MAMBA_ARCHS or _is_hybrid(state, arch)):
        mamba_prefix_caching(state, vals)
    breakable_by_default(state, arch)
