"""The settings a combination matrix varies, and how one cell is written for one release.

An axis owns its setting: a cell removes whatever the base deployment says about it and writes
the axis value the way that release takes it (the `--all2all-backend` flag, or the
VLLM_ALL2ALL_BACKEND variable on 0.11.0, which has no flag; compile settings go into one
`--compilation-config` JSON). Values are strings, so `--where dp=8` reads like the table.
Values come from the release's own lists where it has them (its parser's all2all choices,
its cudagraph modes, whether it has the partition field), so every cell is one a deployer
could write for that release.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from vllm_preflight.errors import UsageProblem
from vllm_preflight.model import Deployment

UNSET = "unset"
# model kinds: hub ids whose facts the tool knows without a network (vllm_preflight.modelfacts)
MODELS = {"mla-moe": "deepseek-ai/DeepSeek-V3", "moe": "Qwen/Qwen3-30B-A3B",
          "dense": "meta-llama/Llama-3.1-8B-Instruct"}
DEFAULT_MODEL = MODELS["mla-moe"]
COMPILE_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")  # 0..3 (level on 0.11.0)


def _all2all_values(release) -> tuple[str, ...]:
    opt = release.options.options.get("--all2all-backend")
    if opt is not None and opt.choices:
        return tuple(c for c in opt.choices if c != "None")
    # 0.11.0 reads only VLLM_ALL2ALL_BACKEND and records no list: the next release's flag choices
    from vllm_preflight.releases import SUPPORTED, get_release

    for v in SUPPORTED:
        nxt = get_release(v).options.options.get("--all2all-backend")
        if nxt is not None and nxt.choices:
            return tuple(c for c in nxt.choices if c != "None")
    return ()


def _cudagraph_values(release) -> tuple[str, ...]:
    return (UNSET,) + tuple(release.facts.get("cudagraph_modes") or ())


def _has_cc_field(name: str) -> Callable:
    def values(release) -> tuple[str, ...]:
        return (UNSET, "on") if name in (release.facts.get("compilation_fields") or ()) else (UNSET,)
    return values


@dataclass(frozen=True)
class Axis:
    name: str
    doc: str
    values: Callable  # release -> tuple of value strings, in display order


AXES: dict[str, Axis] = {a.name: a for a in (
    Axis("all2all", "all2all backend: the release's own list", _all2all_values),
    Axis("dp", "data-parallel size", lambda r: ("1", "2", "8")),
    Axis("ep", "expert parallel", lambda r: ("off", "on")),
    Axis("mode", "requested compile mode (unset, or 0-3 by name)", lambda r: (UNSET,) + COMPILE_MODES),
    Axis("cudagraph_mode", "requested cudagraph_mode (unset, or each value)", _cudagraph_values),
    Axis("partition", "use_inductor_graph_partition requested", _has_cc_field("use_inductor_graph_partition")),
    Axis("fusion", "attention+quant fusion requested (the release's pass_config name)",
         lambda r: (UNSET, "on")),
    Axis("model", "model kind: mla-moe (DeepSeek-V3), moe (Qwen3-30B-A3B), dense (Llama-3.1-8B)",
         lambda r: tuple(MODELS)),
)}
# the model stays the deployment's (DeepSeek-V3 without an input): `model` multiplies every cell by 3
DEFAULT_AXES = ("all2all", "dp", "ep", "cudagraph_mode")
ALIASES = {"backend": "all2all", "cg": "cudagraph_mode", "cudagraph": "cudagraph_mode", "compile": "mode",
           "dp_size": "dp", "expert_parallel": "ep", "inductor_partition": "partition"}


def parse_axes(text: str | None) -> tuple[str, ...]:
    if text is None:
        return DEFAULT_AXES
    names = []
    for part in text.split(","):
        name = ALIASES.get(part.strip(), part.strip())
        if not name:
            continue
        if name not in AXES:
            raise UsageProblem(f"unknown axis {part.strip()!r} in --axes: the axes are {', '.join(AXES)}")
        if name not in names:
            names.append(name)
    if not names:
        raise UsageProblem("--axes names no axis: the axes are " + ", ".join(AXES))
    return tuple(names)


def parse_where(items: list[str], axes: tuple[str, ...], releases) -> dict[str, set[str]]:
    """`--where AXIS=VALUE[,VALUE]`: the slice; an unknown axis or value is a usage error."""
    where: dict[str, set[str]] = {}
    for item in items:
        if "=" not in item:
            raise UsageProblem(f"--where takes AXIS=VALUE, got {item!r}")
        k, _, v = item.partition("=")
        name = ALIASES.get(k.strip(), k.strip())
        if name not in AXES:
            raise UsageProblem(f"unknown axis {k.strip()!r} in --where: the axes are {', '.join(AXES)}")
        if name not in axes:
            raise UsageProblem(f"--where {item}: {name} is not one of the matrix's axes ({', '.join(axes)}); "
                               f"add it with --axes")
        known = set()
        for r in releases:
            known.update(AXES[name].values(r))
        wanted = {x.strip() for x in v.split(",") if x.strip()}
        bad = sorted(wanted - known)
        if bad or not wanted:
            raise UsageProblem(f"--where {item}: {', '.join(bad) or repr(v)} is not a value of {name} "
                               f"(values: {', '.join(sorted(known))})")
        where[name] = where.get(name, set()) | wanted
    return where


# ------------------------------------------------------------------------- cells
def _prefix(argv: list[str]) -> int:
    return 3 if len(argv) > 1 and argv[1] == "-m" else 2


def _drop_option(argv: list[str], names: tuple[str, ...], takes_value: bool) -> list[str]:
    out, i, start = [], 0, _prefix(argv)
    while i < len(argv):
        w = argv[i]
        head = w.split("=", 1)[0]
        if i >= start and (head in names or head.replace("_", "-") in names):
            i += 1 if ("=" in w or not takes_value) else 2
            continue
        out.append(w)
        i += 1
    return out


def _cc_word_index(argv: list[str]) -> int | None:
    """Index of the value of a `--compilation-config`/`-cc` JSON object in the base, if any."""
    for i, w in enumerate(argv):
        head, eq, _ = w.partition("=")
        if head in ("-cc", "--compilation-config", "--compilation_config"):
            return i if eq else (i + 1 if i + 1 < len(argv) else None)
    return None


def cell_deployment(base: Deployment, release, combo: dict[str, str]) -> Deployment:
    """The base deployment with each axis value of `combo` written for `release`."""
    argv = list(base.argv)
    env = dict(base.env)
    cc_set: dict = {}
    cc_unset: set[str] = set()
    pc_set: dict = {}
    p = _prefix(argv)
    for name, value in combo.items():
        if name == "model":
            model = MODELS[value]
            if len(argv) > p and not argv[p].startswith("-"):
                argv[p] = model
            else:
                argv.insert(p, model)
        elif name == "all2all":
            argv = _drop_option(argv, ("--all2all-backend",), True)
            env.pop("VLLM_ALL2ALL_BACKEND", None)
            if "--all2all-backend" in release.options.options:
                argv += ["--all2all-backend", value]
            else:
                env["VLLM_ALL2ALL_BACKEND"] = value
        elif name == "dp":
            argv = _drop_option(argv, ("-dp", "--data-parallel-size"), True)
            argv += ["--data-parallel-size", value]
        elif name == "ep":
            argv = _drop_option(argv, ("-ep", "--enable-expert-parallel", "--no-enable-expert-parallel"), False)
            if value == "on":
                argv.append("--enable-expert-parallel")
        elif name in ("mode", "cudagraph_mode", "partition"):
            key = {"mode": "level" if release.mode_field == "level" else "mode",
                   "cudagraph_mode": "cudagraph_mode", "partition": "use_inductor_graph_partition"}[name]
            if value == UNSET:
                cc_unset.add(key)
            elif name == "mode":
                cc_set[key] = COMPILE_MODES.index(value)
            else:
                cc_set[key] = True if name == "partition" else value
        elif name == "fusion" and value != UNSET:
            pc_set[release.attn_fusion_name] = True
    if cc_set or cc_unset or pc_set:
        argv = _write_cc(argv, cc_set, cc_unset, pc_set)
    from vllm_preflight.identity import role_of

    role = role_of(base)  # a cell keeps the deployment's role (graphs off on a prefill pool is no hazard)
    return Deployment(tuple(argv), tuple(env.items()), base.source, base.location, None,
                      base.assumptions, base.base_dir, role=role.role, role_source=role.source)


def _write_cc(argv: list[str], cc_set: dict, cc_unset: set[str], pc_set: dict) -> list[str]:
    keys = set(cc_set) | cc_unset | ({"pass_config"} if pc_set else set())
    # dotted words for the keys the axes own go; the JSON object takes the axis values
    argv = [w for w in argv if not any(w.split("=", 1)[0] in (f"-cc.{k}", f"--compilation-config.{k}")
                                       for k in keys)]
    idx = _cc_word_index(argv)
    current: dict = {}
    if idx is not None:
        head, eq, val = argv[idx].partition("=")
        text = val if eq and head in ("-cc", "--compilation-config", "--compilation_config") else argv[idx]
        try:
            parsed = json.loads(text)
            current = parsed if isinstance(parsed, dict) else {}
        except ValueError:
            idx = None  # not JSON (vLLM refuses it); the axes' object is appended after it
    for k in cc_unset:
        current.pop(k, None)
    current.update(cc_set)
    if pc_set:
        pc = dict(current.get("pass_config") or {})
        pc.update(pc_set)
        current["pass_config"] = pc
    word = json.dumps(current, separators=(",", ":"))
    if idx is None:
        if current:
            argv += ["--compilation-config", word]
        return argv
    if "=" in argv[idx] and argv[idx].split("=", 1)[0] in ("-cc", "--compilation-config", "--compilation_config"):
        argv[idx] = argv[idx].split("=", 1)[0] + "=" + word
    else:
        argv[idx] = word
    return argv


def base_deployment(model: str | None = None) -> Deployment:
    """The deployment a combination matrix varies when no input is given."""
    return Deployment(("vllm", "serve", model or DEFAULT_MODEL), source="vllm serve (matrix cell)")
