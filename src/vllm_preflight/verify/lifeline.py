"""Children of verify die with it: a pipe they watch (no torch here; imported first by a child).

verify keeps the write end of a pipe open for as long as it lives and hands each child only the
read end (`PF_VERIFY_LIFELINE=<fd>`). A child that calls `watch_parent()` first thing, before
importing torch, starts a thread that blocks on that end: when verify is gone, however it died
(SIGKILL included), the read returns end-of-file, and the child removes its temporary folder
(`PF_VERIFY_WORKDIR`) and exits 143. A process group alone cannot do this: a SIGKILLed verify
never gets to end the group it started.
"""
from __future__ import annotations

import os
import shutil
import threading

ENV_FD = "PF_VERIFY_LIFELINE"
ENV_WORKDIR = "PF_VERIFY_WORKDIR"
EXIT_PARENT_GONE = 143


class Lifeline:
    """The parent's side: one pipe per run; `env()` for children, `pass_fds` for Popen."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()  # both close-on-exec; the read end is passed explicitly
        os.set_inheritable(self.read_fd, True)

    def env(self, workdir: str | None = None) -> dict[str, str]:
        out = {ENV_FD: str(self.read_fd)}
        if workdir:
            out[ENV_WORKDIR] = workdir
        return out

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.read_fd,)

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def _wait_and_die(fd: int, workdir: str | None) -> None:
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    os._exit(EXIT_PARENT_GONE)


def watch_parent() -> bool:
    """In a child: die with the parent (and take its temporary folder along). False when the
    child was not started with a lifeline."""
    text = os.environ.get(ENV_FD)
    if not text or not text.isdigit():
        return False
    fd = int(text)
    try:
        os.fstat(fd)
    except OSError:
        return False
    threading.Thread(target=_wait_and_die, args=(fd, os.environ.get(ENV_WORKDIR)), daemon=True,
                     name="pf-verify-lifeline").start()
    return True
