"""Print the closing tables of bench/verify_gpu.sh from the verify records it wrote: timings
eager | piecewise | full per size for every run (render.timing_table), then each run's outcome.

Usage: python bench/verify_gpu_table.py OUTDIR NAME=EXPECTED_EXIT:ACTUAL_EXIT ...
"""
from __future__ import annotations

import json
import os
import sys

from vllm_preflight.verify.render import TIMING_COLUMNS, timing_table


def _record(outdir: str, name: str) -> dict | None:
    path = os.path.join(outdir, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main(argv: list[str]) -> int:
    outdir, runs = argv[0], argv[1:]
    rows = []
    all_ok = True
    env: dict = {}
    print()
    for spec in runs:
        name, _, codes = spec.partition("=")
        expected, _, actual = codes.partition(":")
        rec = _record(outdir, name)
        ok = expected == actual
        all_ok &= ok
        if rec is None:
            rows.append((name, expected, actual, "no record", "", ""))
            continue
        env = env or rec["environment"]
        checks = rec["checks"]
        failed = ",".join(sorted({c["id"] for c in checks if c["status"] == "fail"})) or "-"
        caught = ",".join(sorted({c["id"] for c in checks if c["status"] == "expected-fail-observed"})) or "-"
        rows.append((name, expected, actual, rec["outcome"]["status"], failed, caught))
        plan = rec.get("plan") or {}
        print(f"{name}: timings, median ms per forward (speedup over eager)")
        if rec["timings"]:
            print("  " + "".join(f"{c:<22}" for c in TIMING_COLUMNS))
            for row in timing_table(rec["timings"]):
                print("  " + "".join(f"{c:<22}" for c in row))
        else:
            print("  (nothing timed)")
        for graph, why in (plan.get("not_timed") or {}).items():
            print(f"  {graph}: not timed ({why})")
        budget = plan.get("budget") or {}
        if budget.get("cut"):
            print(f"  cut to stay within {budget.get('seconds')}s: {', '.join(budget['cut'])}")
    device = f"{env.get('device', '?')}, torch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}"
    print()
    print(f"verify, tier gpu, on {device}")
    print(f"{'run':<22} {'want':>4} {'got':>4} {'outcome':<17} {'failed checks':<16} controls caught")
    for r in rows:
        print(f"{r[0]:<22} {r[1]:>4} {r[2]:>4} {r[3]:<17} {r[4]:<16} {r[5]}")
    print("ALL AS EXPECTED" if all_ok else "SOME RUNS DID NOT END AS EXPECTED")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
