"""Turn facts dumped from real releases (tools/extract_release_facts.py) into the
package's release data: src/vllm_preflight/releases/data/{options,facts}.json.

    python tools/build_release_data.py FACTS_DIR

Options are stored per release as changes against the release before it (most
releases add or drop a handful of flags), so the file stays small and a reader can see
what each release changed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "vllm_preflight" / "releases" / "data"

KIND = {"_StoreAction": "store", "_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
        "BooleanOptionalAction": "boolopt", "_StoreConstAction": "store_const",
        "_AppendAction": "append", "_HelpAction": "help", "_VersionAction": "help",
        "_CountAction": "count", "LoRAParserAction": "store"}


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
        rows[key] = [a["opts"], a["dest"], a["nargs"], KIND.get(a["kind"], "store"), converter(a),
                     a["choices"], a["const"], bool(a.get("deprecated"))]
    return rows


def main() -> None:
    facts_dir = Path(sys.argv[1])
    facts = {}
    for p in facts_dir.glob("*.json"):
        facts[p.stem] = json.loads(p.read_text())
    versions = sorted(facts, key=lambda v: tuple(int(x) for x in v.split(".")))
    options_out, facts_out = {}, {}
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
        facts_out[v] = {
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
    print(f"{len(versions)} releases: {', '.join(versions)}")


if __name__ == "__main__":
    main()
