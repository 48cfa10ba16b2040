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


def longcat_flash_ngram(state: State) -> None:
    """LongcatFlashNgramForCausalLM (0.26.0+): no compilation and FULL graphs unless the user
    set them."""
    if state.release.key < (0, 26, 0):
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
