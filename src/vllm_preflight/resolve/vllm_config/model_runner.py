"""The model runner VllmConfig picks (use_v2_model_runner) and its validation: V2 with a feature it
lacks (_validate_v2_model_runner, 0.20.0+), V1 with a feature only V2 has
(_validate_v1_model_runner, 0.29.0+)."""
from __future__ import annotations

from vllm_preflight.releases.architectures import MAMBA_ARCHS, registry_is_hybrid
from vllm_preflight.releases.layers import MAMBA_LIKE as _MAMBA_LIKE
from vllm_preflight.releases.layers import layers_for
from vllm_preflight.releases.runtime_rules import RuntimeRules, runtime_rules
from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State, option_json
from vllm_preflight.resolve.parallel.parallel_config import use_ubatching
from vllm_preflight.resolve.speculative.draft_features import forces_v2, v1_flags
from vllm_preflight.resolve.vllm_config.common import _adaptive, _spec


def _truthy(v: str | None) -> bool | None:
    if v is None:
        return None
    return v.strip().lower() in ("1", "true")


@reads(always=True)
def validate_v2_runner(state: State, values: dict) -> None:
    """0.20.0+ `_validate_v2_model_runner` (0.20.0 config/vllm.py:1153-1154 and :1787-1828, 0.22.0
    :1298-1299 and :2057-2067, 0.30.0 :1853-1854 and :3079-3088): a config that takes the V2 runner
    (VLLM_USE_V2_MODEL_RUNNER=1, or a case V2 is forced for) with a feature V2 lacks
    (vllm_config/model_runner.v2_unsupported, per release; the engine arguments behind them noted by
    vllm_config/model_runner.note_v2_features) is refused. Not checked: logits-processor entry-point plugins, reasoning
    budget (0.22.x), the 0.28.0 adaptive-verification entries, mamba cache mode 'all', heterogeneous
    vocabularies, and DBO with multimodal/hybrid/PIECEWISE/encoder-only models."""
    prefix = state.release.rules.get("v2_validate_message")
    if not prefix:
        return
    if not uses_v2_runner(state):
        return
    found = v2_unsupported(state, runtime_rules(state.release.version))
    if found:
        raise _pyd("VllmConfig", prefix + ", ".join(found))


@reads(always=True)
def validate_v1_runner(state: State, values: dict) -> None:
    """0.29.0+ `_validate_v1_model_runner` (0.31.0 config/vllm.py:2051-2054, features :3105-3124),
    late in `__post_init__`: after the compilation rules, so the runner is decided on the final
    settings (sequence parallelism switched off for a small model no longer takes V1). The features
    this port sees, in vLLM's order: prefill context parallel, async scheduling with PP (0.31.0+;
    0.33.0 refuses that one up front), DSpark. (Its V2 twin: `validate_v2_runner`.)"""
    features = state.release.rules.get("v1_unsupported") or ()
    if not features:
        return
    par = state.parallel
    # adaptive draft verification, batch-sharded sampling (0.29.0+); the draft's architecture and
    # a diffusion target (resolve/speculative/draft_features.py)
    more = {**v1_features(state, values), **v1_flags(state)}
    found = [text for feature, text in (
        ("pcp", "prefill context parallel"), ("async_pp", "pipeline parallelism with async scheduling"),
        ("dspark", "dspark speculative decoding"), ("xpress", "xpress speculative decoding"),
        ("adaptive", "adaptive draft verification"), ("draft_lm_head_quant", "draft lm_head quantization"),
        ("parse_mtp", "Parse 3.5 MTP"), ("dflash_multi_kv", "mixed sliding/full dflash drafts"),
        ("dflash2", "dflash2 drafts"), ("dflash_candidate", "DFlash candidate-head drafts"),
        ("diffusion", "diffusion models"),
        ("batch_sharded", "batch-sharded sampling"), ("step5", "Step5")) if feature in features and (
        (feature == "pcp" and (par.get("prefill_context_parallel_size") or 1) > 1)
        or (feature == "async_pp" and values.get("async_scheduling") and par["pipeline_parallel_size"] > 1)
        or (feature == "dspark" and (state.speculative_method_resolved or state.speculative_method) == "dspark")
        or more.get(feature, False))]
    if not found:
        return
    if not uses_v2_runner(state):
        raise _pyd("VllmConfig", "Model Runner V1 does not support: " + ", ".join(found))


def has_inner_state(state) -> bool:
    """ModelConfig.has_inner_state: a Mamba-like (attention-free) or hybrid class in this
    release's registry."""
    arch = state.model.architecture
    if arch in MAMBA_ARCHS or registry_is_hybrid(state.release.key, arch):
        return True
    layers, _ = layers_for(arch, state.model.is_mla, bool(state.model_cfg.get("is_pooling")))
    return any(k in _MAMBA_LIKE for k in layers.extra)


def v2_unsupported(state, r: RuntimeRules) -> list[str]:
    """The features of this config that the release's Model Runner V2 lacks, as vLLM names them."""
    par, out = state.parallel, []
    flags = state.model_cfg.get("v2_features", ())
    spec = state.speculative_method_resolved or state.speculative_method
    spec = "mtp" if spec and spec.endswith("_mtp") else spec
    for feature in r.v2_unsupported:
        if feature == "inner_state" and has_inner_state(state):
            out.append("hybrid/mamba models")
        elif feature == "spec_eagle_mtp" and spec and spec not in ("eagle", "eagle3", "mtp"):
            out.append(f"speculative method '{spec}'")
        elif feature in ("pcp", "pcp_not_mla") and (par.get("prefill_context_parallel_size") or 1) > 1 \
                and not (feature == "pcp_not_mla" and state.model.is_mla):
            out.append("prefill context parallelism")
        elif feature == "stock_compile" and state.cc.get("mode") in ("STOCK_TORCH_COMPILE", 1):
            out.append("stock torch.compile")
        elif feature == "sp" and state.pass_config.get("enable_sp") and par["tensor_parallel_size"] > 1:
            out.append("sequence parallelism")
        elif feature == "spec" and spec:
            if r.v2_spec_allowed is not None and spec in ("ngram", "ngram_gpu"):
                out.append("ngram/ngram_gpu speculative decoding")
            elif spec not in r.v2_spec_allowed if r.v2_spec_allowed is not None else spec in r.v2_spec_blocked:
                out.append(f"speculative method '{spec}'")
        elif feature == "dynamic_sd" and spec and state.dynamic_sd_schedule is not None:
            out.append("dynamic speculative decoding")
        elif feature == "eagle3_pp" and spec == "eagle3" and par["pipeline_parallel_size"] > 1:
            out.append("EAGLE3 with pipeline parallelism")
        elif feature == "dbo" and par.get("enable_dbo") or feature == "dbo_env_unset" and use_ubatching(state) \
                and state.env.get("VLLM_USE_V2_MODEL_RUNNER") is None:
            out.append("dual batch overlap")
        elif feature == "dbo_env_unset" and use_ubatching(state):  # VLLM_USE_V2_MODEL_RUNNER set
            out.extend(_dbo_unsupported(state, spec))
        elif feature == "par_draft" and "par_draft" in flags and spec not in r.v2_par_draft_native:
            out.append(r.v2_par_draft_text)
        elif feature == "hetero_vocab" and "hetero_vocab" in flags:
            out.append("heterogeneous-vocabulary draft models")
        elif feature == "ext_pp" and "ext_launcher" in flags and par["pipeline_parallel_size"] > 1:
            out.append("pipeline parallelism with external_launcher")
        elif feature in _V2_FLAG_TEXT and feature in flags:
            out.append(_V2_FLAG_TEXT[feature])
    return out


# features read off the engine arguments (note_v2_features), as vLLM names them
_V2_FLAG_TEXT = {"elastic_ep": "elastic expert parallelism", "routed_experts": "routed experts capture",
                 "logitsprocs": "custom logits processors", "prompt_embeds": "prompt embeds",
                 "logprobs_raw": "logprobs mode 'raw_logits'", "logprobs_processed": "logprobs mode 'processed_logits'",
                 "kv_fast_prefill": "KV sharing fast prefill", "ec_transfer": "EC transfer"}


@reads(always=True)
def note_v2_features(state, values: dict) -> None:
    """The engine arguments behind V2-unsupported features (kept on the state for `_v2_unsupported`,
    which the runner choice and validate_v2_runner both ask)."""
    spec = option_json(values, "speculative_config")
    mode = values.get("logprobs_mode")
    found = {name for name, on in (
        ("elastic_ep", values.get("enable_elastic_ep")),
        ("routed_experts", values.get("enable_return_routed_experts")),
        ("logitsprocs", values.get("logits_processors")),
        ("prompt_embeds", values.get("enable_prompt_embeds")),
        ("logprobs_raw", mode == "raw_logits" and not state.model_cfg.get("is_pooling")),
        ("logprobs_processed", mode == "processed_logits" and not state.model_cfg.get("is_pooling")),
        ("kv_fast_prefill", values.get("kv_sharing_fast_prefill")),
        ("ec_transfer", values.get("ec_transfer_config") is not None),
        ("ext_launcher", values.get("distributed_executor_backend") == "external_launcher"),
        ("lora", values.get("enable_lora")),
        ("par_draft", isinstance(spec, dict) and spec.get("parallel_drafting")),
        ("hetero_vocab", isinstance(spec, dict) and spec.get("use_heterogeneous_vocab")),
        ("no_padded_drafter", isinstance(spec, dict) and spec.get("disable_padded_drafter_batch"))) if on}
    state.model_cfg["v2_features"] = frozenset(found)


def _dbo_unsupported(state, spec) -> list[str]:
    """0.30.0+ _get_dbo_unsupported_features with VLLM_USE_V2_MODEL_RUNNER set (0.30.0
    config/vllm.py:3016-3026): the parts this port sees (LoRA, speculative decoding, PP, CP)."""
    par, out = state.parallel, []
    if "lora" in state.model_cfg.get("v2_features", ()):
        out.append("dual batch overlap with LoRA")
    if spec:
        out.append("dual batch overlap with speculative decoding")
    if par["pipeline_parallel_size"] > 1:
        out.append("dual batch overlap with pipeline parallelism")
    if (par.get("decode_context_parallel_size") or 1) > 1 or (par.get("prefill_context_parallel_size") or 1) > 1:
        out.append("dual batch overlap with context parallelism")
    return out


def _default_v2_model(state, r: RuntimeRules) -> bool:
    """0.22.0-0.28.0: whether the model is one V2 is the default for (generate models only)."""
    facts = state.model
    if state.model_cfg.get("is_pooling"):
        return False
    listed = facts.architecture in r.v2_archs
    if r.v2_default_models == "listed_dense":
        return listed and not facts.is_moe and not facts.quantized
    if r.v2_default_models == "listed":
        return listed
    layers, _ = layers_for(facts.architecture, facts.is_mla, False)
    hybrid = any(k in _MAMBA_LIKE for k in layers.extra)
    if hybrid and (r.v2_default_models == "listed_or_dense" or not listed):
        return False
    return listed or not facts.is_moe


def choose_runner(state, r: RuntimeRules, events: list) -> str:
    """VllmConfig.use_v2_model_runner: the environment variable, the cases that take V2 anyway,
    the release's default (opt-in, listed architectures, every model from 0.29.0), then V1
    for a feature V2 lacks (rules.V2_RUNNER_DEFAULT_FIRST)."""
    if state.model_cfg.get("hisparse"):  # 0.30.0+: HiSparse takes V2 (vllm_config/post_init.py: hisparse_runner)
        return "V2"
    if state.model_cfg.get("watermark"):  # 0.30.0+ (0.33.0 config/vllm.py:740-746): watermarking takes V2 too
        if _truthy(state.env.get("VLLM_USE_V2_MODEL_RUNNER")) is False:
            events.append({"field": "model_runner", "before": "V1", "after": "V2", "rule": "runtime.watermark_v2",
                           "reason": "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0.",
                           "level": "info"})
        return "V2"
    env = _truthy(state.env.get("VLLM_USE_V2_MODEL_RUNNER"))
    if env is not None:
        return "V2" if env else "V1"
    if r.v2_runner == "opt_in":
        return "V1"
    if ("pcp" in r.v2_force and (state.parallel.get("prefill_context_parallel_size") or 1) > 1) \
            or ("dspark" in r.v2_force and (state.speculative_method_resolved or state.speculative_method) == "dspark") \
            or forces_v2(state, r.v2_force):
        return "V2"
    if r.v2_runner == "arch_list" and not _default_v2_model(state, r):
        return "V1"
    unsupported = v2_unsupported(state, r)
    if unsupported:
        events.append({"field": "model_runner", "before": "V2", "after": "V1", "rule": "runtime.v2_unsupported",
                       "reason": f"Model Runner V2 does not yet support {', '.join(unsupported)}; using the "
                                 "V1 model runner instead.", "level": "warning"})
        return "V1"
    return "V2"


def uses_v2_runner(state: State) -> bool:
    """VllmConfig.use_v2_model_runner, decided in one place (vllm_config/model_runner.choose_runner, its rules per release)."""
    return model_runner(state) == "V2"


def model_runner(state: State) -> str:
    """V1 or V2, as the runtime stage decides it (env, the release's default, architectures)."""
    return choose_runner(state, runtime_rules(state.release.version), [])


def v1_features(state: State, values: dict) -> dict[str, bool]:
    """Features of _get_v1_model_runner_unsupported_features this module reads (0.29.0+):
    adaptive draft verification, batch-sharded sampling, a draft lm_head quantization and Step5
    models (0.33.0)."""
    spec = _spec(values)
    arch = state.model.architecture if state.model is not None else ""
    return {"adaptive": _adaptive(values), "batch_sharded": bool(values.get("enable_batch_sharded_sampling")),
            "draft_lm_head_quant": bool(spec and spec.get("draft_lm_head_quantization") is not None),
            "step5": arch in ("Step5ForCausalLM", "Step5ForConditionalGeneration")}
