"""Record the arch_hooks model family: `tools/record_golden.py` with one change to the oracle input.

From 0.23.0 vLLM sets VLLM_USE_BREAKABLE_CUDAGRAPH=1 in its own process environment for some
architectures (AliceAI, Qwen4Exp, DeepSeek V3.2, ...). In the oracle's one-process batch mode
that variable would stay set for every later case, so each case whose env does not name it
asks the oracle to unset it first (`null`: unset, the oracle's case format); the goldens keep
the case's own env.

    python tools/record_arch_hooks.py VERSION --oracle ORACLE_DIR
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record_golden  # type: ignore[import-not-found]

_plain_case = record_golden.oracle_case


def oracle_case(case: dict) -> dict:
    out = _plain_case(case)
    out["env"] = {"VLLM_USE_BREAKABLE_CUDAGRAPH": None, **out["env"]}
    return out


if __name__ == "__main__":
    record_golden.oracle_case = oracle_case
    sys.argv[1:] = sys.argv[1:] + ["--model-family", "arch_hooks"]
    sys.exit(record_golden.main())
