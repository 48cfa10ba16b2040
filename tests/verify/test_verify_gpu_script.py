"""CI runs the CPU-side part of bench/verify_gpu.sh: without a GPU it prints the plan, names what
is missing and exits 3 (it never installs anything)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_without_a_gpu_the_script_shows_the_plan_and_exits_3(tmp_path, torch_threads):
    if torch_threads.cuda.is_available():
        pytest.skip("a GPU is present: the script would run the tier")
    env = dict(os.environ, PYTHON=sys.executable)
    res = subprocess.run(["bash", str(ROOT / "bench" / "verify_gpu.sh"), str(tmp_path)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "cudagraph_mode    PIECEWISE" in res.stdout          # the CPU-side part: resolution and plan
    assert "UNAVAILABLE (exit 3)" in res.stdout
    assert "missing:" in res.stderr and "CUDA GPU" in res.stderr


def _timing(graph, size, eager, replay):
    spread = {"p10": 0.0, "p90": 0.0, "host_median": 0.0}
    return {"graph": graph, "dtype": "bfloat16", "size": size, "eager_ms": dict(spread, median=eager),
            "graph_ms": dict(spread, median=replay), "speedup": eager / replay}


def test_the_table_helper_reports_timings_per_size_and_expected_and_unexpected_exits(tmp_path):
    record = {"checks": [{"id": "V2", "status": "fail"}, {"id": "N1", "status": "expected-fail-observed"}],
              "outcome": {"status": "fail"}, "environment": {"device": "NVIDIA H200"},
              "timings": [_timing("piecewise", 1, 2.0, 1.0), _timing("piecewise", 8, 3.0, 2.0)],
              "plan": {"not_timed": {"full": "not captured: its static checks failed"}}}
    (tmp_path / "ht-default.json").write_text(__import__("json").dumps(record))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    ok = subprocess.run([sys.executable, str(ROOT / "bench" / "verify_gpu_table.py"), str(tmp_path),
                         "ht-default=1:1"], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and "ALL AS EXPECTED" in ok.stdout and "V2" in ok.stdout and "N1" in ok.stdout
    lines = ok.stdout.splitlines()
    header = next(ln for ln in lines if "eager" in ln and "piecewise" in ln and "full" in ln)
    assert "2.000" in lines[lines.index(header) + 1] and "1.000 (2.00x)" in lines[lines.index(header) + 1]
    assert "full: not timed (not captured: its static checks failed)" in ok.stdout
    bad = subprocess.run([sys.executable, str(ROOT / "bench" / "verify_gpu_table.py"), str(tmp_path),
                          "ht-default=0:1", "missing-run=0:124"], capture_output=True, text=True, env=env)
    assert bad.returncode == 1 and "no record" in bad.stdout


def test_the_script_states_a_budget_under_8_minutes():
    """The run limits the script passes to `timeout`, plus the kill grace of each, stay under 8
    minutes with room for the probe and the tables."""
    import re

    text = (ROOT / "bench" / "verify_gpu.sh").read_text()
    limits = [int(m) for m in re.findall(r"^verify \S+ +\d +(\d+) +\d+ ", text, flags=re.MULTILINE)]
    grace = int(re.search(r"--kill-after=(\d+)", text).group(1))
    assert len(limits) == 4 and sum(limits) + grace * len(limits) <= 480 - 15
