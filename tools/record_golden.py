"""Have a real vLLM release resolve the seeded corpus and write golden JSONL.

    python tools/record_golden.py VERSION --oracle DIR [--n 360] [-o tests/golden/VERSION.jsonl]
    python tools/record_golden.py pr29558 --oracle DIR      # real 0.12.0 with ORACLE_PATCH=pr29558

DIR is the vllm-oracle folder (its README explains the venvs: VLLM_ORACLE_HOME/venv-VERSION).
Every generated case is recorded; none is dropped because our port disagrees. A case whose
oracle run broke (the oracle's own failure, not vLLM's answer) is kept out and counted.
Each golden line holds the case, the oracle's raw answer (its version, platform.is_cuda, info
and warning lines, resolved fields, error text) and `expected`, the normalised values that
the golden tests compare with our resolver.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))
from compare import expected_of

import corpus_model_families
import gen_corpus

MODELS_DIR = ROOT / "tests" / "fixtures" / "models"
RAW_KEYS = ("vllm_version", "torch_version", "path", "error", "warnings", "info", "splitting_ops",
            "cudagraph_mode", "mode", "mode_value", "level", "use_inductor_graph_partition",
            "pass_config", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "custom_ops",
            "backend", "optimization_level", "enforce_eager", "parallel")


def oracle_case(case: dict) -> dict:
    argv = case["argv"]
    assert argv[:2] == ["vllm", "serve"]
    model_dir = MODELS_DIR / argv[2].split("/", 1)[1]
    # other fixture folders named in the options (a draft model in --speculative-config)
    argv = argv[:3] + [w.replace("{models}", str(MODELS_DIR)) for w in argv[3:]]
    if (model_dir / "vocab.json").exists():
        # a model that ships a tokenizer (Whisper: its processor needs one at config
        # time) is named with --model, so the oracle does not skip tokenizer init
        return {"id": case["id"], "cli_args": ["--model", str(model_dir)] + argv[3:], "env": case["env"]}
    return {"id": case["id"], "cli_args": argv[3:], "env": case["env"], "model": str(model_dir)}


def golden_lines(cases: list[dict], results: dict, version: str,
                 breakdown: tuple[str, ...] = ("oracle",)) -> tuple[list[dict], list]:
    """Golden lines from the oracle's answers (by case id): the raw answer and its `expected`
    shape; a case with no answer or an error starting with `breakdown` (the recorder's own
    failure, not vLLM's) is left out and returned in the second list."""
    lines, broken = [], []
    for c in cases:
        res = results.get(c["id"])
        if res is None or str(res.get("error") or "").startswith(breakdown):
            broken.append((c["id"], (res or {}).get("error")))
            continue
        raw = {k: res.get(k) for k in RAW_KEYS}
        raw["platform_is_cuda"] = (res.get("platform") or {}).get("is_cuda")
        lines.append({**c, "target": "pr29558" if version == "pr29558" else "release",
                      "oracle": raw, "expected": expected_of(raw)})
    return lines, broken


def write_goldens(path: Path, lines: list[dict]) -> None:
    """One JSON line per case; the oracle sees absolute fixture paths, goldens keep them
    relative to the repository."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = str(ROOT) + "/"
    path.write_text("".join(json.dumps(g, sort_keys=True).replace(prefix, "") + "\n" for g in lines))


def print_outcomes(out: Path, lines: list[dict], broken: list, what: str = "oracle") -> None:
    """The recorder's closing lines: cases, breakdowns, outcomes by refusal type."""
    counts = Counter(("error:" + ln["expected"]["vllm_error"]["type"]) if ln["expected"]["vllm_error"] else "ok"
                     for ln in lines)
    print(f"{out}: {len(lines)} cases, {len(broken)} {what} breakdowns; outcomes: {dict(sorted(counts.items()))}")
    for b in broken[:10]:
        print(f"  {what} breakdown:", b)


def outcome_counts(lines: list[dict]) -> Counter:
    c: Counter = Counter()
    for g in lines:
        e = g["expected"]
        if e["vllm_error"]:
            c["error:" + e["vllm_error"]["type"]] += 1
            continue
        c["cudagraph_mode:" + str(e["cudagraph_mode"])] += 1
        if e["all2all_backend"] == "deepep_high_throughput" and (e["data_parallel_size"] or 1) > 1:
            kind = gen_corpus.MODELS[g["model"]]
            c["deepep_ht_dp>1:" + ("moe" if kind.startswith("moe") else "dense")] += 1
    return c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version", help="a release such as 0.13.0, or pr29558")
    ap.add_argument("--oracle", required=True, help="the vllm-oracle folder")
    ap.add_argument("--n", type=int, default=360)
    ap.add_argument("--seed", type=int, default=29558)
    ap.add_argument("-o", "--output")
    ap.add_argument("--fork", action="store_true", help="one forked process per case (slow)")
    ap.add_argument("--families", action="store_true",
                    help="the refusal-family corpus (gen_corpus.family_cases) -> tests/golden/data/families/")
    ap.add_argument("--model-family", choices=sorted(corpus_model_families.MODEL_FAMILIES),
                    help="one model-level family (corpus_model_families) -> tests/golden/data/model_families/FAMILY/")
    ap.add_argument("--dynamic-spec", action="store_true",
                    help="dynamic speculative decoding (gen_corpus.dynamic_spec_cases) -> tests/golden/data/dynamic_spec/")
    a = ap.parse_args()
    release = "0.12.0" if a.version == "pr29558" else a.version
    if a.dynamic_spec:
        cases = gen_corpus.dynamic_spec_cases(a.version)
    elif a.families:
        cases = gen_corpus.family_cases(a.version, max(a.n, 520), a.seed)
    elif a.model_family:
        cases = corpus_model_families.model_family_cases(a.version, a.model_family,
                                                         corpus_model_families.FAMILY_CASES, a.seed)
    else:
        cases = gen_corpus.generate(a.version, a.n, a.seed)
    env = dict(os.environ)
    if a.version == "pr29558":
        env["ORACLE_PATCH"] = "pr29558"
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(oracle_case(c)) + "\n" for c in cases))
        # --no-fork: one process resolves every case (vLLM's once-log caches and env reset
        # between cases; the oracle's README found it identical to fork mode on 200 random
        # cases). Fork mode re-runs vLLM's model inspection subprocess for each case.
        mode = [] if a.fork else ["--no-fork"]
        subprocess.run(["bash", str(Path(a.oracle) / "run.sh"), release, "--batch", str(inp),
                        "-o", str(outp)] + mode, check=True, env=env)
        results = {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}
    lines, broken = golden_lines(cases, results, a.version)
    folder = ("data/dynamic_spec" if a.dynamic_spec else "data/families" if a.families
              else f"data/model_families/{a.model_family}" if a.model_family else "")
    out = Path(a.output or ROOT / "tests" / "golden" / folder / f"{a.version}.jsonl")
    write_goldens(out, lines)
    counts = outcome_counts(lines) if not (a.families or a.dynamic_spec or a.model_family) else Counter(
        ("error:" + ln["expected"]["vllm_error"]["type"]) if ln["expected"]["vllm_error"] else "ok" for ln in lines)
    print(f"{out}: {len(lines)} cases, {len(broken)} oracle breakdowns; outcomes: "
          f"{dict(sorted(counts.items()))}")
    for b in broken[:10]:
        print("  oracle breakdown:", b)
    if not all(ln["oracle"]["platform_is_cuda"] for ln in lines):
        print("WARNING: some cases did not run on the emulated CUDA platform")
    return 0


if __name__ == "__main__":
    sys.exit(main())
