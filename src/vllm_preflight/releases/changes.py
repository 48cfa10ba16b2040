"""What each vLLM release changed, as data: (first release, {rule knob: value}).

A release's rules are every change up to it, in order. `pipeline` is the ordered list of
`resolve.steps` that its `VllmConfig.__post_init__` runs; other knobs pick step variants,
messages and lists. Sources: each release's vllm/config/{vllm,compilation,parallel}.py,
vllm/engine/arg_utils.py and vllm/utils/argparse_utils.py.
"""
from __future__ import annotations

_FUSION_NOOP_NORM = "Fusion enabled but reshape elimination disabled. RMSNorm/SiluMul + quant (fp8) fusion might not work"
_FUSION_NOOP_ATTN = "Fusion enabled but reshape elimination disabled. Attention + quant (fp8) fusion might not work"
_FUSION_NOOP_ALLREDUCE = ("Fusion enabled but reshape elimination disabled. Allreduce + rms norm + quant (fp8) "
                          "fusion might not work")


_ASYNC_SPEC = "Currently, async scheduling is only supported with %s kind of speculative decoding"


def _kv(base: tuple[str, ...], add: tuple[str, ...] = (), drop: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(sorted((set(base) | set(add)) - set(drop)))


# KVConnectorFactory's registry (each release's kv_connector/factory.py register_connector calls, read
# in all 35 releases; equal to the recorded value sets of 0.12.0, 0.13.0, 0.21.0, 0.24.0, 0.27.0, 0.33.0)
_KV_V0_11_0 = ("LMCacheConnectorV1", "MultiConnector", "NixlConnector", "OffloadingConnector", "P2pNcclConnector",
               "SharedStorageConnector")
_KV_V0_11_1 = _kv(_KV_V0_11_0, ("DecodeBenchConnector", "LMCacheMPConnector"))
_KV_V0_13_0 = _kv(_KV_V0_11_1, ("ExampleConnector", "MooncakeConnector"), ("SharedStorageConnector",))
_KV_V0_14_0 = _kv(_KV_V0_13_0, ("MoRIIOConnector",))
_KV_V0_17_0 = _kv(_KV_V0_14_0, ("ExampleHiddenStatesConnector",))
_KV_V0_18_0 = _kv(_KV_V0_17_0, ("FlexKVConnectorV1",))
_KV_V0_19_0 = _kv(_KV_V0_18_0, ("SimpleCPUOffloadConnector",))
_KV_V0_20_0 = _kv(_KV_V0_19_0, ("HF3FSKVConnector",))
_KV_V0_21_0 = _kv(_KV_V0_20_0, ("MooncakeStoreConnector",))
_KV_V0_24_0 = _kv(_KV_V0_21_0, ("NixlPullConnector", "NixlPushConnector"), ("P2pNcclConnector",))
_KV_V0_30_0 = _kv(_KV_V0_24_0, ("HiSparseConnector",))


def _msg_deepep(prefix: str, how: str, options: str) -> str:
    return (f"{prefix}: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized for "
            f"prefill and are incompatible with CUDA Graphs. In order to use CUDA Graphs for "
            f"decode-optimized workloads, {how} another option, such as {options}.")


PIPELINE_V0_11_0 = (
    "default_mode_from_model", "sequence_parallel_custom_op", "default_cudagraph_mode_v0_11_0",
    "enforce_eager_cudagraphs", "cudagraph_sizes", "deepep_ht_platform", "full_graph_cascade_v0_11_0",
    "final_checks", "dbo_backend_check", "splitting_ops_v0_11_0",
)
PIPELINE_V0_11_1 = (
    "default_mode_from_model", "default_custom_ops", "sequence_parallel_custom_op",
    "default_cudagraph_mode_v0_11_1", "static_graph_overrides_v0_12", "enforce_eager_cudagraphs",
    "cudagraph_sizes", "deepep_ht_platform", "splitting_ops_v0_11_1", "sequence_parallel_followup",
    "final_checks", "dbo_backend_check", "blocked_fp8_custom_op",
)
PIPELINE_V0_12 = (
    "enforce_eager_level", "inductor_disabled_warning", "blocked_fp8_custom_op", "default_mode_from_level",
    "default_custom_ops", "optimization_level_defaults", "dynamic_spec_decode", "piecewise_needs_compile_none",
    "sequence_parallel_custom_op", "static_graph_overrides_v0_12", "enforce_eager_cudagraphs",
    "cudagraph_sizes", "deepep_ht_platform", "splitting_ops_v0_11_1", "sequence_parallel_followup",
    "final_checks", "dbo_backend_check", "blocked_fp8_custom_op",
)

PIPELINE_V0_13 = tuple(
    {"piecewise_needs_compile_none": "piecewise_needs_compile_piecewise_only",
     "static_graph_overrides_v0_12": "static_graph_overrides_v0_13",
     "splitting_ops_v0_11_1": "splitting_ops_v0_13"}.get(s, s)
    for s in PIPELINE_V0_12 if s != "deepep_ht_platform")

PIPELINE_V0_17 = tuple(["enforce_eager_direct"] + [
    s for s in PIPELINE_V0_13 if s != "enforce_eager_level"])
PIPELINE_V0_20 = tuple(["enforce_eager_direct", "torch_compile_disable"] + list(PIPELINE_V0_17[1:]))
PIPELINE_V0_22 = tuple(["enforce_eager_direct", "torch_compile_disable", "breakable_cudagraph"]
                       + list(PIPELINE_V0_17[1:]))
PIPELINE_V0_30 = tuple(
    {"piecewise_needs_compile_piecewise_only": "normalize_piecewise_cudagraph_mode"}.get(s, s)
    for s in PIPELINE_V0_22[:PIPELINE_V0_22.index("splitting_ops_v0_13")]
) + ("normalize_piecewise_cudagraph_mode",) + PIPELINE_V0_22[PIPELINE_V0_22.index("splitting_ops_v0_13"):]
PIPELINE_V0_31 = PIPELINE_V0_30[:PIPELINE_V0_30.index("splitting_ops_v0_13")] + ("moonep_eager_only",) \
    + PIPELINE_V0_30[PIPELINE_V0_30.index("splitting_ops_v0_13"):]
PIPELINE_V0_32 = PIPELINE_V0_31[:PIPELINE_V0_31.index("moonep_eager_only")] + ("v2_runner_stock_compile",) \
    + PIPELINE_V0_31[PIPELINE_V0_31.index("moonep_eager_only"):]

EMPTY_SPLITTING_MESSAGES_V0_11 = (
    "Using piecewise compilation with empty splitting_ops",
    ("Piecewise compilation with empty splitting_ops do notcontains piecewise cudagraph. Setting "
     "cudagraph_mode to NONE. Hint: If you are using attention backends that support cudagraph, consider "
     "manually setting cudagraph_mode to FULL or FULL_DECODE_ONLY to enable full cudagraphs."),
    ("Piecewise compilation with empty splitting_ops do not contains piecewise cudagraph. Setting "
     "cudagraph_mode to FULL."),
)

EMPTY_SPLITTING_MESSAGES_V0_14 = (
    "Using piecewise cudagraph with empty splitting_ops",
    ("Piecewise compilation with empty splitting_ops does not contain piecewise cudagraph. Setting "
     "cudagraph_mode to NONE. Hint: If you are using attention backends that support cudagraph, consider "
     "manually setting cudagraph_mode to FULL or FULL_DECODE_ONLY to enable full cudagraphs."),
    ("Piecewise compilation with empty splitting_ops does not contain piecewise cudagraph. Setting "
     "cudagraph_mode to FULL."),
)

CHANGES: list[tuple[str, dict]] = [
    ("0.11.0", {
        "pipeline": PIPELINE_V0_11_0,
        # parser
        "o_flag": "compilation_level", "dotted_human_readable_int": False, "warn_duplicate_flags": False,
        "serve_model_flag": "error",
        # engine args: EngineArgs._check_feature_supported refuses draft-model speculation
        "draft_model_not_implemented": True,
        # config checks outside the compilation path (the config packages of resolve/; first release of
        # each read in every release's sources: 0.20.2's config files equal 0.20.1's, 0.30.0 changes
        # none of these rules against 0.29.0 and 0.31.0)
        "async_pp": None, "v1_unsupported": (), "scheduler_field_bounds": False, "kv_connector_checked_in_config": False,
        "parallel_field_bounds": False, "dcp_check_in_parallel_config": False, "dcp_message_spaced": False,
        "custom_ops_conflicts": False, "dcp_messages_v0_27": False, "executor_class_lookup": False,
        # ray: a requirement through 0.17.1 (`ray[cgraph]>=2.48.0` in each wheel's METADATA
        # Requires-Dist, read 0.12.0-0.17.1), none from 0.18.0 (read 0.18.0-0.23.0; 0.21.0, 0.27.0 and
        # 0.33.0 recorded). msgpack comes only with ray (ray's own Requires-Dist), and
        # P2pNcclConnector (registered through 0.23.0) imports it
        "ray_installed": True, "kv_connectors": _KV_V0_11_0,
        # compilation config
        "mode_field": "level", "mode_accepts_names": False, "has_level_alias": False,
        "config_extra": "ignore", "cudagraph_mode_bad_name_error": "KeyError",
        "pass_config_deprecated_names": False, "check_piecewise_backend": False,
        "pass_config_noop_warnings": ("enable_noop", (
            (("enable_fusion",), _FUSION_NOOP_NORM), (("enable_attn_fusion",), _FUSION_NOOP_ATTN))),
        "torch_has_inductor_partition": False,
        "attn_fusion_name": "enable_attn_fusion", "sp_name": "enable_sequence_parallelism",
        "async_tp_name": "enable_async_tp", "sp_rms_norm": "always",
        "has_optimization_level": False,
        # engine
        "all2all_env": "only", "all2all_env_override_warning": "",
        "cuda_graph_sizes_style": "scheduler",
        # rules
        "deepep_message": _msg_deepep("WideEP", "set VLLM_ALL2ALL_BACKEND to",
                                      "deepep_low_latency, pplx, or allgather_reducescatter"),
        "extra_default_split_ops": (), "splitting_ops_empty_without_compile": False,
        "sp_followup_appends_twice": True, "pcp_override": False, "has_breakable_cudagraph": False,
        "piecewise_assert_message": ("Compilation level should be CompilationLevel.PIECEWISE when "
                                     "cudagraph_mode piecewise cudagraphs is used, cudagraph_mode=CUDAGraphMode.{cg}"),
        "dbo_backends": ("deepep_low_latency", "deepep_high_throughput"),
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency and "
                        "deepep_high_throughput all2all backend. {backend} is not supported. To fix set "
                        "the VLLM_ALL2ALL_BACKEND environment variable to deepep_low_latency or "
                        "deepep_high_throughput and install the DeepEP kernels."),
        "capture_sizes_style": "v0_11_0", "capture_max_counts_spec_tokens": False,
        "sm100_capture_ceiling": False,
        "enforce_eager_message": "", "breakable_message": "", "inductor_warning_skips_breakable": False,
        "inductor_disabled_message": ("Inductor compilation was disabled by user settings,Optimizations "
                                      "settings that are only active duringInductor compilation will be "
                                      "ignored."),
        "removed_all2all_backends": (), "sp_tp1_disable": False, "sp_threshold": False,
        "sp_followup": "split_or_pp",
        # which model runner a config gets (V2 by default for every model from 0.29.0) is decided by
        # vllm_config/model_runner.choose_runner over releases/runtime_rules.py (V2_RUNNER_DEFAULT_FIRST), for config time too
        "allreduce_fusion_auto": False, "norm_fusion_ir_priority": False,
        "allreduce_fusion_single_dp_pp": False, "allreduce_fusion_batch_invariant": False,
        "capture_interactivity": False, "capture_add_max_num_batched_tokens": False,
        "capture_uniform_decode_sizes": False, "capture_add_max_num_seqs": False,
        "validate_environ": False, "cascade_message": None, "batched_dp_moe_tokens": None, "throughput_mode_doubles": False,
        "piecewise_needs_compile_message": "",
        # dynamic speculative decoding (num_speculative_tokens_per_batch_size, 0.24.0+): None (no
        # such field) | "always" (FULL-capable modes to PIECEWISE) | "v1_runner" (only on the V1 runner)
        "dynamic_sd_piecewise": None, "dynamic_sd_hint": "", "dynamic_sd_off_for_dp": False,
        "dynamic_sd_v1_methods": None, "dynamic_sd_capture_tiers": False,
    }),
    ("0.11.1", {
        "async_pp": "refuse", "scheduler_field_bounds": True,
        "pipeline": PIPELINE_V0_11_1,
        "serve_model_flag": "move",
        "mode_field": "mode", "mode_accepts_names": True, "has_level_alias": True,
        "check_piecewise_backend": True, "sp_rms_norm": None, "torch_has_inductor_partition": True,
        "pass_config_noop_warnings": ("enable_noop", (
            (("enable_fusion",), _FUSION_NOOP_NORM), (("enable_attn_fusion",), _FUSION_NOOP_ATTN),
            (("enable_fi_allreduce_fusion",), _FUSION_NOOP_ALLREDUCE))),
        "all2all_env": "fallback", "cuda_graph_sizes_style": "deprecated",
        "deepep_message": _msg_deepep("WideEP", "use --all2all-backend with",
                                      "deepep_low_latency, pplx, or allgather_reducescatter"),
        "piecewise_assert_message": ("Compilation mode should be CompilationMode.VLLM_COMPILE when "
                                     "cudagraph_mode piecewise cudagraphs is used, cudagraph_mode={cg}"),
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency and "
                        "deepep_high_throughput all2all backend. {backend} is not supported. To fix use "
                        "--all2all-backend=deepep_low_latency or --all2all-backend=deepep_high_throughput "
                        "and install the DeepEP kernels."),
        "capture_sizes_style": "v0_11_1",
        "cascade_message": ("No piecewise cudagraph for executing cascade attention. Will fall back to eager "
                            "execution if a batch runs into cascade attentions"),
        "empty_splitting_messages": EMPTY_SPLITTING_MESSAGES_V0_11,
        "rope_kvcache_fusion_guards": (), "rope_kvcache_messages": {}, "sp_full_graph_rule": False,
        "deepep_effective_dp": False,
        "piecewise_needs_compile_message": "Cudagraph mode {cg} is not compatible with compilation mode "
                                           "{mode}.Overriding to NONE.",
    }),
    ("0.12.0", {
        "pipeline": PIPELINE_V0_12,
        "o_flag": "optimization_level_dotted_deprecated",
        "pass_config_deprecated_names": True, "warn_duplicate_flags": True,
        "pass_config_noop_warnings": ("eliminate_noops", (
            (("fuse_norm_quant", "fuse_act_quant"), _FUSION_NOOP_NORM), (("fuse_attn_quant",), _FUSION_NOOP_ATTN),
            (("fuse_allreduce_rms",), _FUSION_NOOP_ALLREDUCE))),
        "attn_fusion_name": "fuse_attn_quant", "sp_name": "enable_sp", "async_tp_name": "fuse_gemm_comms",
        "sp_rms_norm": "unless_disabled",
        "has_optimization_level": True,
        "splitting_ops_empty_without_compile": True, "pcp_override": True,
    }),
    ("0.13.0", {
        "pipeline": PIPELINE_V0_13,
        "o_flag": "optimization_level", "config_extra": "forbid", "pass_config_deprecated_names": False,
        "pcp_override": False, "capture_max_counts_spec_tokens": True,
        "deepep_message": _msg_deepep("DeepEP", "use --all2all-backend with",
                                      "deepep_low_latency, pplx, or allgather_reducescatter"),
    }),
    ("0.14.0", {
        "deepep_effective_dp": True, "all2all_env": "override",
        "all2all_env_override_warning": "VLLM_ALL2ALL_BACKEND environment variable is deprecated and will "
                                        "be removed in v0.15.0. Please use the --all2all-backend "
                                        "command-line argument instead.",
    }),
    ("0.14.0", {
        "empty_splitting_messages": EMPTY_SPLITTING_MESSAGES_V0_14,
        "cascade_message": ("No piecewise cudagraph for executing cascade attention. Will fall back to eager "
                            "execution if a batch runs into cascade attentions."),
        "inductor_disabled_message": ("Inductor compilation was disabled by user settings, optimizations "
                                      "settings that are only active during inductor compilation will be "
                                      "ignored."),
    }),
    ("0.15.1", {
        "extra_default_split_ops": ("vllm::unified_kv_cache_update",),
    }),
    ("0.15.0", {"draft_model_not_implemented": False, "async_pp": None}),
    ("0.16.0", {"dcp_check_in_parallel_config": True}),  # ParallelConfig checks tp % dcp (parallel.py)
    ("0.16.0", {
        "all2all_env": "ignored", "sp_tp1_disable": True,
    }),
    ("0.17.0", {
        "kv_connector_checked_in_config": "full_graphs",
        "pipeline": PIPELINE_V0_17, "sp_threshold": True, "sp_rms_norm": None,
        "allreduce_fusion_auto": True, "capture_interactivity": True, "validate_environ": True,
        "allreduce_fusion_single_dp_pp": True, "removed_all2all_backends": ("pplx",),
        "throughput_mode_doubles": True,
        "enforce_eager_message": ("Enforce eager set, disabling torch.compile and CUDAGraphs. This is "
                                  "equivalent to setting -cc.mode=none -cc.cudagraph_mode=none"),
        "extra_default_split_ops": ("vllm::unified_kv_cache_update", "vllm::unified_mla_kv_cache_update"),
        "deepep_message": _msg_deepep("DeepEP", "use --all2all-backend with",
                                      "deepep_low_latency or allgather_reducescatter"),
    }),
    # fuse_act_quant's -O default also holds for NVFP4 checkpoints (ModelConfig.is_nvfp4_quantized,
    # read in 0.17.0's config/vllm.py enable_act_fusion); ModelOpt mixed-precision layers count from 0.32.0
    # (0.32.0 config/model.py:130 `_modelopt_mixed_has_nvfp4`; absent in 0.31.0)
    ("0.17.0", {"act_fusion_nvfp4": True}),
    ("0.32.0", {"act_fusion_nvfp4_mixed": True}),
    ("0.18.0", {"ray_installed": False}),  # no ray in the wheel's Requires-Dist (0.17.1 still has it)
    ("0.18.0", {
        "has_level_alias": False,
        "pipeline": PIPELINE_V0_17 + ("log_enabled_passes",),
    }),
    ("0.19.0", {
        "removed_all2all_backends": ("pplx", "naive"),
        "rope_kvcache_fusion_guards": ("fuse_rope_kvcache",),
        "rope_kvcache_messages": {"fuse_rope_kvcache": (
            "fuse_rope_kvcache is enabled, but splitting_ops is None and Inductor graph partition is not "
            "enabled.Disabling fuse_rope_kvcache.Please either set splitting_ops to an empty list []or set "
            "use_inductor_graph_partition to True to enable RoPE+KV cache fusion.")},
    }),
    ("0.19.0", {"executor_class_lookup": True}),  # VllmConfig looks the executor class up by name
    ("0.20.0", {
        "pipeline": PIPELINE_V0_20 + ("log_enabled_passes",),
        "sp_full_graph_rule": True, "sp_followup": "pp_only", "dotted_human_readable_int": True,
        "norm_fusion_ir_priority": True, "batched_dp_moe_tokens": 256,
    }),
    ("0.21.0", {
        "capture_add_max_num_batched_tokens": True,
        # enable_allreduce_rms_fusion no longer excludes DP/PP (read in 0.21.0's config/vllm.py)
        "allreduce_fusion_single_dp_pp": False,
    }),
    ("0.22.0", {
        "pipeline": PIPELINE_V0_22 + ("log_enabled_passes",), "has_breakable_cudagraph": True,
        "breakable_message": ("VLLM_USE_BREAKABLE_CUDAGRAPH is set, disabling vLLM's torch.compile "
                              "pipeline. Equivalent to -cc.mode=none."),
    }),
    ("0.22.0", {"convert_implies_pooling": True}),  # config/model.py _get_runner_type reads --convert (0.22.0 :935)
    # EngineArgs._check_feature_supported drops its --logits-processor-pattern (0.17.0) and
    # concurrent partial prefill (0.27.0) refusals (read in every release's engine/arg_utils.py)
    ("0.17.0", {"logits_pattern_supported": True}),
    ("0.27.0", {"partial_prefill_supported": True}),
    ("0.23.0", {"parallel_field_bounds": True}),
    # the KV connector looked up for any KV-transfer config without an HMA preference: the hybrid KV
    # cache manager's default asks the connector class from 0.22.0 (config/vllm.py:1440-1451; 0.23.0
    # :1479-1486 through supports_hma_config); 0.21.0 :1340 does not (recorded on 0.21.0 and 0.24.0)
    ("0.22.0", {"kv_connector_checked_in_config": "always"}),
    ("0.11.1", {"kv_connectors": _KV_V0_11_1}), ("0.13.0", {"kv_connectors": _KV_V0_13_0}),
    ("0.14.0", {"kv_connectors": _KV_V0_14_0}), ("0.17.0", {"kv_connectors": _KV_V0_17_0}),
    ("0.18.0", {"kv_connectors": _KV_V0_18_0}), ("0.19.0", {"kv_connectors": _KV_V0_19_0}),
    ("0.20.0", {"kv_connectors": _KV_V0_20_0}), ("0.21.0", {"kv_connectors": _KV_V0_21_0}),
    ("0.24.0", {"kv_connectors": _KV_V0_24_0}), ("0.30.0", {"kv_connectors": _KV_V0_30_0}),
    # dynamic speculative decoding, read in every release's config/vllm.py 0.24.0-0.33.0
    ("0.24.0", {"dynamic_sd_piecewise": "always"}),
    ("0.25.0", {"dynamic_sd_piecewise": "v1_runner",
                "dynamic_sd_hint": " Use VLLM_USE_V2_MODEL_RUNNER=1 if you want to use full CUDA graphs."}),
    ("0.26.0", {"dynamic_sd_off_for_dp": True}),
    ("0.29.0", {"dynamic_sd_capture_tiers": True}),
    ("0.33.0", {"dynamic_sd_v1_methods": ("ngram", "eagle", "eagle3", "mtp", "draft_model", "dflash")}),
    ("0.24.0", {
        "dbo_backends": ("deepep_low_latency", "deepep_high_throughput", "nixl_ep"),
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, "
                        "and nixl_ep all2all backends. {backend} is not supported. To fix use "
                        "--all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, or "
                        "--all2all-backend=nixl_ep and install the matching kernels."),
        "deepep_message": _msg_deepep("DeepEP", "use --all2all-backend with",
                                      "deepep_low_latency, nixl_ep, or allgather_reducescatter"),
    }),
    ("0.26.0", {
        "dcp_message_spaced": True,
        "rope_kvcache_fusion_guards": ("fuse_rope_kvcache", "fuse_qk_norm_rope_kvcache"),
        "rope_kvcache_messages": {
            "fuse_rope_kvcache": (
                "fuse_rope_kvcache is enabled, but splitting_ops is None and Inductor graph partition is "
                "not enabled.Disabling fuse_rope_kvcache.Please either set splitting_ops to an empty list "
                "[]or set use_inductor_graph_partition to True to enable RoPE+KV cache fusion."),
            "fuse_qk_norm_rope_kvcache": (
                "fuse_qk_norm_rope_kvcache is enabled, but splitting_ops is None and Inductor graph "
                "partition is not enabled. Disabling fuse_qk_norm_rope_kvcache. Please either set "
                "splitting_ops to an empty list [] or set use_inductor_graph_partition to True to enable "
                "QK-Norm+RoPE+KV cache fusion."),
        },
    }),
    ("0.27.0", {"custom_ops_conflicts": True, "dcp_messages_v0_27": True}),
    ("0.28.0", {
        "sm100_capture_ceiling": True,
    }),
    ("0.29.0", {
        "capture_uniform_decode_sizes": True, "allreduce_fusion_batch_invariant": True,
    }),
    ("0.30.0", {
        "pipeline": PIPELINE_V0_30 + ("log_enabled_passes",), "breakable_message": "", "inductor_warning_skips_breakable": True,
    }),
    # the V1 model runner's own refusals (_validate_v1_model_runner, 0.29.0 config/vllm.py:1653-1656):
    # prefill context parallel, DSpark; async scheduling + PP, which nothing checks 0.15.0-0.30.0
    # (read in each config/vllm.py), joins them in 0.31.0 (config/vllm.py:3120-3124)
    # (0.29.0+ also adaptive draft verification and batch-sharded sampling: vllm_config/model_runner.v1_features;
    # DFlash/XPress/Parse draft architectures and diffusion targets: resolve/draft_features.v1_flags)
    ("0.29.0", {"v1_unsupported": ("pcp", "dspark", "adaptive", "dflash_multi_kv", "dflash2", "diffusion",
                                   "batch_sharded")}),
    ("0.31.0", {"async_pp": "v1_runner_validate", "v1_unsupported": ("pcp", "async_pp", "dspark", "adaptive",
                                                                     "dflash_multi_kv", "dflash_candidate",
                                                                     "diffusion", "batch_sharded")}),
    # 0.33.0 (config/vllm.py:3089-3151) adds a draft lm_head quantization (--speculative-config, :3119) and Step5
    ("0.33.0", {"v1_unsupported": ("pcp", "async_pp", "dspark", "xpress", "adaptive", "draft_lm_head_quant",
                                   "parse_mtp", "dflash_multi_kv", "dflash_candidate", "diffusion", "batch_sharded",
                                   "step5")}),
    ("0.31.0", {
        "pipeline": PIPELINE_V0_31 + ("log_enabled_passes",), "capture_add_max_num_seqs": True,
        "enforce_eager_message": ("Enforce eager set, disabling torch.compile, CUDAGraphs, and JIT kernel "
                                  "warmup. This is equivalent to setting -cc.mode=none "
                                  "-cc.cudagraph_mode=none and --kernel_config.enable_jit_warmup=False"),
    }),
    ("0.32.0", {
        "cascade_message": None,
        "pipeline": PIPELINE_V0_32 + ("log_enabled_passes",), "sp_full_graph_rule": False, "sp_followup": None,
        # the sequence-parallelism and async-TP passes are gone: PassConfig has no enable_sp /
        # fuse_gemm_comms field from 0.32.0 (config/compilation.py: PassConfig, read 0.31.0-0.33.0),
        # so no pass key names them and a -cc pass_config with either is an unexpected keyword
        "sp_name": None, "async_tp_name": None,
    }),
    ("0.33.0", {
        # async scheduling with PP refused only on the V1 runner, up front (recorded on 0.33.0);
        # 0.31.0-0.32.0 refuse it later, in _validate_v1_model_runner ("v1_runner_validate")
        "async_pp": "v1_runner",
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, "
                        "nixl_ep all2all backends on this platform. {backend} is not supported. To fix use one "
                        "of --all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, "
                        "--all2all-backend=nixl_ep and install the matching kernels."),
    }),
    # async scheduling asked for with a speculative method that is not EAGLE/MTP-like: refused in
    # VllmConfig.__post_init__ (0.11.1 config/vllm.py:383, 0.12.0 :542, 0.16.0 :628, 0.18.0 :703,
    # 0.25.0 :979, 0.31.0 :1563, 0.32.0 :1572; MTP aliases are EagleModelTypes): the methods it takes
    # and its message, by first release; 0.33.0 (:1652-1679) checks it for the V1 runner only, ahead
    # of the PP check ("v1_runner": "Async scheduling is not supported by the V1 model runner with ...")
    ("0.11.1", {"async_spec_ok": ("eagle", "eagle3", "mtp"), "async_spec_message": _ASYNC_SPEC % "EAGLE/MTP"}),
    ("0.14.0", {"async_spec_message": _ASYNC_SPEC % "EAGLE/MTP" + "."}),
    ("0.16.0", {"async_spec_ok": ("eagle", "eagle3", "mtp", "draft_model"),
                "async_spec_message": _ASYNC_SPEC % "EAGLE/MTP/Draft Model" + "."}),
    ("0.17.0", {"async_spec_ok": ("eagle", "eagle3", "mtp", "draft_model", "extract_hidden_states")}),
    ("0.18.0", {"async_spec_ok": ("eagle", "eagle3", "mtp", "draft_model", "extract_hidden_states", "ngram_gpu"),
                "async_spec_message": _ASYNC_SPEC % "EAGLE/MTP/Draft Model/NGram GPU"}),
    ("0.20.0", {"async_spec_ok": ("eagle", "eagle3", "mtp", "draft_model", "extract_hidden_states", "ngram_gpu",
                                  "dflash")}),
    ("0.25.0", {"async_spec_ok": ("eagle", "eagle3", "mtp", "draft_model", "extract_hidden_states", "ngram_gpu",
                                  "dflash", "dspark"),
                "async_spec_message": _ASYNC_SPEC % "EAGLE/MTP/Draft Model/NGram GPU/DSpark"}),
    ("0.31.0", {"async_spec_message": _ASYNC_SPEC % "EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash"}),
    ("0.33.0", {"async_spec_message": "v1_runner"}),
    # ParallelConfig refuses prefill context parallelism in 0.12.0 only (config/parallel.py:315, the
    # last check of its model validator; 0.11.x has no such field, 0.13.0 runs it)
    ("0.12.0", {"pcp_refused": True}), ("0.13.0", {"pcp_refused": False}),
    # VLLM_USE_V2_MODEL_RUNNER=1 (or a config V2 is forced for) with a feature V2 lacks:
    # _validate_v2_model_runner (0.20.0 config/vllm.py:1153-1154 and :1787-1828, 0.22.0 :2057-2067,
    # 0.30.0 :3079-3088, 0.33.0 :3329), after the platform's config update; the features per
    # release are vllm_config/model_runner.v2_unsupported's (releases/runtime_rules.py v2_unsupported)
    ("0.20.0", {"v2_validate_message": "VLLM_USE_V2_MODEL_RUNNER does not yet support: "}),
    ("0.23.0", {"v2_validate_message": "Model Runner V2 does not yet support: "}),
]

# The seed's design on its base (0.12.0): the platform's DeepEP rule removed, the
# splitting-ops step replaced by the seed's set_splitting_ops_for_v1.
PR29558_CHANGES: dict = {
    "pipeline": tuple(
        "splitting_ops_pr29558" if s == "splitting_ops_v0_11_1" else s
        for s in PIPELINE_V0_12 if s != "deepep_ht_platform"),
}
