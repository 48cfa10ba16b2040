"""Record 0.33.0's config-time refusal of LoRA on architectures without `SupportsLoRA`.

    python tools/record_lora_arch.py VERSION --oracle DIR

vLLM's message names the model's path (`LoRA is not supported for ARCH (PATH)`), so these
cases keep the fixture folder as `{models}` in the recorded error (record_golden.py strips the
repository prefix instead, which a resolver given absolute paths cannot reproduce). Written to
tests/golden/data/lora_arch/VERSION.jsonl and checked by tests/golden/test_lora_arch.py.
Cases from 0.33.0 on only: before it the model runner refuses after the weights load.
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
from compare import expected_of

MODELS_DIR = ROOT / "tests" / "fixtures" / "models"
# the oracle's answer kept in a golden line (as tools/record_golden.py keeps it)
RAW_KEYS = ("vllm_version", "torch_version", "path", "error", "warnings", "info", "splitting_ops",
            "cudagraph_mode", "mode", "mode_value", "level", "use_inductor_graph_partition",
            "pass_config", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "custom_ops",
            "backend", "optimization_level", "enforce_eager", "parallel")


def oracle_case(case: dict) -> dict:
    """A config.json-only fixture: the oracle adds --model DIR --skip-tokenizer-init."""
    return {"id": case["id"], "cli_args": case["argv"][3:], "env": case["env"],
            "model": str(MODELS_DIR / case["model"])}


ON = ["--enable-lora"]
POOL: list[tuple[str, list[str], dict]] = [
    ("lora-gpt2-nolora", ON, {}),
    ("lora-gpt2-nolora", ON + ["-O3", "--max-loras", "2"], {}),
    ("lora-gpt2-nolora", ON + ["--enforce-eager", "--max-lora-rank", "64"], {}),
    ("lora-gpt2-nolora", ON + ["--convert", "embed"], {}),
    ("lora-gpt2-nolora", ON + ["-tp", "2", "--fully-sharded-loras"], {}),
    ("lora-gpt2-nolora", ON + ["-cc", '{"cudagraph_mode": "FULL"}'], {}),
    ("lora-gpt2-nolora", ON + ["--max-loras", "4", "--max-cpu-loras", "8"], {}),
    ("lora-gpt2-nolora", ON + ["--moe-backend", "triton"], {}),
    ("lora-falcon-nolora", ON, {}),
    ("lora-falcon-nolora", ON + ["--enforce-eager"], {}),
    ("lora-falcon-nolora", ON + ["-tp", "2"], {}),
    ("lora-falcon-nolora", ON + ["-O0", "--lora-dtype", "float16"], {}),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--oracle", required=True)
    a = ap.parse_args()
    cases = [{"id": f"{a.version}-lora_arch-{i:04d}", "argv": ["vllm", "serve", "{models}/" + m] + words,
              "env": env, "model": m, "gpu": "H200", "axes": ["family:lora_arch"]}
             for i, (m, words, env) in enumerate(POOL)]
    with tempfile.TemporaryDirectory() as td:
        inp, outp = Path(td) / "in.jsonl", Path(td) / "out.jsonl"
        inp.write_text("".join(json.dumps(oracle_case(c)) + "\n" for c in cases))
        subprocess.run(["bash", str(Path(a.oracle) / "run.sh"), a.version, "--batch", str(inp), "-o", str(outp),
                        "--no-fork"], check=True, env=dict(os.environ))
        results = {r["id"]: r for r in map(json.loads, outp.read_text().splitlines())}
    lines = []
    for c in cases:
        res = results[c["id"]]
        raw = {k: res.get(k) for k in RAW_KEYS}
        raw["platform_is_cuda"] = (res.get("platform") or {}).get("is_cuda")
        lines.append({**c, "target": "release", "oracle": raw, "expected": expected_of(raw)})
    out = ROOT / "tests" / "golden" / "data" / "lora_arch" / f"{a.version}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(g, sort_keys=True) + "\n" for g in lines)
    out.write_text(text.replace(str(MODELS_DIR), "{models}").replace(str(ROOT) + "/", ""))
    print(out, len(lines), "cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
