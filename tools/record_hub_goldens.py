"""Goldens for model files read from the Hub: real vLLM resolves each fixture model of
tests/fixtures/hub/ as a local folder; tests/model_files/test_hub_goldens.py resolves the same
command with the model's hub id through the loopback Hub, and the two must agree.

    python tools/record_hub_goldens.py VERSION --oracle DIR     # -> tests/golden/data/hub/VERSION.jsonl

DIR is the vllm-oracle folder (VLLM_ORACLE_HOME/venv-VERSION). Every case is recorded; a case
whose oracle run broke is kept out and counted.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))
from record_golden import golden_lines, print_outcomes, write_goldens  # type: ignore[import-not-found]

HUB = ROOT / "tests" / "fixtures" / "hub"
# fixture folder -> the hub id the loopback Hub serves it under (tests/model_files/hub_models.py)
sys.path.insert(0, str(ROOT / "tests" / "model_files"))
from hub_models import HUB_IDS, MOE

VARIANTS: tuple[tuple[str, ...], ...] = (
    (), ("-tp", "2"), ("-O3",), ("-O0",), ("--max-model-len", "100000000"), ("--max-model-len", "4096"),
    ("-cc", '{"cudagraph_mode": "FULL"}'), ("--quantization", "fp8"), ("--enforce-eager",),
)
MOE_VARIANTS: tuple[tuple[str, ...], ...] = (
    ("-dp", "8", "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput"),
    ("-dp", "2", "--enable-expert-parallel"),
)


def cases() -> list[dict]:
    out = []
    for name in sorted(HUB_IDS):
        variants = VARIANTS + (MOE_VARIANTS if name in MOE else ())
        for i, extra in enumerate(variants):
            out.append({"id": f"hub-{name}-{i}", "argv": ["vllm", "serve", "{hub}/" + name, *extra], "env": {},
                        "axes": ["family:hub"]})
    return out


def oracle_case(case: dict) -> dict:
    model_dir = HUB / case["argv"][2].split("/", 1)[1]
    if (model_dir / "vocab.json").exists():  # a processor needs its tokenizer: no --skip-tokenizer-init
        return {"id": case["id"], "cli_args": ["--model", str(model_dir)] + case["argv"][3:], "env": case["env"]}
    return {"id": case["id"], "cli_args": case["argv"][3:], "env": case["env"], "model": str(model_dir)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--only", help="re-record the cases of this fixture folder, keep the others")
    a = ap.parse_args()
    cs = [c for c in cases() if not a.only or c["argv"][2] == "{hub}/" + a.only]
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(oracle_case(c)) + "\n" for c in cs))
        subprocess.run(["bash", str(Path(a.oracle) / "run.sh"), a.version, "--batch", str(inp), "-o", str(outp),
                        "--no-fork"], check=True)
        results = {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}
    lines, broken = golden_lines(cs, results, a.version)
    out = ROOT / "tests" / "golden" / "data" / "hub" / f"{a.version}.jsonl"
    if a.only and out.exists():
        kept = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
        redone = {ln["id"]: ln for ln in lines}
        lines = [redone.pop(g["id"], g) for g in kept] + list(redone.values())
    write_goldens(out, lines)
    print_outcomes(out, lines, broken)
    return 0


if __name__ == "__main__":
    sys.exit(main())
