"""Dump the facts of one installed vLLM release that the resolver keeps as data.

Run with the python of a venv that has vLLM installed, inside the oracle's CUDA
emulation (hardware queries are faked so that vLLM picks its CUDA platform):

    VENV/bin/python tools/extract_release_facts.py ORACLE_DIR OUT.json

Writes: the `vllm serve` parser's options (names, nargs, choices, converter name,
action kind), CompilationConfig/PassConfig field names and defaults, the attention
ops list, enum member names and the all2all backend choices. Values only; no vLLM
code is copied.
"""
from __future__ import annotations

import dataclasses
import enum
import json
import os
import sys
import typing


def _jsonable(x):
    if isinstance(x, enum.Enum):
        return x.name
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    return f"<{type(x).__name__}>"


def _fields(cls) -> dict:
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            d = f.default
        elif f.default_factory is not dataclasses.MISSING:
            try:
                d = f.default_factory()
            except Exception:  # noqa: BLE001
                d = "<factory>"
        else:
            d = "<required>"
        # pydantic Field(...) defaults: take the value (or the factory's value) behind it
        if type(d).__name__ == "FieldInfo":
            factory = getattr(d, "default_factory", None)
            if factory is not None:
                try:
                    d = factory()
                except Exception:  # noqa: BLE001
                    d = "<factory>"
            else:
                d = getattr(d, "default", d)
                if type(d).__name__ == "PydanticUndefinedType":
                    d = "<required>"
        out[f.name] = _jsonable(d) if not dataclasses.is_dataclass(d) else "<config>"
    return out


def _literal_values(tp) -> list | None:
    seen = [tp]
    while seen:
        t = seen.pop()
        if typing.get_origin(t) is typing.Literal:
            return list(typing.get_args(t))
        seen.extend(typing.get_args(t))
    return None


def main() -> None:
    oracle_dir, out_path = sys.argv[1], sys.argv[2]
    sys.path.insert(0, oracle_dir)
    import vllm_resolve as vr

    for k, v in vr.BASE_ENV.items():
        os.environ.setdefault(k, v)
    vr.import_vllm({})
    import vllm
    from vllm.config import compilation as comp
    from vllm.config.parallel import ParallelConfig

    # the parser `vllm serve` builds: take make_arg_parser from where the serve command does
    from vllm.entrypoints.cli import serve as serve_cmd
    make_arg_parser = serve_cmd.make_arg_parser

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    parser = make_arg_parser(FlexibleArgumentParser())
    actions = []
    for a in parser._actions:
        t = a.type
        tname = None
        if t is not None:
            tname = getattr(t, "__qualname__", None) or type(t).__name__
            if getattr(t, "__name__", "") == "<lambda>" or tname.endswith("<lambda>"):
                tname = "lambda:" + (getattr(t, "__module__", "") or "")
            inner = getattr(t, "__wrapped__", None) or getattr(t, "func", None)
            if inner is not None:
                tname += "|" + (getattr(inner, "__qualname__", "") or "")
            closure = getattr(t, "__closure__", None)
            if closure:
                names = []
                for c in closure:
                    try:
                        v = c.cell_contents
                    except ValueError:
                        continue
                    names.append(getattr(v, "__qualname__", None) or type(v).__name__)
                tname += "(" + ",".join(names) + ")"
        actions.append({
            "opts": list(a.option_strings), "dest": a.dest,
            "nargs": a.nargs,
            "const": _jsonable(a.const), "default": _jsonable(a.default),
            "choices": _jsonable(list(a.choices)) if a.choices is not None else None,
            "type": tname, "kind": type(a).__name__,
            "deprecated": bool(getattr(a, "deprecated", False)),
        })
    hints = typing.get_type_hints(ParallelConfig)
    facts = {
        "vllm_version": vllm.__version__,
        "actions": actions,
        "compilation_fields": _fields(comp.CompilationConfig),
        "pass_config_fields": _fields(comp.PassConfig),
        "attention_ops": list(getattr(comp.CompilationConfig, "_attention_ops", [])),
        "cudagraph_modes": [m.name for m in comp.CUDAGraphMode],
        "compilation_modes": [m.name for m in getattr(comp, "CompilationMode", getattr(comp, "CompilationLevel", []))]
        if hasattr(comp, "CompilationMode") else None,
        "all2all_backends": _literal_values(hints.get("all2all_backend")),
        "parallel_fields": _fields(ParallelConfig),
        # declaration order (the dicts above are written with sorted keys)
        "pass_config_order": [f.name for f in dataclasses.fields(comp.PassConfig)],
        "env_vars": sorted(n for n in getattr(__import__("vllm.envs", fromlist=["x"]),
                                              "environment_variables", {}) if n.startswith("VLLM_")),
    }
    with open(out_path, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    print(f"{out_path}: {len(actions)} options")


if __name__ == "__main__":
    main()
