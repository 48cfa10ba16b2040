"""What vLLM DOES with a deployment: a pure-Python port of its config-time resolution.

`resolve(deployment, "0.13.0" | "pr29558")` parses the server command as that release's
parser would, builds the config objects, runs the release's __post_init__ steps and
returns a Resolution: the resolved settings, every change as an Event, or vLLM's error.
Imports neither vllm nor torch.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence

from vllm_preflight.gpus import DEFAULT_GPU, GPUS, Gpu
from vllm_preflight.model import Assumption, Deployment, Event, Resolution, VllmError
from vllm_preflight.modelfacts import TextConfigNotAConfig, model_facts
from vllm_preflight.releases import PR29558, Release, get_release
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.config import reasoning as reasoning_config
from vllm_preflight.resolve.config import subconfigs as subconfig_checks
from vllm_preflight.resolve.engine import create_engine_config as engine
from vllm_preflight.resolve.engine import speculators as speculators_format
from vllm_preflight.resolve.parser import argument_parser as argv_mod
from vllm_preflight.resolve.serve import serve as serve_checks
from vllm_preflight.resolve.vllm_config import steps
from vllm_preflight.resolve.vllm_config.post_init import after_capture_sizes

SERVE_WORDS = ("serve",)


def _command_tail(words: tuple[str, ...], release: Release) -> list[str]:
    """The words the server's parser sees: after `vllm serve` or after `-m MODULE`."""
    w = list(words)
    if len(w) >= 2 and os.path.basename(w[0]) == "vllm" and w[1] == "serve":
        return w[2:]
    if len(w) >= 3 and w[1] == "-m":
        return w[3:]
    return w


SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)


def _serve_entry(words: tuple[str, ...], is_serve: bool) -> str | None:
    """"serve" for `vllm serve`, "api_server" for `python -m vllm.entrypoints.openai.api_server`."""
    if is_serve:
        return "serve"
    if len(words) >= 3 and words[1] == "-m" and words[2] in SERVER_MODULES:
        return "api_server"
    return None


def _serve_model_flag(tail: list[str], release: Release, is_serve: bool, parsed_warnings: list[str]) -> list[str]:
    """`vllm serve --model X`: an error on 0.11.0, moved to the front (with a warning) later."""
    if not is_serve:
        return tail
    idx = next((i for i, a in enumerate(tail) if a == "--model" or a.startswith("--model=")), None)
    if idx is None:
        return tail
    if release.serve_model_flag == "error":
        if "--model" in tail:
            raise Refusal("ValueError", "With `vllm serve`, you should provide the model as a positional "
                          "argument or in a config file instead of via the `--model` option.")
        return tail
    parsed_warnings.append("With `vllm serve`, you should provide the model as a positional argument or in "
                           "a config file instead of via the `--model` option. The `--model` option will "
                           "be removed in v0.13.")
    if tail[idx] == "--model":
        if idx + 1 >= len(tail):
            return tail
        model, rest = tail[idx + 1], tail[:idx] + tail[idx + 2:]
    else:
        model, rest = tail[idx].removeprefix("--model="), tail[:idx] + tail[idx + 1:]
    return [model] + rest


def _experts_wanted(parsed, env: dict) -> str | None:
    """The flags that only make sense for a mixture-of-experts model, as the user wrote them."""
    values = {k: v for k, v in parsed.values.items() if k in parsed.given}
    if values.get("enable_expert_parallel"):
        return "--enable-expert-parallel"
    if values.get("all2all_backend"):
        return f"--all2all-backend {values['all2all_backend']}"
    if env.get("VLLM_ALL2ALL_BACKEND"):
        return f"VLLM_ALL2ALL_BACKEND={env['VLLM_ALL2ALL_BACKEND']}"
    return None


def resolved_view(state: State) -> dict:
    rel = state.release
    cc = state.cc
    fields = set(rel.facts["compilation_fields"])
    mode = cc["level"] if rel.mode_field == "level" else cc["mode"]
    return {
        "compilation_config": {
            "mode": mode,
            "cudagraph_mode": cc["cudagraph_mode"],
            "splitting_ops": list(cc["splitting_ops"]) if cc["splitting_ops"] is not None else None,
            "use_inductor_graph_partition": cc["use_inductor_graph_partition"],
            "pass_config": dict(state.pass_config),
            "custom_ops": list(cc["custom_ops"]),
            "cudagraph_capture_sizes": list(cc["cudagraph_capture_sizes"]) if cc["cudagraph_capture_sizes"] is not None else None,
            "max_cudagraph_capture_size": cc["max_cudagraph_capture_size"] if "max_cudagraph_capture_size" in fields else None,
        },
        "parallel_config": {
            # 0.11.0 has no all2all_backend field (the backend is VLLM_ALL2ALL_BACKEND alone)
            "all2all_backend": state.parallel["all2all_backend"] if rel.all2all_env != "only" else None,
            "data_parallel_size": state.parallel["data_parallel_size"],
            "tensor_parallel_size": state.parallel["tensor_parallel_size"],
            "enable_expert_parallel": state.parallel["enable_expert_parallel"],
        },
        "optimization_level": state.optimization_level,
    }


def _text_config_refusal(release: Release) -> Refusal:
    """ModelConfig's refusal of a `text_config` without `num_attention_heads`: an assertion up to
    0.12.0, a ValueError with a message from 0.13.0 (transformers_utils/config.py get_hf_text_config)."""
    if release.key < (0, 13, 0):
        return Refusal("ValidationError", "1 validation error for ModelConfig\n  Assertion failed, ")
    return Refusal("ValidationError", "1 validation error for ModelConfig\n  Value error, The text_config extracted "
                   "from the model config does not have `num_attention_heads` attribute. This indicates a mismatch "
                   "between the model config and vLLM's expectations. Please ensure that the model config is "
                   "compatible with vLLM.")


def resolve(deployment: Deployment, target: str, *, gpu: Gpu | None = None,
            extra_env: Sequence[tuple[str, str]] = (), model_assume: dict[str, str] | None = None,
            serve_stage: bool = True) -> Resolution:
    """Resolve one deployment for one target (a release version, or "pr29558"). `serve_stage=False`
    leaves out what the `vllm serve` entry point itself checks (resolve/serve_checks.py): the
    engine config alone, as `AsyncEngineArgs(...).create_engine_config()` builds it."""
    release = get_release(target)
    gpu = gpu or GPUS[DEFAULT_GPU]
    env = dict(deployment.env)
    env.update(dict(extra_env))  # --env wins over the command's own K=V words
    result = Resolution(source=deployment.source, target="pr29558" if target == PR29558 else "release",
                        vllm_version=release.version, resolved=None, vllm_error=None,
                        assumptions=list(deployment.assumptions), deployment=deployment)
    state = State(release=release, gpu=gpu, env=env, model=None, base_dir=deployment.base_dir)
    try:
        words = deployment.argv
        is_serve = len(words) >= 2 and os.path.basename(words[0]) == "vllm" and words[1] == "serve"
        pre_warnings: list[str] = []
        tail = _serve_model_flag(_command_tail(words, release), release, is_serve, pre_warnings)
        for w in pre_warnings:
            state.log("warning", w)
        parsed = argv_mod.parse(tail, release, state)
        serve_mode = None
        entry = _serve_entry(words, is_serve) if serve_stage else None
        if entry is not None:  # what `vllm serve` checks before create_engine_config
            serve_mode = serve_checks.before_engine(state, parsed.values, entry)
            if serve_mode.kind == "headless":  # create_engine_config(headless=True) infers no hybrid LB
                parsed.values["data_parallel_start_rank"] = None
        hf_overrides = parsed.values.get("hf_overrides")
        speculators_format.serve_verifier(state, parsed, deployment.base_dir)  # a speculators checkpoint
        try:
            facts, assumed = model_facts(engine.model_name(parsed), deployment.base_dir, model_assume or {},
                                         experts_wanted=_experts_wanted(parsed, env),
                                         hf_overrides=hf_overrides if isinstance(hf_overrides, dict) else None)
        except TextConfigNotAConfig:
            raise _text_config_refusal(release) from None
        result.assumptions.extend(assumed)
        state.model = facts
        engine.apply(parsed, state, facts)
        # after _set_cudagraph_sizes, before the platform update and the final asserts
        steps.run(state, after={"cudagraph_sizes": lambda: after_capture_sizes(state, parsed.values)})
        subconfig_checks.kernel_platform_defaults(state, parsed.values)  # VllmConfig.__post_init__ (0.29.0+)
        subconfig_checks.kv_offloading(state, parsed.values)  # the end of VllmConfig.__post_init__ (0.11.1-0.13.x)
        from vllm_preflight.resolve.vllm_config.config_checks import kv_connector_check_full_graphs

        kv_connector_check_full_graphs(state, parsed.values, state.assumptions)
        reasoning_config.check(state, parsed.values, plugin_imported=serve_mode is not None)
        if serve_mode is not None:
            serve_checks.after_engine(state, parsed.values, serve_mode)
        result.resolved = resolved_view(state)
        from vllm_preflight.resolve.runtime import runtime_stage  # the model runner's stage, after config time

        result.resolved["runtime"] = runtime_stage(state, parsed.values)
    except Refusal as r:
        result.vllm_error = VllmError(r.type, r.message)
    except json.JSONDecodeError as e:  # a JSON value vLLM itself would choke on
        result.vllm_error = VllmError("JSONDecodeError", str(e))
    result.assumptions.extend(state.assumptions)
    from vllm_preflight.resolve.vllm_config.config_checks import not_checked

    result.assumptions.extend(not_checked())
    result.events = state.events + _log_events(state)
    if result.vllm_error is not None:
        result.events.append(Event("vllm", None, None, "vllm.refuses", f"{result.vllm_error.type}: "
                                   f"{result.vllm_error.message}", "error"))
    return result


def resolve_configs(target: str, *, compilation_config: dict | None = None,
                    parallel_config: dict | None = None, env: dict[str, str] | None = None,
                    optimization_level: int | None = None, source: str = "VllmConfig(...)") -> Resolution:
    """`VllmConfig(compilation_config=..., parallel_config=...)` without a model, as vLLM's
    own unit tests build it: config errors reach the caller as pydantic ValidationErrors."""
    from vllm_preflight.resolve.compilation import compilation_config as cc_mod

    release = get_release(target)
    state = State(release=release, gpu=GPUS[DEFAULT_GPU], env=dict(env or {}), model=None)
    result = Resolution(source=source, target="pr29558" if target == PR29558 else "release",
                        vllm_version=release.version, resolved=None, vllm_error=None)
    pc = dict(parallel_config or {})
    try:
        state.model_cfg.update({"enforce_eager": False, "is_pooling": False, "is_encoder_decoder": False,
                                "is_moe": False, "disable_cascade_attn": False})
        state.scheduler.update({"max_num_batched_tokens": 2048, "max_num_seqs": 128})
        engine.build_parallel_config(state, pc)
        if release.has_optimization_level:
            state.optimization_level = 2 if optimization_level is None else optimization_level
        try:
            cc_mod.build(compilation_config or {}, release, state)
        except cc_mod.ConfigInvalid as e:
            raise cc_mod.refusal_from(e, via_cli=False) from None
        steps.run(state)
        result.resolved = resolved_view(state)
    except Refusal as r:
        result.vllm_error = VllmError(r.type, r.message)
    result.events = state.events + _log_events(state)
    return result


def _log_events(state: State) -> list[Event]:
    """vLLM's own INFO/WARNING lines that no change event already carries."""
    carried = {e.reason for e in state.events}
    return [Event("log", None, None, f"vllm.log.{level}", msg, level)
            for level, msg in state.logs if msg not in carried]


__all__ = ["Assumption", "resolve", "resolve_configs"]
