"""What each release's runtime stage IS, as data: (first release, {knob: value}) changes.

A release's rules are every change up to it, in order, as in releases/changes.py. Sources:
each release's vllm/v1/worker/gpu_model_runner.py, vllm/config/compilation.py,
vllm/v1/worker/gpu/model_runner.py and vllm/config/vllm.py.
"""
from __future__ import annotations

from functools import cache

from vllm_preflight.releases import PR29558, PR29558_BASE, version_key


class RuntimeRules:
    """A release's runtime-stage rules, as data: the defaults below, each release's changes over
    them (`changed`). Read only. A plain class: a frozen dataclass of these ~45 fields cost about
    2 ms of every cold start to create, and nothing needs its generated methods."""

    version: str = ""
    # where the check runs: False = inline in GPUModelRunner._check_and_update_cudagraph_mode,
    # True = CompilationConfig.resolve_cudagraph_mode_and_sizes (early NONE return, V1-only rounding)
    resolver: bool = False
    spec_rounding: bool = True  # spec decode rounds capture sizes (absent in 0.11.0)
    backend_names: str = "backend"  # what the warnings name: the backend class | its metadata builder (0.11.0)
    never_hint: str = "make sure compilation mode is VLLM_COMPILE"
    chunked_local_block_in_name: bool = True  # ChunkedLocalAttention_{chunk}_{block}_{Backend} (before 0.18)
    mamba_cap_sizes: bool = False  # 0.18-0.19: capture sizes capped to the Mamba cache blocks
    tp_sp_rounding: bool = True  # spec-decode rounding to max(q, tp) with sequence parallelism
    rounding_parenthetical: str = "(num_speculative_tokens + 1 or tp if sequence parallelism is enabled)"
    piecewise_capture_rule: bool = False  # Model Runner V2: piecewise needs a compiled submodule
    mamba_block_check: bool = False  # max_num_seqs > Mamba cache blocks with full graphs
    # attention-backend selector and declared support (runtime/backends.py)
    # FlashInfer TRTLLM kernels: exact SM100 | SM100 family | + XQA decode on SM90 | + SM12x
    sel_trtllm: str = "sm100"  # sm100 | sm100_family | xqa_sm90 | xqa
    sel_mla_sm10: str = "cutlass"  # first MLA backend on SM10: cutlass | flashinfer
    sel_mla_sm12: bool = False  # SM12x has its own MLA list (TRITON_MLA)
    sel_fa4: bool = False  # the wheel ships FA4 (cute) kernels
    sel_fa4_layers: bool = False  # FLASH_ATTN takes head size 512 and sinks through FA4
    sel_kv_lists: str = "v012"  # backends' KV-cache dtype lists: v012 | v033
    sel_fa_fp8_check: bool = False  # FLASH_ATTN's per-layer FP8-KV combination check
    sel_fa_fp8_h512: bool = False  # ... or FA4 with head_size=512 on SM90
    sel_sink_text_new: bool = False  # "attention sinks not supported"
    sel_fi_sink_archs: str = "any"  # where FlashInfer takes sinks besides its kernels: any | sm100 | sm100_sm12x
    sel_fi_head512: bool = False
    sel_fi_cc80: bool = False  # FlashInfer needs CC >= 8.0 (was 7.5)
    # 0.11.0's CUDA platform picks a dense backend by hand, not from a priority list: FlashInfer on
    # exactly SM100, FlashAttention from SM80 (Triton for sinks or an FP8 KV cache off SM90), and
    # FlexAttention below SM80 (0.11.0 platforms/cuda.py:300-373)
    sel_legacy_dense: bool = False
    sup_fa4_always: bool = False  # FLASH_ATTN declares ALWAYS with FA4 too (else only FA3)
    sup_fi_fa2_decode: bool = False  # FlashInfer below SM90 decodes with fa2: UNIFORM_BATCH
    sup_flex: str = "NEVER"
    sup_triton_mla: str = "NEVER"
    sup_flashinfer_mla: str = "UNIFORM_BATCH"
    sup_mamba: str = "UNIFORM_SINGLE_TOKEN_DECODE"
    v2_param: bool = False  # the resolver takes use_v2_model_runner (V2 never rounds the size list)
    v2_runner: str = "opt_in"  # opt_in (VLLM_USE_V2_MODEL_RUNNER=1) | arch_list (default for listed
    # architectures) | default (V2 unless a feature it lacks is used)
    v2_archs: tuple[str, ...] = ()  # arch_list releases: DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES
    # arch_list releases, _is_default_v2_model_runner_model (generate models only): listed_dense (a
    # listed architecture, not MoE, not quantized) | listed | listed_or_dense (listed, or not MoE;
    # never hybrid/attention-free) | listed_or_dense_hybrid_listed (a hybrid model only if listed)
    v2_default_models: str = "listed_dense"
    # VllmConfig._get_v2_model_runner_unsupported_features, the features this port can see, in
    # vLLM's order: pcp (prefill context parallel > 1; pcp_not_mla: for a non-MLA model), stock_compile,
    # sp (enable_sp with TP > 1), spec (the method, below), dynamic_sd, eagle3_pp, dbo (--enable-dbo;
    # dbo_env_unset: only while VLLM_USE_V2_MODEL_RUNNER is unset, 0.30.0+ _get_dbo_unsupported_features)
    v2_unsupported: tuple[str, ...] = ()
    v2_spec_allowed: tuple[str, ...] | None = None  # methods V2 takes; ngram/ngram_gpu named apart
    v2_spec_blocked: tuple[str, ...] = ()  # (when v2_spec_allowed is None) methods V2 lacks
    v2_force: tuple[str, ...] = ()  # use_v2_model_runner's "V2 anyway" cases before the arch list
    # parallel_drafting in the speculative config: its wording, and the methods that draft in parallel natively
    v2_par_draft_text: str = "parallel drafting for speculative decoding"
    v2_par_draft_native: tuple[str, ...] = ()
    logger: str = "vllm.v1.worker.gpu_model_runner"
    source: str = "vllm/v1/worker/gpu_model_runner.py"  # file of the warning lines
    # evidence behind this release's rules: "golden" (its own code was executed) or "source"
    evidence: str = "source"

    def __init__(self, version: str, **changes) -> None:
        self._set({"version": version, **changes})

    def _set(self, values: dict) -> None:
        cls = type(self)
        unknown = [k for k in values if k.startswith("_") or not hasattr(cls, k) or callable(getattr(cls, k))]
        if unknown:
            raise TypeError(f"RuntimeRules has no field {unknown[0]!r}")
        self.__dict__.update(values)

    def changed(self, **changes) -> RuntimeRules:
        """A copy with `changes` over these values."""
        out = object.__new__(RuntimeRules)
        out.__dict__.update(self.__dict__)
        out._set(changes)
        return out

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"RuntimeRules is read only: cannot set {name!r}")

    def __eq__(self, other) -> bool:
        return type(other) is RuntimeRules and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self.__dict__.items())))

    def __repr__(self) -> str:
        return "RuntimeRules(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


# The first release whose model runner is V2 by default for every model (VllmConfig.use_v2_model_runner:
# 0.29.0 config/vllm.py:645-677 drops `_is_default_v2_model_runner_model`, the architecture list that
# 0.22.0-0.28.0 default to V2 for, 0.28.0 :615-660). The one source of it: the config-time rules
# (V1-only refusals, V2's stock-compile rule, dynamic speculative decoding) ask `vllm_config/model_runner.choose_runner`.
V2_RUNNER_DEFAULT_FIRST = "0.29.0"
_V2_SPEC_V022 = ("eagle", "eagle3", "mtp")

# (first release, changes); releases between two entries take the earlier entry's rules.
CHANGES: tuple[tuple[str, dict], ...] = (
    ("0.11.0", {"spec_rounding": False, "backend_names": "builder", "sel_legacy_dense": True,
                "never_hint": "make sure compilation level is piecewise"}),
    ("0.11.1", {"spec_rounding": True, "backend_names": "backend", "sel_legacy_dense": False,
                "never_hint": "make sure compilation mode is VLLM_COMPILE"}),
    ("0.13.0", {"sel_trtllm": "sm100_family"}),
    ("0.15.0", {"sel_mla_sm10": "flashinfer"}),
    ("0.17.0", {"sel_fa4": True, "sup_mamba": "UNIFORM_BATCH"}),
    ("0.18.0", {"sel_sink_text_new": True, "sel_kv_lists": "v033", "mamba_cap_sizes": True,
                "chunked_local_block_in_name": False}),
    ("0.20.0", {"sel_fa4_layers": True, "resolver": True, "mamba_block_check": True, "mamba_cap_sizes": False,
                "logger": "vllm.config.compilation", "source": "vllm/config/compilation.py"}),
    # FlexAttention declares ALWAYS from 0.20.0 (v1/attention/backends/flex_attention.py; 0.19.1 has no
    # _cudagraph_support, 0.20.1 -> 0.20.2 changes no attention backend): recorded on 0.20.2
    ("0.20.0", {"sup_flex": "ALWAYS"}),
    # V2-unsupported features before V2 is ever a default: 0.20.0-0.21.0 config/vllm.py
    # _validate_v2_model_runner (0.20.0 :1787-1828, only under VLLM_USE_V2_MODEL_RUNNER=1): models
    # with inner (Mamba-like) state, PCP, any speculative method but EAGLE/EAGLE3/MTP, DBO
    ("0.20.0", {"v2_unsupported": ("inner_state", "pcp", "spec_eagle_mtp", "dbo", "routed_experts", "logitsprocs",
                                  "kv_fast_prefill", "ec_transfer")}),
    # V2-unsupported features: 0.22.0 config/vllm.py _get_v2_model_runner_unsupported_features
    ("0.22.0", {"sup_triton_mla": "UNIFORM_BATCH", "sel_fi_head512": True, "v2_runner": "arch_list",
                "v2_archs": ("Qwen3ForCausalLM",),
                "v2_unsupported": ("pcp", "stock_compile", "sp", "spec", "par_draft", "eagle3_pp", "dbo", "routed_experts",
                                   "logitsprocs", "prompt_embeds", "logprobs_raw", "logprobs_processed",
                                   "kv_fast_prefill", "ec_transfer"),
                "v2_spec_allowed": _V2_SPEC_V022}),
    ("0.23.0", {"v2_archs": ("LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM")}),
    ("0.24.0", {"v2_default_models": "listed"}),  # 0.24.0 config/vllm.py _is_default_v2_model_runner_model
    ("0.25.0", {"v2_default_models": "listed_or_dense"}),  # dense models too (recorded: llama-dense warns)
    ("0.27.0", {"v2_default_models": "listed_or_dense_hybrid_listed"}),
    ("0.24.0", {"v2_unsupported": ("pcp", "stock_compile", "sp", "ext_pp", "spec", "dynamic_sd", "par_draft", "eagle3_pp",
                                  "dbo", "elastic_ep", "routed_experts", "logitsprocs", "prompt_embeds",
                                  "logprobs_raw", "logprobs_processed", "kv_fast_prefill", "ec_transfer"),
                "v2_par_draft_text": "parallel drafting for EAGLE speculative decoding", "v2_par_draft_native": ("dflash",),
                "v2_spec_allowed": _V2_SPEC_V022 + ("dflash",)}),
    ("0.25.0", {"v2_unsupported": ("pcp", "stock_compile", "sp", "ext_pp", "spec", "par_draft", "eagle3_pp", "dbo",
                                  "elastic_ep", "routed_experts", "logitsprocs", "prompt_embeds", "logprobs_raw",
                                  "logprobs_processed", "kv_fast_prefill", "ec_transfer"),
                "v2_par_draft_native": ("dflash", "dspark"),
                "v2_spec_allowed": _V2_SPEC_V022 + ("dflash", "dspark"), "v2_force": ("dspark",)}),
    ("0.26.0", {"v2_unsupported": ("pcp_not_mla", "stock_compile", "sp", "ext_pp", "spec", "par_draft", "eagle3_pp", "dbo",
                                  "elastic_ep", "routed_experts", "logitsprocs", "prompt_embeds", "kv_fast_prefill",
                                  "ec_transfer")}),
    # 0.28.0 drops routed experts capture and EC transfer (0.28.0 config/vllm.py:2369-2460)
    ("0.28.0", {"v2_unsupported": ("pcp_not_mla", "stock_compile", "sp", "ext_pp", "spec", "par_draft", "eagle3_pp",
                                  "dbo", "elastic_ep", "logitsprocs", "prompt_embeds", "kv_fast_prefill")}),
    # use_v2_model_runner's "V2 anyway" cases (0.24.0-0.28.0 config/vllm.py; resolve/draft_features.forces_v2):
    # a diffusion target (0.24.0+), DSpark (0.25.0+), a mixed sliding/full DFlash draft (0.26.0+), PCP
    # (0.27.0+), a DFlash2 draft (0.28.0)
    ("0.24.0", {"v2_force": ("diffusion",)}),
    ("0.25.0", {"v2_force": ("dspark", "diffusion")}),
    ("0.26.0", {"v2_force": ("dspark", "dflash_multi_kv", "diffusion")}),
    ("0.27.0", {"v2_force": ("pcp", "dspark", "dflash_multi_kv", "diffusion")}),
    ("0.28.0", {"v2_force": ("pcp", "dspark", "dflash_multi_kv", "dflash2", "diffusion")}),
    ("0.29.0", {"v2_unsupported": ("stock_compile", "sp", "ext_pp", "spec", "par_draft", "eagle3_pp", "dbo", "elastic_ep",
                                  "logitsprocs", "kv_fast_prefill"), "v2_force": (),
                "v2_spec_allowed": _V2_SPEC_V022 + ("dflash", "dspark", "extract_hidden_states")}),
    ("0.30.0", {"v2_unsupported": ("stock_compile", "sp", "ext_pp", "spec", "par_draft", "dbo_env_unset", "elastic_ep",
                                  "logitsprocs"), "v2_spec_allowed": None,
                "v2_spec_blocked": ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator",
                                    "custom_class")}),
    ("0.31.0", {"v2_spec_blocked": ("ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"),
                "v2_unsupported": ("stock_compile", "sp", "ext_pp", "spec", "par_draft", "dbo_env_unset", "elastic_ep")}),
    # 0.32.0+ also heterogeneous-vocabulary drafts (0.33.0 config/vllm.py:3079-3082)
    ("0.32.0", {"v2_unsupported": ("ext_pp", "spec", "par_draft", "hetero_vocab", "dbo_env_unset"),
                "v2_spec_blocked": ("suffix", "medusa", "mlp_speculator", "custom_class")}),
    ("0.33.0", {"v2_spec_blocked": ("suffix", "custom_class")}),
    ("0.24.0", {"sel_mla_sm12": True, "sel_fi_cc80": True,
                "v2_archs": ("Qwen3ForCausalLM", "DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                             "GraniteMoeForCausalLM", "LlamaForCausalLM", "MistralForCausalLM")}),
    ("0.25.0", {"sel_trtllm": "xqa_sm90", "sel_fi_sink_archs": "sm100", "v2_param": True,
                "v2_archs": ("DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM")}),
    ("0.26.0", {"sup_triton_mla": "UNIFORM_SINGLE_TOKEN_DECODE",
                "v2_archs": ("DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                             "InklingForConditionalGeneration", "LongcatFlashNgramForCausalLM",
                             "Qwen2MoeForCausalLM")}),
    ("0.27.0", {"v2_archs": ("DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                             "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration",
                             "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM")}),
    ("0.28.0", {"sel_fa_fp8_check": True, "sel_trtllm": "xqa", "sel_fi_sink_archs": "sm100_sm12x",
                "v2_archs": ("DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM",
                             "InklingForCausalLM", "InklingForConditionalGeneration",
                             "KimiK3ForConditionalGeneration", "LongcatFlashNgramForCausalLM",
                             "Qwen2MoeForCausalLM")}),
    (V2_RUNNER_DEFAULT_FIRST, {"v2_runner": "default"}),
    ("0.30.0", {"piecewise_capture_rule": True}),
    ("0.31.0", {"sup_triton_mla": "UNIFORM_BATCH", "sup_flashinfer_mla": "ALWAYS", "sel_fa_fp8_h512": True,
                "sel_fi_sink_archs": "any"}),
    ("0.32.0", {"tp_sp_rounding": False, "rounding_parenthetical": "(num_speculative_tokens + 1)"}),
    ("0.33.0", {"sup_fa4_always": True, "sup_fi_fa2_decode": True}),
)
GOLDEN = frozenset({"0.12.0", "0.13.0", "0.15.0", "0.17.0", "0.20.2", "0.22.0", "0.25.0", "0.28.0", "0.30.0", "0.33.0"})


@cache
def runtime_rules(version: str) -> RuntimeRules:
    if version == PR29558:
        version = PR29558_BASE
    rules = RuntimeRules(version=version)
    for first, changes in CHANGES:
        if version_key(first) <= version_key(version):
            rules = rules.changed(**changes)
    return rules.changed(version=version, evidence="golden" if version in GOLDEN else "source")
