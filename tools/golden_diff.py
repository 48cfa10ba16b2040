"""Where our resolver and the recorded goldens disagree: counts per field, examples.

    python tools/golden_diff.py tests/golden/data/0.13.0.jsonl [--field cudagraph_mode] [-n 5]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))
import compare


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--field")
    ap.add_argument("-n", type=int, default=3)
    a = ap.parse_args()
    for f in a.files:
        with open(f) as fh:
            lines = [json.loads(x) for x in fh]
        per: Counter = Counter()
        examples: dict = {}
        bad = 0
        for g in lines:
            try:
                mm = compare.mismatches(g)
            except Exception as e:  # noqa: BLE001 - a crash is a disagreement to look at
                mm = [("crash", None, f"{type(e).__name__}: {e}")]
            if not mm:
                miss = compare.missing_logs(g)
                if miss:
                    mm = [("log", None, miss[0])]
            if mm:
                bad += 1
            for k, w, got in mm:
                per[k] += 1
                examples.setdefault(k, []).append((g, w, got))
        print(f"{f}: {len(lines) - bad}/{len(lines)} agree; by field: {dict(per)}")
        for k, ex in examples.items():
            if a.field and k != a.field:
                continue
            for g, w, got in ex[: a.n]:
                print(f"  [{k}] {g['id']} want={w!r} got={got!r}")
                print(f"      argv={' '.join(g['argv'][2:])} env={g['env']}")
                if k == "vllm_error" and g["expected"]["vllm_error"]:
                    print(f"      vllm: {g['expected']['vllm_error']['message'][:300]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
