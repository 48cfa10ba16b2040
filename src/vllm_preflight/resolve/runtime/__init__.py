"""The runtime stage: what the model runner does to `cudagraph_mode` after config time.

At KV-cache initialisation vLLM picks an attention backend per KV-cache group, takes the minimum
CUDA-graph support they declare, and lowers `cudagraph_mode` (and, for spec decode, rounds the
capture sizes) to what that support allows. `runtime_stage(state, values)` predicts that for
the resolved config: backend choice (runtime/backends.py), lowering (runtime/lowering.py),
both ruled per release by releases/runtime_rules.py. Facts only the node knows (FlashInfer's TRTLLM
cubins, the Mamba cache block count) are stated as assumptions, with the outcome of each
alternative; pure data in, a plain dict out.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from vllm_preflight.releases.layers import CHUNKED_LOCAL_SIZE, FIXED_BACKENDS, layers_for
from vllm_preflight.releases.layers import MAMBA_LIKE as _MAMBA_LIKE
from vllm_preflight.releases.runtime_rules import RuntimeRules, runtime_rules
from vllm_preflight.resolve.base.modes import has_full_cudagraphs
from vllm_preflight.resolve.base.state import option_json
from vllm_preflight.resolve.runtime import backends
from vllm_preflight.resolve.runtime.lowering import RANK, LowerInput, lower, mamba_blocks_message
from vllm_preflight.resolve.speculative.dynamic_sd import scheduler_refusal
from vllm_preflight.resolve.vllm_config.model_runner import choose_runner

__all__ = ["runtime_rules", "runtime_stage", "runtime_step"]

_DTYPES = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
           "float32": "float32"}


def _truthy(v: str | None) -> bool | None:
    if v is None:
        return None
    return v.strip().lower() in ("1", "true")


def _user_backend(state, values: dict, r: RuntimeRules, events: list) -> tuple[str | None, str | None]:
    """(backend name or None, where it came from): env (releases that read it), flag, -ac."""
    from vllm_preflight.releases import known_env_vars

    chosen, source = None, None
    ac = option_json(values, "attention_config")
    if isinstance(ac, dict) and ac.get("backend"):
        chosen, source = str(ac["backend"]), "--attention-config backend"
    if values.get("attention_backend"):
        chosen, source = str(values["attention_backend"]), "--attention-backend"
    env = state.env.get("VLLM_ATTENTION_BACKEND")
    known = known_env_vars(r.version) or frozenset()
    if env and "VLLM_ATTENTION_BACKEND" in known:
        if "--attention-backend" in _option_strings(r.version):  # 0.13-0.14: env overrides, deprecated
            events.append(_event("runtime.attention_backend_env", None, None, (
                "Using VLLM_ATTENTION_BACKEND environment variable is deprecated and will be removed in v0.14.0 "
                "or v1.0.0, whichever is soonest. Please use --attention-config.backend command line argument "
                "or AttentionConfig(backend=...) config field instead."), "warning"))
        chosen, source = env.removesuffix("_VLLM_V1"), "VLLM_ATTENTION_BACKEND"
    elif env:
        events.append({"field": "attention_config.backend", "before": None, "after": None,
                       "rule": "runtime.attention_backend_env_ignored", "level": "info",
                       "reason": f"VLLM_ATTENTION_BACKEND={env} is not read by vLLM {r.version} (removed in 0.15.0); "
                                 "use --attention-backend"})
    if chosen and chosen.strip().lower() == "auto":
        return None, None
    return (chosen.strip().upper(), source) if chosen else (None, None)


@cache
def _option_strings(version: str) -> frozenset:
    from vllm_preflight.releases import option_table

    return frozenset(option_table(version).options)


def _event(rule: str, before, after, reason: str, level: str = "info") -> dict:
    return {"field": "compilation_config.cudagraph_mode", "before": before, "after": after, "rule": rule,
            "reason": reason, "level": level}


def _query(state, values: dict, r: RuntimeRules, layers) -> backends.Query:
    from vllm_preflight.releases import known_env_vars

    env = state.env
    known = known_env_vars(r.version) or frozenset()
    fa_env = env.get("VLLM_FLASH_ATTN_VERSION") if "VLLM_FLASH_ATTN_VERSION" in known else None
    return backends.Query(
        cc=state.gpu.capability, head_size=layers.head_size,
        dtype=_DTYPES.get(str(values.get("dtype") or "auto").lower(), "bfloat16"),
        kv_cache_dtype=str(values.get("kv_cache_dtype") or "auto"), use_mla=layers.mla, has_sink=layers.sink,
        trtllm_kernels=True, fa_version_env=int(fa_env) if fa_env in ("2", "3") else None,
        use_trtllm_env=_truthy(env.get("VLLM_USE_TRTLLM_ATTENTION")) if "VLLM_USE_TRTLLM_ATTENTION" in known else None,
        batch_invariant=bool(_truthy(env.get("VLLM_BATCH_INVARIANT"))))


def _groups(r: RuntimeRules, q: backends.Query, layers, selected: str | None, block_size: int):
    """[(group, backend name, class name, support)] in KV-cache group order, or a refusal."""
    choice = backends.select(r, q, selected)
    if choice.error:
        return None, choice
    assert choice.backend is not None  # select() names a backend whenever it does not refuse
    out = [("attention", choice.backend, choice.class_name, backends.declared_support(r, choice.backend, q))]
    for kind in layers.extra:
        if kind == "cross_attention":  # the same backend's builder, subclassed: the same support
            out.append(("cross_attention", choice.backend, f"CrossAttention_{choice.class_name}", out[0][3]))
        elif kind == "chunked_local":
            block = f"{block_size}_" if r.chunked_local_block_in_name else ""
            out.append(("chunked_local", choice.backend,
                        f"ChunkedLocalAttention_{CHUNKED_LOCAL_SIZE}_{block}{choice.class_name}", "NEVER"))
        else:
            level = {"gdn": "UNIFORM_BATCH", "linear": "UNIFORM_SINGLE_TOKEN_DECODE"}.get(kind, r.sup_mamba)
            out.append((kind, kind.upper(), FIXED_BACKENDS[kind], level))
    return out, choice


def _minimum(groups, r: RuntimeRules) -> tuple[str, str | None]:
    support, backend = "ALWAYS", None
    for _, _, cls, level in groups:
        if RANK[level] < RANK[support]:  # strictly lower: the first one found is kept
            support, backend = level, cls
    if r.backend_names == "builder" and backend:
        backend = backends.BUILDER_NAMES.get(backend, backend)
    return support, backend


def runtime_stage(state, values: dict) -> dict:
    """The runtime-stage block of a resolved result (`resolved["runtime"]`)."""
    r = runtime_rules(state.release.version)
    cc, pc = state.cc, state.pass_config
    facts = state.model
    events: list[dict] = []
    assumptions: list[dict] = []
    layers, guessed = layers_for(facts.architecture, facts.is_mla, bool(state.model_cfg.get("is_pooling")))
    if guessed:
        assumptions.append({"fact": "model.layers", "value": guessed, "source": "runtime table"})
    q = _query(state, values, r, layers)
    selected, selected_from = _user_backend(state, values, r, events)
    block_size = int(values.get("block_size") or 16)
    mode_name = cc["mode"] if "mode" in cc and cc["mode"] is not None else cc.get("level")
    splitting = cc.get("splitting_ops")
    attn_ops = state.release.facts["attention_ops"]
    runner = choose_runner(state, r, events)
    pw = bool(_truthy(state.env.get("VLLM_USE_BREAKABLE_CUDAGRAPH"))) or \
        mode_name in ("VLLM_COMPILE", "DYNAMO_TRACE_ONCE", "PIECEWISE", "DYNAMO_ONCE", 3, 2)
    base = {
        "mode": cc["cudagraph_mode"] or "NONE",
        "vllm_compile": mode_name in ("VLLM_COMPILE", "PIECEWISE", 3),
        "attn_split": splitting is not None and all(op in splitting for op in attn_ops),
        "partition": bool(cc.get("use_inductor_graph_partition")), "q": 1 + state.num_speculative_tokens,
        "sizes": list(cc.get("cudagraph_capture_sizes") or []), "max_size": cc.get("max_cudagraph_capture_size"),
        "tp": state.parallel.get("tensor_parallel_size", 1),
        "enable_sp": bool(pc.get("enable_sp") or pc.get("enable_sequence_parallelism")),
        "v2": runner == "V2", "pw_available": pw if runner == "V2" else True,
        "mamba": any(k in _MAMBA_LIKE for k in layers.extra), "max_num_seqs": state.scheduler.get("max_num_seqs")}

    def outcome(query: backends.Query, support_override: str | None = None, **over) -> dict:
        groups, choice = _groups(r, query, layers, selected, block_size)
        if groups is None:
            return {"groups": [], "support": None, "backend": None, "result": None,
                    "error": {"type": choice.error[0], "message": choice.error[1]}}
        if layers.unknown_support:
            groups = groups + [("unmodelled", None, "UnmodelledBackend", support_override)]
        groups = [(g, b, cls, level or support_override) for g, b, cls, level in groups]
        if any(level is None for *_, level in groups):
            return {"groups": groups, "support": None, "backend": None, "result": None, "error": None}
        support, backend = _minimum(groups, r)
        res = lower(LowerInput(support=support, backend=backend, **{**base, **over}), r)
        return {"groups": groups, "support": support, "backend": backend, "result": res,
                "error": {"type": res.error[0], "message": res.error[1]} if res.error else None}

    main = outcome(q)
    # facts only the node knows: state every alternative whose outcome differs
    depends_on: list[dict] = []
    uses_flashinfer = any(g[1] == "FLASHINFER" for g in main["groups"])
    if uses_flashinfer and not _truthy(state.env.get("VLLM_HAS_FLASHINFER_CUBIN")):
        alt = outcome(replace(q, trtllm_kernels=False))
        assumptions.append({"fact": "flashinfer_trtllm_kernels", "value": True, "source": (
            "FlashInfer's TRTLLM/XQA cubins are available (flashinfer-cubin installed, VLLM_HAS_FLASHINFER_CUBIN=1, "
            "or the cubin repository reachable from the worker)")})
        if _mode_of(alt) != _mode_of(main) or alt["error"] != main["error"]:
            depends_on.append({"fact": "flashinfer_trtllm_kernels", "assumed": True, "alternative": False,
                               "support": alt["support"], "cudagraph_mode": _mode_of(alt), "error": alt["error"]})
    unmodelled = layers.unknown_support or (main["support"] is None and main["error"] is None and
                                            f"the {selected} attention backend")
    if unmodelled:
        # the answer for every support level those layers could declare; certain when they agree
        assumptions.append({"fact": "unmodelled_support", "value": unmodelled,
                            "source": "its declared CUDA-graph support is not modelled; the outcome for each level "
                                      "is in depends_on"})
        alts = {level: outcome(q, level) for level in ("ALWAYS", "UNIFORM_BATCH", "UNIFORM_SINGLE_TOKEN_DECODE", "NEVER")}
        for level, alt in alts.items():
            depends_on.append({"fact": "unmodelled_support", "alternative": level,
                               "support": alt["support"], "cudagraph_mode": _mode_of(alt), "error": alt["error"]})
        same = {(_mode_of(a), str(a["error"])) for a in alts.values()}
        main = alts["ALWAYS"] if len(same) == 1 else dict(alts["ALWAYS"], result=None, error=None)
        main = dict(main, groups=outcome(q)["groups"], support=None, backend=None)  # unknown support stays null
    res = main["result"]
    if res is not None:
        for w in res.warnings:
            events.append(_event(f"runtime.{w.step}", w.before, w.after, w.message, "warning"))
        if res.error:
            events.append(_event("runtime.refuses", None, None, f"{res.error[0]}: {res.error[1]}", "error"))
        if r.mamba_cap_sizes and base["mamba"] and has_full_cudagraphs(res.mode) and not res.error:
            assumptions.append({"fact": "mamba_cache_blocks", "value": f">= {base['max_size']}", "source": (
                "the KV cache holds at least max_cudagraph_capture_size Mamba blocks; otherwise the capture "
                "sizes are capped to the block count (and with none left vLLM warns \"No valid cudagraph capture "
                "sizes remain after capping to Mamba cache blocks\" and captures no graphs)")})
        if r.mamba_block_check and base["mamba"] and has_full_cudagraphs(res.mode) and not res.error:
            n = base["max_num_seqs"]
            assumptions.append({"fact": "mamba_cache_blocks", "value": f">= {n}", "source": (
                "the KV cache holds at least max_num_seqs Mamba blocks; otherwise vLLM refuses at KV-cache init: "
                + mamba_blocks_message(n, "<num_blocks>"))})
    elif main["error"]:
        events.append(_event("runtime.attention_backend", None, None,
                             f"{main['error']['type']}: {main['error']['message']}", "error"))
    if runner == "V2" and r.piecewise_capture_rule and not _truthy(state.env.get("VLLM_USE_BREAKABLE_CUDAGRAPH")) \
            and pw and res is not None:
        assumptions.append({"fact": "model.compiled_submodule", "value": True, "source": (
            "the model class is @support_torch_compile (piecewise capture available to Model Runner V2); "
            "otherwise PIECEWISE becomes NONE and FULL_AND_PIECEWISE becomes FULL_DECODE_ONLY")})
        alt = outcome(q, pw_available=False)
        if _mode_of(alt) != _mode_of(main) or alt["error"] != main["error"]:
            depends_on.append({"fact": "model.compiled_submodule", "assumed": True, "alternative": False,
                               "support": alt["support"], "cudagraph_mode": _mode_of(alt), "error": alt["error"]})
    scheduler_error = None if main["error"] else _scheduler_refusal(state)
    if scheduler_error:
        events.append(_event("runtime.scheduler_refuses", None, None,
                             f"{scheduler_error['type']}: {scheduler_error['message']}", "error"))
    return {
        "stage": "runtime (model runner, at KV-cache initialisation; then the scheduler)",
        "config_cudagraph_mode": cc["cudagraph_mode"],
        "cudagraph_mode": _mode_of(main),
        "cudagraph_capture_sizes": res.sizes if res is not None and not res.error else base["sizes"],
        "max_cudagraph_capture_size": res.max_size if res is not None and not res.error else base["max_size"],
        "model_runner": runner,
        "attention": [{"group": g, "backend": b, "class": cls, "support": s} for g, b, cls, s in main["groups"]],
        "attention_backend_choice": selected_from or "auto",
        "support": main["support"],
        "support_backend": main["backend"],
        "error": main["error"],
        "scheduler_error": scheduler_error,
        "events": events,
        "assumptions": assumptions,
        "depends_on": depends_on,
        "evidence": r.evidence,
        "source": r.source,
    }


def _scheduler_refusal(state) -> dict | None:
    """The engine builds its scheduler after the KV cache: a dynamic speculative-decoding schedule
    still on after config time (resolve/speculative/dynamic_sd.py) is validated there, after the weights load."""
    schedule = state.dynamic_sd_schedule
    if not schedule:  # None, or an empty list the scheduler skips (`if ...per_batch_size:`)
        return None
    message = scheduler_refusal(schedule, int(state.scheduler.get("max_num_seqs") or 0),
                                state.num_speculative_tokens)
    return {"type": "ValueError", "message": message} if message else None


def _mode_of(outcome: dict) -> str | None:
    res = outcome["result"]
    if res is None or res.error:
        return None
    return res.mode


def runtime_step(state, values: dict) -> None:
    """The model runner's stage, after config time: `resolved["runtime"]`."""
    state.runtime = runtime_stage(state, values)
