"""Record the release-rule goldens (tests/golden/data/release_rules/VERSION.jsonl) on real vLLM.

    python tools/record_release_rules.py VERSION --oracle DIR

The corpus is the file's recorded cases (async scheduling + PP per runner, the V1 runner's
refusals, V2's stock-compile rule, KV connector lookups: kept as they are, re-asked) plus the
axes below, re-generated for each release: `v2_forced` (VLLM_USE_V2_MODEL_RUNNER=1 with a feature
V2 lacks, _validate_v2_model_runner), `async_spec` (async scheduling with a speculative method
that is not EAGLE/MTP-like) and `pcp` (0.12.0's ParallelConfig refuses prefill context parallel).
Every case is written with the oracle's answer; none is dropped because the port disagrees.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))

_rg = importlib.import_module("record_golden")  # a tools/ script on sys.path, as record_golden does
RAW_KEYS, oracle_case = _rg.RAW_KEYS, _rg.oracle_case

DATA = ROOT / "tests" / "golden" / "data" / "release_rules"
NEW_AXES = ("v2_forced", "async_spec", "pcp")
V2, V1 = {"VLLM_USE_V2_MODEL_RUNNER": "1"}, {"VLLM_USE_V2_MODEL_RUNNER": "0"}


def _spec(method: str, n: int = 2, **extra) -> list[str]:
    return ["--speculative-config", json.dumps({"method": method, "num_speculative_tokens": n, **extra})]


def new_cases() -> list[tuple[str, str, list[str], dict]]:
    """(axis, fixture model, argv after the model, env)."""
    ngram = _spec("ngram", prompt_lookup_max=4)
    out: list[tuple[str, str, list[str], dict]] = []
    for env in (V2, V1, {}):
        out += [("v2_forced", "llama-dense", ngram, env),
                ("v2_forced", "llama-dense", ngram + ["-cc.mode=3"], env),
                ("v2_forced", "llama-dense", ["-cc.mode=1"], env),
                ("v2_forced", "llama-dense", ngram + ["-cc.mode=1"], env),
                ("v2_forced", "llama-dense", _spec("ngram_gpu", prompt_lookup_max=4), env),
                ("v2_forced", "mixtral-moe", ["-tp", "2", "--enable-dbo", "-dp", "2", "--enable-expert-parallel",
                                              "--all2all-backend", "deepep_low_latency"], env),
                ("v2_forced", "llama-dense", ["-pcp", "2"], env),
                ("v2_forced", "mixtral-moe", ngram + ["-tp", "2"], env)]
        out += [("async_spec", "llama-dense", ngram + ["--async-scheduling"], env),
                ("async_spec", "llama-dense", ngram + ["--no-async-scheduling"], env),
                ("async_spec", "llama-dense", ngram + ["--async-scheduling", "-pp", "2"], env),
                ("async_spec", "llama-dense", ngram + ["--async-scheduling", "-cc.mode=0"], env),
                ("async_spec", "llama-dense", _spec("ngram_gpu", prompt_lookup_max=4) + ["--async-scheduling"], env),
                ("async_spec", "mixtral-moe", ngram + ["--async-scheduling", "-tp", "2"], env),
                ("async_spec", "llama-dense", ["--speculative-config",
                                               json.dumps({"model": "[ngram]", "num_speculative_tokens": 3,
                                                           "prompt_lookup_max": 3}), "--async-scheduling"], env),
                ("async_spec", "pp-deepseek-mtp", _spec("deepseek_mtp", 1) + ["--async-scheduling"], env),
                ("async_spec", "pp-deepseek-mtp", _spec("mtp", 1) + ["--async-scheduling", "-pp", "2"], env),
                ("v2_forced", "pp-deepseek-mtp", _spec("deepseek_mtp", 1), env),
                ("v2_forced", "llama-dense", ["-tp", "2", "-cc.mode=1", "-cc.cudagraph_mode=PIECEWISE"], env),
                ("v2_forced", "llama-dense", ["-tp", "2", "-cc.pass_config.enable_sp=true"], env),
                ("v2_forced", "mixtral-moe", ["-tp", "4", "-cc.pass_config.enable_sp=true", "-O3"], env),
                ("v2_forced", "pp-zamba2-hybrid", [], env), ("v2_forced", "pp-mamba2", [], env),
                ("v2_forced", "pp-jamba-hybrid-moe", ["-tp", "2"], env)]
    out += [("pcp", "llama-dense", ["-pcp", "2"], {}), ("pcp", "llama-dense", ["-pcp", "2", "-tp", "2"], {}),
            ("pcp", "llama-dense", ["-pcp", "1"], {}), ("pcp", "mixtral-moe", ["-pcp", "2", "-tp", "2"], {}),
            ("pcp", "llama-dense", ["--prefill-context-parallel-size", "4"], {}),
            ("pcp", "mixtral-moe", ["-pcp", "2", "-tp", "2", "--enable-expert-parallel", "--enable-eplb"], {}),
            ("pcp", "llama-dense", ["-pcp", "2", "-dcp", "2", "-tp", "2"], {})]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--oracle", required=True)
    a = ap.parse_args()
    path = DATA / f"{a.version}.jsonl"
    old = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()] if path.exists() else []
    cases = [{k: g[k] for k in ("argv", "axes", "env", "gpu", "id", "model")} for g in old
             if g["axes"][0] not in NEW_AXES]
    base = len(cases) + 100
    for i, (axis, model, tail, env) in enumerate(new_cases()):
        cases.append({"argv": ["vllm", "serve", f"{{models}}/{model}"] + tail, "axes": [axis], "env": dict(env),
                      "gpu": "H200", "id": f"{a.version}-r{base + i:03d}", "model": model})
    env = dict(os.environ)
    if a.version == "pr29558":
        env["ORACLE_PATCH"] = "pr29558"
    release = "0.12.0" if a.version == "pr29558" else a.version
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(oracle_case(c)) + "\n" for c in cases))
        subprocess.run(["bash", str(Path(a.oracle) / "run.sh"), release, "--batch", str(inp), "-o", str(outp),
                        "--no-fork"], check=True, env=env)
        results = {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}
    lines, broken = _rg.golden_lines(cases, results, a.version)
    _rg.write_goldens(path, lines)
    print(f"{path}: {len(lines)} cases, {len(broken)} oracle breakdowns; refused: "
          f"{sum(bool(g['expected']['vllm_error']) for g in lines)}")
    for b in broken[:10]:
        print("  oracle breakdown:", b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
