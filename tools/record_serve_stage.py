"""Have real `vllm serve` entry code judge the serve_stage corpus and write its golden JSONL.

    python tools/record_serve_stage.py VERSION --oracle DIR [--venv VENV] [-o OUT]
    python tools/record_serve_stage.py pr29558 --oracle DIR     # real 0.12.0 with ORACLE_PATCH=pr29558

DIR is the vllm-oracle folder; VENV defaults to $VLLM_ORACLE_HOME/venv-VERSION (VLLM_ORACLE_HOME
defaults to ~/vllm-oracle, as the oracle's run.sh has it). The cases are
tools/corpus_model_families.py's `serve_stage` family (tools/corpus_serve_stage.py). Each one
runs through tools/serve_stage_harness.py inside the venv: the release's own `vllm serve`
parser, `validate_parsed_serve_args`, `ServeSubcommand.cmd` and what it calls, with sockets,
processes and the engine itself replaced (see the harness). The first exception is vLLM's
answer; a command that gets as far as building the engine is accepted, and the VllmConfig
vLLM built on the way is reported in the oracle's shape. Lines are written like
tools/record_golden.py's (case, raw oracle answer, `expected`) to
tests/golden/data/model_families/serve_stage/VERSION.jsonl.
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

import corpus_model_families
from record_golden import MODELS_DIR, golden_lines, print_outcomes, write_goldens  # type: ignore[import-not-found]

FAMILY = "serve_stage"


def harness_case(case: dict) -> dict:
    argv = case["argv"]
    assert argv[:2] == ["vllm", "serve"]
    model_dir = MODELS_DIR / argv[2].split("/", 1)[1]
    return {"id": case["id"], "model": str(model_dir), "args": argv[3:], "env": case["env"],
            "with_tokenizer": (model_dir / "vocab.json").exists()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version", help="a release such as 0.13.0, or pr29558")
    ap.add_argument("--oracle", required=True, help="the vllm-oracle folder")
    ap.add_argument("--venv", help="the release venv (default: $VLLM_ORACLE_HOME/venv-VERSION)")
    ap.add_argument("--seed", type=int, default=29558)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    release = "0.12.0" if a.version == "pr29558" else a.version
    home = os.environ.get("VLLM_ORACLE_HOME") or os.path.expanduser("~/vllm-oracle")
    venv = Path(a.venv or os.path.join(home, f"venv-{release}"))
    cases = corpus_model_families.model_family_cases(a.version, FAMILY, corpus_model_families.FAMILY_CASES, a.seed)
    env = dict(os.environ)
    if a.version == "pr29558":
        env["ORACLE_PATCH"] = "pr29558"
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(harness_case(c)) + "\n" for c in cases))
        subprocess.run([str(venv / "bin" / "python"), str(ROOT / "tools" / "serve_stage_harness.py"),
                        "--oracle", str(a.oracle), "--batch", str(inp), "-o", str(outp)], check=True, env=env)
        results = {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}
    lines, broken = golden_lines(cases, results, a.version, breakdown=("oracle", "RuntimeError: harness"))
    out = Path(a.output or ROOT / "tests" / "golden" / "data" / "model_families" / FAMILY / f"{a.version}.jsonl")
    write_goldens(out, lines)
    print_outcomes(out, lines, broken, "harness")
    return 0


if __name__ == "__main__":
    sys.exit(main())
