"""Peak memory (max RSS) and wall time of `vllm-preflight check` and `matrix` on big and
hostile inputs.

Each case runs in a fresh process; the goals (issues 11 and 25) are that no input under the size
limits takes the tool past 1 GB, and that every hostile case ends within 30 s with its documented
exit code (`matrix --records` on FIFOs, links to /dev/zero, huge, deep or mistyped records; a
matrix past the cell cap). Prints one line per case (`--only TEXT` runs the cases whose name
holds TEXT):

    python bench/bench_memory.py [--only matrix]
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_MB = 1024
# the child prints its own peak RSS when it exits, and that of its largest worker process (a large
# matrix forks workers; Linux reports ru_maxrss in KiB)
RUNNER = ("import atexit, resource, sys\n"
          "atexit.register(lambda: sys.stderr.write('MAXRSS %d %d\\n' % (resource.getrusage(resource.RUSAGE_SELF)"
          ".ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)))\n"
          "sys.argv = ['vllm-preflight'] + sys.argv[1:]\n"
          "from vllm_preflight.cli import main\n"
          "main()\n")


def run(argv: list[str], timeout: float = 600) -> tuple[float, float, float, int]:
    """(peak MB, peak MB of its largest worker, seconds, exit code) of `vllm-preflight ARGV` in a
    fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", RUNNER, *argv], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - t
    m = re.search(r"MAXRSS (\d+) (\d+)", r.stderr)
    if not m:
        return float("nan"), float("nan"), wall, r.returncode
    return int(m.group(1)) / 1024, int(m.group(2)) / 1024, wall, r.returncode


def cases(tmp: Path) -> list[tuple[str, list[str]]]:
    from vllm_preflight.load.limits import MAX_WORDS
    from vllm_preflight.load.source import MAX_BYTES

    def write(name: str, text: str) -> str:
        p = tmp / name
        p.write_text(text)
        return str(p)

    folder = tmp / "files"
    folder.mkdir()
    bases = [p.read_text() for p in sorted((ROOT / "examples").glob("*.sh"))]
    for i in range(2000):
        text = re.sub(r"(-dp|--data-parallel-size) \d+", lambda m: f"{m.group(1)} {1 << (i % 4)}",
                      bases[i % len(bases)])
        (folder / f"serve-{i:04d}.sh").write_text(text)
    pod_env = "".join(f"    - {{name: A{i}, value: '$(A{i - 1})$(A{i - 1})'}}\n" for i in range(1, 41))
    big_words = MAX_BYTES // 6 - 10  # ` --foo` repeated up to the input size limit
    model = tmp / "model"
    model.mkdir()
    # a config.json just under the input limit: one big array the JSON parser must hold
    (model / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "pad": ['
                                       + ",".join(["1"] * ((MAX_BYTES - 100) // 2)) + "]}")
    return [
        ("2,000 script files (one folder)", [str(folder)]),
        ("shell A=\"$A$A\" x40", [write("double.sh", "A=x\n" + 'A="$A$A"\n' * 40 + "vllm serve m $A\n")]),
        ("shell arr doubling x40", [write("arr.sh", "arr=(x)\n" + 'arr=("${arr[@]}" "${arr[@]}")\n' * 40
                                          + 'vllm serve m "${arr[@]}"\n')]),
        ("Kubernetes $(VAR) doubling x40", [write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                                  "spec:\n  containers:\n  - name: vllm\n    image: vllm/vllm-openai\n"
                                                  "    command: [vllm, serve, m, $(A40)]\n    env:\n"
                                                  "    - {name: A0, value: x}\n" + pod_env)]),
        ("max_num_batched_tokens 5e8 + capture 5e8", ["--", "vllm", "serve", "m", "--max-num-batched-tokens",
                                                      "500000000", "-cc", '{"max_cudagraph_capture_size": 500000000}']),
        ("max_num_batched_tokens 1e11 + capture 1e11", ["--", "vllm", "serve", "m", "--max-num-batched-tokens",
                                                        "100000000000", "-cc", '{"max_cudagraph_capture_size": 100000000000}']),
        (f"flag repeated {min(big_words, MAX_WORDS - 3):,}x (under the word limit)",
         [write("flags.sh", "vllm serve m" + " --foo" * min(big_words, MAX_WORDS - 3) + "\n")]),
        (f"flag repeated {big_words:,}x (4 MiB, over the word limit)",
         [write("flags-big.sh", "vllm serve m" + " --foo" * big_words + "\n")]),
        ("-cc nested 1,000 deep", [write("deep.sh", "vllm serve m -cc '" + "[" * 1000 + "]" * 1000 + "'\n")]),
        ("model config.json of 4 MiB", [write("serve-model.sh", f"vllm serve {model}\n")]),
        ("YAML of 4 MiB (1M list items)", [write("big.yaml", ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
                                                            "list:\n" + "- a\n" * ((MAX_BYTES - 200) // 4)))]),
        ("shell of 4 MiB (590,000 assignments)", [write("big.sh", "".join(f"A{i % 1000}=1\n" for i in range(
            (MAX_BYTES - 100) // 7)) + "vllm serve m\n")]),
        ("Markdown of 4 MiB (one 2M-line paragraph)", [write("big.md", "```bash\nvllm serve m\n```\n"
                                                           + "x\n" * ((MAX_BYTES - 100) // 2))]),
    ]


def matrix_cases(tmp: Path) -> list[tuple[str, list[str]]]:
    """`matrix` cases, each a whole command line: the default matrix (the largest a user gets
    without asking), one past the cell cap, and --records folders of hostile and many records."""
    import json

    from vllm_preflight.load.source import MAX_BYTES
    from vllm_preflight.matrix import records

    example = str(ROOT / "examples" / "deepep-ht-dp8.sh")
    good = {"schema": records.SCHEMA_ID, "date": "2026-11-30T10:00:00Z",
            "input": {"source": example, "target": "release", "vllm_version": "0.13.0", "resolved_digest": None},
            "environment": {"device": "NVIDIA H200", "torch": "2.13.0", "deep_ep": {"installed": False}},
            "tier": "gpu", "outcome": {"status": "pass"}}
    hostile = tmp / "records-hostile"
    hostile.mkdir()
    (hostile / "good.json").write_text(json.dumps(good))
    if hasattr(os, "mkfifo"):
        os.mkfifo(hostile / "fifo.json")
        os.symlink("/dev/zero", hostile / "zero.json")
    with open(hostile / "huge.json", "wb") as f:
        f.truncate(600 << 20)  # sparse: 600 MB by its size
    (hostile / "deep.json").write_text("[" * (MAX_BYTES // 2 - 1) + "]" * (MAX_BYTES // 2 - 1))
    (hostile / "typed.json").write_text(json.dumps(dict(good, input={"target": 5})))
    (hostile / "big.json").write_text(json.dumps(dict(good, pad=["x"] * ((MAX_BYTES - 1000) // 6))))
    many = tmp / "records-many"
    many.mkdir()
    for i in range(records.MAX_FILES + 1):
        (many / f"r{i:05d}.json").write_text(json.dumps(dict(good, date=f"2026-11-{1 + i % 28:02d}T10:00:00Z")))
    every = ["matrix", example, "--vllm-version", "all"]
    return [
        ("matrix: default, 12,276 cells (text)", ["matrix"]),
        ("matrix: default, 12,276 cells (--format json)", ["matrix", "--format", "json"]),
        ("matrix: 30,690 cells (past the cap, refused)", ["matrix", "--axes", "all2all,dp,mode,cudagraph_mode"]),
        ("matrix --records: FIFO, /dev/zero, 600 MB, deep, typed, 4 MiB", [*every, "--records", str(hostile)]),
        (f"matrix --records: {records.MAX_FILES + 1:,} records", [*every, "--records", str(many)]),
    ]


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="run only the cases whose name holds this text")
    only = ap.parse_args().only
    print(f"peak RSS and wall time, one fresh process per case (goals: under {LIMIT_MB} MB; hostile cases "
          "under 30 s)")
    worst_mb, worst_s = 0.0, 0.0
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        check = [(name, ["check", "--format", "json", *args]) for name, args in cases(tmp)]
        for name, argv in check + matrix_cases(tmp):
            if only not in name:
                continue
            mb, worker, wall, code = run(argv)
            worst_mb, worst_s = max(worst_mb, mb, worker), max(worst_s, wall)
            workers = f" (worker {worker:4.0f} MB)" if worker >= 1 else ""
            print(f"  {name:60s} {mb:6.0f} MB{workers:18s} {wall:6.1f} s  exit {code}")
    print(f"worst: {worst_mb:.0f} MB ({'within' if worst_mb < LIMIT_MB else 'OVER'} the {LIMIT_MB} MB goal), "
          f"{worst_s:.1f} s")


if __name__ == "__main__":
    main()
