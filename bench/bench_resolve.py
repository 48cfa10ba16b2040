"""Speed of one warm in-process `resolve()` (printed, not asserted).

    python bench/bench_resolve.py [--sample 4000] [--rounds 3] [--profile]

Over the golden mix (every family in tests/golden/data, each case resolved the way it was
recorded): the median and mean CPU µs of one `resolve()` call on varied inputs (every case is a
different deployment; nothing is cached per input; process CPU time, so that other processes on
a shared machine do not count), checks per second (resolutions per CPU second), and the same
for a plain deployment of the newest release. Goal (issue 26): median <= 50 µs. `--profile`
prints cProfile's calls per resolution and top functions instead.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))


def golden_mix(sample: int) -> list[dict]:
    """Every golden case, then every n-th of them, so each family keeps its share."""
    cases = []
    for p in sorted((ROOT / "tests" / "golden" / "data").rglob("*.jsonl")):
        cases += [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
    step = max(1, len(cases) // sample) if sample else 1
    return cases[::step]


def work_items(cases: list[dict]) -> list[tuple]:
    from compare import deployment_of, target_of

    return [(deployment_of(g), target_of(g), (g.get("oracle") or {}).get("path") == "vllm serve") for g in cases]


def timed(work: list[tuple], rounds: int) -> list[float]:
    """Per call seconds, the best of `rounds` for each case (noise on a shared box only adds)."""
    from vllm_preflight.resolve import resolve

    best = [float("inf")] * len(work)
    clock = time.process_time
    for _ in range(rounds):
        for i, (d, t, serve) in enumerate(work):
            start = clock()
            resolve(d, t, serve_stage=serve)
            best[i] = min(best[i], clock() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=4000, help="cases from the golden mix (0: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    from vllm_preflight.resolve import resolve

    work = work_items(golden_mix(a.sample))
    for d, t, serve in work:  # warm: per-release tables built, bytecode loaded
        resolve(d, t, serve_stage=serve)
    if a.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        for d, t, serve in work:
            resolve(d, t, serve_stage=serve)
        prof.disable()
        calls = pstats.Stats(prof).total_calls  # type: ignore[attr-defined]
        print(f"{len(work)} resolutions, {calls / len(work):.0f} Python calls each")
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    per = timed(work, a.rounds)
    total = sum(per)
    refused = 0
    for d, t, serve in work:
        refused += resolve(d, t, serve_stage=serve).vllm_error is not None
    print(f"golden mix: {len(work)} cases ({refused} refused by vLLM), best of {a.rounds} rounds each")
    print(f"resolve() median: {statistics.median(per) * 1e6:8.1f} µs   (goal <= 50 µs)")
    print(f"resolve() mean:   {total / len(work) * 1e6:8.1f} µs   p90 {sorted(per)[int(len(per) * 0.9)] * 1e6:.1f} µs")
    print(f"checks per second (resolutions, one process): {len(work) / total:9.0f}")
    plain = work_items([{"argv": ["vllm", "serve", "Qwen/Qwen3-0.6B", "-tp", str(tp)], "env": {}, "id": "plain",
                         "oracle": {"vllm_version": "0.33.0"}} for tp in (1, 2, 4, 8)])
    per = timed(plain * 50, a.rounds)
    print(f"plain `vllm serve Qwen/Qwen3-0.6B -tp N` on 0.33.0: median {statistics.median(per) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
