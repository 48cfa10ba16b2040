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

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from extract_arch_facts import (  # type: ignore[import-not-found]  # tools/ on sys.path
    INTERFACES,
    Source,
    class_attr,
    compact,
    registered_classes,
    source_cli,
)

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "hybrid_archs.json"


def release_hybrids(root: Path) -> dict[str, str | None]:
    """ARCH -> "H" (hybrid) / "" (not) / None (class not read) for one release."""
    memo: dict = {}
    return {arch: None if info is None else
            ("H" if class_attr(info, memo, "is_hybrid", (INTERFACES, "IsHybrid")) not in (False, None, 0) else "")
            for arch, info in registered_classes(Source(root))}


def main() -> int:
    a, root, versions = source_cli(__doc__, OUT)
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
