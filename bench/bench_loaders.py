"""The loaders over their corpus: servers found, missed and made up, and time per file (printed,
not asserted; tests/load/test_loaders_corpus.py asserts the counts).

    python bench/bench_loaders.py [--runs 5] [-v]

tests/fixtures/corpus holds files of every shape the README claims (recipes, benchmark
scripts, Slurm jobs, Markdown guides, --config YAML, Kubernetes manifests and Helm templates,
KServe, AIBrix, KubeRay, docker-compose, deployment files), with the servers each starts
written by hand in expected.yaml. Per shape: files, servers expected, found where expected,
missed, phantom (found, not expected), differing (found where expected with other words,
version or environment than bash / Kubernetes give), files with an unexpected error; then
the load time per file (median of --runs loads, in one warm process) and one load of the whole
folder.
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "load"))
sys.path.insert(0, str(ROOT / "src"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="loads of each file for its time (median)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every server not found as expected")
    args = ap.parse_args()
    os.chdir(ROOT)
    from corpus import CORPUS, compare, expectations, load

    specs = expectations()
    for rel in specs:  # warm: imports, release data, markdown-it
        load(rel, specs[rel].get("allow") or ())
    rows: dict[str, list] = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0, []])
    for rel in sorted(specs):
        out = compare(rel, specs[rel])
        times = [out.seconds] + [load(rel, specs[rel].get("allow") or ())[3] for _ in range(max(args.runs - 1, 0))]
        r = rows[out.shape]
        r[0] += 1
        r[1] += out.expected
        r[2] += out.matched - len({d[0] for d in out.differ})
        r[3] += len(out.missed)
        r[4] += len(out.phantom)
        r[5] += len({d[0] for d in out.differ})
        r[6] += 1 if out.problems else 0
        r[7].append(statistics.median(times))
        if args.verbose and not out.clean:
            print(f"  {rel}: missed {out.missed} phantom {out.phantom} differ {out.differ} {out.problems}")
    head = f"{'shape':12} {'files':>5} {'expected':>8} {'found':>5} {'missed':>6} {'phantom':>7} {'differ':>6} " \
           f"{'errors':>6} {'ms/file':>8} {'max ms':>7}"
    print(head)
    total = [0] * 7
    every: list[float] = []
    for shape, r in sorted(rows.items()):
        print(f"{shape:12} {r[0]:5} {r[1]:8} {r[2]:5} {r[3]:6} {r[4]:7} {r[5]:6} {r[6]:6} "
              f"{statistics.median(r[7]) * 1000:8.2f} {max(r[7]) * 1000:7.2f}")
        total = [a + b for a, b in zip(total, r[:7])]
        every += r[7]
    print(f"{'total':12} {total[0]:5} {total[1]:8} {total[2]:5} {total[3]:6} {total[4]:7} {total[5]:6} {total[6]:6} "
          f"{statistics.median(every) * 1000:8.2f} {max(every) * 1000:7.2f}")
    from vllm_preflight.load import load_paths

    t = time.perf_counter()
    found, errors = load_paths([str(CORPUS.relative_to(ROOT))])
    print(f"whole folder in one call: {len(found)} servers, {len(errors)} errors, "
          f"{(time.perf_counter() - t) * 1000:.0f} ms")
    return 0 if total[3] == total[4] == total[5] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
