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


FORMATS = ("text", "concise", "json", "sarif", "github", "junit")
BOUND_SECONDS = 30  # issue 25: every hostile reproduction ends within 30 s ...
BOUND_BYTES = 1 << 30  # ... under 1 GB


def check_all_formats(*args: str, cwd: str | os.PathLike | None = None) -> dict[str, tuple[int, str]]:
    """{format: (exit code, stdout + stderr)} of `check ARGS` in every output format."""
    out = {}
    for fmt in FORMATS:
        r = CliRunner().invoke(cli, ["check", "--format", fmt, *args]) if cwd is None else _in(cwd, fmt, args)
        assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
        out[fmt] = (r.exit_code, r.stdout + r.stderr)
    return out


def _in(cwd, fmt: str, args):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, ["check", "--format", fmt, *args])
    finally:
        os.chdir(old)


def _bounded() -> None:  # in the child: past 1 GB of address space, allocation fails (exit 3, not a pass)
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (BOUND_BYTES, BOUND_BYTES))


def check_bounded(*args: str, cwd: str | os.PathLike | None = None):
    """`check --format json ARGS` in a child process limited to 30 s and 1 GB of memory: a hang
    or a blow-up fails the test (TimeoutExpired, or exit 3 from a MemoryError)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-m", "vllm_preflight", "check", "--format", "json", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=BOUND_SECONDS, stdin=subprocess.DEVNULL,
                          check=False, preexec_fn=_bounded if sys.platform.startswith("linux") else None)


def deep_folder(top: Path, depth: int, leaf_name: str = "a.sh", leaf_text: str = GOOD) -> None:
    """`top/d/d/.../d/leaf_name`, `depth` folders deep, made through folder descriptors (no path
    grows past the system's limit while making it)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        leaf = os.open(leaf_name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, leaf_text.encode())
        os.close(leaf)
    finally:
        os.close(fd)


def remove_deep(top: Path) -> None:
    """Remove a `deep_folder` (shutil's removal recurses once per level: give it the room)."""
    import shutil

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        shutil.rmtree(top)
    finally:
        sys.setrecursionlimit(old)
