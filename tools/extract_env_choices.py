"""Record, per release, the environment variables vLLM reads through its choice-checking readers
(`env_with_choices`, `env_list_with_choices`, `env_set_with_choices` in vllm/envs.py) and the
values each accepts.

A variable's choices are a list written in envs.py, or a lambda naming an enum of another module
(the attention backends: `_Backend` / `AttentionBackendEnum`), whose members are read from that
module's source. Writes releases/data/env_choices.json as changes against the release before:

  {"releases": {VERSION: {"base": {NAME: ENTRY}} | {"from": V, "set": {NAME: ENTRY}, "drop": [NAME]}}}

ENTRY = {"choices": [...], "case_sensitive": bool, "kind": "one" | "list" | "set", "default": ...}.

Usage: python tools/extract_env_choices.py SOURCES_DIR   (SOURCES_DIR/<version>/vllm/...)
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "env_choices.json"
READERS = {"env_with_choices": "one", "env_list_with_choices": "list", "env_set_with_choices": "set"}


def _enum_members(root: Path, module: str, name: str) -> list[str] | None:
    path = root / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = root / module.replace(".", "/") / "__init__.py"
    if not path.exists():
        return None
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            out = []
            for st in node.body:
                targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) and st.value is not None else []
                for t in targets:
                    if isinstance(t, ast.Name) and not t.id.startswith("_"):
                        out.append(t.id)
            return out
    for node in ast.walk(tree):  # re-exported from another module
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names) and node.module:
            mod = node.module if node.level == 0 else ".".join(module.split(".")[:-node.level] + [node.module])
            return _enum_members(root, mod, name)
    return None


def _dynamic(root: Path, fn: ast.Lambda) -> list[str] | None:
    """`lambda: list(__import__("MOD", fromlist=["NAME"]).NAME.__members__.keys())`."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            mod = node.args[0].value  # type: ignore[attr-defined]
            names = [k for k in node.keywords if k.arg == "fromlist"]
            name = names[0].value.elts[0].value  # type: ignore[attr-defined]
            return _enum_members(root, mod, name)
    return None


def release_entries(root: Path) -> dict[str, dict]:
    tree = ast.parse((root / "vllm" / "envs.py").read_text())
    out: dict[str, dict] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name) and value.func.id in READERS):
                continue
            args = value.args
            choices_node = args[2] if len(args) > 2 else next(k.value for k in value.keywords if k.arg == "choices")
            choices: list | None
            if isinstance(choices_node, (ast.List, ast.Tuple)):
                choices = [ast.literal_eval(e) for e in choices_node.elts]
            elif isinstance(choices_node, ast.Lambda):
                choices = _dynamic(root, choices_node)
            else:
                choices = None
            if choices is None:
                print(f"  {root.name}: {key.value!r}: choices not read", file=sys.stderr)
                continue
            case = True
            for k in value.keywords:
                if k.arg == "case_sensitive":
                    case = bool(ast.literal_eval(k.value))
            if len(args) > 3:
                case = bool(ast.literal_eval(args[3]))
            try:
                default = ast.literal_eval(args[1]) if len(args) > 1 else None
            except ValueError:
                default = None
            if isinstance(default, (set, tuple)):
                default = sorted(default)
            out[str(key.value)] = {"choices": choices, "case_sensitive": case, "kind": READERS[value.func.id],
                              "default": default}
    return out


def main() -> int:
    from vllm_preflight.releases import SUPPORTED
    from vllm_preflight.releases.versions import version_key

    src = Path(sys.argv[1])
    releases: dict = {}
    prev: dict | None = None
    prev_v = None
    for v in sorted((p.name for p in src.iterdir() if (p / "vllm" / "envs.py").exists() and p.name in SUPPORTED),
                    key=version_key):
        cur = release_entries(src / v)
        if prev is None:
            releases[v] = {"base": cur}
        else:
            releases[v] = {"from": prev_v, "set": {k: e for k, e in cur.items() if prev.get(k) != e},
                           "drop": sorted(set(prev) - set(cur))}
        prev, prev_v = cur, v
        print(v, len(cur), "variables")
    OUT.write_text(json.dumps({"releases": releases}, indent=None, separators=(",", ":"), sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
