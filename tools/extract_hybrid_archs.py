"""Record, per release, which registered architectures are hybrid (vLLM's `is_hybrid`).

vLLM asks `getattr(model_cls, "is_hybrid", False)` (model_executor/models/interfaces.py,
`IsHybrid` sets it True). Reads each release's sources with tools/extract_arch_facts.py's
AST machinery (registry table, bases followed across modules, C3 order), never importing them.

Writes src/vllm_preflight/releases/data/hybrid_archs.json:
  {"releases": [...], "archs": {ARCH: {FIRST_RELEASE: true | false | null}}}
(a key opens a run of releases with the same answer; null: not registered; architectures never
hybrid in any release are left out).

Usage: python tools/extract_hybrid_archs.py SRC_ROOT [--versions V ...] [-o OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from extract_arch_facts import (  # type: ignore[import-not-found]  # tools/ on sys.path
    INTERFACES,
    Source,
    compact,
    module_name,
    mro,
    registry_table,
    vkey,
)

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "hybrid_archs.json"


def release_hybrids(root: Path) -> dict[str, str | None]:
    """ARCH -> "H" (hybrid) / "" (not) / None (class not read) for one release."""
    src = Source(root)
    memo: dict = {}
    out: dict[str, str | None] = {}
    for arch, (rel, cls) in registry_table(src).items():
        info = src.resolve(module_name(rel), cls)
        if info is None or info.key[0] == "<external>":
            out[arch] = None
            continue
        value: object = False
        for k in mro(info, memo):
            if "is_hybrid" in k.attrs:
                value = k.attrs["is_hybrid"]
                break
            if k.key == (INTERFACES, "IsHybrid"):
                value = True
                break
        out[arch] = "H" if value not in (False, None, 0) else ""
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src_root", help="folder holding <version>/vllm/ for each release")
    ap.add_argument("--versions", nargs="*", help="releases to read (default: every folder)")
    ap.add_argument("-o", "--out", default=str(OUT))
    a = ap.parse_args()
    root = Path(a.src_root)
    versions = a.versions or sorted((p.name for p in root.iterdir() if (p / "vllm").is_dir()), key=vkey)
    per: dict[str, dict[str, str | None]] = {}
    for v in versions:
        facts = release_hybrids(root / v)
        bad = sorted(k for k, f in facts.items() if f is None)
        if bad:
            print(f"{v}: {len(bad)} classes not read: {bad}", file=sys.stderr)
        per[v] = {k: (f or "") for k, f in facts.items()}
    hybrid = {a for r in per.values() for a, f in r.items() if f == "H"}
    data = compact({v: {a: f for a, f in r.items() if a in hybrid} for v, r in per.items()})
    data["archs"] = {a: {v: (None if f is None else f == "H") for v, f in runs.items()}
                     for a, runs in data["archs"].items()}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=False)
        f.write("\n")
    print(f"wrote {a.out}: {len(data['archs'])} hybrid architectures over {len(versions)} releases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
