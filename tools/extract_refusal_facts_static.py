"""Read, from one release's SOURCE tree, the value sets its config checks accept (task V).

    python tools/extract_refusal_facts_static.py SRC_ROOT VERSION          # one record, JSON
    python tools/extract_refusal_facts_static.py SRC_ROOT --check          # vs refusals.json
    python tools/extract_refusal_facts_static.py SRC_ROOT --write V [V...] # add missing records

SRC_ROOT holds one unpacked source tree per release (SRC_ROOT/<version>/vllm/...). This is the
static twin of tools/extract_refusal_facts.py (which imports an installed release): the same
facts are read with `ast` from the files, so releases without an installed venv get a record.
Only values are read (Literal strings, `Field(gt=/ge=/lt=/le=)` numbers, field names, the names
given to `register_connector`); no vLLM code is copied.

What is read, and how it mirrors what the import-based tool sees:
- a `Name = Literal[...]` alias is flattened the way typing does (nested Literals and other
  aliases expanded in place, duplicates dropped keeping the first); an alias imported with
  `from vllm.x import Name` is followed into that module;
- the fields of a config class are its annotated class attributes (ClassVar left out), in the
  order of `sorted()` as the recorded records keep them; base classes in the same module are
  walked first (pydantic's dataclass fields include inherited ones);
- `extra` is "forbid" when the release's `vllm/config/utils.py` `config` decorator merges
  `ConfigDict(extra="forbid")` (0.16.0+), unless the class passes its own `config=ConfigDict(...)`
  with another `extra`; otherwise None (0.11.0-0.15.x: a plain pydantic dataclass);
- KV connectors are the first arguments of every `KVConnectorFactory.register_connector(...)`
  call in the factory module, sorted;
- 0.11.0 has no MTPModelTypes/EagleModelTypes: mtp_methods is its MTP_MODEL_TYPES tuple (the
  types it renames to "mtp"; "mtp" itself is not one) and eagle_methods is left out (unused);
- kv_cache_dtypes only where cache.py defines the module list `KV_CACHE_DTYPES` (0.33.0; before
  it, --kv-cache-dtype is an argparse choice checked elsewhere).

Checked (`--check`): for the 11 releases recorded by importing them (0.12.0 0.13.0 0.15.0 0.17.0
0.21.0 0.24.0 0.27.0 0.28.0 0.29.0 0.30.0 0.33.0) every field of the static record equals the
recorded one (lists in the same order); the recorded records are kept as they are, and `--write`
adds only releases without a record.
Proven on real vLLM by the spec_values goldens (tools/corpus_spec_values.py) of releases whose
records are static only -- 0.11.0, 0.16.0, 0.32.0 -- beside 0.12.0, pr29558, 0.28.0, 0.33.0.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "refusals.json"


class Tree:
    """One release's source tree, modules parsed lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._mods: dict[str, ast.Module | None] = {}

    def module(self, dotted: str) -> ast.Module | None:
        if dotted not in self._mods:
            base = self.root.joinpath(*dotted.split("."))
            path = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
            self._mods[dotted] = ast.parse(path.read_text()) if path.exists() else None
        return self._mods[dotted]

    def _binding(self, dotted: str, name: str) -> tuple[str, ast.expr] | None:
        """The expression bound to `name` at module level, following `from vllm... import`."""
        mod = self.module(dotted)
        if mod is None:
            return None
        for node in mod.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return dotted, node.value
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name \
                    and node.value is not None:
                return dotted, node.value
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vllm"):
                for a in node.names:
                    if (a.asname or a.name) == name:
                        return self._binding(node.module, a.name)
        return None

    def literal(self, dotted: str, name: str) -> list:
        found = self._binding(dotted, name)
        if found is None:
            raise KeyError(f"{dotted}.{name}")
        out: list = []
        for v in self._values(*found):
            if v not in out:
                out.append(v)
        return out

    def _values(self, dotted: str, expr: ast.expr) -> list:
        if isinstance(expr, ast.Constant):
            return [expr.value]
        if isinstance(expr, ast.Name):
            return self.literal(dotted, expr.id)
        if isinstance(expr, ast.Subscript) and _name(expr.value) in ("Literal", "typing.Literal"):
            items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            return [v for e in items for v in self._values(dotted, e)]
        if isinstance(expr, ast.Tuple):  # a plain tuple of names (0.11.0's MTP_MODEL_TYPES)
            return [v for e in expr.elts for v in self._values(dotted, e)]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):  # Literal[..] | Literal[..]
            return self._values(dotted, expr.left) + self._values(dotted, expr.right)
        raise ValueError(f"not a Literal: {ast.dump(expr)[:120]}")

    def cls(self, dotted: str, name: str) -> ast.ClassDef:
        mod = self.module(dotted)
        assert mod is not None, dotted
        for node in mod.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node
        raise KeyError(f"{dotted}.{name}")


def _name(e: ast.expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return _name(e.value) + "." + e.attr
    return ""


def _class_vars(tree: Tree, dotted: str, c: ast.ClassDef) -> list[ast.AnnAssign]:
    out: list[ast.AnnAssign] = []
    for b in c.bases:
        try:
            out += _class_vars(tree, dotted, tree.cls(dotted, _name(b)))
        except KeyError:
            pass
    for node in c.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and "ClassVar" not in ast.unparse(node.annotation):
            out.append(node)
    return out


def fields(tree: Tree, dotted: str, name: str) -> list[str]:
    return sorted({n.target.id for n in _class_vars(tree, dotted, tree.cls(dotted, name))})  # type: ignore[union-attr]


def bounds(tree: Tree, dotted: str, name: str) -> dict:
    out: dict[str, dict] = {}
    for node in _class_vars(tree, dotted, tree.cls(dotted, name)):
        calls = [n for part in (node.value, node.annotation) if part is not None for n in ast.walk(part)
                 if isinstance(n, ast.Call) and _name(n.func) in ("Field", "pydantic.Field")]
        for call in calls:
            for kw in call.keywords:
                if kw.arg in ("gt", "ge", "lt", "le"):
                    out.setdefault(node.target.id, {})[kw.arg] = ast.literal_eval(kw.value)  # type: ignore[union-attr]
    return out


def extra(tree: Tree, dotted: str, name: str) -> str | None:
    utils = tree.module("vllm.config.utils")
    default = None
    for node in ast.walk(utils) if utils else ():
        if isinstance(node, ast.FunctionDef) and node.name == "config":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and _name(call.func) == "ConfigDict":
                    for kw in call.keywords:
                        if kw.arg == "extra":
                            default = ast.literal_eval(kw.value)
    for dec in tree.cls(dotted, name).decorator_list:
        if isinstance(dec, ast.Call) and _name(dec.func) == "config":
            for kw in dec.keywords:
                if kw.arg == "config" and isinstance(kw.value, ast.Call):
                    for k in kw.value.keywords:
                        if k.arg == "extra":
                            return ast.literal_eval(k.value)
    decorated = any(_name(d.func if isinstance(d, ast.Call) else d) == "config"
                    for d in tree.cls(dotted, name).decorator_list)
    return default if decorated else None


def connectors(tree: Tree) -> list[str]:
    mod = tree.module("vllm.distributed.kv_transfer.kv_connector.factory")
    names = {str(n.args[0].value) for n in ast.walk(mod or ast.Module(body=[], type_ignores=[]))
             if isinstance(n, ast.Call) and _name(n.func).endswith("register_connector") and n.args
             and isinstance(n.args[0], ast.Constant)}
    return sorted(names)


def extract(src_root: str, version: str) -> dict:
    tree = Tree(Path(src_root) / version)
    spec, kv = "vllm.config.speculative", "vllm.config.kv_transfer"
    # 0.11.0 has no MTPModelTypes/EagleModelTypes Literals: the MTP types it renames to "mtp"
    # are the tuple MTP_MODEL_TYPES (without "mtp"), and there is no EAGLE-family list
    mtp = "MTPModelTypes" if tree._binding(spec, "MTPModelTypes") else "MTP_MODEL_TYPES"
    facts = {"spec_methods": tree.literal(spec, "SpeculativeMethod"),
             "mtp_methods": tree.literal(spec, mtp),
             "spec_bounds": bounds(tree, spec, "SpeculativeConfig"),
             "spec_extra": extra(tree, spec, "SpeculativeConfig"),
             "spec_fields": fields(tree, spec, "SpeculativeConfig"),
             "kv_roles": tree.literal(kv, "KVRole"),
             "kv_extra": extra(tree, kv, "KVTransferConfig"),
             "kv_fields": fields(tree, kv, "KVTransferConfig"),
             "kv_connectors": connectors(tree),
             "structured_outputs_backends": tree.literal("vllm.config.structured_outputs",
                                                         "StructuredOutputsBackend")}
    if tree._binding(spec, "EagleModelTypes") is not None:
        facts["eagle_methods"] = tree.literal(spec, "EagleModelTypes")
    cache = tree.module("vllm.config.cache")
    if cache is not None and tree._binding("vllm.config.cache", "KV_CACHE_DTYPES") is not None:
        facts["kv_cache_dtypes"] = tree.literal("vllm.config.cache", "CacheDType")
    return facts


def check(src_root: str) -> int:
    data = json.loads(OUT.read_text())
    bad = 0
    for v, rec in sorted(data.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))):
        got = extract(src_root, v)
        diff = [k for k in sorted(set(rec) | set(got)) if rec.get(k) != got.get(k)]
        bad += bool(diff)
        print(f"{v}: {'agrees on all ' + str(len(rec)) + ' facts' if not diff else 'DIFFERS on ' + ', '.join(diff)}")
        for k in diff:
            print(f"   {k}: recorded {rec.get(k)!r}\n   {' ' * len(k)}  static   {got.get(k)!r}")
    return bad


def write(src_root: str, versions: list[str]) -> None:
    data = json.loads(OUT.read_text())
    for v in versions:
        if v in data:
            print(f"{v}: recorded already, kept")
            continue
        data[v] = extract(src_root, v)
    OUT.write_text(json.dumps(dict(sorted(data.items())), indent=1, sort_keys=True) + "\n")
    print(f"{OUT.name}: {', '.join(sorted(data))}")


if __name__ == "__main__":
    root, rest = sys.argv[1], sys.argv[2:]
    if rest[0] == "--check":
        sys.exit(1 if check(root) else 0)
    elif rest[0] == "--write":
        write(root, rest[1:])
    else:
        print(json.dumps(extract(root, rest[0]), sort_keys=True))
