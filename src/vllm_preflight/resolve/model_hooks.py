"""Per-architecture config hooks that change a compiled setting (issue 9).

vLLM's `VllmConfig.try_verify_and_update_config`, the first step of `__post_init__`, looks
the model's architecture up in `MODELS_CONFIG_MAP` (vllm/model_executor/models/config.py)
and lets that class adjust the config. Most hooks touch pooling, RoPE or cache settings;
the ones below change what gets compiled or captured. docs/config-path-map.md lists the rest.
"""
from __future__ import annotations

from vllm_preflight.resolve.state import State


def gpt_oss(state: State) -> None:
    """GptOssForCausalLM: the largest capture size goes to 1024 unless the user set capture
    sizes or their maximum (0.12.0, 0.13.0 and 0.33.0 read; the field exists from 0.11.1)."""
    cc = state.cc
    if "max_cudagraph_capture_size" not in state.release.facts["compilation_fields"]:
        return
    if cc.get("cudagraph_capture_sizes") is None and cc.get("max_cudagraph_capture_size") is None:
        cc["max_cudagraph_capture_size"] = 1024
        state.log("info", "Overriding max cuda graph capture size to 1024 for performance.")


def longcat_flash_ngram(state: State) -> None:
    """LongcatFlashNgramForCausalLM (read in 0.33.0): no compilation and FULL graphs unless the
    user set them."""
    if state.release.key < (0, 33, 0):
        return
    cc = state.cc
    if cc.get("mode") is None:
        cc["mode"] = "NONE"
    if cc.get("cudagraph_mode") is None:
        cc["cudagraph_mode"] = "FULL"


HOOKS = {"GptOssForCausalLM": gpt_oss, "LongcatFlashNgramForCausalLM": longcat_flash_ngram}


def apply(state: State, architecture: str | None) -> None:
    hook = HOOKS.get(architecture or "")
    if hook is not None:
        hook(state)
