"""Helpers for the hardening tests: run `check` in-process (CliRunner) or as a child process
with a hard timeout (a hang fails the test instead of stalling the suite)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli

ROOT = Path(__file__).resolve().parents[2]

GOOD = "vllm serve Qwen/Qwen3-0.6B -tp 2\n"


def check(*args: str):
    """(exit code, parsed JSON or None, stderr) of `vllm-preflight check --format json ARGS`."""
    r = CliRunner().invoke(cli, ["check", "--format", "json", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    out = r.stdout
    try:
        doc = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        doc = None
    return r.exit_code, doc, r.stderr


def check_process(*args: str, cwd: str | os.PathLike | None = None, timeout: float = 60):
    """`check` in a child process; subprocess.TimeoutExpired (a failure) if it hangs."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    return subprocess.run([sys.executable, "-m", "vllm_preflight", "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


@pytest.fixture
def good(tmp_path) -> Path:
    p = tmp_path / "good.sh"
    p.write_text(GOOD)
    return p


def sources(doc) -> list[str]:
    return [r["source"] for r in (doc or {}).get("results", [])]
