"""Model files: the cost of reading them, printed (no assertions; timings of a noisy machine).

    python bench/bench_hub.py [--runs N] [--before SRC]

1. cold `check` (a fresh process) of a local model folder and of a cached hub model, paired with
   the same runs of `--before SRC` (another checkout's src/, e.g. `git archive` of the commit
   before model files were read) when given: medians and the paired ratio;
2. fetching from a loopback Hub (tests/model_files/loopback_hub.py): one model, and a folder of
   100 servers naming 10 models (each fetched once), wall time and the Hub calls made.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "model_files"))
from loopback_hub import LoopbackHub, Repo, fixture_files, hub_repos, write_cache

LOCAL = ROOT / "tests" / "fixtures" / "hub" / "qwen3-8b"


def _env(src: Path, **extra: str) -> dict:
    """A cold process as a user starts one: bytecode as installed (compile both trees first)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({"PYTHONPATH": str(src)}, **extra)
    return env


def _run(env: dict, *words: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "vllm_preflight.cli", "check", "--format", "json", "--", "vllm", "serve",
                    *words], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def cold(runs: int, before: Path | None, cache: Path) -> None:
    src = ROOT / "src"
    for label, words, extra in (("local folder", (str(LOCAL),), {}),
                                ("cached hub id", ("Qwen/Qwen3-8B",), {"HF_HUB_CACHE": str(cache)})):
        ours, theirs = [], []
        for _ in range(runs):  # paired and alternating, so drift hits both alike
            ours.append(_run(_env(src, **extra), *words))
            if before is not None:
                theirs.append(_run(_env(before, **extra), *words))
        line = f"cold check, {label}: {statistics.median(ours) * 1000:.0f} ms median of {runs}"
        if theirs:
            ratio = statistics.median(a / b for a, b in zip(ours, theirs))
            line += f"; before: {statistics.median(theirs) * 1000:.0f} ms; paired ratio {ratio:.2f}"
        print(line)


def fetch(hub: LoopbackHub, tmp: Path) -> None:
    env = _env(ROOT / "src", HF_ENDPOINT=hub.url, HF_HOME=str(tmp / "empty"))
    env.pop("HF_HUB_OFFLINE", None)
    one = [_run(env, "deepseek-ai/DeepSeek-R1") for _ in range(3)]
    offline = [_run({**env, "HF_HUB_OFFLINE": "1"}, "deepseek-ai/DeepSeek-R1") for _ in range(3)]
    print(f"one model from the Hub: {statistics.median(one) * 1000:.0f} ms (check, median of 3); "
          f"the same offline: {statistics.median(offline) * 1000:.0f} ms")
    folder = tmp / "servers"
    folder.mkdir()
    models = [f"bench/model-{i}" for i in range(10)]
    for i in range(100):
        (folder / f"server{i:03d}.sh").write_text(f"vllm serve {models[i % 10]} -tp {1 + i % 4}\n")
    hub.requests.clear()
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "vllm_preflight.cli", "check", "--format", "json", str(folder)],
                       env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    n = len(json.loads(p.stdout)["results"])
    listings = sum(1 for m, q in hub.requests if q.startswith("/api/models/"))
    gets = sum(1 for m, q in hub.requests if m == "GET" and "/resolve/" in q)
    print(f"100 servers of 10 models: {took:.1f} s for {n} results; Hub calls: {listings} listings, {gets} downloads")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--before", type=Path, help="another checkout's src/ to pair with")
    a = ap.parse_args()
    repos = hub_repos()
    for i in range(10):
        r = Repo(f"bench/model-{i}")
        r.add(fixture_files(("qwen3-8b", "deepseek-r1", "qwen3-30b-a3b-gptq-int4")[i % 3]))
        repos[r.repo_id] = r
    with tempfile.TemporaryDirectory() as td, LoopbackHub(repos) as hub:
        tmp = Path(td)
        write_cache(tmp / "cache", repos["Qwen/Qwen3-8B"])
        cold(a.runs, a.before, tmp / "cache")
        fetch(hub, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
