"""From parsed `vllm serve` arguments to the config objects vLLM constructs.

The part of `EngineArgs.create_engine_config` that feeds our outputs: the model config
(enforce_eager, runner, max_model_len), scheduler defaults from the GPU's memory, the
parallel config (all2all backend from flag or env, by release), speculative decoding,
and the capture-size flags merged into the compilation config.
"""
from __future__ import annotations

from typing import Any

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State


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


@reads(env=("VLLM_*",))
def validate_environ(state: State, values: dict) -> None:
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


@reads("async_scheduling", "pipeline_parallel_size", "speculative_config")
def async_scheduling_0_11_0(state: State, values: dict) -> None:
    """0.11.0 create_engine_config (arg_utils.py:1289-1304), before ParallelConfig: async scheduling
    with PP or any --speculative-config; later releases check both in VllmConfig."""
    if state.release.key >= (0, 11, 1) or not values.get("async_scheduling"):
        return
    if (values.get("pipeline_parallel_size") or 1) > 1:
        raise Refusal("ValueError", "Async scheduling is not supported with pipeline-parallel-size > 1.")
    if values.get("speculative_config") is not None:
        raise Refusal("ValueError", "Currently, speculative decoding is not supported with async scheduling.")


@reads(always=True)
def optimization_level(state: State, values: dict) -> None:
    """-O / --optimization-level (0.12.0+), validated as VllmConfig's IntEnum field."""
    if state.release.has_optimization_level:
        state.optimization_level = _optimization_level(values.get("optimization_level", 2))


@reads("cuda_graph_sizes", "cudagraph_capture_sizes", "max_cudagraph_capture_size")
def capture_size_flags(state: State, v: dict) -> None:
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


_KDA_PREFILL = (0, 30, 0)  # --kda-prefill-backend (0.30.0 arg_utils.py; 0.33.0 :2870-2878)


@reads("kda_prefill_backend")
def kda_prefill_backend(state: State, values: dict) -> None:
    """After OffloadConfig: the KDA prefill backend must suit the platform (a CUDA GPU here)."""
    if state.release.key >= _KDA_PREFILL and values.get("kda_prefill_backend") == "fused":
        raise Refusal("ValueError", "--kda-prefill-backend=fused is only available on ROCm.")
