"""The CUDA platform's DeepEP high-throughput rule (0.11.x-0.12.0): CUDA graphs off with DP>1."""
from __future__ import annotations

from vllm_preflight.resolve.base.compilation_state import _cg
from vllm_preflight.resolve.base.pydantic import validator_error
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.engine.env_choices import choice_error


def _deepep_message(state: State) -> str:
    return state.release.deepep_message


def deepep_ht_platform(state: State) -> None:
    """0.11.x-0.12.0: the CUDA platform turns CUDA graphs off for DeepEP HT with DP>1. On 0.11.0 it
    reads VLLM_ALL2ALL_BACKEND itself, through vLLM's choice-checking reader (platforms/cuda.py:190),
    for every config: a value it does not accept fails VllmConfig.__post_init__."""
    if state.release.all2all_env == "only":
        problem = choice_error(state, "VLLM_ALL2ALL_BACKEND")
        if problem:
            raise validator_error("VllmConfig", problem)
    par = state.parallel
    if par["all2all_backend"] == "deepep_high_throughput" and par["data_parallel_size"] > 1 \
            and _cg(state) != "NONE":
        msg = _deepep_message(state)
        state.log("info", msg)
        state.set("cc.cudagraph_mode", "NONE", "deepep_ht.disable_cudagraphs", msg)
