"""Peak memory (max RSS) and wall time of `vllm-preflight check` on big and hostile inputs.

Each case runs in a fresh process; the goal (issue 11) is that no input under the size limit
takes `check` past 1 GB. Prints one line per case:

    python bench/bench_memory.py
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
# the child prints its own peak RSS when it exits (Linux reports ru_maxrss in KiB)
RUNNER = ("import atexit, resource, sys\n"
          "atexit.register(lambda: sys.stderr.write('MAXRSS %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
          "sys.argv = ['vllm-preflight'] + sys.argv[1:]\n"
          "from vllm_preflight.cli import main\n"
          "main()\n")


def run(args: list[str], timeout: float = 600) -> tuple[float, float, int]:
    """(peak MB, seconds, exit code) of `check --format json ARGS` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", RUNNER, "check", "--format", "json", *args], env=env,
                       capture_output=True, text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - t
    m = re.search(r"MAXRSS (\d+)", r.stderr)
    return (int(m.group(1)) / 1024 if m else float("nan")), wall, r.returncode


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


def main() -> None:
    print(f"peak RSS of `check --format json`, one fresh process per case (goal: under {LIMIT_MB} MB)")
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        for name, args in cases(Path(d)):
            mb, wall, code = run(args)
            worst = max(worst, mb)
            print(f"  {name:48s} {mb:8.0f} MB  {wall:6.1f} s  exit {code}")
    print(f"worst: {worst:.0f} MB ({'within' if worst < LIMIT_MB else 'OVER'} the {LIMIT_MB} MB goal)")


if __name__ == "__main__":
    main()
