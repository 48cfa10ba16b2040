"""LoRA: what vLLM checks when a deployment gives `--enable-lora` (issue 9, model-level family).

Two places, as in vLLM:

* `engine_checks` -- `EngineArgs.create_engine_config`, after the scheduler and speculative
  configs: default modality LoRAs need a multimodal model (checked whether or not LoRA is
  enabled); `LoRAConfig` is built only with --enable-lora (its field bounds and validator);
  with speculative decoding the scheduler must fit every sequence's draft tokens in a step.
* `model_checks` -- `VllmConfig.__post_init__`, after the model x parallel checks:
  `LoRAConfig.verify_with_kernel_config` / `verify_with_model_config` (0.26.0+: Inkling needs
  INKLING_MULTIMEM_AR=0; 0.33.0+: MegaMoE backends, and architectures without `SupportsLoRA`).

Before 0.33.0 an architecture without `SupportsLoRA` starts its config and fails only when the
model runner wraps the loaded model (after the weights load): not a config-time refusal here.
LoRA changes no compiled setting at config time in any release (`cudagraph_specialize_lora` and
`specialize_active_lora` shape the graphs the model runner captures, not the config).
Parser-level values (--max-lora-rank and --lora-dtype choices, integer types) are refused by
resolve/parser/argument_parser.py from the recorded option tables.
"""
from __future__ import annotations

import json

from vllm_preflight.model import Assumption
from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, validation_error
from vllm_preflight.resolve.model.model_config import model_name

# LoRAConfig before 0.11.1 checked its fields in __post_init__ (a plain ValueError in a
# pydantic dataclass); 0.11.1 moved them to field types (Literal ranks, max_loras ge=1)
_V0_11_0_RANKS = (8, 16, 32, 64, 128, 256, 320, 512)
_V0_11_0_EXTRA_VOCAB = (256, 512)
_MEGA_MOE_BACKENDS = ("deep_gemm_mega_moe", "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm",
                      "aiter_mega_moe")


def _key(state: State) -> tuple[int, ...]:
    return state.release.key


def _pyd(message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for LoRAConfig\n  Value error, {message}")


def _ge(field: str, bound: int, value: int) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for LoRAConfig\n{field}\n  Input should be greater "
                                      f"than or equal to {bound} [type=greater_than_equal, input_value={value}, "
                                      f"input_type=int]")


def _is_multimodal(state: State, facts: ModelFacts) -> bool | None:
    from vllm_preflight.releases.architectures import arch_support

    support = arch_support(state.release.version, facts.architecture)
    return None if support is None else support.is_multimodal


def _default_mm_loras(value) -> bool:
    """--default-mm-loras is JSON (an empty object is no LoRA at all)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return bool(value)
    return bool(value)


@reads("default_mm_loras", "enable_lora", "enable_lora_bias", "fully_sharded_loras", "lora_extra_vocab_size", "max_cpu_loras", "max_lora_cls_labels", "max_lora_rank", "max_loras", "speculative_config", env=("VLLM_LORA_ENABLE_DUAL_STREAM",))
def engine_checks(state: State, values: dict) -> None:
    """create_engine_config, right after the SchedulerConfig (and the speculative config)."""
    facts = state.facts
    if _default_mm_loras(values.get("default_mm_loras")):
        mm = _is_multimodal(state, facts)
        if mm is None:
            state.assumptions.append(Assumption(
                "model.is_multimodal", facts.architecture,
                f"not checked: whether vLLM {state.release.version} serves {facts.architecture} as a multimodal "
                f"model is not recorded (vLLM refuses --default-mm-loras for a text-only model)"))
        elif not mm:
            raise Refusal("ValueError", "Default modality-specific LoRA(s) were provided for a non multimodal model")
    if not values.get("enable_lora"):
        return
    build_lora_config(state, values)
    if values.get("speculative_config") is not None:
        _speculative_budget(state)


def build_lora_config(state: State, values: dict) -> dict:
    """LoRAConfig(...) as create_engine_config builds it: a non-positive --max-cpu-loras is
    passed as None (then max_loras)."""
    key = _key(state)
    rank = values.get("max_lora_rank", 16)
    max_loras = values.get("max_loras", 1)
    cpu = values.get("max_cpu_loras")
    cpu = cpu if cpu and cpu > 0 else None
    if key < (0, 11, 1):
        state.log("warning", "`lora_extra_vocab_size` is deprecated and will be removed in v0.12.0. Additional "
                             "vocabulary support for LoRA adapters is being phased out.")
        if values.get("enable_lora_bias"):
            state.log("warning", "`enable_lora_bias` is deprecated and will be removed in v0.12.0.")
        if rank not in _V0_11_0_RANKS:
            raise _pyd(f"max_lora_rank ({rank}) must be one of {_V0_11_0_RANKS}.")
        extra = values.get("lora_extra_vocab_size", 256)
        if extra not in _V0_11_0_EXTRA_VOCAB:
            raise _pyd(f"lora_extra_vocab_size ({extra}) must be one of {_V0_11_0_EXTRA_VOCAB}.")
        if max_loras < 1:
            raise _pyd(f"max_loras ({max_loras}) must be >= 1.")
    else:
        low = [(f, v) for f, v in (("max_loras", max_loras), ("max_lora_cls_labels", values.get("max_lora_cls_labels")))
               if v is not None and v < 1]
        if low:
            if len(low) == 1:
                raise _ge(low[0][0], 1, low[0][1])
            raise Refusal("ValidationError", f"{len(low)} validation errors for LoRAConfig\n" + "\n".join(
                f"{f}\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value={v}, "
                f"input_type=int]" for f, v in low))
    if cpu is not None and cpu < max_loras:
        dot = "." if key >= (0, 14, 0) else ""
        raise _pyd(f"max_cpu_loras ({cpu}) must be >= max_loras ({max_loras}){dot}")
    if key >= (0, 20, 0) and _dual_stream(state) and values.get("fully_sharded_loras"):
        state.log("warning", "fully_sharded_loras isn't compatible with VLLM_LORA_ENABLE_DUAL_STREAM, set "
                             "VLLM_LORA_ENABLE_DUAL_STREAM=False", once=True)
    return {"max_lora_rank": rank, "max_loras": max_loras, "max_cpu_loras": cpu or max_loras}


def _dual_stream(state: State) -> bool:
    """VLLM_LORA_ENABLE_DUAL_STREAM, read as vLLM reads it (`bool(int(text))`) in LoRAConfig's
    validator: text that is not an integer fails there."""
    text = state.env.get("VLLM_LORA_ENABLE_DUAL_STREAM", "0")
    try:
        return bool(int(text))
    except ValueError:
        raise _pyd(f"invalid literal for int() with base 10: {text!r}") from None


def _speculative_budget(state: State) -> None:
    """0.11.1+: with speculative decoding every scheduled sequence may carry k draft tokens."""
    if _key(state) < (0, 11, 1):
        return
    sched = state.scheduler
    if sched["max_num_batched_tokens"] < sched["max_num_seqs"] * (state.num_speculative_tokens + 1):
        raise Refusal("ValueError", "Consider increasing max_num_batched_tokens or decreasing "
                                    "num_speculative_tokens")


@reads("enable_lora", "cpu_offload_gb", "moe_backend", "runner", env=("INKLING_MULTIMEM_AR", "VLLM_USE_V1"))
def model_checks(state: State, values: dict) -> None:
    """VllmConfig.__post_init__: the LoRA config against the kernel and model configs."""
    facts, model = state.facts, model_name(state.parsed)
    if not values.get("enable_lora"):
        return
    key = _key(state)
    if key < (0, 11, 1) and (values.get("cpu_offload_gb") or 0) > 0 \
            and state.env.get("VLLM_USE_V1", "1").strip() == "0":  # verify_with_cache_config
        raise validation_error("V0 LoRA does not support CPU offload, please use V1.")
    if key >= (0, 33, 0):
        backend = values.get("moe_backend")
        backend = backend.lower().replace("-", "_") if isinstance(backend, str) else backend
        if backend in _MEGA_MOE_BACKENDS:
            raise validation_error(f"LoRA is not supported with moe_backend={backend!r}. Disable LoRA or "
                                        "select a MoE backend that supports LoRA.")
        if values.get("runner") != "draft":
            from vllm_preflight.releases.architectures import arch_support

            support = arch_support(state.release.version, facts.architecture)
            if support is None:
                state.assumptions.append(Assumption(
                    "model.supports_lora", facts.architecture,
                    f"not checked: whether {facts.architecture} implements SupportsLoRA in vLLM "
                    f"{state.release.version} is not recorded"))
            elif not support.supports_lora:
                raise validation_error(f"LoRA is not supported for {facts.architecture} ({model}). "
                                            "Supported models implement the `SupportsLoRA` interface. Run this "
                                            "model without `enable_lora`.")
    if key >= (0, 26, 0) and "Inkling" in facts.architecture and state.env.get("INKLING_MULTIMEM_AR", "1") != "0":
        raise validation_error("Inkling LoRA requires INKLING_MULTIMEM_AR=0: the Lamport fused-collective path "
                                    "bypasses the LoRA-wrapped wo_ud and dense down_proj layers on decode-sized "
                                    "batches, silently dropping their LoRA. Set INKLING_MULTIMEM_AR=0.")
