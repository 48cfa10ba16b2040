"""From parsed `vllm serve` arguments to the config objects vLLM constructs.

The part of `EngineArgs.create_engine_config` that feeds our outputs: the model config
(enforce_eager, runner, max_model_len), scheduler defaults from the GPU's memory, the
parallel config (all2all backend from flag or env, by release), speculative decoding,
and the capture-size flags merged into the compilation config.
"""
from __future__ import annotations

import json
from typing import Any

from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.compilation import compilation_config
from vllm_preflight.resolve.config import subconfigs as subconfig_checks
from vllm_preflight.resolve.lora import lora_config as lora_checks
from vllm_preflight.resolve.model import max_model_len as model_len
from vllm_preflight.resolve.model import multimodal as multimodal_checks
from vllm_preflight.resolve.model import quantization
from vllm_preflight.resolve.parser.argument_parser import ParsedArgs
from vllm_preflight.resolve.vllm_config import config_checks, model_hooks
from vllm_preflight.resolve.vllm_config import post_init as vllm_config_checks

DEFAULT_MODEL = "Qwen/Qwen3-0.6B"


def model_name(args: ParsedArgs) -> str:
    return args.model_tag or args.values.get("model") or DEFAULT_MODEL


def _optimization_level(text: Any) -> int:
    """OptimizationLevel (an IntEnum field) accepts 0..3, as numbers or numeric text; the
    names "O2" are refused (recorded on 0.12.0 and 0.33.0; `-O2` is rewritten by the parser
    before it gets here)."""
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip()
        try:
            value = int(s)
        except ValueError:
            raise Refusal("ValidationError", f"1 validation error for VllmConfig\noptimization_level\n"
                          f"  Input should be 0, 1, 2 or 3 [type=enum, input_value={text!r}, input_type={type(text).__name__}]") from None
    if value not in (0, 1, 2, 3):
        raise Refusal("ValidationError", f"1 validation error for VllmConfig\noptimization_level\n"
                      f"  Input should be 0, 1, 2 or 3 [type=enum, input_value={text!r}, input_type={type(text).__name__}]")
    return value


def all2all_backend(state: State, flag_value: str | None) -> str | None:
    """Where the all2all backend comes from changed across releases (env only, env as
    fallback, env overriding the flag, env ignored)."""
    release = state.release
    env_value = state.env.get("VLLM_ALL2ALL_BACKEND")
    default = "allgather_reducescatter"
    source = release.all2all_env
    if source == "only":  # 0.11.0: no flag
        return env_value or default
    if source == "fallback":  # 0.11.1-0.13.0
        if flag_value is not None:
            return flag_value
        if env_value is not None:
            config_checks.all2all_env_value(state, env_value)
            state.log("warning", "VLLM_ALL2ALL_BACKEND environment variable is deprecated and will be "
                      "removed in a future release. Please use the --all2all-backend command-line "
                      "argument instead.", once=True)
            return env_value
        return default
    if source == "override":  # 0.14.x-0.15.x
        if env_value is not None:
            config_checks.all2all_env_value(state, env_value)
            state.log("warning", release.all2all_env_override_warning, once=True)
            return env_value
        return flag_value or default
    return flag_value or default  # 0.16.0+: the env var is gone


def build_parallel_config(state: State, values: dict) -> None:
    """ParallelConfig from flag values (or a `parallel_config` dict): sizes, then the all2all
    backend from flag or env by release, then the fallback for removed backends."""
    state.parallel.update({
        "data_parallel_size": values.get("data_parallel_size", 1),
        "tensor_parallel_size": values.get("tensor_parallel_size", 1) or 1,
        "pipeline_parallel_size": values.get("pipeline_parallel_size", 1) or 1,
        "enable_expert_parallel": bool(values.get("enable_expert_parallel", False)),
        "enable_dbo": bool(values.get("enable_dbo", False)),
        "ubatch_size": values.get("ubatch_size") or 0,  # 0.14.0+
        "decode_context_parallel_size": values.get("decode_context_parallel_size", 1) or 1,
        "prefill_context_parallel_size": values.get("prefill_context_parallel_size", 1) or 1,
    })
    state.parallel["all2all_backend"] = all2all_backend(state, values.get("all2all_backend"))
    removed_backend_fallback(state)


def removed_backend_fallback(state: State) -> None:
    """0.18.0+ (pplx) and 0.20.0+ (naive): removed backends fall back with a warning."""
    backend = state.parallel["all2all_backend"]
    if backend in state.release.removed_all2all_backends:
        msg = f"The '{backend}' all2all backend has been removed. Falling back to 'allgather_reducescatter'."
        state.log("warning", msg)
        state.set("parallel.all2all_backend", "allgather_reducescatter", "all2all.removed_backend", msg,
                  "warning")


def validate_environ(state: State) -> None:
    """0.17.0+: create_engine_config warns about VLLM_* variables the release does not know."""
    if not state.release.validate_environ:
        return
    from vllm_preflight.releases import known_env_vars

    names = [k for k in state.env if k.startswith("VLLM_")]
    if not names:
        return
    known = known_env_vars(state.release.version)
    if known is None:
        return
    for name in names:
        if name not in known:
            state.log("warning", f"Unknown vLLM environment variable detected: {name}")


def apply(args: ParsedArgs, state: State, facts: ModelFacts) -> None:
    v = args.values
    release = state.release
    validate_environ(state)
    # --- model config
    runner = v.get("runner", "auto")
    # `--runner auto` is pooling for a pooling architecture and, from 0.22.0, for any `--convert`
    # other than auto/none (ModelConfig._get_runner_type); an explicit runner is kept as given
    converts = v.get("convert") not in (None, "auto", "none") and release.rules.get("convert_implies_pooling", False)
    is_pooling = runner == "pooling" or (runner == "auto" and (facts.is_pooling or converts))
    ogc = v.get("override_generation_config")
    if ogc is not None and not isinstance(ogc, dict):  # a ModelConfig dict field, validated by pydantic
        raise config_checks._field("ModelConfig", "override_generation_config", "Input should be a valid dictionary")
    multimodal_checks.model_arguments(state, v)  # ModelConfig's typed mm InitVars (before __post_init__)
    model_hooks.arch_config_convertor(state, facts)  # model_arch_config (0.14.0 config/model.py:498), before max_model_len
    max_model_len = model_len.verify_max_len(state, facts, v.get("max_model_len"),
                                             bool(v.get("disable_sliding_window", False)), v.get("hf_overrides"))
    state.model_cfg.update({
        "enforce_eager": bool(v.get("enforce_eager", False)),
        "max_model_len": max_model_len,
        "is_pooling": is_pooling,
        # ModelConfig.pooler_config: a pooling runner's default, or the one the user gave (kept for
        # a generative model too) -- VllmConfig turns full CUDA graphs off whenever it is set
        "has_pooler_config": is_pooling or v.get("pooler_config") is not None,
        "is_encoder_decoder": facts.is_encoder_decoder,
        "is_moe": facts.is_moe,
        "disable_cascade_attn": bool(v.get("disable_cascade_attn", False)),
        "performance_mode": v.get("performance_mode"),
    })
    multimodal_checks.model_config(state, v, facts)  # ModelConfig.__post_init__: MultiModalConfig
    quantization.verify_model(state, facts, v)  # ModelConfig._verify_quantization
    # --- parallel config (create_engine_config asserts tp % dcp first)
    state.parallel.update({"tensor_parallel_size": v.get("tensor_parallel_size", 1) or 1,
                           "decode_context_parallel_size": v.get("decode_context_parallel_size", 1) or 1})
    config_checks.feature_checks(state, v)
    from vllm_preflight.resolve.parser import json_options  # the JSON options' checks after ModelConfig

    json_options.model_default_checks(state, v, facts)
    config_checks.dcp_divides_tp(state)
    subconfig_checks.cache_config(state, v)
    config_checks.dp_backend_check(state, v)
    config_checks.cache_dtype_check(state, v)
    if release.key < (0, 11, 1) and v.get("async_scheduling"):
        # 0.11.0 create_engine_config (arg_utils.py:1289-1304), before ParallelConfig: async scheduling
        # with PP or any --speculative-config; later releases check both in VllmConfig
        if (v.get("pipeline_parallel_size") or 1) > 1:
            raise Refusal("ValueError", "Async scheduling is not supported with pipeline-parallel-size > 1.")
        if v.get("speculative_config") is not None:
            raise Refusal("ValueError", "Currently, speculative decoding is not supported with async scheduling.")
    build_parallel_config(state, v)
    config_checks.parallel_checks(state, v)
    json_options.after_parallel(state, v)
    config_checks.executor_backend_check(state, v, state.assumptions)
    vllm_config_checks.dbo_thresholds(state, v)  # ParallelConfig._verify_args' last check (0.30.0+)
    # --- scheduler defaults (usage context: the OpenAI API server)
    big = state.gpu.memory_gib >= 70 and "a100" not in state.gpu.device_name.lower()
    chunked = v.get("enable_chunked_prefill")
    if chunked is None:
        chunked = not facts.is_encoder_decoder
    mnbt, mns = v.get("max_num_batched_tokens"), v.get("max_num_seqs")
    par = state.parallel
    batched_dp_moe = (release.batched_dp_moe_tokens and par["enable_expert_parallel"]
                      and par["data_parallel_size"] > 1
                      and par["all2all_backend"] in ("deepep_low_latency", "nixl_ep"))
    throughput = release.throughput_mode_doubles and v.get("performance_mode") == "throughput"
    if mns is None and throughput:
        mns_default = (1024 if big else 256) * 2
    else:
        mns_default = 1024 if big else 256
    if mnbt is None:
        # 0.20.0+: batched DP MoE (DeepEP LL / NIXL EP with DP>1) schedules few tokens per step
        mnbt = release.batched_dp_moe_tokens if batched_dp_moe else (8192 if big else 2048)
        if throughput:
            mnbt *= 2
        if not chunked:
            mnbt = max(max_model_len, mnbt)
        mnbt = min((mns if mns is not None else mns_default) * max_model_len, mnbt)
    if mns is None:
        mns = min(mns_default, mnbt)
    state.scheduler.update({"max_num_batched_tokens": mnbt, "max_num_seqs": mns,
                            "enable_chunked_prefill": chunked})
    subconfig_checks.scheduler_fields(state, v, mnbt, mns)
    _verify_scheduler(mnbt, mns, max_model_len, chunked, release.rules.get("scheduler_field_bounds", True))
    subconfig_checks.scheduler_post_init(state, v, mns, max_model_len, facts.is_encoder_decoder)
    # --- speculative decoding
    _spec_flags(v)
    spec = v.get("speculative_config")
    if isinstance(spec, str):
        spec = json.loads(spec)
    if spec is not None and not isinstance(spec, dict) and release.key >= (0, 15, 0):
        # JSON that is not an object: create_speculative_config treats it as a dict
        # (0.15.0 arg_utils.py:1336 `.update`; 0.26.0+ `.items()` first)
        attr = "items" if release.key >= (0, 26, 0) else "update"
        raise Refusal("AttributeError", f"'{type(spec).__name__}' object has no attribute '{attr}'")
    if isinstance(spec, dict):
        config_checks.speculative_checks(state, spec, facts, state.assumptions, v)
        state.num_speculative_tokens = int(spec.get("num_speculative_tokens") or 0)
        state.speculative_method = spec.get("method")
    lora_checks.engine_checks(state, v, facts)  # default_mm_loras, LoRAConfig, LoRA x speculative
    subconfig_checks.load_and_observability(state, v)
    # --- optimization level
    if release.has_optimization_level:
        state.optimization_level = _optimization_level(v.get("optimization_level", 2))
    # --- compilation config: validated by argparse already (as JSON), built here
    if not state.cc:  # no --compilation-config given: its defaults
        compilation_config.build(None, release, state)
    _merge_capture_flags(v, state)
    subconfig_checks.offload(state, v)
    subconfig_checks.kda_prefill_backend(state, v)
    # --- VllmConfig.__post_init__ begins: the architecture's config hook, then the checks
    parser = v.get("reasoning_parser")
    if parser:  # create_engine_config puts it in the structured-outputs config; VllmConfig revalidates that
        problem = json_options._reasoning_parser_problem({"reasoning_parser": parser}, state)
        if problem:
            raise config_checks._field("VllmConfig", "structured_outputs_config", f"Value error, {problem}")
    model_hooks.apply(state, facts.architecture, v)
    config_checks.model_parallel_checks(state, facts, v)
    multimodal_checks.vllm_config(state, v)  # EC producer, torch_shm IPC, processor device
    lora_checks.model_checks(state, v, facts, model_name(args))
    quantization.verify_config(state, facts, v)  # VllmConfig._get_quantization_config
    config_checks.async_scheduling_checks(state, v)
    config_checks.kv_connector_check(state, v)
    state.kv_transfer = config_checks._kv_dict(v)


_SPEC_FLAGS = (("--spec-method", "spec_method", "method"), ("--spec-model", "spec_model", "model"),
               ("--spec-tokens", "spec_tokens", "num_speculative_tokens"))


def _spec_flags(v: dict) -> None:
    """--spec-method/--spec-model/--spec-tokens (0.22.0+) go into the speculative config, each
    refused next to the same key of --speculative-config (EngineArgs.create_speculative_config,
    0.22.0 arg_utils.py, 0.33.0 :2108-2120)."""
    for flag, dest, key in _SPEC_FLAGS:
        value = v.get(dest)
        if value is None:
            continue
        spec = v.get("speculative_config")
        if not isinstance(spec, dict):
            spec = {}
        if key in spec:
            raise Refusal("ValueError", f"{flag} and --speculative-config['{key}'] are mutually exclusive")
        v["speculative_config"] = {**spec, key: value}


def _verify_scheduler(mnbt: int, mns: int, max_model_len: int, chunked: bool, bounds: bool = True) -> None:
    """SchedulerConfig's own checks (a pydantic config: its caller sees ValidationError)."""
    def fail(msg: str) -> Refusal:
        return Refusal("ValidationError", f"1 validation error for SchedulerConfig\n  Value error, {msg}")
    # field bounds (ge=1) are checked before the validators (recorded on 0.12.0 and pr29558)
    low = [(k, v) for k, v in (("max_num_batched_tokens", mnbt), ("max_num_seqs", mns)) if v < 1] \
        if bounds else []
    if low:
        n = len(low)
        raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for SchedulerConfig\n" + "\n".join(
            f"{k}\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value={v}, "
            f"input_type=int]" for k, v in low))
    if mnbt < max_model_len and not chunked:
        raise fail(f"max_num_batched_tokens ({mnbt}) is smaller than max_model_len ({max_model_len}). "
                   "This effectively limits the maximum sequence length to max_num_batched_tokens and "
                   "makes vLLM reject longer sequences. Please increase max_num_batched_tokens or "
                   "decrease max_model_len.")
    if mnbt < mns:
        raise fail(f"max_num_batched_tokens ({mnbt}) must be greater than or equal to max_num_seqs ({mns}).")


def _merge_capture_flags(v: dict, state: State) -> None:
    """`--cuda-graph-sizes`, `--cudagraph-capture-sizes`, `--max-cudagraph-capture-size` go into
    the compilation config; each is refused next to the same field in `-cc`."""
    if v.get("cuda_graph_sizes") is not None:
        if state.release.cuda_graph_sizes_style == "scheduler":  # 0.11.0: a scheduler field
            state.scheduler["cuda_graph_sizes"] = v["cuda_graph_sizes"]
        else:
            state.log("warning", "--cuda-graph-sizes is deprecated and will be removed in v0.13.0 or "
                      "v1.0.0, whichever is soonest. Please use --cudagraph-capture-sizes instead.")
            _flag_into_config(state, "cuda_graph_sizes", "cudagraph_capture_sizes", list(v["cuda_graph_sizes"]))
    if v.get("cudagraph_capture_sizes") is not None:
        _flag_into_config(state, "cudagraph_capture_sizes", "cudagraph_capture_sizes",
                          list(v["cudagraph_capture_sizes"]))
    if v.get("max_cudagraph_capture_size") is not None:
        _flag_into_config(state, "max_cudagraph_capture_size", "max_cudagraph_capture_size",
                          v["max_cudagraph_capture_size"])


def _flag_into_config(state: State, flag: str, field: str, value) -> None:
    if state.cc[field] is not None:
        raise Refusal("ValueError", f"{flag} and compilation_config.{field} are mutually exclusive")
    state.cc[field] = value
    state.cc_given.add(field)
