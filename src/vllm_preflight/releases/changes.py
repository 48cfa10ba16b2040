"""What each vLLM release changed, as data: (first release, {rule knob: value}).

A release's rules are every change up to it, in order. `pipeline` is the ordered list of
`resolve.steps` that its `VllmConfig.__post_init__` runs; other knobs pick step variants,
messages and lists. Sources: each release's vllm/config/{vllm,compilation,parallel}.py,
vllm/engine/arg_utils.py and vllm/utils/argparse_utils.py.
"""
from __future__ import annotations

from vllm_preflight.releases.optimization_levels import levels_v0_12, levels_v0_17


def _msg_deepep(prefix: str, how: str, options: str) -> str:
    return (f"{prefix}: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized for "
            f"prefill and are incompatible with CUDA Graphs. In order to use CUDA Graphs for "
            f"decode-optimized workloads, {how} with another option, such as {options}.")


PIPELINE_V0_11_0 = (
    "default_mode_from_model", "sequence_parallel_custom_op", "default_cudagraph_mode_v0_11_0",
    "enforce_eager_cudagraphs", "cudagraph_sizes", "deepep_ht_platform", "final_checks",
    "dbo_backend_check", "splitting_ops_v0_11_0",
)
PIPELINE_V0_11_1 = (
    "default_mode_from_model", "default_custom_ops", "sequence_parallel_custom_op",
    "default_cudagraph_mode_v0_11_1", "static_graph_overrides_v0_12", "enforce_eager_cudagraphs",
    "cudagraph_sizes", "deepep_ht_platform", "splitting_ops_v0_11_1", "sequence_parallel_followup",
    "final_checks", "dbo_backend_check",
)
PIPELINE_V0_12 = (
    "enforce_eager_level", "inductor_disabled_warning", "blocked_fp8_custom_op", "default_mode_from_level",
    "default_custom_ops", "optimization_level_defaults", "piecewise_needs_compile_none",
    "sequence_parallel_custom_op", "static_graph_overrides_v0_12", "enforce_eager_cudagraphs",
    "cudagraph_sizes", "deepep_ht_platform", "splitting_ops_v0_11_1", "sequence_parallel_followup",
    "final_checks", "dbo_backend_check", "blocked_fp8_custom_op",
)

CHANGES: list[tuple[str, dict]] = [
    ("0.11.0", {
        "pipeline": PIPELINE_V0_11_0,
        # parser
        "o_flag": "compilation_level", "dotted_human_readable_int": False, "warn_duplicate_flags": False,
        "serve_model_flag": "error",
        # compilation config
        "mode_field": "level", "mode_accepts_names": False, "has_level_alias": False,
        "config_extra": "ignore", "cudagraph_mode_bad_name_error": "KeyError",
        "pass_config_deprecated_names": False, "check_piecewise_backend": False,
        "attn_fusion_name": "enable_attn_fusion", "sp_name": "enable_sequence_parallelism",
        "has_optimization_level": False, "optimization_level_defaults": None,
        # engine
        "all2all_env": "only", "all2all_env_override_warning": "",
        "cuda_graph_sizes_style": "scheduler",
        # rules
        "deepep_message": _msg_deepep("WideEP", "set VLLM_ALL2ALL_BACKEND",
                                      "deepep_low_latency, pplx, or allgather_reducescatter"),
        "extra_default_split_ops": (), "splitting_ops_empty_without_compile": False,
        "sp_followup_appends_twice": True, "pcp_override": False, "has_breakable_cudagraph": False,
        "piecewise_assert_message": ("Compilation level should be CompilationLevel.PIECEWISE when "
                                     "cudagraph_mode piecewise cudagraphs is used, cudagraph_mode={cg}"),
        "dbo_backends": ("deepep_low_latency", "deepep_high_throughput"),
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency and "
                        "deepep_high_throughput all2all backend. {backend} is not supported. To fix set "
                        "the VLLM_ALL2ALL_BACKEND environment variable to deepep_low_latency or "
                        "deepep_high_throughput and install the DeepEP kernels."),
        "capture_sizes_style": "v0_11_0", "capture_max_counts_spec_tokens": False,
        "sm100_capture_ceiling": False,
        "enforce_eager_message": "", "torch_compile_disable_message": "",
        "piecewise_needs_compile_message": "",
    }),
    ("0.11.1", {
        "pipeline": PIPELINE_V0_11_1,
        "serve_model_flag": "move",
        "mode_field": "mode", "mode_accepts_names": True, "has_level_alias": True,
        "check_piecewise_backend": True,
        "all2all_env": "fallback", "cuda_graph_sizes_style": "deprecated",
        "deepep_message": _msg_deepep("WideEP", "use --all2all-backend",
                                      "deepep_low_latency, pplx, or allgather_reducescatter"),
        "piecewise_assert_message": ("Compilation mode should be CompilationMode.VLLM_COMPILE when "
                                     "cudagraph_mode piecewise cudagraphs is used, cudagraph_mode={cg}"),
        "dbo_message": ("Microbatching currently only supports the deepep_low_latency and "
                        "deepep_high_throughput all2all backend. {backend} is not supported. To fix use "
                        "--all2all-backend=deepep_low_latency or --all2all-backend=deepep_high_throughput "
                        "and install the DeepEP kernels."),
        "capture_sizes_style": "v0_11_1",
    }),
    ("0.12.0", {
        "pipeline": PIPELINE_V0_12,
        "o_flag": "optimization_level_dotted_deprecated",
        "pass_config_deprecated_names": True,
        "attn_fusion_name": "fuse_attn_quant", "sp_name": "enable_sp",
        "has_optimization_level": True, "optimization_level_defaults": levels_v0_12,
        "splitting_ops_empty_without_compile": True, "pcp_override": True,
    }),
    ("0.13.0", {
        "o_flag": "optimization_level", "config_extra": "forbid", "pass_config_deprecated_names": False,
    }),
    ("0.17.0", {
        "optimization_level_defaults": levels_v0_17,
    }),
]

# The seed's design on its base (0.12.0): the platform's DeepEP rule removed, the
# splitting-ops step replaced by the seed's set_splitting_ops_for_v1.
PR29558_CHANGES: dict = {
    "pipeline": tuple(
        "splitting_ops_pr29558" if s == "splitting_ops_v0_11_1" else s
        for s in PIPELINE_V0_12 if s != "deepep_ht_platform"),
}
