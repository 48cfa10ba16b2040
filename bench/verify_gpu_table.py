"""Print the short closing table of bench/verify_gpu.sh from the verify records it wrote.

Usage: python bench/verify_gpu_table.py OUTDIR NAME=EXPECTED_EXIT:ACTUAL_EXIT ...
Standard library only, so it runs wherever the records are.
"""
from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    outdir, runs = argv[0], argv[1:]
    rows, timing_rows = [], []
    all_ok = True
    for spec in runs:
        name, _, codes = spec.partition("=")
        expected, _, actual = codes.partition(":")
        path = os.path.join(outdir, name + ".json")
        rec = json.load(open(path)) if os.path.exists(path) else None
        ok = expected == actual
        all_ok &= ok
        if rec is None:
            rows.append((name, expected, actual, "no record", "", ""))
            continue
        checks = rec["checks"]
        failed = ",".join(sorted({c["id"] for c in checks if c["status"] == "fail"})) or "-"
        caught = ",".join(sorted({c["id"] for c in checks if c["status"] == "expected-fail-observed"})) or "-"
        rows.append((name, expected, actual, rec["outcome"]["status"], failed, caught))
        for t in rec["timings"]:
            if t["size"] in (1, 8, 64) or t is rec["timings"][-1]:
                timing_rows.append((name, t["graph"], t["dtype"], t["size"], t["eager_ms"]["median"],
                                    t["graph_ms"]["median"], t["speedup"], t.get("capture_s", 0.0),
                                    t.get("pool_bytes", 0)))
    env = next((json.load(open(os.path.join(outdir, r.split("=")[0] + ".json")))["environment"]
                for r in runs if os.path.exists(os.path.join(outdir, r.split("=")[0] + ".json"))), {})
    device = f"{env.get('device', '?')}, torch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}"
    print()
    if timing_rows:
        print(f"{'run':<22} {'graph':<10} {'dtype':<9} {'size':>5} {'eager ms':>9} {'graph ms':>9} {'speedup':>8}"
              f" {'capture s':>9} {'pool MiB':>8}")
        for r in timing_rows:
            print(f"{r[0]:<22} {r[1]:<10} {r[2]:<9} {r[3]:>5} {r[4]:>9.3f} {r[5]:>9.3f} {r[6]:>7.2f}x"
                  f" {r[7]:>9.4f} {r[8] / 2**20:>8.1f}")
        print()
    print(f"verify, tier gpu, on {device}")
    print(f"{'run':<22} {'want':>4} {'got':>4} {'outcome':<17} {'failed checks':<16} controls caught")
    for r in rows:
        print(f"{r[0]:<22} {r[1]:>4} {r[2]:>4} {r[3]:<17} {r[4]:<16} {r[5]}")
    print("ALL AS EXPECTED" if all_ok else "SOME RUNS DID NOT END AS EXPECTED")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
