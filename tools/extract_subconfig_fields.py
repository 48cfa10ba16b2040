"""Record, per release, the bounded fields of the config classes `EngineArgs.create_engine_config`
builds from plain flags (CacheConfig, SchedulerConfig, ObservabilityConfig, OffloadConfig, ...).

vLLM passes `self.<dest>` into each class; pydantic checks the field's `Field(gt=/ge=/lt=/le=)`
bounds as the class is built and reports every failing field in declaration order. This reads
each release's vllm/engine/arg_utils.py (the calls `Cls(field=self.dest, ...)`, in
create_engine_config and the create_* helpers it calls) and vllm/config/*.py (the fields'
bounds, via tools/extract_json_options.py's class reader) and writes
releases/data/subconfig_fields.json:

  {"releases": {VERSION: {CLASS: [[field, dest, bounds, type], ...]}},
   "json_classes": {VERSION: {dest: class body as in json_options.json, plus "required"}}}

(only fields with bounds or a Literal-or-str type; classes in ORDER only).

Usage: python tools/extract_subconfig_fields.py SOURCES_DIR   (SOURCES_DIR/<version>/vllm/...)
"""
from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
_reader = importlib.import_module("extract_json_options")  # the JSON options' class reader, reused
Release, _class, _versions = _reader.Release, _reader._class, _reader._versions

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "subconfig_fields.json"
# classes built from flags whose validators are not elsewhere (ModelConfig, ParallelConfig,
# LoRAConfig, SpeculativeConfig, CompilationConfig: other modules)
CLASSES = ("CacheConfig", "SchedulerConfig", "ObservabilityConfig", "LoadConfig", "OffloadConfig",
           "UVAOffloadConfig", "PrefetchOffloadConfig", "DeviceConfig", "MambaConfig", "DiffusionConfig",
           "WatermarkConfig", "LoggingConfig")


def _calls(engine_args: ast.ClassDef) -> dict[str, dict[str, str]]:
    """{class: {field: dest}} from `Cls(field=self.dest)` anywhere in EngineArgs."""
    out: dict[str, dict[str, str]] = {}
    for node in ast.walk(engine_args):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func).split(".")[-1]
        if name not in CLASSES:
            continue
        for kw in node.keywords:
            v = kw.value
            if kw.arg and isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self":
                out.setdefault(name, {})[kw.arg] = v.attr
    return out


# JSON-typed options that create_engine_config turns into a config class with `Cls(**value)`
JSON_CLASSES = {"watermark_config": "WatermarkConfig", "diffusion_config": "DiffusionConfig"}


def _required(node: ast.ClassDef) -> list[str]:
    """Fields without a default (pydantic: `Field required`)."""
    out = []
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(stmt.annotation):
            continue
        v = stmt.value
        if v is None or (isinstance(v, ast.Call) and ast.unparse(v.func).split(".")[-1] == "Field"
                         and not v.args and not any(k.arg in ("default", "default_factory") for k in v.keywords)):
            out.append(stmt.target.id)
    return out


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: extract_subconfig_fields.py SOURCES_DIR")
    src = Path(sys.argv[1])
    releases: dict = {}
    json_classes: dict = {}
    for version in _versions(src):
        rel = Release(src / version)
        if rel.engine_args is None:
            continue
        out: dict = {}
        for cls, kws in sorted(_calls(rel.engine_args).items()):
            if cls not in rel.classes:
                continue
            classes: dict = {}
            body = classes[_class(cls, rel, classes)]
            rows = []
            for fname, typ, bounds, custom in body["fields"]:
                dest = kws.get(fname)
                if dest is None or custom is True:
                    continue
                if bounds or (isinstance(typ, dict) and "litstr" in json.dumps(typ)):
                    rows.append([fname, dest, bounds, typ])
            if rows:
                out[cls] = rows
        releases[version] = out
        ea = {st.target.id for st in rel.engine_args.body if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)}
        for dest, cls in JSON_CLASSES.items():
            if dest in ea and cls in rel.classes:
                classes = {}
                body = classes[_class(cls, rel, classes)]
                body["required"] = _required(rel.classes[cls])
                json_classes.setdefault(version, {})[dest] = body
    OUT.write_text(json.dumps({"releases": releases, "json_classes": json_classes}, indent=None, separators=(",", ":"),
                              sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
