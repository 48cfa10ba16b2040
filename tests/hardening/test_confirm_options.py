"""`confirm`'s options, given empty or unknown values, are usage errors (exit 2) before any log is
read, as `check`'s are: an empty `--record` never silently records nothing, an unknown
`--vllm-version` is never checked as another release, an `--env` without a name is refused."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def confirm(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-m", "vllm_preflight", "confirm", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("args,said", [
    (["--record", ""], "--record is empty"),
    (["--gpu", ""], "--gpu is empty"),
    (["--vllm-version", ""], "--vllm-version is empty"),
    (["--vllm-version", "9.9.9"], "unsupported --vllm-version '9.9.9'"),
    (["--vllm-version", "0.10.0"], "unsupported --vllm-version '0.10.0'"),
    (["--vllm-version", "\x1b[2J"], "unsupported --vllm-version '\\x1b[2J'"),
    (["--env", "=1"], "--env =1: the name is empty"),
])
def test_a_bad_option_is_a_usage_error(tmp_path, args, said):
    (tmp_path / "a.log").write_text("nothing logged\n")
    r = confirm(*args, "a.log", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert said in r.stderr and "Traceback" not in r.stderr and "\x1b" not in r.stderr
    assert "no vLLM engine start" not in r.stderr  # refused before the log is read
    assert list(tmp_path.iterdir()) == [tmp_path / "a.log"]


def test_standard_input_is_named_stdin_in_every_message(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    r = subprocess.run([sys.executable, "-m", "vllm_preflight", "confirm", "-"], cwd=tmp_path, env=env, input="junk\n",
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2 and r.stderr.startswith("vllm-preflight: <stdin>: no vLLM engine start found"), r.stderr
