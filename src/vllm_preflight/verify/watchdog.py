"""Run a child process group under a deadline: a hang becomes a failure, never a stuck verify.

The child gets its own session so that a timeout can end it and everything it started (torchrun
and its ranks) with one signal to that process group, and nothing else.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class ChildResult:
    returncode: int | None
    timed_out: bool
    output: str
    seconds: float

    def tail(self, lines: int = 8) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: list[str], deadline_s: float, env: dict | None = None, cwd: str | None = None) -> ChildResult:
    import time

    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                            start_new_session=True, text=True)
    try:
        out, _ = proc.communicate(timeout=deadline_s)
        return ChildResult(proc.returncode, False, out or "", time.monotonic() - start)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        return ChildResult(None, True, out or "", time.monotonic() - start)


def _kill_group(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)  # the group this child leads (start_new_session), only
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def torchrun(nproc: int, module: str, args: list[str]) -> list[str]:
    """The torchrun command line for `python -m module args` on nproc local ranks."""
    return [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc}",
            "--master-addr=127.0.0.1", f"--master-port={free_port()}", "--max-restarts=0",
            "-m", module, *args]
