"""Speed figures for `check` (printed, not asserted).

    python bench/bench_check.py [--runs 15]

1. Cold-process time of one `vllm-preflight check` of one file, for `--format json`, `concise`
   (neither imports rich) and text, against `python -c "import click, yaml, jsonschema,
   rich.console"` in the same environment (goal: <= 1.1x; real vLLM needs 5-7 s cold).
2. 1,000 deployment files checked in one process (load, resolve, findings, ignores, JSON out),
   in-process and as one cold `check --format json FOLDER` (goal: <= 0.5 s in-process).
3. Resolutions per second in one process, argv parsing included, over the golden corpus
   (goal: >= 20,000/s; real vLLM about 3,000/s).
4. The library swaps where speed was the reason (issue 12): cold `check --format json` against
   a bare interpreter and against importing the tool's own runtime dependencies; schema
   validation of one command with jsonschema-rs (the `check` path) and python-jsonschema (the
   tests' second opinion), and the cold import of each.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))


def cold(cmd: list[str], runs: int) -> float:
    """Median wall time of fresh processes. Bytecode is allowed to be cached (as pip installs
    it), so one unmeasured run first writes it even where PYTHONDONTWRITEBYTECODE is set."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cold_interleaved(cmds: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Median wall time of fresh processes per command, run round-robin so that load from
    other processes on a shared machine falls on every command alike (the ratios hold)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for cmd in cmds.values():  # writes the bytecode, unmeasured
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    for _ in range(runs):
        for name, cmd in cmds.items():
            t = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def throughput(seconds: float = 3.0) -> tuple[float, int]:
    from compare import deployment_of, target_of
    from vllm_preflight.resolve import resolve

    cases = []
    for p in sorted((ROOT / "tests" / "golden" / "data").glob("*.jsonl")):
        cases += [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
    work = [(deployment_of(g), target_of(g)) for g in cases]
    for d, t in work[:200]:  # warm the per-release tables once, as a long-running process would
        resolve(d, t)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for d, t in work:
            resolve(d, t)
        n += len(work)
    return n / (time.perf_counter() - start), len(work)


def thousand_files(folder: Path, n: int = 1000) -> None:
    """n small deployment scripts: the bundled shell examples with varied parallel sizes."""
    import re

    bases = [p.read_text() for p in sorted((ROOT / "examples").glob("*.sh"))]
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        text = re.sub(r"(-dp|--data-parallel-size) \d+", lambda m: f"{m.group(1)} {1 << (i % 4)}",
                      bases[i % len(bases)])
        (folder / f"serve-{i:04d}.sh").write_text(text)


def many_in_process(folder: Path, runs: int = 3) -> float:
    """Best wall time of check's whole pipeline over the folder in this (warm) process."""
    from vllm_preflight import ignores, outcome
    from vllm_preflight.api import check_inputs
    from vllm_preflight.report.json_report import render_json

    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        report = check_inputs([str(folder)])
        for r in report.results:
            outcome.ensure_refusal(r)
        ignores.apply(report, ignores.find_config(str(folder)))
        render_json(report)
        best = min(best, time.perf_counter() - t)
    assert len(report.results) >= 1000, len(report.results)
    return best


RUNTIME_DEPS = "import click, yaml, jsonschema_rs, rich.console, packaging.version"


def validation_us(version: str = "0.33.0", n: int = 2000) -> dict[str, float]:
    """Microseconds to validate one `vllm serve` instance against a release schema, per engine,
    for a valid command (the common case) and an invalid one (two errors, with did-you-means)."""
    import jsonschema

    from vllm_preflight.schema.engine import validator
    from vllm_preflight.schema.generate import release_schema

    schema = release_schema(version)
    instances = [{"tensor-parallel-size": 8, "data-parallel-size": 8, "enable-expert-parallel": True,
                  "all2all-backend": "deepep_high_throughput", "max-num-batched-tokens": "16k",
                  "compilation-config": {"cudagraph_mode": "FULL_AND_PIECEWISE", "pass_config": {"fuse_attn_quant": True}}},
                 {"tensor-paralel-size": 8, "compilation-config": {"cudagraph_mode": "FULL_PIECEWISE"}}]
    engines = {"jsonschema-rs": validator(schema), "python-jsonschema": jsonschema.Draft202012Validator(schema)}
    out = {}
    for name, v in engines.items():
        for kind, inst in zip(("valid", "invalid"), instances):
            list(v.iter_errors(inst))  # warm
            t = time.perf_counter()
            for _ in range(n):
                list(v.iter_errors(inst))
            out[f"{name} {kind}"] = (time.perf_counter() - t) / n * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    exe = [sys.executable, "-m", "vllm_preflight"]
    one = "examples/deepep-ht-dp8.sh"
    t = cold_interleaved({"bare": [sys.executable, "-c", "pass"],
                          "deps": [sys.executable, "-c", RUNTIME_DEPS],
                          "import jsonschema": [sys.executable, "-c", "import jsonschema"],
                          "import jsonschema_rs": [sys.executable, "-c", "import jsonschema_rs"],
                          "base": [sys.executable, "-c", "import click, yaml, jsonschema, rich.console"],
                          "json": exe + ["check", "--format", "json", one],
                          "concise": exe + ["check", "--format", "concise", one],
                          "text": exe + ["check", one]}, a.runs)
    base, ours_json, ours_concise, ours_text = t["base"], t["json"], t["concise"], t["text"]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "deploy"
        thousand_files(folder)
        warm = many_in_process(folder)
        cold_many = cold(exe + ["check", "--format", "json", "--fail-on", "never", str(folder)], max(3, a.runs // 5))
    rate, corpus = throughput()
    swap = validation_us()
    print(f"cold baseline (import click, yaml, jsonschema, rich.console): {base * 1000:7.1f} ms")
    print(f"cold check --format json:                                      {ours_json * 1000:7.1f} ms  "
          f"({ours_json / base:.2f}x, goal <= 1.1x)")
    print(f"cold check --format concise:                                   {ours_concise * 1000:7.1f} ms  "
          f"({ours_concise / base:.2f}x, goal <= 1.1x)")
    print(f"cold check (text, rich):                                       {ours_text * 1000:7.1f} ms  "
          f"({ours_text / base:.2f}x, goal <= 1.1x)")
    print(f"1,000 files in one process (check pipeline, JSON rendered):    {warm * 1000:7.1f} ms  (goal <= 500 ms)")
    print(f"1,000 files, one cold `check --format json FOLDER`:            {cold_many * 1000:7.1f} ms")
    print(f"resolutions/s in one process over {corpus} golden cases:       {rate:9.0f}  (goal >= 20000)")
    bare, deps = t["bare"], t["deps"]
    print(f"cold bare interpreter (python -c pass):                        {bare * 1000:7.1f} ms  "
          f"(check --format json: {ours_json / bare:.2f}x)")
    print(f"cold import of the runtime deps ({RUNTIME_DEPS[7:]}): {deps * 1000:7.1f} ms  "
          f"(check --format json: {ours_json / deps:.2f}x)")
    print(f"cold import jsonschema / jsonschema_rs:                        {t['import jsonschema'] * 1000:7.1f} / "
          f"{t['import jsonschema_rs'] * 1000:.1f} ms")
    for kind in ("valid", "invalid"):
        print(f"validate one {kind} command (0.33.0 schema), python-jsonschema / jsonschema-rs: "
              f"{swap['python-jsonschema ' + kind]:.1f} / {swap['jsonschema-rs ' + kind]:.1f} µs")


if __name__ == "__main__":
    main()
