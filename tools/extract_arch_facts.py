"""Record, per release, what vLLM's model registry says about each architecture.

Reads vLLM's own sources (a folder holding `<version>/vllm/` for each release) with `ast`,
never importing them:

* the registry's architecture -> (module, class) tables (`model_executor/models/registry.py`,
  every module-level dict literal, `**` spreads followed) as they end up in `_VLLM_MODELS`;
* each registered class's interfaces, following its bases across modules (imports, aliases
  `A = B`, adapter calls `A = as_xxx_model(B)` taken as a subclass of B) and linearizing them
  as Python does (C3), then asking what vLLM's `supports_pp` / `supports_lora` /
  `supports_multimodal` ask of the class:
  - PP: `SupportsPP` is in the MRO (from 0.28.0 that alone is vLLM's attribute test; before,
    the attributes `supports_pp` and `make_empty_intermediate_tensors`, which `SupportsPP`
    defines, must exist on the class -- either way the same answer for these classes) and the
    `forward` the class resolves to accepts `intermediate_tensors` (by name or `**kwargs`);
  - LoRA: `supports_lora`, `packed_modules_mapping` and `embedding_modules` exist;
  - multimodal: `supports_multimodal` resolves to a true value.

Writes src/vllm_preflight/releases/data/architectures.json:
  {"releases": [...], "archs": {ARCH: {FIRST_RELEASE: FLAGS | null, ...}}}
where FLAGS is a string of letters (P: supports PP, L: LoRA, M: multimodal; "" registered
without any of them), a key opens a run of releases with the same answer, and null marks the
releases where ARCH is not registered.

Usage: python tools/extract_arch_facts.py SRC_ROOT [--check VERSION=JSON]...
Validation data: VENV/bin/python tools/extract_arch_facts.py --dump-real OUT.json [ORACLE_DIR]
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "architectures.json"
MODELS_PKG = "vllm.model_executor.models"
INTERFACES = f"{MODELS_PKG}.interfaces"


def vkey(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


class ClassInfo:
    """One class as read from source: its bases (resolved) and what its body defines."""

    def __init__(self, key: tuple[str, str], bases: list, attrs: dict, forward_ok: bool | None):
        self.key = key
        self.bases = bases          # list[ClassInfo]
        self.attrs = attrs          # name -> constant value (or ...) for every name the body defines
        self.forward_ok = forward_ok  # None: the body defines no forward


EXTERNAL_MODULE = ClassInfo(("torch.nn", "Module"), [], {"forward": ...}, False)


def external(name: str) -> ClassInfo:
    if name in ("Module", "nn.Module", "torch.nn.Module"):
        return EXTERNAL_MODULE
    return ClassInfo(("<external>", name), [], {}, None)


_PARSED: dict[bytes, ast.Module] = {}  # file text -> its tree, shared by the releases read


class Source:
    """One release's sources, parsed lazily."""

    def __init__(self, root: Path):
        self.root = root  # the folder holding the `vllm` package
        self._trees: dict[str, ast.Module | None] = {}
        self._classes: dict[tuple[str, str], ClassInfo | None] = {}
        self._resolving: set[tuple[str, str]] = set()

    def module_file(self, module: str) -> Path | None:
        base = self.root.joinpath(*module.split("."))
        for p in (base.with_suffix(".py"), base / "__init__.py"):
            if p.is_file():
                return p
        return None

    def tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            p = self.module_file(module)
            if p is None:
                self._trees[module] = None
            else:
                text = p.read_bytes()  # most files are the same from one release to the next
                if text not in _PARSED:
                    _PARSED[text] = ast.parse(text)
                self._trees[module] = _PARSED[text]
        return self._trees[module]

    def is_package(self, module: str) -> bool:
        p = self.module_file(module)
        return p is not None and p.name == "__init__.py"

    def _abs_module(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.split(".")
        pkg = parts if self.is_package(module) else parts[:-1]
        pkg = pkg[: len(pkg) - (node.level - 1)]
        return ".".join(pkg + ([node.module] if node.module else []))

    @staticmethod
    def _top_statements(body: list) -> list:
        """Module-level statements, with `if`/`try` blocks flattened (both branches)."""
        out = []
        for st in body:
            if isinstance(st, ast.If):
                out += Source._top_statements(st.body) + Source._top_statements(st.orelse)
            elif isinstance(st, ast.Try):
                out += Source._top_statements(st.body)
                for h in st.handlers:
                    out += Source._top_statements(h.body)
                out += Source._top_statements(st.orelse) + Source._top_statements(st.finalbody)
            else:
                out.append(st)
        return out

    def binding(self, module: str, name: str):
        """The last module-level statement binding `name` in `module` (ClassDef, Assign value,
        or ('import', module, name)), or None."""
        tree = self.tree(module)
        if tree is None:
            return None
        found: Any = None
        for st in self._top_statements(tree.body):
            if isinstance(st, ast.ClassDef) and st.name == name:
                found = st
            elif isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and any(
                    isinstance(t, ast.Name) and t.id == name
                    for t in (st.targets if isinstance(st, ast.Assign) else [st.target])):
                found = st.value
            elif isinstance(st, ast.ImportFrom):
                for a in st.names:
                    if (a.asname or a.name) == name:
                        found = ("import", self._abs_module(module, st), a.name)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname == name or (a.asname is None and a.name.split(".")[0] == name):
                        found = ("module", a.name if a.asname else a.name.split(".")[0])
        return found

    def resolve_expr(self, module: str, expr) -> ClassInfo | None:
        if isinstance(expr, ast.Name):
            return self.resolve(module, expr.id)
        if isinstance(expr, ast.Attribute):
            # `mod.Cls` where `mod` is an imported module, or `nn.Module` and the like
            parts = []
            e: Any = expr
            while isinstance(e, ast.Attribute):
                parts.append(e.attr)
                e = e.value
            if isinstance(e, ast.Name):
                parts.append(e.id)
            parts.reverse()
            b = self.binding(module, parts[0])
            if isinstance(b, tuple) and b[0] == "module" and b[1].startswith("vllm"):
                return self.resolve(".".join([b[1]] + parts[1:-1]), parts[-1])
            if isinstance(b, tuple) and b[0] == "import" and b[1].startswith("vllm") and len(parts) == 2:
                sub = f"{b[1]}.{b[2]}"
                if self.module_file(sub):
                    return self.resolve(sub, parts[1])
            return external(".".join(parts))
        if isinstance(expr, ast.Subscript):  # Generic[T], Protocol[...]
            return self.resolve_expr(module, expr.value)
        if isinstance(expr, ast.Call) and expr.args:  # adapters: as_seq_cls_model(Base) and the like
            return self.resolve_expr(module, expr.args[0])
        return None

    def resolve(self, module: str, name: str) -> ClassInfo | None:
        key = (module, name)
        if key in self._classes:
            return self._classes[key]
        if key in self._resolving:  # a cycle: give up on this path
            return None
        if not module.startswith("vllm"):
            return external(name if module in ("", "typing") else f"{module}.{name}")
        self._resolving.add(key)
        try:
            b = self.binding(module, name)
            info: ClassInfo | None
            if b is None:
                info = None
            elif isinstance(b, tuple) and b[0] == "import":
                info = self.resolve(b[1], b[2]) if b[1].startswith("vllm") else external(f"{b[1]}.{b[2]}")
            elif isinstance(b, tuple):
                info = None
            elif isinstance(b, ast.ClassDef):
                info = self._class_info(module, b)
            else:
                info = self.resolve_expr(module, b)
        finally:
            self._resolving.discard(key)
        self._classes[key] = info
        return info

    def _class_info(self, module: str, node: ast.ClassDef) -> ClassInfo:
        bases = []
        for bexpr in node.bases:
            bi = self.resolve_expr(module, bexpr)
            if bi is not None and bi.key[1] != "object":
                bases.append(bi)
        attrs: dict = {}
        forward_ok = None
        for st in node.body:
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        attrs[t.id] = st.value.value if isinstance(st.value, ast.Constant) else ...
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                attrs[st.target.id] = st.value.value if isinstance(st.value, ast.Constant) else ...
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                attrs[st.name] = ...
                if st.name == "forward":
                    a = st.args
                    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
                    forward_ok = "intermediate_tensors" in names or a.kwarg is not None
        return ClassInfo((module, node.name), bases, attrs, forward_ok)


def mro(c: ClassInfo, memo: dict) -> list[ClassInfo]:
    """C3 linearization (falls back to depth-first order where C3 has no answer)."""
    if id(c) in memo:
        return memo[id(c)]
    seqs = [list(mro(b, memo)) for b in c.bases] + [list(c.bases)]
    out = [c]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            break
        for s in seqs:
            head = s[0]
            if not any(head in t[1:] for t in seqs):
                break
        else:  # inconsistent: depth-first
            for s in seqs:
                for x in s:
                    if x not in out:
                        out.append(x)
            break
        out.append(head)
        for s in seqs:
            if s and s[0] is head:
                s.pop(0)
    memo[id(c)] = out
    return out


def flags_of(c: ClassInfo, memo: dict) -> str:
    order = mro(c, memo)

    def has(name: str) -> bool:
        return any(name in k.attrs for k in order)

    def value(name: str):
        for k in order:
            if name in k.attrs:
                return k.attrs[name]
        return False

    forward_ok = False
    for k in order:
        if k.forward_ok is not None:
            forward_ok = k.forward_ok
            break
    out = ""
    in_mro = any(k.key == (INTERFACES, "SupportsPP") for k in order)
    if (in_mro or (has("supports_pp") and has("make_empty_intermediate_tensors"))) and forward_ok:
        out += "P"
    if has("supports_lora") and has("packed_modules_mapping") and has("embedding_modules"):
        out += "L"
    if value("supports_multimodal") not in (False, None, 0):
        out += "M"
    return out


def registry_table(src: Source) -> dict[str, tuple[str, str]]:
    tree = src.tree("vllm.model_executor.models.registry")
    assert tree is not None
    dicts: dict[str, dict] = {}
    for st in src._top_statements(tree.body):
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Dict):
            d: dict = {}
            for k, v in zip(st.value.keys, st.value.values):
                if k is None:
                    if isinstance(v, ast.Name) and v.id in dicts:
                        d.update(dicts[v.id])
                elif isinstance(k, ast.Constant) and isinstance(v, ast.Tuple) and len(v.elts) >= 2 \
                        and all(isinstance(e, ast.Constant) for e in v.elts[:2]):
                    d[k.value] = (v.elts[0].value, v.elts[1].value)  # type: ignore[attr-defined]
            dicts[st.targets[0].id] = d
    return dicts["_VLLM_MODELS"]


def module_name(rel: str) -> str:
    return rel if rel.startswith("vllm.") else f"{MODELS_PKG}.{rel}"


def registered_classes(src: Source):
    """(ARCH, its class as the sources resolve it) for every registered architecture; the class is
    None where it cannot be read (not found, or outside vLLM's package)."""
    for arch, (rel, cls) in registry_table(src).items():
        info = src.resolve(module_name(rel), cls)
        yield arch, None if info is None or info.key[0] == "<external>" else info


def class_attr(info, memo: dict, attr: str, interface: tuple | None = None) -> object:
    """A class attribute as Python looks it up along the MRO (False when no class sets it);
    reaching `interface` (a (module, class) key that sets it True) counts as True."""
    for k in mro(info, memo):
        if attr in k.attrs:
            return k.attrs[attr]
        if interface is not None and k.key == interface:
            return True
    return False


def source_cli(doc: str, out: Path, extra=None) -> tuple[argparse.Namespace, Path, list[str]]:
    """The command line the source extractors share: SRC_ROOT [--versions V ...] [-o OUT] (and
    `extra(parser)`'s own options); returns the options, the root and the releases to read."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("src_root", help="folder holding <version>/vllm/ for each release")
    ap.add_argument("--versions", nargs="*", help="releases to read (default: every folder)")
    ap.add_argument("-o", "--out", default=str(out))
    if extra is not None:
        extra(ap)
    a = ap.parse_args()
    root = Path(a.src_root)
    versions = a.versions or sorted((p.name for p in root.iterdir() if (p / "vllm").is_dir()), key=vkey)
    return a, root, versions


def release_facts(root: Path) -> dict[str, str | None]:
    """ARCH -> FLAGS for one release (None where the class cannot be read)."""
    memo: dict = {}
    return {arch: None if info is None else flags_of(info, memo) for arch, info in registered_classes(Source(root))}


def compact(per_release: dict[str, dict[str, str | None]]) -> dict:
    versions = sorted(per_release, key=vkey)
    archs: dict[str, dict] = {}
    for arch in sorted({a for r in per_release.values() for a in r}):
        runs: dict = {}
        last: object = "start"
        for v in versions:
            f = per_release[v].get(arch, "-")
            val = None if f == "-" else f
            if val != last:
                if not (last == "start" and val is None):
                    runs[v] = val
                last = val
        archs[arch] = runs
    return {"releases": versions, "archs": archs}


def dump_real(out: str, oracle: str | None) -> int:
    """Run with the python of a venv holding a real vLLM: ask vLLM's own interface functions
    about every registered class (imported in this process, the GPU emulated by the oracle's
    cuda_emulation when given) and write {arch: flags}, or {arch: "!error"} for a class that
    does not import."""
    if oracle:
        sys.path.insert(0, oracle)
        import cuda_emulation as ce  # type: ignore[import-not-found]

        ce.install(ce.FakeGpu.from_spec(None))
    import importlib

    from vllm.model_executor.models import interfaces as itf
    from vllm.model_executor.models import registry as reg

    res: dict[str, str] = {}
    for arch, model in reg.ModelRegistry.models.items():
        try:
            cls = getattr(importlib.import_module(model.module_name), model.class_name)
        except Exception as e:  # noqa: BLE001 - recorded, compared as a mismatch
            res[arch] = f"!{type(e).__name__}: {e}"[:200]
            continue
        res[arch] = ("P" if itf.supports_pp(cls) else "") + ("L" if itf.supports_lora(cls) else "") + \
            ("M" if itf.supports_multimodal(cls) else "")
    with open(out, "w") as f:
        json.dump(res, f, indent=0, sort_keys=True)
    print(f"{len(res)} architectures, {sum(v.startswith('!') for v in res.values())} not importable",
          file=sys.stderr)
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--dump-real":
        return dump_real(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    a, root, versions = source_cli(__doc__, OUT, lambda ap: ap.add_argument(
        "--check", action="append", default=[],
        help="VERSION=FILE: compare against a JSON {arch: flags} dumped from a real vLLM"))
    per: dict[str, dict[str, str | None]] = {}
    unreadable = 0
    for v in versions:
        per[v] = release_facts(root / v)
        bad = sorted(k for k, f in per[v].items() if f is None)
        unreadable += len(bad)
        if bad:
            print(f"{v}: {len(bad)} classes not read: {bad}", file=sys.stderr)
        per[v] = {k: (f or "") if f is not None else "" for k, f in per[v].items()}
    status = 0
    for chk in a.check:
        v, path = chk.split("=", 1)
        with open(path) as f:
            real = json.load(f)
        mine = per[v]
        keys = sorted(set(real) | set(mine))
        diff = [(k, mine.get(k, "-"), real.get(k, "-")) for k in keys if mine.get(k, "-") != real.get(k, "-")]
        print(f"check {v}: {len(keys)} architectures compared, {len(diff)} differ", file=sys.stderr)
        for k, m, r in diff:
            print(f"  {k}: ours {m!r} real {r!r}", file=sys.stderr)
        status |= bool(diff)
    data = compact(per)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=False)
        f.write("\n")
    print(f"wrote {a.out}: {len(data['archs'])} architectures over {len(versions)} releases", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
