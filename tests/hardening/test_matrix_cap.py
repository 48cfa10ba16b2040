"""The matrix's cell cap (issue 25): 28,080 cells took 3 minutes and 1 GB with no limit. Past
--max-cells (default 15,000, or `matrix-max-cells` in the project configuration) the matrix is
refused before anything is resolved: one line, exit 2."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from hostile import invoke
from hsupport import ROOT

from vllm_preflight.matrix import axes, cells, targets

HT = str(ROOT / "examples" / "deepep-ht-dp8.sh")


def test_the_default_matrix_fits_the_default_cap():
    every = targets.parse_targets(None)
    n = cells.count(every, axes.DEFAULT_AXES)
    assert n == len(cells.plan(axes.base_deployment(), every, axes.DEFAULT_AXES).cells)
    assert 12_000 < n <= cells.DEFAULT_MAX_CELLS


@pytest.mark.parametrize("axes_text, where", [
    ("dp", {}), ("all2all,ep,mode", {"ep": {"on"}}), ("model,partition,fusion", {"model": {"dense"}}),
])
def test_count_is_the_plan_size(axes_text, where):
    picked = targets.parse_targets("0.11.0..0.14.0")
    chosen = axes.parse_axes(axes_text)
    assert cells.count(picked, chosen, where) == len(cells.plan(axes.base_deployment(), picked, chosen, where).cells)


def test_a_huge_matrix_is_refused_quickly():
    """--axes all2all,dp,mode,cudagraph_mode over every release is 30,690 cells."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "vllm_preflight", "matrix", "--axes", "all2all,dp,mode,cudagraph_mode"],
                       env=env, capture_output=True, text=True, timeout=30, check=False)
    assert time.monotonic() - t < 30
    assert r.returncode == 2, r.stderr
    assert "30,690 cells, more than the limit of 15,000" in r.stderr and "--max-cells 30690" in r.stderr
    assert r.stdout == ""


def test_max_cells_option():
    args = ["matrix", "--axes", "dp,ep", "--vllm-version", "0.33.0"]  # 3 x 2 cells
    assert invoke([*args, "--max-cells", "6"])[0] == 0
    code, _out, err = invoke([*args, "--max-cells", "5"])
    assert code == 2 and "6 cells, more than the limit of 5" in err
    code, _out, err = invoke([*args, "--max-cells", "0"])
    assert code == 2 and "--max-cells" in err


def test_every_input_counts():
    code, _out, err = invoke(["matrix", HT, HT.replace("deepep-ht-dp8", "deepep-ht-dp8-piecewise"), "--max-cells", "40"])
    assert code == 2 and "2 deployments x 36 cells: 72 cells, more than the limit of 40" in err


def test_project_configuration_key(tmp_path):
    (tmp_path / ".vllm-preflight.yaml").write_text("matrix-max-cells: 5\n")
    args = ["matrix", "--axes", "dp,ep", "--vllm-version", "0.33.0"]
    code, _out, err = invoke(args, cwd=tmp_path)
    assert code == 2 and "more than the limit of 5" in err
    assert invoke([*args, "--max-cells", "6"], cwd=tmp_path)[0] == 0  # the option wins
    (tmp_path / ".vllm-preflight.yaml").write_text("matrix-max-cells: lots\n")
    code, _out, err = invoke(args, cwd=tmp_path)
    assert code == 2 and "matrix-max-cells takes a whole number" in err
