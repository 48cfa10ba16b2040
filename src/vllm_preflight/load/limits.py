"""What the loaders accept, so that a small input cannot take unbounded time or memory.

A deployment config is kilobytes. Shell and Kubernetes variables can double a value per line
(`A="$A$A"` 40 times is a terabyte), JSON can nest past Python's recursion limit, a dotted
flag (`-cc.a.a.a...`) can nest as deep as it has dots. Past these limits the input is
reported as too complex, with its file and line (exit 2), and other inputs are still checked.
The README states them.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.load.shell_words import MAX_COMMAND_WORDS
from vllm_preflight.model import Location

MAX_VALUE_CHARS = 1 << 20  # one expanded word or variable value: 1 MiB of text
MAX_VALUE_PIECES = 1 << 16  # known and unknown pieces one value is made of
MAX_EXPANSION_STEPS = 1 << 22  # pieces expanded over a whole input (bounds time)
# words of one command (vLLM has a few hundred options); the shell lexer stops at it too
MAX_WORDS = MAX_COMMAND_WORDS
MAX_NESTING = 100  # JSON brackets in one word, and dots in one dotted flag
# vLLM servers in one input file (each is resolved, a few ms to a fraction of a second): a
# rendered chart holds dozens; `max-servers-per-file` in the project config raises it
MAX_SERVERS_PER_FILE = 256
_SERVERS: ContextVar[int | None] = ContextVar("vllm_preflight_max_servers", default=None)


class TooComplex(Exception):
    """An input past one of the limits; carries where."""

    def __init__(self, message: str, loc: Location | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc


def too_complex(what: str) -> str:
    return f"input too complex: {what}"


def nesting(word: str) -> int:
    """The deepest bracket nesting of a JSON-like word (quoted brackets counted too: only
    absurd depths matter here)."""
    depth = deepest = 0
    if "[" not in word and "{" not in word:
        return 0
    for ch in word:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}" and depth:
            depth -= 1
    return deepest


def check_words(words, source: str, loc: Location | None) -> None:
    """InputFailure when a server command has more words, or a word nests deeper, than allowed."""
    def fail(what: str) -> None:
        raise InputFailure(InputError(source, too_complex(what), loc))

    if len(words) > MAX_WORDS:
        fail(f"the server command has {len(words)} words (limit {MAX_WORDS})")
    for w in words:
        if not isinstance(w, str):
            continue
        if w.startswith("-") and w.count(".", 0, w.find("=") if "=" in w else len(w)) > MAX_NESTING:
            fail(f"the dotted option `{w[:40]}…` has more than {MAX_NESTING} parts")
        if nesting(w) > MAX_NESTING:
            fail(f"a value nests JSON brackets more than {MAX_NESTING} deep")


@contextlib.contextmanager
def servers_per_file(limit: int | None) -> Iterator[None]:
    """Set the servers-per-file limit while one input is loaded (None: the default)."""
    token = _SERVERS.set(limit)
    try:
        yield
    finally:
        _SERVERS.reset(token)


def max_servers() -> int:
    got = _SERVERS.get()
    return MAX_SERVERS_PER_FILE if got is None else got


def servers_message(limit: int) -> str:
    return too_complex(f"more than {limit} vLLM servers in one file (the limit; raise it with "
                       f"max-servers-per-file in the project config); none of them is checked")


def check_servers(count: int, source: str, loc: Location | None) -> None:
    """InputFailure once a file has yielded more servers than the limit (`loc`: the first one past it)."""
    limit = max_servers()
    if count > limit:
        raise InputFailure(InputError(source, servers_message(limit), loc))
