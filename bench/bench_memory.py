"""Peak memory (max RSS) and wall time of `vllm-preflight check` and `matrix` on big and
hostile inputs.

Each case runs in a fresh process; the goals (issues 11 and 25) are that no input under the size
limits takes the tool past 1 GB, and that every hostile case ends within 30 s with its documented
exit code: links out of a folder, deep folders, many servers per file, a 40 KB ignore glob,
200,000 unknown ignore codes, merge-key chains, a --config outside the tree; `matrix --records` on
FIFOs, links to /dev/zero, huge, deep or mistyped records; a matrix past the cell cap. Prints one
line per case (`--only TEXT` runs the cases whose name holds TEXT):

    python bench/bench_memory.py [--only matrix]
"""
from __future__ import annotations

import os
import re
import shutil
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


def run(argv: list[str], timeout: float = 600, cwd: str | None = None) -> tuple[float, float, float, int]:
    """(peak MB, peak MB of its largest worker, seconds, exit code) of `vllm-preflight ARGV` in a
    fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", RUNNER, *argv], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
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
        # issue 19: every block stands alone, every YAML block naming a kind is parsed alone
        ("Markdown of 4 MiB (54,000 manifest blocks)", [write("yaml-blocks.md", _repeat(
            "```yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n```\n\n", MAX_BYTES))]),
        ("Markdown of 4 MiB (190,000 unreadable blocks)", [write("bad-blocks.md", _repeat("```\nit's\n```\n\n",
                                                                                          MAX_BYTES))]),
    ]


def _repeat(block: str, size: int) -> str:
    return block * ((size - 100) // len(block))


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


def hostile_cases(tmp: Path) -> list[tuple[str, list[str], str | None]]:
    """Issue 25's input-side reproductions: (name, args, working folder)."""
    good = tmp / "h-good.sh"
    good.write_text("vllm serve Qwen/Qwen3-0.6B -tp 2\n")

    def folder(name: str, link: str) -> str:
        top = tmp / name
        top.mkdir()
        (top / "a.sh").write_text("vllm serve m\n")
        os.symlink(link, top / "link")
        return str(top)

    deep = tmp / "h-deep"  # 1,500 folders deep, made through folder descriptors
    deep.mkdir()
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)
    pod = tmp / "h-pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + "".join(
        f"  - name: c{i}\n    image: vllm/vllm-openai:v0.13.0\n    command: [vllm, serve, m]\n" for i in range(10_000)))
    pods = tmp / "h-list.yaml"
    pods.write_text("apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n  spec:\n    containers:\n    - name: vllm\n"
        f"      image: vllm/vllm-openai:v0.13.0\n      command: [vllm, serve, m]\n" for i in range(10_000)))
    glob = tmp / "h-glob"
    glob.mkdir()
    (glob / "a.sh").write_text("vllm serve m --foo\n")
    (glob / "pyproject.toml").write_text('[tool.vllm-preflight.per-file-ignores]\n"' + "*a" * 20_000 + '" = ["VP201"]\n')
    codes = tmp / "h-codes.sh"
    codes.write_text("vllm serve m  # vllm-preflight: ignore[" + ", ".join(f"VX{i}" for i in range(200_000)) + "]\n")
    merges = tmp / "h-merge.yaml"  # a chain of 600 merge keys, each mapping merging the one before
    merges.write_text("m0: &m0 {k0: 0}\n" + "".join(f"m{i}: &m{i} {{<<: *m{i - 1}, k{i}: {i}}}\n" for i in range(1, 600))
                      + "model: m\n")
    secret = tmp / "h-private"
    secret.mkdir()
    (secret / "s.yaml").write_text("".join(f"key{i}: value{i}\n" for i in range(4_000)))  # 8,000 words
    (tmp / "h-proj").mkdir()
    (tmp / "h-proj" / "serve.sh").write_text(f"vllm serve m --config {secret / 's.yaml'}\n")
    return [
        ("folder with a link to /", [folder("h-root", "/"), str(good)], None),
        ("folder with a link to ..", [folder("h-up", ".."), str(good)], None),
        ("folder nested 1,500 deep", [str(deep), str(good)], None),
        ("Pod with 10,000 containers", [str(pod), str(good)], None),
        ("kind: List of 10,000 Pods", [str(pods), str(good)], None),
        ("per-file-ignore glob of 40 KB", ["a.sh"], str(glob)),
        ("ignore naming 200,000 unknown codes", [str(codes)], None),
        ("600 chained YAML merge keys (node budget)", [str(merges)], None),
        ("--config outside the tree (4,000 keys)", [str(tmp / "h-proj" / "serve.sh")], None),
        ("same, --allow-path (4,000 keys named by place)", ["--allow-path", str(secret),
                                                            str(tmp / "h-proj" / "serve.sh")], None),
    ]


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="run only the cases whose name holds this text")
    only = ap.parse_args().only
    print(f"peak RSS and wall time, one fresh process per case (goals: under {LIMIT_MB} MB; hostile cases "
          "under 30 s)")
    worst_mb, worst_s = 0.0, 0.0
    d = tempfile.mkdtemp()
    try:
        tmp = Path(d)
        check = [(name, ["check", "--format", "json", *args], None) for name, args in cases(tmp)]
        hostile = [(name, ["check", "--format", "json", *args], cwd) for name, args, cwd in hostile_cases(tmp)]
        matrix = [(name, argv, None) for name, argv in matrix_cases(tmp)]
        for name, argv, cwd in check + hostile + matrix:
            if only not in name:
                continue
            mb, worker, wall, code = run(argv, cwd=cwd)
            worst_mb, worst_s = max(worst_mb, mb, worker), max(worst_s, wall)
            workers = f" (worker {worker:4.0f} MB)" if worker >= 1 else ""
            print(f"  {name:60s} {mb:6.0f} MB{workers:18s} {wall:6.1f} s  exit {code}")
    finally:
        old = sys.getrecursionlimit()  # the 1,500-deep folder: shutil removes it one level per call
        sys.setrecursionlimit(max(old, 20_000))
        shutil.rmtree(d, ignore_errors=True)
        sys.setrecursionlimit(old)
    print(f"worst: {worst_mb:.0f} MB ({'within' if worst_mb < LIMIT_MB else 'OVER'} the {LIMIT_MB} MB goal), "
          f"slowest: {worst_s:.1f} s")


if __name__ == "__main__":
    main()
