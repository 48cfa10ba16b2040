"""ModelConfig.verify_with_parallel_config (vllm/config/model.py), the first check of
VllmConfig.__post_init__: attention heads vs TP, experts vs EP, SupportsPP per release, DCP vs
KV heads. SpeculativeConfig runs it too for the methods whose draft is the target."""
from __future__ import annotations

from vllm_preflight.model import Assumption
from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.parallel.parallel_config import PARALLEL_SIZES


# ------------------------------------------------------------ VllmConfig.__post_init__
@reads(*PARALLEL_SIZES, "model_impl", "model_class_overrides", "convert", "runner")
def model_parallel_checks(state: State, values: dict) -> None:
    """ModelConfig.verify_with_parallel_config, the first step of VllmConfig.__post_init__."""
    verify_with_parallel_config(state, state.model, values, "VllmConfig")


def verify_with_parallel_config(state: State, facts, values: dict, owner: str) -> None:
    """The target ModelConfig against the parallel config. SpeculativeConfig runs it first for the
    methods whose draft is the target itself (ngram; speculative/draft_model.verify_args), so `owner`
    names the config whose validation error carries the message."""
    par = state.parallel
    tp = par["tensor_parallel_size"]
    if values.get("tensor_parallel_size") == 0:  # `heads % 0` (before 0.33.0's field bound)
        raise Refusal("ZeroDivisionError", "integer modulo by zero")
    heads = getattr(facts, "num_attention_heads", 0)
    if heads and tp and heads % tp != 0:
        raise _pyd(owner, f"Total number of attention heads ({heads}) must be divisible by tensor "
                          f"parallel size ({tp}).")
    if par["enable_expert_parallel"] and not facts.is_moe:
        raise _pyd(owner, "Number of experts in the model must be greater than 0 when expert "
                          "parallelism is enabled.")
    if par.get("pipeline_parallel_size", 1) > 1:
        pp_supported_check(state, facts, values)
    dcp = par["decode_context_parallel_size"]
    kv = getattr(facts, "num_key_value_heads", 0)
    if dcp > 1 and not facts.is_mla and kv and state.release.rules.get("dcp_messages_v0_27", False):
        # 0.27.0 (0.33.0: model.py:1579): the same limits as ValueErrors with new wording
        if tp <= kv:
            raise _pyd(owner, f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
                              f"({tp}) to be greater than the model's total number of KV heads ({kv}). "
                              f"Increase `--tensor-parallel-size` or set `--decode-context-parallel-size 1`.")
        if dcp > tp // kv:
            raise _pyd(owner, f"`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported "
                              f"value ({tp // kv}) for `--tensor-parallel-size` ({tp}) and {kv} model KV heads.")
    elif dcp > 1 and not facts.is_mla and kv and state.release.key >= (0, 11, 1):  # 0.11.1 model.py (not 0.11.0)
        if not tp > kv:
            raise _pyd(owner, f"tensor parallel size {tp} must be greater than total num kv heads {kv} "
                              f"when enable decode context parallel for GQA/MQA", "Assertion failed")
        if dcp > tp // kv:
            raise _pyd(owner, f"decode context parallel size must less than or equal to (tensor parallel "
                              f"size {tp} // total num kv heads {kv}) = {tp // kv}, but got {dcp}",
                       "Assertion failed")


PP_UNSUPPORTED = ("Pipeline parallelism is not supported for this model. "
                  "Supported models implement the `SupportsPP` interface.")


def pp_supported_check(state: State, facts, values: dict) -> None:
    """`-pp N>1` needs the model class vLLM resolves to implement `SupportsPP`
    (registry.is_pp_supported_model), per release from releases/data/architectures.json.
    A registered architecture is its own class whatever --convert/--runner say (the pooling
    adapters keep the base's interfaces); `--model-impl transformers` resolves to the
    Transformers backend (SupportsPP in every release recorded) and `terratorch` to Terratorch.
    An unregistered architecture converted to a pooling model is its registered base's class
    (`registry_class`); otherwise vLLM's fallback depends on the installed Transformers
    library (its backend, or a refusal earlier in ModelConfig): not guessed."""
    from vllm_preflight.releases.architectures import arch_support, registry_class

    impl = values.get("model_impl") or "auto"
    arch = facts.architecture
    version = state.release.version
    overrides = values.get("model_class_overrides")
    if isinstance(overrides, dict) and arch in overrides:
        state.assumptions.append(Assumption("model.supports_pp", None, f"not checked: `{arch}` is overridden by "
                                                                       f"--model-class-overrides"))
        return
    if impl == "transformers":
        state.assumptions.append(Assumption("model.supports_pp", True, "--model-impl transformers: the "
                                                                       "Transformers backend class implements "
                                                                       "SupportsPP (taken as resolving)"))
        return
    if impl == "terratorch":
        arch = "Terratorch"
    if arch_support(version, "LlamaForCausalLM") is None:
        state.assumptions.append(Assumption("model.supports_pp", None, f"not checked: vLLM {version}'s model "
                                                                       f"registry is not recorded"))
        return
    cls = registry_class(version, arch, str(values.get("runner") or "auto"), str(values.get("convert") or "auto"),
                         impl)
    support = arch_support(version, cls) if cls else None
    if support is None:
        state.assumptions.append(Assumption("model.supports_pp", None,
                                            f"not checked: `{arch}` is not registered in vLLM {version}'s model "
                                            f"registry (vLLM tries the Transformers backend, which implements "
                                            f"SupportsPP, or refuses the model)"))
        return
    if not support.supports_pp:
        raise Refusal("NotImplementedError", PP_UNSUPPORTED)
