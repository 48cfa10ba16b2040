"""Record, per release, the fields of the config classes that `vllm serve` reads as JSON options.

For an option whose type is a config dataclass vLLM's argparse type is pydantic's
`TypeAdapter(cls).validate_json(text)`: unknown keys (refused where the class forbids extra
keys), field types, `Field(ge=/gt=/le=/lt=)` bounds and literals are checked as the option is
parsed. This reads each release's sources (vllm/config/*.py and vllm/engine/arg_utils.py) with
`ast` and writes releases/data/json_options.json:

  {"classes": {KEY: {"name", "extra", "fields": [[name, type, bounds, custom]], "validators",
                     "defaults": {field: literal default}}},
   "releases": {VERSION: {dest: KEY}}}

A type is "int" | "float" | "bool" | "str" | "any" | {"lit": [...]} | {"union": [literals, or "str"]} | {"opt": T} |
{"list": T} | {"dict": T} | {"cls": KEY}; anything the validator does not model is "any".
`custom` marks a field with its own field validator: "norm" (strings lower-cased, dashes to
underscores, then checked), "none_ok" (None passes, else checked), true (not checked); `validators` names
the class's model validators / __post_init__ (ported by hand where they refuse, keyed by release).

Usage: python tools/extract_json_options.py [SRC_ROOT]  (SRC_ROOT/<version>/vllm/...)
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "json_options.json"
OPTIONS = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "options.json"
# dests validated elsewhere (resolve/compilation/compilation_config.py, kv_transfer/, config/structured_outputs.py) or not config classes
SKIP = {"compilation_config"}
SCALARS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}


def _versions(src: Path) -> list[str]:
    from packaging.version import Version

    return sorted((p.name for p in src.iterdir() if (p / "vllm" / "config").is_dir()), key=Version)


class Release:
    def __init__(self, root: Path):
        self.classes: dict[str, ast.ClassDef] = {}
        self.aliases: dict[str, ast.expr] = {}
        self.enums: set[str] = set()
        files = sorted((root / "vllm" / "config").glob("*.py"))
        for extra in ("engine/arg_utils.py", "config.py", "tasks.py"):
            if (root / "vllm" / extra).exists():
                files.append(root / "vllm" / extra)
        for sub in ("attention", "v1/attention"):  # the attention backend enums (AttentionConfig)
            if (root / "vllm" / sub).is_dir():
                files += sorted((root / "vllm" / sub).rglob("registry.py"))
        self.enum_nodes: dict[str, ast.ClassDef] = {}
        for f in files:
            tree = ast.parse(f.read_text())
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    if any(ast.unparse(b).endswith(("Enum", "IntEnum", "StrEnum")) for b in node.bases):
                        self.enums.add(node.name)
                        self.enum_nodes.setdefault(node.name, node)
                    else:
                        self.classes.setdefault(node.name, node)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    self.aliases.setdefault(node.targets[0].id, node.value)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None \
                        and "TypeAlias" in ast.unparse(node.annotation):
                    self.aliases.setdefault(node.target.id, node.value)
                elif isinstance(node, ast.TypeAlias) if hasattr(ast, "TypeAlias") else False:
                    self.aliases.setdefault(node.name.id, node.value)  # type: ignore[attr-defined]
        utils = root / "vllm" / "config" / "utils.py"
        self.config_forbids = utils.exists() and 'extra="forbid"' in utils.read_text()
        self.engine_args = self.classes.get("EngineArgs")


def _union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Union", "typing.Union"):
        sl = node.slice
        return [m for e in (sl.elts if isinstance(sl, ast.Tuple) else [sl]) for m in _union(e)]
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        return _union(node.slice) + [ast.Constant(None)]
    return [node]


def _type(node: ast.expr, rel: Release, classes: dict, depth: int = 0):
    if depth > 8:
        return "any"
    members = _union(node)
    if len(members) > 1:
        nullable = any(isinstance(m, ast.Constant) and m.value is None for m in members)
        rest = [_type(m, rel, classes, depth + 1) for m in members
                if not (isinstance(m, ast.Constant) and m.value is None)]
        if len(rest) > 1 and all(isinstance(t, dict) and "lit" in t for t in rest):
            inner = {"union": rest}  # pydantic tries each literal and reports each
        elif len(rest) > 1 and all((isinstance(t, dict) and "lit" in t) or t == "str" for t in rest):
            inner = {"union": rest}  # Literal[...] | str: any string passes, else one error per member
        elif len(rest) == 1:
            inner = rest[0]
        else:
            return "any"  # a union of several types: pydantic's smart mode, not modelled
        return {"opt": inner} if nullable and inner != "any" else inner
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _type(ast.parse(node.value, mode="eval").body, rel, classes, depth + 1)
        except SyntaxError:
            return "any"
    if isinstance(node, ast.Name):
        if node.id in SCALARS:
            return SCALARS[node.id]
        if node.id in rel.aliases:
            return _type(rel.aliases[node.id], rel, classes, depth + 1)
        if node.id in rel.classes and _is_config_class(rel.classes[node.id]):
            return {"cls": _class(node.id, rel, classes)}
        return "any"
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).split(".")[-1]
        sl = node.slice
        args = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if head == "Literal":
            values = []
            for a in args:
                if isinstance(a, ast.Name) and isinstance(rel.aliases.get(a.id), ast.Constant):
                    a = rel.aliases[a.id]  # a module constant (ECRole = Literal[ECProducer, ...])
                if isinstance(a, ast.Constant):
                    values.append(a.value)
                elif isinstance(a, (ast.Subscript, ast.Name)):
                    inner = _type(a, rel, classes, depth + 1)  # Literal[Literal[...], ...]
                    if not (isinstance(inner, dict) and "lit" in inner):
                        return "any"
                    values += inner["lit"]
                else:
                    return "any"
            return {"lit": list(dict.fromkeys(values))}  # pydantic names each value once
        if head in ("list", "List") and len(args) == 1:
            return {"list": _type(args[0], rel, classes, depth + 1)}
        if head in ("dict", "Dict") and len(args) == 2:
            key = _type(args[0], rel, classes, depth + 1)
            return {"dict": _type(args[1], rel, classes, depth + 1)} if key == "str" else "any"
    return "any"


def _is_config_class(node: ast.ClassDef) -> bool:
    decos = [ast.unparse(d) for d in node.decorator_list]
    return any(d.startswith(("config", "dataclass", "pydantic.dataclasses")) for d in decos)


def _extra(node: ast.ClassDef, rel: Release) -> str:
    decos = [ast.unparse(d) for d in node.decorator_list]
    for d in decos:
        for policy in ("forbid", "allow", "ignore"):
            if f"extra='{policy}'" in d or f'extra="{policy}"' in d:
                return policy
    if rel.config_forbids and any(d == "config" or d.startswith("config(") for d in decos):
        return "forbid"
    return "ignore"


def _literal(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _class(name: str, rel: Release, classes: dict) -> str:
    node = rel.classes[name]
    fields, validators = [], []
    custom_fields: dict = {}  # field -> what its own validator does (True: not modelled)
    defaults: dict = {}
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef):
            decos = [ast.unparse(d) for d in stmt.decorator_list]
            for d in decos:
                if d.startswith(("field_validator", "validator")):
                    call = stmt.decorator_list[decos.index(d)]
                    kind = _field_validator_kind(stmt, d, rel)
                    if isinstance(call, ast.Call):
                        for a in call.args:
                            if isinstance(a, ast.Constant):
                                custom_fields[a.value] = kind if custom_fields.get(a.value, kind) == kind else True
                elif d.startswith(("model_validator", "root_validator")):
                    mode = "before" if "before" in d else "wrap" if "wrap" in d else "after"
                    validators.append(f"{stmt.name}:{mode}")
            if stmt.name == "__post_init__":
                validators.append("__post_init__")
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        fname = stmt.target.id
        if "ClassVar" in ast.unparse(stmt.annotation) or "InitVar" in ast.unparse(stmt.annotation):
            continue
        bounds: dict = {}
        init = True
        if stmt.value is not None and not isinstance(stmt.value, ast.Call):
            default = _literal(stmt.value)
            if isinstance(default, (bool, int, float, str)):
                defaults[fname] = default
        if isinstance(stmt.value, ast.Call) and ast.unparse(stmt.value.func).split(".")[-1] in ("Field", "field"):
            for kw in stmt.value.keywords:
                if kw.arg in ("ge", "gt", "le", "lt", "min_length", "max_length"):
                    v = _literal(kw.value)
                    if isinstance(v, (int, float)):
                        bounds[kw.arg] = v
                elif kw.arg == "init" and _literal(kw.value) is False:
                    init = False
                elif kw.arg == "default" and isinstance(_literal(kw.value), (bool, int, float, str)):
                    defaults[fname] = _literal(kw.value)
        if not init:
            continue
        typ = _type(stmt.annotation, rel, classes)
        custom = custom_fields.get("*", custom_fields.get(fname, False))
        fields.append([fname, typ, bounds, custom])
    body = {"name": name, "extra": _extra(node, rel), "fields": fields, "validators": validators,
            "defaults": defaults}
    key = f"{name}-" + hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:8]
    classes[key] = body
    return key


def _enum_by_name(fn: ast.FunctionDef, rel: Release):
    """A `before` validator that looks a string up by name in an enum whose metaclass turns
    a missing name into ValueError("Unknown <what>: '<NAME>'. Valid options are: <names>")."""
    body = ast.unparse(fn)
    m = re.search(r"return (\w+)\[value\.upper\(\)\]", body)
    enum = rel.enum_nodes.get(m.group(1)) if m else None
    if enum is None:
        return True
    meta = next((kw.value for kw in enum.keywords if kw.arg == "metaclass"), None)
    meta_node = rel.classes.get(meta.id) if isinstance(meta, ast.Name) else None
    what = re.search(r"Unknown ([^:'{]+): '\{name\}'", ast.unparse(meta_node)) if meta_node else None
    if what is None:
        return True  # a KeyError pydantic does not wrap: not modelled
    names, values = [], []
    for stmt in enum.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = _literal(stmt.value)
            if isinstance(v, str) or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None):
                names.append(stmt.targets[0].id)  # (CUSTOM = None: a member whose class is registered later)
                values.append(v)
    return {"enum_names": names, "enum_values": values, "what": what.group(1),
            "auto": "value.lower() == 'auto'" in body}


def _field_validator_kind(fn: ast.FunctionDef, decorator: str, rel: Release):
    """Field validators modelled: a `before` one that lower-cases a string and turns dashes
    into underscores ("norm"), a `wrap` one that lets None through ("none_ok"), and an enum
    looked up by name (a dict: the enum's names and values, see _enum_by_name)."""
    body = ast.unparse(fn)
    if "mode='before'" in decorator and "[value.upper()]" in body:
        return _enum_by_name(fn, rel)
    if "mode='before'" in decorator and ".lower().replace('-', '_')" in body and len(fn.body) <= 3:
        return "norm"
    if "mode='wrap'" in decorator and "if value is None:" in body and "return handler(value)" in body \
            and len(fn.body) <= 3:
        return "none_ok"
    return True


def _engine_arg_class(dest: str, rel: Release) -> str | None:
    if rel.engine_args is None:
        return None
    for stmt in rel.engine_args.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == dest:
            names = [m for m in _union(stmt.annotation) if isinstance(m, ast.Name) and m.id in rel.classes]
            if names:
                return names[0].id
    return None


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: extract_json_options.py SOURCES_DIR   (a folder holding <version>/vllm/ for each release)")
    src = Path(sys.argv[1])
    options = json.loads(OPTIONS.read_text())
    sys.path.insert(0, str(ROOT / "src"))
    from vllm_preflight.releases import get_release

    classes: dict = {}
    releases: dict = {}
    for version in _versions(src):
        if version not in options:
            continue
        rel = Release(src / version)
        table = get_release(version).options
        dests = sorted(d for d, o in table.by_dest.items() if o.converter.removeprefix("opt:") == "config")
        out = {}
        for dest in dests:
            if dest in SKIP:
                continue
            name = _engine_arg_class(dest, rel)
            if name is None or not _is_config_class(rel.classes[name]):
                continue
            out[dest] = _class(name, rel, classes)
        releases[version] = out
    used = {k for r in releases.values() for k in r.values()}
    for body in list(classes.values()):
        for f in body["fields"]:
            used |= set(_nested(f[1]))
    data = {"classes": {k: classes[k] for k in sorted(used)}, "releases": releases}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{len(releases)} releases, {len(data['classes'])} class versions -> {OUT.relative_to(ROOT)}")


def _nested(t) -> list[str]:
    if isinstance(t, dict):
        if "cls" in t:
            return [t["cls"]]
        for k in ("opt", "list", "dict"):
            if k in t:
                return _nested(t[k])
    return []


if __name__ == "__main__":
    main()
