"""Speed figures for `matrix` (printed, not asserted).

    python bench/bench_matrix.py [--runs 5] [--skip-all]

Cold processes, each the median of --runs, wall time and the CPU time the process used
(user + sys: what the wall time would be on an idle machine, without its second core):

1. one deployment (examples/deepep-ht-dp8.sh) across all 35 releases and pr29558
   (goal <= 0.3 s), beside one `check` of it and the bare imports;
2. the default combination matrix (all2all x dp x ep x cudagraph_mode) for one release,
   0.33.0, the one with the most backends (goal <= 0.5 s);
3. the same for every release and pr29558 (goal <= 5 s; --skip-all leaves it out).

Then, in one process: cells per second of the matrix's path against plain `check_deployment`
(the shortcut the tests prove exact), over the same sampled cells.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cold(cmd: list[str], runs: int) -> tuple[float, float]:
    """(median wall s, median CPU s) of fresh processes; one unmeasured run writes bytecode first."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return statistics.median(walls), statistics.median(cpus)


def in_process(n: int = 300) -> tuple[float, float]:
    """Cells/s of the matrix's path and of plain check_deployment, over the same sampled cells."""
    sys.path.insert(0, str(ROOT / "src"))
    from vllm_preflight.matrix import axes, cells, targets
    from vllm_preflight.releases import get_release

    rng = random.Random(1)
    sample = []
    for _ in range(n):
        t = rng.choice(targets.ALL)
        r = get_release(t)
        sample.append(cells.Cell(t, tuple((a, rng.choice(axes.AXES[a].values(r))) for a in axes.DEFAULT_AXES)))
    p = cells.Plan(axes.base_deployment(), sample, axes.DEFAULT_AXES)
    rates = []
    for fast in (True, False):
        for c in sample[:40]:  # warm the release tables, as a long matrix does
            cells.check_cell(p, c, cells.Settings(), fast)
        t = time.perf_counter()
        for c in sample:
            cells.check_cell(p, c, cells.Settings(), fast)
        rates.append(n / (time.perf_counter() - t))
    return rates[0], rates[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-all", action="store_true", help="leave out the all-releases combination matrix")
    a = ap.parse_args()
    exe = [sys.executable, "-m", "vllm_preflight"]
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as f:
        load = f.read().split()[:1]
    print(f"machine: {os.cpu_count()} cores, load average {load[0] if load else '?'} "
          "(other work on the machine inflates wall times; CPU time much less)")

    def show(name: str, wall_cpu: tuple[float, float], goal: float | None = None) -> None:
        wall, cpu = wall_cpu
        verdict = ""
        if goal is not None:
            verdict = f"  goal <= {goal:g} s: " + ("met" if wall <= goal else
                                                     "met in CPU time only" if cpu <= goal else "NOT met")
        print(f"{name:<64} wall {wall:6.2f} s  cpu {cpu:6.2f} s{verdict}")

    show("cold import click, yaml, jsonschema, rich.console (baseline)",
         cold([sys.executable, "-c", "import click, yaml, jsonschema, rich.console"], a.runs))
    show("cold check --format json examples/deepep-ht-dp8.sh (1 release)",
         cold(exe + ["check", "--format", "json", "examples/deepep-ht-dp8.sh"], a.runs))
    show("cold matrix examples/deepep-ht-dp8.sh (35 releases + pr29558)",
         cold(exe + ["matrix", "--format", "json", "examples/deepep-ht-dp8.sh"], a.runs), 0.3)
    show("cold matrix --vllm-version 0.33.0 (default axes, 468 cells)",
         cold(exe + ["matrix", "--vllm-version", "0.33.0"], a.runs), 0.5)
    show("cold matrix --vllm-version 0.12.0 (default axes, 216 cells)",
         cold(exe + ["matrix", "--vllm-version", "0.12.0"], a.runs), 0.5)
    if not a.skip_all:
        show("cold matrix (default axes, all releases + pr29558)",
             cold(exe + ["matrix"], max(1, min(a.runs, 2))), 5.0)
    fast, plain = in_process()
    print(f"cells/s in one process: matrix path {fast:7.0f}, plain check_deployment {plain:7.0f} "
          f"({fast / plain:.2f}x; identical rows: tests/matrix/test_matrix_exact.py)")


if __name__ == "__main__":
    main()
