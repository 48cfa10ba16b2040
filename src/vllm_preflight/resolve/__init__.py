"""What vLLM DOES with a deployment: a pure-Python port of its config-time resolution.

`resolve(deployment, "0.13.0" | "pr29558")` parses the server command as that release's
parser would, builds the config objects, runs the release's __post_init__ steps and
returns a Resolution: the resolved settings, every change as an Event, or vLLM's error.
Imports neither vllm nor torch.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

from vllm_preflight.gpus import DEFAULT_GPU, GPUS, Gpu
from vllm_preflight.model import Assumption, Deployment, Event, Resolution, VllmError
from vllm_preflight.releases import PR29558, get_release
from vllm_preflight.resolve.base.pydantic import ConfigInvalid
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.compilation import compilation_config as cc_mod
from vllm_preflight.resolve.not_checked import not_checked
from vllm_preflight.resolve.parallel.parallel_config import build_parallel_config
from vllm_preflight.resolve.plan import model_facts_set, plan_for
from vllm_preflight.resolve.vllm_config import steps


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


def resolve(deployment: Deployment, target: str, *, gpu: Gpu | None = None,
            extra_env: Sequence[tuple[str, str]] = (), model_assume: dict[str, str] | None = None,
            serve_stage: bool = True, full_plan: bool = False) -> Resolution:
    """Resolve one deployment for one target (a release version, or "pr29558"). `serve_stage=False`
    leaves out what the `vllm serve` entry point itself checks (resolve/serve/): the engine config
    alone, as `AsyncEngineArgs(...).create_engine_config()` builds it. The steps are the release's
    plan (resolve/plan.py), in vLLM's order (resolve/path.py): the ones the deployment's inputs
    reach, or every one with `full_plan=True` (the same result: tests/golden/test_plan_equivalence.py)."""
    release = get_release(target)
    plan = plan_for(target)
    env = dict(deployment.env)
    env.update(dict(extra_env))  # --env wins over the command's own K=V words
    result = Resolution(source=deployment.source, target="pr29558" if target == PR29558 else "release",
                        vllm_version=release.version, resolved=None, vllm_error=None,
                        assumptions=list(deployment.assumptions), deployment=deployment)
    state = State(release=release, gpu=gpu or GPUS[DEFAULT_GPU], env=env, model=None, base_dir=deployment.base_dir,
                  words=deployment.argv, serve_stage=serve_stage, model_assume=model_assume or {},
                  node=dict(deployment.node_facts))
    try:
        for step in plan.head:
            step.run(state, state.values)
        values = state.values
        body = plan.body if full_plan else plan.steps_for(values, env, model_facts_set(state, plan.wanted))
        for step in body:
            if step.takes_values:
                step.run(state, values)
            else:
                step.run(state)
        result.resolved = resolved_view(state)
        result.resolved["runtime"] = state.runtime
    except Refusal as r:
        result.vllm_error = VllmError(r.type, r.message)
    except json.JSONDecodeError as e:  # a JSON value vLLM itself would choke on
        result.vllm_error = VllmError("JSONDecodeError", str(e))
    result.assumptions.extend(state.fact_assumptions)
    result.assumptions.extend(state.assumptions)
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
    release = get_release(target)
    state = State(release=release, gpu=GPUS[DEFAULT_GPU], env=dict(env or {}), model=None)
    result = Resolution(source=source, target="pr29558" if target == PR29558 else "release",
                        vllm_version=release.version, resolved=None, vllm_error=None)
    pc = dict(parallel_config or {})
    try:
        state.model_cfg.update({"enforce_eager": False, "is_pooling": False, "is_encoder_decoder": False,
                                "is_moe": False, "disable_cascade_attn": False})
        state.scheduler.update({"max_num_batched_tokens": 2048, "max_num_seqs": 128})
        build_parallel_config(state, pc)
        if release.has_optimization_level:
            state.optimization_level = 2 if optimization_level is None else optimization_level
        try:
            cc_mod.build(compilation_config or {}, release, state)
        except ConfigInvalid as e:
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
