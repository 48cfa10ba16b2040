"""Ctrl-C and SIGTERM: the one place that turns them into exit codes 130 and 143.

`raising()` makes SIGINT and SIGTERM raise an exception wherever the main thread is, so every
`finally` on the way out runs (a process pool is terminated, a temporary folder removed) and the
command line exits with 128 + the signal's number, as a shell reports a process killed by it:
130 for Ctrl-C (not click's 1, which means "a finding"), 143 for SIGTERM. `Interrupted` derives
from BaseException, as KeyboardInterrupt does, so no `except Exception` that keeps one bad input
from costing the others swallows it. A command with its own clean-up (verify) passes its own
exception type as `make`; `for_worker()` is for processes a pool forks (the parent ends them).
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator

NAMES: dict[int, str] = {int(signal.SIGINT): "SIGINT", int(signal.SIGTERM): "SIGTERM"}
HANDLED = (signal.SIGINT, signal.SIGTERM)


EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM


def exit_code(signum: int) -> int:
    """128 + the signal's number: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(signum)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while a command ran."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.signum = int(signum)
        self.exit_code = exit_code(signum)

    def __str__(self) -> str:
        return f"interrupted by {NAMES.get(self.signum, f'signal {self.signum}')}"


@contextlib.contextmanager
def raising(make: Callable[[int], BaseException] = Interrupted) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM raise `make(signum)`; the previous handlers come back
    after. Outside the main thread (where Python delivers signals) nothing is changed."""
    def handler(signum, _frame):
        raise make(signum)

    previous = {}
    try:
        for sig in HANDLED:
            previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def for_worker() -> None:
    """In a forked worker: Ctrl-C (sent to the whole process group) is the parent's to handle,
    and SIGTERM (the parent ending its pool) ends the worker quietly, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
