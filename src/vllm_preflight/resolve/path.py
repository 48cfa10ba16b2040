"""vLLM's config path, in the order vLLM runs it: the one registry of the resolver's steps.

Each step is one function `(state, values) -> None` holding the checks of one vLLM class or
function, in the stage package named by what vLLM runs (`resolve/<stage>/`). `STAGES` names the
stages; `PATH` lists every step in vLLM's order. Where `PIPELINE` stands, the release's own
compilation steps run (`releases/changes.py: pipeline`, the variants of VllmConfig.__post_init__'s
compilation and CUDA-graph rules); a step with `after=` runs inside that pipeline, right after the
named compilation step. `resolve/plan.py` compiles this, once per release, into the steps that
release has; `python -m vllm_preflight.resolve.pathmap` writes docs/config-path-map.md from it.

A new release's rule goes into the step that holds its vLLM class or function, keyed by the first
release that has it; a new check vLLM adds between two steps is a new function, listed here in
its place (docs/architecture.md has a worked example).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vllm_preflight.resolve.cache import cache_config
from vllm_preflight.resolve.compilation import compilation_config
from vllm_preflight.resolve.config import (
    attention,
    engram,
    json_configs,
    kernel,
    mamba,
    observability,
    offload,
    reasoning,
    structured_outputs,
)
from vllm_preflight.resolve.engine import check_feature_supported, create_engine_config, launch_options, speculators
from vllm_preflight.resolve.kv_transfer import kv_transfer_config
from vllm_preflight.resolve.lora import lora_config
from vllm_preflight.resolve.model import (
    arch_config,
    model_config,
    multimodal,
    quantization,
    verify_with_parallel_config,
)
from vllm_preflight.resolve.parallel import parallel_config
from vllm_preflight.resolve.parser import argument_parser
from vllm_preflight.resolve.quantization import quant_config
from vllm_preflight.resolve.runtime import runtime_step
from vllm_preflight.resolve.scheduler import scheduler_config
from vllm_preflight.resolve.serve import command, serve
from vllm_preflight.resolve.speculative import speculative_config
from vllm_preflight.resolve.vllm_config import (
    async_scheduling,
    model_hooks,
    model_runner,
    post_init,
    post_init_late,
    replayssm,
)


@dataclass(frozen=True)
class Stage:
    key: str  # the package under resolve/
    title: str  # what vLLM runs
    source: str  # where, in vLLM's tree


STAGES = (
    Stage("serve", "`vllm serve`'s front door", "vllm/entrypoints/cli/serve.py, entrypoints/*/cli_args.py"),
    Stage("parser", "the parser", "vllm/utils/argparse_utils.py, vllm/engine/arg_utils.py: add_cli_args"),
    Stage("engine", "EngineArgs.create_engine_config", "vllm/engine/arg_utils.py"),
    Stage("model", "ModelConfig", "vllm/config/model.py"),
    Stage("cache", "CacheConfig", "vllm/config/cache.py"),
    Stage("parallel", "ParallelConfig", "vllm/config/parallel.py"),
    Stage("scheduler", "SchedulerConfig", "vllm/config/scheduler.py"),
    Stage("speculative", "SpeculativeConfig", "vllm/config/speculative.py"),
    Stage("lora", "LoRAConfig", "vllm/config/lora.py"),
    Stage("config", "the other config classes", "vllm/config/{attention,mamba,load,observability,offload,...}.py"),
    Stage("compilation", "CompilationConfig / PassConfig", "vllm/config/compilation.py"),
    Stage("vllm_config", "VllmConfig.__post_init__", "vllm/config/vllm.py"),
    Stage("quantization", "VllmConfig._get_quantization_config", "vllm/model_executor/layers/quantization/"),
    Stage("kv_transfer", "KVTransferConfig", "vllm/config/kv_transfer.py"),
    Stage("platform", "current_platform.check_and_update_config", "vllm/platforms/cuda.py"),
    Stage("runtime", "the runtime stage (model runner, at KV-cache initialisation)", "vllm/v1/worker/"),
)

Run = Callable[..., None]


@dataclass(frozen=True)
class Step:
    run: Run | None  # (state, values) -> None; None for the pipeline's place
    after: str | None = None  # inside the compilation pipeline: right after this compilation step

    @property
    def stage(self) -> str:
        """The stage package the step's function lives in (resolve/<stage>/...)."""
        return _stage_of(self.run)

    @property
    def name(self) -> str:
        return "pipeline" if self.run is None else f"{self.stage}.{self.run.__name__}"


def _stage_of(fn: Run | None) -> str:
    if fn is None:
        return "vllm_config"
    parts = fn.__module__.split(".")
    return parts[parts.index("resolve") + 1]


PIPELINE = Step(None)
HEAD_ENDS_WITH = "model.read_model"  # every step up to the model's facts runs for every deployment

PATH: tuple[Step, ...] = (
    # -- the server command, its parser and `vllm serve`'s own checks before the engine config
    Step(command.server_command),
    # vLLM builds its parser's defaults (a default AttentionConfig, CompilationConfig) first
    Step(attention.attention_config_env),
    Step(compilation_config.compile_cache_save_format_env),
    Step(argument_parser.parse_command),
    Step(serve.front_door),
    # -- EngineArgs.create_engine_config
    Step(speculators.speculators_checkpoint),  # maybe_override_with_speculators
    Step(model_config.read_model),  # create_model_config: config.json, --hf-overrides
    Step(model_config.config_class_defaults),  # transformers' config class fills missing keys
    Step(model_config.attention_backend_env),  # ModelConfig.__post_init__ (0.11.0-0.12.x)
    Step(create_engine_config.validate_environ),
    Step(model_config.override_generation_config),
    Step(multimodal.model_arguments),  # ModelConfig's typed multimodal InitVars
    Step(arch_config.arch_config_convertor),  # model_arch_config, before max_model_len
    Step(model_config.model_fields),  # get_and_verify_max_len, the runner, the fields later configs read
    Step(multimodal.model_config),  # ModelConfig.__post_init__: MultiModalConfig
    Step(quantization.verify_model),  # ModelConfig._verify_quantization
    Step(check_feature_supported.feature_checks),  # _check_feature_supported
    Step(model_config.model_default_checks),  # _set_default_args
    Step(launch_options.dcp_divides_tp),
    Step(cache_config.cache_config),
    Step(launch_options.dp_backend_check),  # multi-node / data-parallel launch options
    Step(cache_config.cache_dtype_check),
    Step(create_engine_config.async_scheduling_0_11_0),
    Step(parallel_config.build_parallel_config),
    Step(parallel_config.parallel_checks),
    Step(parallel_config.parallel_eplb_check),
    Step(engram.after_parallel),  # Engram against the model, the AuxOutput flag
    Step(parallel_config.executor_backend_check),
    Step(parallel_config.dbo_thresholds),  # ParallelConfig._verify_args' last check
    Step(json_configs.json_configs),  # --diffusion-config, --watermark-config
    Step(scheduler_config.scheduler_config),
    Step(speculative_config.speculative_config),  # create_speculative_config
    Step(lora_config.engine_checks),  # --default-mm-loras, LoRAConfig, LoRA x speculative
    Step(attention.attention_backend),
    Step(mamba.mamba_flags),
    Step(observability.load_config),
    Step(observability.observability),
    Step(create_engine_config.optimization_level),
    Step(compilation_config.default_config),
    Step(create_engine_config.capture_size_flags),
    Step(offload.offload),
    Step(create_engine_config.kda_prefill_backend),
    # -- VllmConfig.__post_init__
    Step(structured_outputs.reasoning_parser),
    Step(model_hooks.try_verify_and_update_config),
    Step(verify_with_parallel_config.model_parallel_checks),
    Step(post_init.float_kv_cache),
    Step(post_init.adaptive_method),
    Step(post_init.routed_experts_early),
    Step(post_init.sampling_replay),
    Step(post_init.trace_replay),
    Step(post_init.nixl_context_parallel),
    Step(post_init.stochastic_rounding),
    Step(post_init.engram_microbatching),
    Step(post_init.watermarking),
    Step(post_init.hisparse_runner),
    Step(multimodal.vllm_config),  # EC producer, torch_shm IPC, processor device
    Step(lora_config.model_checks),
    Step(quant_config.verify_config),  # _get_quantization_config
    Step(model_runner.note_v2_features),
    Step(async_scheduling.async_scheduling_checks),
    Step(post_init.async_executor),
    Step(post_init.proton_eager),
    Step(post_init.per_request_spec_decode_metrics),
    Step(kv_transfer_config.kv_connector_check),
    Step(kv_transfer_config.kv_transfer_config),
    PIPELINE,  # the release's compilation steps (releases/changes.py)
    Step(post_init_late.after_capture_sizes, after="cudagraph_sizes"),
    Step(kernel.kernel_platform_defaults),
    Step(kv_transfer_config.kv_offloading),
    Step(kv_transfer_config.kv_connector_full_graphs),
    Step(post_init.hisparse_checks),
    Step(post_init_late.lookahead_slots),
    Step(model_runner.validate_v2_runner),
    Step(model_runner.validate_v1_runner),
    Step(post_init_late.routed_experts_0_21),
    Step(post_init_late.profiler),
    Step(post_init_late.batch_sharded_sampling),
    Step(post_init_late.adaptive_verification),
    Step(post_init_late.compile_range_endpoints),
    Step(post_init_late.moonep),
    Step(post_init_late.aux_output),
    Step(post_init_late.hybrid_kv_cache_manager),
    Step(post_init_late.hisparse_hma),
    Step(post_init_late.kv_sleep_mode),
    Step(post_init_late.kv_transfer_expandable_segments),
    Step(post_init_late.nvfp4_mla),
    Step(post_init_late.mamba_block_size),
    Step(replayssm.validate_mamba_cached_kernel),  # the last model validator
    Step(reasoning.initialize_token_ids),  # ReasoningConfig (0.20.0+)
    Step(serve.after_engine_config),
    # -- the model runner, after config time
    Step(runtime_step),
)
