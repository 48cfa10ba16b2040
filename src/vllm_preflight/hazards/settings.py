"""Hazards about settings vLLM accepts but ignores, overrides or drops (VP306-VP311)."""
from __future__ import annotations

from vllm_preflight.hazards.context import Context, Fix
from vllm_preflight.hazards.registry import hazard

ENV = "VLLM_ALL2ALL_BACKEND"
CORE_ATTENTION = ("vllm::unified_attention_with_output", "vllm::unified_mla_attention_with_output")


def _first_release(since: str, test) -> str | None:
    """The first supported release after `since` for which test(release) holds."""
    from vllm_preflight.releases import SUPPORTED, get_release, version_key

    later = [v for v in SUPPORTED if since == "pr29558" or version_key(v) > version_key(since)]
    return next((v for v in later if test(get_release(v))), None)


@hazard("VP306")
def env_ignored(ctx: Context):
    value = ctx.env.get(ENV)
    if value is None or ctx.result.vllm_error is not None:
        return
    style = ctx.release.all2all_env
    flag = ctx.written.get("all2all_backend")
    if flag is not None and flag.where.startswith("env "):
        flag = None  # written as the variable itself, not as the flag
    if style == "ignored":
        why = f"vLLM {ctx.result.vllm_version} no longer reads it (only `--all2all-backend`)"
    elif style == "fallback" and flag is not None and str(flag.value) != value:
        why = f"`--all2all-backend {flag.value}` wins over it on vLLM {ctx.result.vllm_version}"
    else:
        return
    fix = ctx.checked_fix("VP306", [Fix(f"`--all2all-backend {value}` and unset {ENV}",
                                        ("--all2all-backend", value), ((ENV, None),))], keep_graphs=False)
    yield ctx.finding("VP306", f"{ENV}={value} is ignored: {why}; the backend is "
                      f"{ctx.parallel['all2all_backend']}." + fix)


@hazard("VP307")
def env_overrides_flag(ctx: Context):
    value = ctx.env.get(ENV)
    flag = ctx.written.get("all2all_backend")
    if value is None or flag is None or flag.where.startswith("env ") or ctx.result.vllm_error is not None:
        return
    if ctx.release.all2all_env != "override" or str(flag.value) == value:
        return
    yield ctx.finding("VP307", f"{ENV}={value} overrides `--all2all-backend {flag.value}` on vLLM "
                      f"{ctx.result.vllm_version}: the backend is {value}", "all2all_backend")


@hazard("VP308")
def all2all_unused(ctx: Context):
    if ctx.resolved is None or "all2all_backend" not in ctx.written:
        return
    if ctx.result.extra.get("depends_on"):
        return  # the parallel layout comes from variables the input leaves open (VP103 says what changes)
    par = ctx.parallel
    dp, ep = par["data_parallel_size"] or 1, bool(par["enable_expert_parallel"])
    if dp > 1 and ep:
        return
    why = ("expert parallel is off" if not ep else "") + (" and " if not ep and dp <= 1 else "") + \
        ("data parallel is 1" if dp <= 1 else "")
    effect = ("yet vLLM still turns CUDA graphs off for it (VP302)" if "deepep_ht.disable_cudagraphs"
              in ctx.rules_fired() else "so it has no effect")
    yield ctx.finding("VP308", f"all2all backend {par['all2all_backend']} is set but {why}: vLLM uses all2all "
                      f"kernels for the MoE only with data parallel > 1 and --enable-expert-parallel, {effect}",
                      "all2all_backend")


@hazard("VP309")
def fusion_drops_piecewise(ctx: Context):
    if ctx.resolved is None or "splitting_ops.attn_fusion" not in ctx.rules_fired():
        return
    fix = ctx.checked_fix("VP309", [Fix("add `-cc.use_inductor_graph_partition=true` (the fusion then keeps "
                                        "piecewise graphs)", ("-cc.use_inductor_graph_partition=true",))])
    yield ctx.finding("VP309", "attention+quant fusion without inductor graph partition makes vLLM empty "
                      f"splitting_ops, so no piecewise graph is captured (cudagraph_mode "
                      f"{ctx.cc['cudagraph_mode']}): prefill and mixed batches run without CUDA graphs." + fix,
                      "pass_config.fuse_attn_quant")


@hazard("VP310")
def partial_attention_ops(ctx: Context):
    if ctx.resolved is None or "splitting_ops" not in ctx.written:
        return
    from vllm_preflight.hazards.context import captures_graphs

    cc = ctx.cc
    ops = cc.get("splitting_ops") or []
    if not ops or cc.get("mode") not in ("VLLM_COMPILE", 3) or ctx.cudagraph_mode() not in ("PIECEWISE",
                                                                                         "FULL_AND_PIECEWISE"):
        return
    if not captures_graphs(ctx.result):
        return
    known = [op for op in ctx.release.facts.get("attention_ops") or [] if op in CORE_ATTENTION]
    missing = [op for op in known if op not in ops]
    if not missing:
        return
    yield ctx.finding("VP310", f"splitting_ops lacks {', '.join(missing)}, which vLLM {ctx.result.vllm_version} "
                      "splits at by default: an attention layer calling it is captured inside a piecewise "
                      "graph (vLLM's dispatcher expects every attention call between pieces)", "splitting_ops")


# Deprecated spellings: (what, how to find it, the release knob that removes it)
_PASS_OLD = ("enable_fusion", "enable_attn_fusion", "enable_sequence_parallelism", "enable_async_tp",
             "enable_fi_allreduce_fusion", "enable_noop")


# each deprecated name's successors: a fixed name, or the release knob that names it (None there:
# the release has no such pass; PassConfig has no SP / async-TP field from 0.32.0)
_PASS_NEW = {"enable_fusion": ("fuse_norm_quant", "fuse_act_quant"), "enable_attn_fusion": ("attn_fusion_name",),
             "enable_noop": ("eliminate_noops",), "enable_sequence_parallelism": ("sp_name",),
             "enable_async_tp": ("async_tp_name",), "enable_fi_allreduce_fusion": ("fuse_allreduce_rms",)}


def _successors(rel, old: str) -> list[str] | None:
    names = [getattr(rel, n) if n.endswith("_name") else n for n in _PASS_NEW[old]]
    return None if None in names else names


def _renamed_words(argv: tuple[str, ...], renames: dict[str, list[str]]) -> tuple[str, ...] | None:
    """argv with each deprecated pass key written under its successors (dotted `-cc.` words and
    JSON --compilation-config values); None where a spelling is not one this rewrites."""
    import json

    out: list[str] = []
    for w in argv:
        key = next((o for o in renames if f"pass_config.{o}=" in w), None)
        if key is not None:
            head, value = w.split(f"pass_config.{key}=", 1)
            out += [f"{head}pass_config.{new}={value}" for new in renames[key]]
            continue
        if w.startswith("{") and "pass_config" in w:
            try:
                cfg = json.loads(w)
            except ValueError:
                cfg = None
            pc = cfg.get("pass_config") if isinstance(cfg, dict) else None
            if isinstance(pc, dict) and any(o in pc for o in renames):
                cfg["pass_config"] = {n: v for k, v in pc.items() for n in renames.get(k, [k])}
                out.append(json.dumps(cfg))
                continue
        out.append(w)
    return tuple(out) if out != list(argv) else None


def _pass_rename_fix(ctx: Context, old: list[str]) -> str:
    """' Fix (resolved on vLLM V: no VP311): write NEW.' when the rename, resolved on the same
    release, starts with no VP311 finding; plus, for SP / async-TP, the release that drops the
    successor too (0.32.0: no such pass key, so no name is safe across every release)."""
    from dataclasses import replace

    rel = ctx.release
    renames = {o: _successors(rel, o) for o in old}
    dep = ctx.result.deployment
    tail = ""
    for o in old:
        last = _first_release(ctx.result.vllm_version, lambda r, o=o: _successors(r, o) is None)
        if last and renames[o]:
            tail += (f" ({' + '.join(renames[o] or [])}: rejected in turn from vLLM {last}, which has no "
                     "such pass; drop the key there)")
    if dep is None or ctx.rerun is None or any(v is None for v in renames.values()):
        return tail
    words = _renamed_words(tuple(dep.argv), {o: v for o, v in renames.items() if v is not None})
    if words is None:
        return tail
    other = ctx.rerun(replace(dep, argv=words))
    fired = {f.rule for f in ctx.findings_of(other)} if ctx.findings_of else set()
    if other.vllm_error is not None or "VP311" in fired:
        return tail
    new = ", ".join(f"{o} -> {' + '.join(renames[o] or [])}" for o in old)
    return f". Fix (resolved on vLLM {other.vllm_version}: starts, no VP311): rename {new}" + tail


def _dotted_o(ctx: Context) -> list[str]:
    dep = ctx.result.deployment
    return [w for w in (dep.argv if dep else ()) if w.startswith("-O.")]


@hazard("VP311")
def deprecated_spelling(ctx: Context):
    version = ctx.result.vllm_version
    rel = ctx.release
    if rel.o_flag == "optimization_level_dotted_deprecated" and _dotted_o(ctx):
        gone = _first_release(version, lambda r: r.o_flag == "optimization_level")
        yield ctx.finding("VP311", f"`{_dotted_o(ctx)[0]}` is deprecated on vLLM {version} (use `-cc.` or "
                          f"`--compilation-config`); vLLM {gone} reads `-O` as the optimization level only")
    if rel.pass_config_deprecated_names:
        old = [k.split(".", 1)[1] for k in ctx.written if k.startswith("pass_config.") and k.split(".", 1)[1] in _PASS_OLD]
        if old:
            gone = _first_release(version, lambda r: not r.pass_config_deprecated_names)
            yield ctx.finding("VP311", f"PassConfig name{'s' if len(old) > 1 else ''} {', '.join(old)} "
                              f"deprecated on vLLM {version}; vLLM {gone} rejects them" + _pass_rename_fix(ctx, old),
                              f"pass_config.{old[0]}")
    ops_written = ctx.written.get("splitting_ops")
    written_ops = (ops_written.value if ops_written is not None else None) or []
    if isinstance(written_ops, list) and rel.version != "0.11.0":
        dotted = [op for op in written_ops if isinstance(op, str) and op.startswith("vllm.") and "::" not in op]
        if dotted:
            yield ctx.finding("VP311", f"splitting op{'s' if len(dotted) > 1 else ''} {', '.join(dotted)} use the "
                              "dotted form that vLLM 0.11.0 matched; from 0.11.1 vLLM looks ops up as "
                              f"`vllm::name` and drops these silently (write "
                              f"{', '.join('vllm::' + d[5:] for d in dotted)})", "splitting_ops")
