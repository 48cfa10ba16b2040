"""Every figure of issue 26's speed table in one run (printed, not asserted).

    python bench/bench_table.py [--quick] [--runs 9] [--skip-all]

1. one `resolve()` in-process, warm: median CPU µs over the golden mix (goal <= 50 µs);
2. checks per second in one process, JSON contract: `check_deployment` of each golden case and
   its JSON rendered (golden mix), and of the bundled examples/ files (other shapes) (goal >= 5,000);
3. cold `check --format json` of one file against importing the declared runtime dependencies,
   the ratio of paired runs (A B A B ..., CPU time of each finished process; goal <= 1.1x);
4. 1,000 varied files in one process: CPU seconds of check's whole pipeline (goal <= 1 s);
5. `matrix` cold processes, CPU seconds (all its processes): one deployment x 36 targets, JSON
   (goal 0.3 s), one release's default combinations (0.5 s), every release (5 s), as tables.

CPU time (time.process_time in-process; user + sys of a finished child) so that other work on a
shared machine counts as little as it can. Bytecode caches are allowed to exist (as pip installs
them): PYTHONDONTWRITEBYTECODE is dropped from the children's environment and one unmeasured run
of each command writes them first.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))

DEPS = "import click, yaml, jsonschema_rs, rich.console, packaging.version, markdown_it"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# BENCH_SRC: another checkout's src/ to time instead (the before figures of a change)
SRC = Path(os.environ.get("BENCH_SRC") or ROOT / "src").resolve()
sys.path.insert(0, str(SRC))
ENV["PYTHONPATH"] = str(SRC) + (os.pathsep + ENV["PYTHONPATH"] if ENV.get("PYTHONPATH") else "")
ENV["HF_HUB_OFFLINE"] = "1"


def child_cpu(cmd: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=ENV, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(a: list[str], b: list[str], runs: int) -> tuple[float, float, float]:
    """(median CPU s of A, of B, median of the pair-by-pair ratios A/B)."""
    child_cpu(a), child_cpu(b)  # bytecode written, unmeasured
    ta, tb, ratios = [], [], []
    for _ in range(runs):
        x, y = child_cpu(a), child_cpu(b)
        ta.append(x), tb.append(y), ratios.append(x / y)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def resolve_median(sample: int) -> float:
    from bench_resolve import golden_mix, timed, work_items

    from vllm_preflight.resolve import resolve

    work = work_items(golden_mix(sample))
    for d, t, serve in work:
        resolve(d, t, serve_stage=serve)
    return statistics.median(timed(work, 3))


def checks_per_second(sample: int) -> tuple[float, float]:
    """Checks/s (check_deployment + the JSON contract of its one-result report) over the golden
    mix and over the bundled example files' servers."""
    from bench_resolve import golden_mix
    from compare import deployment_of, target_of

    from vllm_preflight.api import Report, check_deployment, load_inputs
    from vllm_preflight.report.json_report import render_json

    def one(d, t) -> None:
        r = check_deployment(d, target="pr29558", env=()) if t == "pr29558" else \
            check_deployment(d, vllm_version=t, env=())
        render_json(Report(results=[r]))

    golden = [(deployment_of(g), target_of(g)) for g in golden_mix(sample)]
    files = [str(p) for p in sorted((ROOT / "examples").iterdir()) if p.suffix in (".sh", ".yaml")]
    loaded, _ = load_inputs(files, None, {}, require_servers=False)
    others = [(d, None) for d in loaded] * max(1, 200 // max(1, len(loaded)))
    rates = []
    for work in (golden, others):
        for d, t in work[:100]:
            one(d, t)
        start = time.process_time()
        for d, t in work:
            one(d, t)
        rates.append(len(work) / (time.process_time() - start))
    return rates[0], rates[1]


def thousand_files(folder: Path, n: int = 1000) -> None:
    from bench_check import thousand_files as make

    make(folder, n)


def thousand_cpu(folder: Path, runs: int = 3) -> float:
    """Best CPU s of check's whole pipeline over the folder in this process (first run included:
    a fresh process checks a folder once)."""
    from vllm_preflight import ignores, outcome
    from vllm_preflight.api import check_inputs
    from vllm_preflight.report.json_report import render_json

    best = float("inf")
    for _ in range(runs):
        t = time.process_time()
        report = check_inputs([str(folder)], offline=True)
        for r in report.results:
            outcome.ensure_refusal(r)
        ignores.apply(report, ignores.find_config(str(folder)))
        render_json(report)
        best = min(best, time.process_time() - t)
    assert len(report.results) >= 1000, len(report.results)
    return best


def cold_cpu(cmd: list[str], runs: int) -> float:
    child_cpu(cmd)
    return statistics.median(child_cpu(cmd) for _ in range(runs))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="smaller samples, fewer runs")
    ap.add_argument("--skip-all", action="store_true", help="leave out the every-release matrix")
    a = ap.parse_args()
    runs = 3 if a.quick else a.runs
    exe = [sys.executable, "-m", "vllm_preflight"]
    one = "examples/deepep-ht-dp8.sh"
    rows = []

    rows.append(("one resolve() in-process, warm (median, golden mix)",
                 f"{resolve_median(800 if a.quick else 4000) * 1e6:.1f} µs", "<= 50 µs"))
    golden_rate, other_rate = checks_per_second(300 if a.quick else 1500)
    rows.append(("checks/s in one process, JSON contract (golden mix / example files)",
                 f"{golden_rate:,.0f} / {other_rate:,.0f}", ">= 5,000"))
    ours, deps, ratio = paired(exe + ["check", "--format", "json", one], [sys.executable, "-c", DEPS], runs)
    rows.append(("cold `check --format json` of one file vs the runtime deps' import (CPU)",
                 f"{ratio:.2f}x ({ours * 1000:.0f} / {deps * 1000:.0f} ms)", "<= 1.1x"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "deploy"
        thousand_files(folder)
        rows.append(("1,000 varied files, one process (CPU)", f"{thousand_cpu(folder, 1 if a.quick else 3):.2f} s",
                     "<= 1 s"))
    m36 = cold_cpu(exe + ["matrix", "--format", "json", one], runs)
    m1 = cold_cpu(exe + ["matrix", "--vllm-version", "0.33.0"], runs)  # the default table, as the issue timed it
    mall = "skipped" if a.skip_all else f"{cold_cpu(exe + ['matrix'], 1 if a.quick else 2):.2f} s"
    rows.append(("matrix: 1 deployment x 36 targets / 1 release's defaults / every release (CPU)",
                 f"{m36:.2f} s / {m1:.2f} s / {mall}", "0.3 / 0.5 / 5 s"))
    width = max(len(r[0]) for r in rows)
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as f:
        load = (f.read().split() or ["?"])[0]
    print(f"# {os.cpu_count()} cores, load average {load}; deps baseline: python -c {DEPS!r}")
    print(f"| {'measure':<{width}} | now | goal |")
    print(f"|{'-' * (width + 2)}|---|---|")
    for name, now, goal in rows:
        print(f"| {name:<{width}} | {now} | {goal} |")
    sys.stdout.flush()
    json.dumps(rows)


if __name__ == "__main__":
    main()
