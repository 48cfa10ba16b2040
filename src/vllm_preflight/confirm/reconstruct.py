"""From what a start logged back to a deployment and to comparable values.

`non-default args` is the serve parser's namespace minus its defaults: dest -> value. Each dest
the release's engine option table knows becomes the words that set it (`--tensor-parallel-size
2`, `--enable-expert-parallel`, `--compilation-config '{...}'`); the server's own options (host,
port, API keys) set nothing the resolver reads and are left out, said by name. The engine line's
`compilation_config` and its top-level sizes become the logged values, normalised to the names
the resolver uses (an enum member by its name, CompilationMode's old integer `level` by name).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.confirm.literal import Call, EnumMember, LiteralProblem, Opaque, parse, plain

MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
# CUDAGraphMode's values: JSON of older releases writes the tuple as a list
CUDAGRAPH_BY_VALUE = {0: "NONE", 1: "PIECEWISE", 2: "FULL", (2, 0): "FULL_DECODE_ONLY",
                      (2, 1): "FULL_AND_PIECEWISE"}
CC_FIELDS = ("mode", "cudagraph_mode", "splitting_ops", "use_inductor_graph_partition", "custom_ops",
             "cudagraph_capture_sizes", "max_cudagraph_capture_size")
TOP_FIELDS = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "enforce_eager")
# serve-parser dests that are no engine setting (never compared, never rebuilt as words)
POSITIONAL = ("model_tag", "model", "subparser", "dispatch_function", "cmd")


@dataclass
class Rebuilt:
    argv: list[str]
    left_out: list[str] = field(default_factory=list)  # dests not rebuilt (server-only, unknown)
    problems: list[str] = field(default_factory=list)


def parse_args_text(text: str) -> tuple[dict | None, str | None]:
    """The `non-default args` dict; (None, why) when it cannot be read."""
    try:
        got = parse(text, allow_truncated=True)
    except LiteralProblem as e:
        return None, f"the non-default args are not a literal: {e.message} (character {e.offset + 1})"
    if not isinstance(got.value, dict):
        return None, "the non-default args are not a dict"
    why = "the non-default args line is cut short: the arguments after the cut are unknown" if got.truncated else None
    return got.value, why


def _json_value(value: Any) -> Any:
    if isinstance(value, Call):
        return {k: _json_value(v) for k, v in value.kwargs.items() if v is not None}
    if isinstance(value, EnumMember):
        # an IntEnum or a str Enum is given by its value (CompilationMode 3, DynamicShapesType
        # 'backed'); CUDAGraphMode (tuple values) by its name, as vLLM's validator takes it
        return value.value if isinstance(value.value, (int, str)) and not isinstance(value.value, bool) else value.name
    if isinstance(value, dict):
        # the serve parser logs the whole parsed config: a field left None is its default
        return {str(k): _json_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_value(v) for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value)]
    if isinstance(value, Opaque):
        return value.text
    return value


def _modes_by_name(cfg: Any) -> Any:
    """Older releases log CompilationConfig as JSON with CUDAGraphMode's value (2, [2, 1]): given
    back as its name, the way a user writes it."""
    if isinstance(cfg, dict) and "cudagraph_mode" in cfg:
        v = cfg["cudagraph_mode"]
        key = tuple(v) if isinstance(v, list) else v
        if isinstance(key, (int, tuple)) and not isinstance(key, bool) and key in CUDAGRAPH_BY_VALUE:
            cfg = {**cfg, "cudagraph_mode": CUDAGRAPH_BY_VALUE[key]}
    return cfg


# The serve parser logs the whole parsed CompilationConfig: the fields the resolver reads are
# given back unless they hold the value a config nobody wrote holds; the rest set nothing the
# resolver reads, and left out they keep the reproduction short.
CC_READ: dict[str, Any] = {"mode": None, "level": None, "cudagraph_mode": None, "splitting_ops": None,
           "use_inductor_graph_partition": None, "custom_ops": [], "backend": "", "cudagraph_capture_sizes": None,
           "max_cudagraph_capture_size": None, "use_cudagraph": True, "full_cuda_graph": False,
           "cudagraph_mm_encoder": False, "compile_ranges_endpoints": None, "compile_ranges_split_points": None,
           "pass_config": {}}


def _read_fields(cfg: dict) -> dict:
    return {k: v for k, v in cfg.items() if k in CC_READ and v != CC_READ[k]}


def rebuild(args: dict, release: str) -> Rebuilt:
    """`vllm serve MODEL ...` words that give the logged arguments."""
    from vllm_preflight.releases import option_table

    table = option_table(release).by_dest
    model = args.get("model_tag") or args.get("model")
    argv = ["vllm", "serve", str(plain(model)) if model is not None else "MODEL"]
    out = Rebuilt(argv)
    for dest, value in args.items():
        if dest in POSITIONAL:
            continue
        opt = table.get(dest)
        if opt is None:
            out.left_out.append(dest)
            continue
        flag = next((s for s in opt.strings if s.startswith("--") and not s.startswith("--no-")), opt.strings[0])
        if opt.kind in ("store_true", "store_false", "boolopt") or isinstance(value, bool):
            if opt.kind == "store_true":
                if value:
                    argv.append(flag)
            elif opt.kind == "store_false":
                if not value:
                    argv.append(flag)
            elif value is True:
                argv.append(flag)
            elif value is False:
                neg = "--no-" + flag[2:]
                argv.append(neg if neg in (opt.const or ()) or opt.kind == "boolopt" else flag)
            continue
        if value is None:
            continue
        if isinstance(value, (dict, Call)):
            cfg = _modes_by_name(_json_value(value))
            if dest == "compilation_config" and isinstance(cfg, dict):
                cfg = _read_fields(cfg)
                if not cfg:
                    continue
            argv += [flag, json.dumps(cfg, separators=(",", ":"))]
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = _json_value(value)
            if opt.nargs in ("+", "*") or (isinstance(opt.nargs, int) and opt.nargs > 1):
                if items:
                    argv += [flag] + [str(v) if not isinstance(v, (dict, list)) else json.dumps(v) for v in items]
            else:
                argv += [flag, json.dumps(items)]
        elif isinstance(value, EnumMember):
            argv += [flag, value.name.lower() if isinstance(value.value, str) else value.name]
        else:
            argv += [flag, str(_json_value(value))]
    return out


def _name(value: Any, table: dict) -> Any:
    if isinstance(value, EnumMember):
        return value.name
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, str) and value.upper() in table.values():
        return value.upper()
    return table.get(value, value) if isinstance(value, (int, tuple)) and not isinstance(value, bool) else value


def logged_values(cc: Any, top: dict) -> dict[str, Any]:
    """The compared settings as the engine line holds them, in the resolver's shapes."""
    out: dict[str, Any] = {}
    if isinstance(cc, Call):
        cc = cc.kwargs
    if isinstance(cc, str):  # JSON written as a string
        try:
            cc = json.loads(cc)
        except ValueError:
            cc = {}
    if isinstance(cc, dict):
        mode = cc.get("mode", cc.get("level"))
        if "mode" in cc or "level" in cc:
            out["mode"] = _name(mode, dict(enumerate(MODE_NAMES))) if mode is not None else None
        for k in CC_FIELDS[1:]:
            if k not in cc:
                continue
            v = cc[k]
            if k == "cudagraph_mode":
                v = _name(v, CUDAGRAPH_BY_VALUE)
            out[k] = plain(v)
        pc = cc.get("pass_config")
        if isinstance(pc, Call):
            pc = pc.kwargs
        if isinstance(pc, dict):
            for k, v in pc.items():
                out[f"pass_config.{k}"] = plain(v)
    for k in TOP_FIELDS:
        if k in top:
            out[k] = plain(top[k])
    return out


def predicted_values(resolved: dict) -> dict[str, Any]:
    """Our resolution in the same keys."""
    cc = resolved.get("compilation_config") or {}
    out: dict[str, Any] = {k: cc.get(k) for k in CC_FIELDS if k in cc}
    for k, v in (cc.get("pass_config") or {}).items():
        out[f"pass_config.{k}"] = v
    par = resolved.get("parallel_config") or {}
    for k in ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size"):
        if k in par:
            out[k] = par[k]
    return out
