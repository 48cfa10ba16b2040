"""Running `vllm-preflight check` in-process for the report and CI tests."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]

# inputs whose findings come from the loaders and the schema (stable across hazard-rule work)
CLEAN = "vllm serve Qwen/Qwen3-0.6B\n"
REFUSES = "vllm serve Qwen/Qwen3-0.6B --no-such-flag\n"  # VP201 at 1:28, VP300 (refusal) at 1:1
DUPLICATE = "vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --max-model-len 8192\n"  # VP108 (info) at 1:28
CONTINUATION = "vllm serve Qwen/Qwen3-0.6B \\\n# a comment\n  --max-model-len 4096\n"  # VP101 (warning) at 2:1


@dataclass
class Run:
    code: int
    out: str
    err: str


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def run_check(*args: str, stdin: str | None = None) -> Run:
    from vllm_preflight.cli import cli
    from vllm_preflight.load import source

    source._stdin.clear()  # one process, many runs: each reads its own stdin
    result = _runner().invoke(cli, ["check", *args], input=stdin)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Run(result.exit_code, result.stdout, result.stderr)


def run_process(*args: str, cwd=None, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "vllm_preflight", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """An empty project folder as the working directory (no config above it is found: tmp)."""
    monkeypatch.chdir(tmp_path)

    def write(name: str, text: str) -> str:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return name

    write.path = tmp_path
    return write
