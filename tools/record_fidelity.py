"""Have a real vLLM release resolve issue 24's corpus (tools/corpus_fidelity.py) and write goldens.

    python tools/record_fidelity.py VERSION FAMILY --oracle DIR [--gpus T4,V100,...]

DIR is the vllm-oracle folder (VLLM_ORACLE_HOME holds venv-VERSION). `gpu_classes` runs one
oracle batch per GPU class with the GPU emulated (its compute capability, NVML name, memory and
count, from vllm_preflight.gpus); the other families run on the default H200. Every case is
kept; a case whose oracle run broke is left out and counted. Output:
tests/golden/data/fidelity/FAMILY/VERSION.jsonl, each line carrying the GPU it ran on.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))
import corpus_fidelity
from record_golden import golden_lines, oracle_case, print_outcomes, write_goldens  # type: ignore[import-not-found]
from vllm_preflight.gpus import GPUS
from vllm_preflight.releases import version_key

FAMILIES = ("gpu_classes", "env_choices", "field_types", "transformers_defaults")


def cases_of(version: str, family: str, gpu: str) -> list[dict]:
    v = version_key(version)
    if family == "env_choices":
        from vllm_preflight.releases import env_choices

        pool = corpus_fidelity.env_choices(v, env_choices(version))
    else:
        pool = getattr(corpus_fidelity, family)(v)
    out = []
    for i, (model, words, env) in enumerate(pool):
        out.append({"id": f"{version}-{family}-{gpu}-{i:04d}", "argv": ["vllm", "serve", "{models}/" + model, *words],
                    "axes": [family, f"gpu:{gpu}", f"model:{model}"], "env": env, "gpu": gpu, "model": model})
    return out


def _oracle(oracle: str, version: str) -> tuple[list[str], dict]:
    """The oracle's command and environment: the venv's python run directly, so that
    VLLM_ORACLE_HOME (a VLLM_* name vLLM would warn about) is not in vLLM's environment."""
    env = dict(os.environ)
    home = env.pop("VLLM_ORACLE_HOME", os.path.expanduser("~/vllm-oracle"))
    return [f"{home}/venv-{version}/bin/python", str(Path(oracle) / "vllm_resolve.py")], env


def run_batch(oracle: str, version: str, cases: list[dict], gpu: str) -> dict:
    g = GPUS[gpu]
    flags = ["--gpu-count", str(g.per_node), "--capability", f"{g.capability[0]}.{g.capability[1]}",
             "--gpu-name", g.device_name, "--gpu-mem-gib", str(g.memory_gib)]
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(oracle_case(c)) + "\n" for c in cases))
        cmd, env = _oracle(oracle, version)
        subprocess.run([*cmd, "--batch", str(inp), "-o", str(outp), "--no-fork", *flags], check=True, env=env)
        return {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}


def run_single(oracle: str, version: str, cases: list[dict]) -> dict:
    """One fresh process per case, the environment set before vLLM is imported (as on a node)."""
    out = {}
    with tempfile.TemporaryDirectory() as td:
        for c in cases:
            path = Path(td) / "case.json"
            path.write_text(json.dumps(oracle_case(c)))
            cmd, env = _oracle(oracle, version)
            run = subprocess.run([*cmd, str(path)], check=False, capture_output=True, text=True, env=env)
            lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
            if lines:
                res = json.loads(lines[-1])
                out[res["id"]] = res
                print(c["id"], c["env"], res.get("error"), flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("family", choices=FAMILIES)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--gpus", default=",".join(corpus_fidelity.GPU_CLASSES))
    a = ap.parse_args()
    gpus = a.gpus.split(",") if a.family == "gpu_classes" else ["H200"]
    lines, broken = [], []
    for gpu in gpus:
        cases = cases_of(a.version, a.family, gpu)
        results = run_single(a.oracle, a.version, cases) if a.family == "env_choices" else \
            run_batch(a.oracle, a.version, cases, gpu)
        got, bad = golden_lines(cases, results, a.version)
        lines += got
        broken += bad
    out = ROOT / "tests" / "golden" / "data" / "fidelity" / a.family / f"{a.version}.jsonl"
    write_goldens(out, lines)
    print_outcomes(out, lines, broken)
    return 0


if __name__ == "__main__":
    sys.exit(main())
