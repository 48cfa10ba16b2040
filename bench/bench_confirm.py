"""Speed figure for `confirm` (printed, not asserted): the time to read a 100 MB vLLM log.

    python bench/bench_confirm.py [--mb 100] [--runs 3]

Writes a log of the given size to a temporary folder: one engine start (recorded 0.33.0
messages when the fixture is there, else a short hand-written one) near the start, then a
serving log's usual lines (uvicorn access lines, the engine's throughput lines, DP-prefixed and
timestamped like `kubectl logs --timestamps`), then a second start near the end. Prints the
wall time of reading it (`confirm.command.read_log`: the scan and the grouping into starts) and
of one whole cold `vllm-preflight confirm --format json` process on it.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

FILLER = (
    '2026-12-02T14:50:{s:02d}.{us:06d}Z (APIServer pid=4021) INFO:     10.8.{a}.{b}:51234 - '
    '"POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    '2026-12-02T14:50:{s:02d}.{us:06d}Z (APIServer pid=4021) INFO 12-02 14:50:{s:02d} [loggers.py:127] Engine 000: '
    'Avg prompt throughput: 1234.5 tokens/s, Avg generation throughput: 567.8 tokens/s, Running: 12 reqs, '
    'Waiting: 0 reqs, GPU KV cache usage: 23.4%, Prefix cache hit rate: 45.6%\n'
)


def _start() -> str:
    fx = ROOT / "tests" / "fixtures" / "confirm" / "0.33.0.jsonl.gz"
    if fx.exists():
        with gzip.open(fx, "rt") as f:
            case = json.loads(f.readline())
        models = str(ROOT / "tests" / "fixtures" / "models")
        args, engine = case["args"].replace("{models}", models), case["engine"].replace("{models}", models)
    else:
        args = "non-default args: {'model_tag': 'm', 'model': 'm'}"
        engine = ("Initializing a V1 LLM engine (v0.33.0) with config: model='m', compilation_config={'mode': "
                  "<CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>}")
    return (f"(APIServer pid=4021) INFO 12-02 14:43:37 [utils.py:233] {args}\n"
            f"(EngineCore_DP0 pid=4190) INFO 12-02 14:43:40 [core.py:93] {engine}\n")


def write_log(path: Path, mb: int) -> int:
    target = mb * 1_000_000
    start = _start()
    with open(path, "w") as f:
        f.write(start)
        size = len(start.encode())
        chunk = "".join(FILLER.format(s=i % 60, us=i * 7919 % 1_000_000, a=i % 250, b=i * 7 % 250)
                        for i in range(2000))
        n = len(chunk.encode())
        while size + n + len(start) < target:
            f.write(chunk)
            size += n
        f.write(start)
        size += len(start.encode())
    return size


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    from vllm_preflight.confirm.command import read_log

    with tempfile.TemporaryDirectory() as td:
        log = Path(td) / "server.log"
        size = write_log(log, a.mb)
        times = []
        for _ in range(a.runs):
            t = time.perf_counter()
            starts, notes = read_log(str(log))
            times.append(time.perf_counter() - t)
        assert len(starts) >= 1 and not notes, (len(starts), notes)
        best = min(times)
        t = time.perf_counter()
        with open(log, "rb") as f:  # the floor: reading the bytes and counting the lines
            while chunk := f.read(16 << 20):
                chunk.count(b"\n")
        floor = time.perf_counter() - t
        print(f"read {size / 1e6:.0f} MB log ({len(starts)} engine starts found): best {best:.2f} s of {a.runs} "
              f"({size / 1e6 / best:.0f} MB/s), runs {', '.join(f'{t:.2f}' for t in times)} s; reading its bytes alone "
              f"{floor:.2f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "vllm_preflight", "confirm", "--format", "json", str(log)],
                           env=env, capture_output=True, text=True, cwd=ROOT, check=False)
        cold = time.perf_counter() - t
        print(f"one cold `vllm-preflight confirm --format json` of it (read, resolve each start, report): "
              f"{cold:.2f} s, exit {p.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
