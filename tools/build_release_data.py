"""Turn facts dumped from real releases (tools/extract_release_facts.py) into the
package's release data: src/vllm_preflight/releases/data/{options,facts}.json.

    python tools/build_release_data.py FACTS_DIR [SOURCES_DIR]

SOURCES_DIR holds each release's unpacked .py files (SOURCES_DIR/VERSION/vllm/...), read for
the PassConfig field order and the VLLM_* environment variables the release knows.

Options are stored per release as changes against the release before it (most
releases add or drop a handful of flags), so the file stays small and a reader can see
what each release changed.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from vllm_preflight.releases.versions import version_key

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data"

KIND = {"_StoreAction": "store", "_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
        "BooleanOptionalAction": "boolopt", "_StoreConstAction": "store_const",
        "_AppendAction": "append", "_HelpAction": "help", "_VersionAction": "help",
        "_CountAction": "count", "LoRAParserAction": "store", "EnableDisableAction": "boolopt",
        "DeprecatedLogConfigFileAction": "store"}


def converter(action: dict) -> str:
    t = action["type"] or ""
    if not t:
        return "str"
    optional = t.startswith("optional_type")
    inner = t[t.index("(") + 1:-1] if "(" in t else t
    if "parse_dataclass" in t:
        base = "config"
    elif "human_readable_int_or_auto" in inner:
        base = "hint_auto"
    elif "human_readable_int" in inner:
        base = "hint"
    elif "loads" in inner:
        base = "json"
    elif "union_dict_and_str" in t:
        base = "dict_or_str"
    elif inner.endswith("int"):
        base = "int"
    elif inner.endswith("float"):
        base = "float"
    else:
        base = "str"
    return ("opt:" + base) if optional and base not in ("config",) else base


def option_rows(facts: dict) -> dict[str, list]:
    rows = {}
    for a in facts["actions"]:
        if not a["opts"]:
            continue
        key = a["opts"][0]
        kind = KIND.get(a["kind"], "store")
        const = a["const"]
        if kind == "boolopt":
            # the option strings that set False: --no-x, and --disable-x paired with --enable-x
            canonical = a["opts"][0]
            inverse = {"--enable-": "--disable-", "--disable-": "--enable-"}
            negatives = [o for o in a["opts"] if o.startswith("--no-")]
            for prefix, inv in inverse.items():
                if a["kind"] == "EnableDisableAction" and canonical.startswith(prefix):
                    negatives += [o for o in a["opts"] if o.startswith(inv)]
            const = sorted(set(negatives))
        rows[key] = [a["opts"], a["dest"], a["nargs"], kind, converter(a),
                     a["choices"], const, bool(a.get("deprecated"))]
    return rows


def source_facts(src_root: Path | None, version: str) -> dict:
    """Facts read from a release's own source files (optional): the declaration order of
    PassConfig fields and the VLLM_* environment variables the release knows."""
    out: dict = {}
    if src_root is None:
        return out
    comp = src_root / version / "vllm" / "config" / "compilation.py"
    if comp.exists():
        text = comp.read_text()
        start = text.find("\nclass PassConfig")
        end = text.find("\nclass ", start + 1)
        body = text[start:end]
        out["pass_config_order"] = re.findall(r"^    (\w+): [^=\n]+(?:=|$)", body, re.MULTILINE)
    envs = src_root / version / "vllm" / "envs.py"
    if envs.exists():
        text = envs.read_text()
        start = text.find("environment_variables: dict")
        out["env_vars"] = sorted(set(re.findall(r'^    "(VLLM_\w+)":', text[start:], re.MULTILINE)))
    return out


def main() -> None:
    facts_dir = Path(sys.argv[1])
    src_root = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    facts = {}
    for p in facts_dir.glob("*.json"):
        facts[p.stem] = json.loads(p.read_text())
    versions = sorted(facts, key=version_key)
    options_out: dict[str, dict] = {}
    facts_out: dict[str, dict] = {}
    env_vars: dict[str, list | None] = {}
    prev: dict | None = None
    for v in versions:
        rows = option_rows(facts[v])
        if prev is None:
            options_out[v] = {"base": rows}
        else:
            options_out[v] = {"from": versions[versions.index(v) - 1],
                              "set": {k: r for k, r in rows.items() if prev.get(k) != r},
                              "drop": sorted(k for k in prev if k not in rows)}
        prev = rows
        f = facts[v]
        extra = source_facts(src_root, v)
        if not extra.get("pass_config_order") and f.get("pass_config_order"):
            extra["pass_config_order"] = f["pass_config_order"]
        if not extra.get("env_vars") and f.get("env_vars"):
            extra["env_vars"] = f["env_vars"]
        order = [n for n in extra.get("pass_config_order", []) if n in f["pass_config_fields"]]
        order += [n for n in f["pass_config_fields"] if n not in order]
        env_vars[v] = extra.get("env_vars")
        facts_out[v] = {
            "pass_config_order": order,
            "attention_ops": f["attention_ops"],
            "pass_config_fields": f["pass_config_fields"],
            "compilation_fields": sorted(f["compilation_fields"]),
            "compilation_defaults": {k: f["compilation_fields"][k] for k in (
                "backend", "custom_ops", "splitting_ops", "use_inductor_graph_partition",
                "cudagraph_mode", "max_cudagraph_capture_size", "cudagraph_capture_sizes")
                if k in f["compilation_fields"]},
            "cudagraph_modes": f["cudagraph_modes"],
            "compilation_modes": f["compilation_modes"],
            "all2all_backends": f["all2all_backends"],
            "parallel_fields": sorted(f["parallel_fields"]),
        }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "options.json").write_text(json.dumps(options_out, separators=(",", ":"), sort_keys=True))
    (OUT / "facts.json").write_text(json.dumps(facts_out, indent=1, sort_keys=True))
    # known VLLM_* variables, as changes against the release before (read only when a
    # deployment sets VLLM_* variables)
    env_out: dict = {}
    prev_env: list | None = None
    prev_v: str | None = None
    for v in versions:
        names = env_vars[v]
        if names is None:
            continue
        if prev_env is None:
            env_out[v] = {"base": names}
        else:
            env_out[v] = {"from": prev_v, "add": sorted(set(names) - set(prev_env)),
                          "drop": sorted(set(prev_env) - set(names))}
        prev_env, prev_v = names, v
    (OUT / "env_vars.json").write_text(json.dumps(env_out, separators=(",", ":"), sort_keys=True))
    print(f"{len(versions)} releases: {', '.join(versions)}")


if __name__ == "__main__":
    main()
