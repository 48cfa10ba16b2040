"""Record, per release, the declared type of every init field of the config classes the
`--compilation-config` JSON builds (CompilationConfig, PassConfig), read from each release's
vllm/config/compilation.py (the class annotations), and the fields whose wrap validator
`_skip_none_validation` lets None through although the type does not say Optional.

Writes releases/data/config_field_types.json:

  {"classes": {CLASS-HASH: {FIELD: [TYPE, SKIP_NONE]}}, "releases": {VERSION: {CLASS: CLASS-HASH}}}

TYPE is the annotation as written (`bool`, `list[int] | None`, `Optional[list[Union[int, str]]]`,
`Literal['binary', 'unpacked']`); resolve/compilation/field_types.py validates a value by it as
pydantic's lax mode does.

Usage: python tools/extract_config_types.py SOURCES_DIR   (SOURCES_DIR/<version>/vllm/...)
"""
from __future__ import annotations

import ast
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "config_field_types.json"
CLASSES = ("CompilationConfig", "PassConfig")


def _not_init(value: ast.expr | None) -> bool:
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name) or value.func.id != "field":
        return False
    return any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in value.keywords)


def _skip_none(cls: ast.ClassDef) -> set[str]:
    out: set[str] = set()
    for st in cls.body:
        if isinstance(st, ast.FunctionDef) and st.name == "_skip_none_validation":
            for dec in st.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "field_validator":
                    out |= {str(a.value) for a in dec.args if isinstance(a, ast.Constant)}
    return out


def release_classes(root: Path) -> dict[str, dict]:
    tree = ast.parse((root / "vllm" / "config" / "compilation.py").read_text())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in CLASSES:
            skip = _skip_none(node)
            fields = {}
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) \
                        and not st.target.id.startswith("_") and not _not_init(st.value):
                    ann = ast.unparse(st.annotation)
                    if ann.startswith(("ClassVar", "InitVar")):
                        continue
                    fields[st.target.id] = [ann, st.target.id in skip]
            out[node.name] = fields
    return out


def main() -> int:
    from vllm_preflight.releases import SUPPORTED
    from vllm_preflight.releases.versions import version_key

    src = Path(sys.argv[1])
    classes: dict = {}
    releases: dict = {}
    for v in sorted((p.name for p in src.iterdir() if (p / "vllm" / "config" / "compilation.py").exists()
                     and p.name in SUPPORTED), key=version_key):
        releases[v] = {}
        for name, fields in release_classes(src / v).items():
            key = f"{name}-" + hashlib.sha1(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:8]
            classes[key] = fields
            releases[v][name] = key
        print(v, {k: len(classes[h]) for k, h in releases[v].items()})
    OUT.write_text(json.dumps({"classes": classes, "releases": releases}, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
