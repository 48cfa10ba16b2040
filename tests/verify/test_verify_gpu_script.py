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


def test_the_table_helper_reports_expected_and_unexpected_exits(tmp_path):
    record = {"checks": [{"id": "V2", "status": "fail"}, {"id": "N1", "status": "expected-fail-observed"}],
              "outcome": {"status": "fail"}, "timings": [], "environment": {"device": "NVIDIA H200"}}
    (tmp_path / "ht-default.json").write_text(__import__("json").dumps(record))
    ok = subprocess.run([sys.executable, str(ROOT / "bench" / "verify_gpu_table.py"), str(tmp_path),
                         "ht-default=1:1"], capture_output=True, text=True)
    assert ok.returncode == 0 and "ALL AS EXPECTED" in ok.stdout and "V2" in ok.stdout and "N1" in ok.stdout
    bad = subprocess.run([sys.executable, str(ROOT / "bench" / "verify_gpu_table.py"), str(tmp_path),
                          "ht-default=0:1", "missing-run=0:124"], capture_output=True, text=True)
    assert bad.returncode == 1 and "no record" in bad.stdout
