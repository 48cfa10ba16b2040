"""Extract, per vLLM release, what `--quantization` is checked against at config time, from the
release's own sources (`python tools/extract_quantization_facts.py SRC_ROOT`, SRC_ROOT holding
<version>/vllm/ for every release; writes src/vllm_preflight/releases/data/quantization.json).

Per release:
- `methods`: the QuantizationMethods literal, in order (the "Unknown quantization method" list);
- `overrides`: the `overrides` list of ModelConfig._verify_quantization (probed last, in order);
- `deprecated`: DEPRECATED_QUANTIZATION_METHODS where the release has one;
- `online_shorthands`: the keys of config/quantization.py `_ONLINE_SHORTHANDS` (0.22.0+);
- `classes`: per method, what VllmConfig._get_quantization_config asks of its config class:
  `min_capability` (int), `act_dtypes` (torch dtype names, in the class's order),
  `config_filenames` (files looked for when the checkpoint has no quantization_config; [] means
  the class is built with no arguments), `init_required` (the constructor's required positional
  parameters, whose absence makes that no-argument build a TypeError) and `init_owner` (the class
  whose __init__ that is). A value the source does not give as a literal is null (not guessed).
Only the Python AST is read; nothing is imported.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "quantization.json"
TORCH = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
         "float32": "float32", "float8_e4m3fn": "float8_e4m3fn", "uint8": "uint8", "int8": "int8"}


def _literal_list(node):
    if isinstance(node, (ast.List, ast.Tuple)):
        return node.elts
    return None


def _methods_literal(tree: ast.Module) -> list[str] | None:
    for n in tree.body:
        if not isinstance(n, (ast.Assign, ast.AnnAssign)):
            continue
        tgt = n.target if isinstance(n, ast.AnnAssign) else n.targets[0]
        if isinstance(tgt, ast.Name) and tgt.id == "QuantizationMethods" and isinstance(n.value, ast.Subscript):
            sl = n.value.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return [str(e.value) for e in elts if isinstance(e, ast.Constant)]
    return None


def _names_assigned(tree: ast.AST, name: str) -> list[str] | None:
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            tgt = n.target if isinstance(n, ast.AnnAssign) else n.targets[0]
            if isinstance(tgt, ast.Name) and tgt.id == name and n.value is not None:
                elts = _literal_list(n.value)
                if elts is not None and all(isinstance(e, ast.Constant) for e in elts):
                    return [str(e.value) for e in elts if isinstance(e, ast.Constant)]
    return None


def _method_to_class(tree: ast.Module) -> dict[str, str]:
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            tgt = n.target if isinstance(n, ast.AnnAssign) else n.targets[0]
            if isinstance(tgt, ast.Name) and tgt.id == "method_to_config" and isinstance(n.value, ast.Dict):
                return {str(k.value): v.id for k, v in zip(n.value.keys, n.value.values)
                        if isinstance(k, ast.Constant) and isinstance(v, ast.Name)}
    return {}


def _classes(qdir: Path) -> dict[str, ast.ClassDef]:
    out: dict[str, ast.ClassDef] = {}
    for f in sorted(qdir.rglob("*.py")):
        try:
            tree = ast.parse(f.read_text())
        except SyntaxError:
            continue
        for n in tree.body:
            if isinstance(n, ast.ClassDef) and n.name not in out:
                out[n.name] = n
    return out


def _func(cls: ast.ClassDef, name: str):
    for n in cls.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n
    return None


def _lookup(classes: dict, cname: str, fname: str):
    """(function, owning class name) along the single-inheritance chain inside the package."""
    seen = set()
    while cname in classes and cname not in seen:
        seen.add(cname)
        cls = classes[cname]
        f = _func(cls, fname)
        if f is not None:
            return f, cname
        bases = [b.id for b in cls.bases if isinstance(b, ast.Name)]
        cname = bases[0] if bases else ""
    return None, None


def _single_return(f):
    body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return):
        return body[0].value
    return None


def _value(f, kind: str):
    if f is None:
        return None
    v = _single_return(f)
    if v is None:
        return None
    if kind == "int":
        if isinstance(v, ast.Constant) and isinstance(v.value, int):
            return v.value
        if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub) and isinstance(v.operand, ast.Constant) \
                and isinstance(v.operand.value, int):
            return -v.operand.value
        return None
    elts = _literal_list(v)
    if elts is None:
        return None
    if kind == "dtypes":
        out = []
        for e in elts:
            if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "torch" \
                    and e.attr in TORCH:
                out.append(TORCH[e.attr])
            else:
                return None
        return out
    if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
        return [str(e.value) for e in elts if isinstance(e, ast.Constant)]
    return None


def _init_required(f) -> list[str] | None:
    if f is None:
        return []
    a = f.args
    pos = a.posonlyargs + a.args
    n_default = len(a.defaults)
    req = [p.arg for p in pos[: len(pos) - n_default]][1:]  # not self
    if a.vararg is not None:
        return None
    return req


def release_facts(src: Path) -> dict:
    qdir = src / "model_executor" / "layers" / "quantization"
    init = ast.parse((qdir / "__init__.py").read_text())
    model = ast.parse((src / "config" / "model.py").read_text())
    verify = next((n for n in ast.walk(model) if isinstance(n, ast.FunctionDef)
                   and n.name == "_verify_quantization"), None)
    classes = _classes(qdir)
    per: dict[str, dict] = {}
    for method, cname in _method_to_class(init).items():
        cap, _ = _lookup(classes, cname, "get_min_capability")
        dts, _ = _lookup(classes, cname, "get_supported_act_dtypes")
        files, _ = _lookup(classes, cname, "get_config_filenames")
        ini, owner = _lookup(classes, cname, "__init__")
        per[method] = {"class": cname, "min_capability": _value(cap, "int"), "act_dtypes": _value(dts, "dtypes"),
                       "config_filenames": _value(files, "strs"), "init_required": _init_required(ini),
                       "init_owner": owner or "object"}
    shorthands = None
    qcfg = src / "config" / "quantization.py"
    if qcfg.exists():
        for n in ast.parse(qcfg.read_text()).body:
            if not isinstance(n, (ast.Assign, ast.AnnAssign)):
                continue
            tgt = n.target if isinstance(n, ast.AnnAssign) else n.targets[0]
            if isinstance(tgt, ast.Name) and tgt.id == "_ONLINE_SHORTHANDS" and isinstance(n.value, ast.Dict):
                shorthands = sorted(str(k.value) for k in n.value.keys if isinstance(k, ast.Constant))
    return {"methods": _methods_literal(init), "overrides": _names_assigned(verify, "overrides") if verify else None,
            "deprecated": _names_assigned(init, "DEPRECATED_QUANTIZATION_METHODS"), "classes": per,
            "online_shorthands": shorthands}


def _vkey(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


def main() -> int:
    root = Path(sys.argv[1])
    releases = {}
    for d in sorted((p for p in root.iterdir() if (p / "vllm").is_dir()), key=lambda p: _vkey(p.name)):
        releases[d.name] = release_facts(d / "vllm")
    data = {"_about": "Per release: --quantization facts read from vLLM's sources by "
                      "tools/extract_quantization_facts.py (AST only). null = not a literal in the source.",
            "releases": releases}
    # one line per release (the file is read once per process)
    lines = [f" {json.dumps(v)}: {json.dumps(r, sort_keys=True, separators=(',', ':'))}" for v, r in releases.items()]
    OUT.write_text('{"_about": ' + json.dumps(data["_about"]) + ',\n"releases": {\n' + ",\n".join(lines) + "\n}}\n")
    print(f"wrote {OUT} ({len(releases)} releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
