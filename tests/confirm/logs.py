"""Building vLLM start logs for the tests from recorded messages (tests/fixtures/confirm).

Each fixture line holds the two messages real vLLM wrote for a golden case (its
`log_non_default_args` and its engine core's start line with `str(VllmConfig)`), recorded by
tools/record_confirm_logs.py. These helpers put vLLM's own record header around them, and the
decorations a collected log carries.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "confirm"
MODELS = ROOT / "tests" / "fixtures" / "models"
GOLDEN = ROOT / "tests" / "golden" / "data"


def releases() -> list[str]:
    return sorted((p.name.removesuffix(".jsonl.gz") for p in FIXTURES.glob("*.jsonl.gz")),
                  key=lambda v: tuple(int(x) for x in v.split(".")))


def recorded(release: str) -> list[dict]:
    with gzip.open(FIXTURES / f"{release}.jsonl.gz", "rt") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    goldens = {}
    for line in (GOLDEN / f"{release}.jsonl").read_text().splitlines():
        g = json.loads(line)
        goldens[g["id"]] = g
    for c in cases:
        c["golden"] = goldens[c["id"]]
        c["args"] = c["args"].replace("{models}", str(MODELS))
        c["engine"] = c["engine"].replace("{models}", str(MODELS))
    return cases


def header(level: str = "INFO", where: str = "core.py:93", clock: str = "12-02 14:43:37") -> str:
    return f"{level} {clock} [{where}] "


def start_log(case: dict, *, api: str = "(APIServer pid=4021) ", engine: str = "(EngineCore_DP0 pid=4190) ",
              captures: tuple[str, ...] = (), finished: bool = True, version_line: bool = True) -> list[str]:
    """The lines of one start as a `vllm serve` process writes them."""
    lines = []
    if version_line:
        lines.append(api + header(where="api_server.py:1839") + f"vLLM API server version {case['version']}")
    lines.append(api + header(where="utils.py:233") + case["args"])
    lines.append(api + header(where="arg_utils.py:1200") + "Using max model len 8192")
    lines.append(engine + header(where="core.py:93") + case["engine"])
    lines.append(engine + header(where="parallel_state.py:1208") + "rank 0 in world size 1 is assigned as DP rank 0")
    for c in captures:
        lines.append(engine + header(where="gpu_model_runner.py:3800")
                     + f"Capturing CUDA graphs ({c}): 100%|██████████| 67/67 [00:04<00:00, 15.42it/s]")
    if finished:
        lines.append(engine + header(where="gpu_model_runner.py:3900") + "Graph capturing finished in 6 secs, took 0.56 GiB")
    return lines


CAPTURES = {
    "FULL_AND_PIECEWISE": ("mixed prefill-decode, PIECEWISE", "decode, FULL"),
    "FULL_DECODE_ONLY": ("decode, FULL",),
    "FULL": ("mixed prefill-decode, FULL",),
    "PIECEWISE": ("mixed prefill-decode, PIECEWISE",),
    "NONE": (),
}
