"""Reading an input file as text, with the checks every format shares.

Too large, binary, not UTF-8, empty, or holding merge-conflict markers: each is one
InputError naming the file (and the line, where there is one). Offsets in the text map
to 1-based line and column.
"""
from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass, field
from typing import NoReturn

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.model import Location

MAX_BYTES = 4 << 20  # deployment configs are kilobytes; Helm output of a big chart, a megabyte
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?:[ \t].*)?$", re.MULTILINE)


def fail(source: str, message: str, line: int | None = None, column: int | None = None) -> NoReturn:
    loc = Location(source, line, column) if line is not None else None
    raise InputFailure(InputError(source, message, loc))


@dataclass
class Source:
    """A text and where it came from; `offset_base` shifts positions of embedded text."""

    path: str
    text: str = field(repr=False)
    _starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self):
        self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        i = bisect.bisect_right(self._starts, offset) - 1
        return i + 1, offset - self._starts[i] + 1

    def location(self, offset: int) -> Location:
        line, col = self.position(offset)
        return Location(self.path, line, col)

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end]


def decode(path: str, data: bytes) -> str:
    if len(data) > MAX_BYTES:
        fail(path, f"file is larger than {MAX_BYTES >> 20} MiB; not a deployment config")
    if b"\0" in data:
        fail(path, "binary file; not a deployment config")
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        fail(path, "not UTF-8 text (binary file?)", line, None)
    if not text.strip():
        fail(path, "empty file")
    m = _CONFLICT.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        fail(path, f"unresolved merge-conflict marker `{m.group(1)}`; resolve the conflict first", line, 1)
    return text


READ: set[tuple[int, int]] = set()  # (device, inode) of every file read: never an output file


def was_read(path: str) -> bool:
    """Whether `path` is (a link to) a file this process read as an input."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) in READ


def mark_read(path: str) -> None:
    """Count `path` (a file read another way: the project configuration) as an input."""
    try:
        st = os.stat(path)
    except OSError:
        return
    READ.add((st.st_dev, st.st_ino))


def read_bytes(path: str, limit: int = MAX_BYTES, what: str = "a deployment config") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; never blocks.

    A FIFO, socket or device named (or found) as an input would block an open() or read()
    forever, so only regular files are opened, and with O_NONBLOCK in case one is swapped in
    between the check and the open. OSError or InputFailure otherwise."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        fail(path, "is a directory")
    if not stat.S_ISREG(st.st_mode):
        fail(path, "not a regular file (a pipe, socket or device); not read")
    if st.st_size > limit:
        fail(path, f"file is {_size(st.st_size)}, larger than {_size(limit)}; not {what}")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            fail(path, "not a regular file (a pipe, socket or device); not read")
        READ.add((st.st_dev, st.st_ino))
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        fail(path, f"file is larger than {_size(limit)}; not {what}")
    return b"".join(chunks)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


STDIN = "-"  # the path that means standard input
STDIN_NAME = "<stdin>"  # how findings and results name it
_stdin: list[str] = []


def stdin_text() -> str:
    """Standard input, read once per process (`check - -` and the ignore scan see the same text)."""
    if not _stdin:
        import sys

        data = sys.stdin.buffer.read(MAX_BYTES + 1) if sys.stdin is not None else b""
        _stdin.append(decode(STDIN_NAME, data))
    return _stdin[0]


def read_source(path: str) -> Source:
    if path == STDIN:
        return Source(STDIN_NAME, stdin_text())
    try:
        data = read_bytes(path)
    except OSError as e:
        fail(path, f"cannot read: {e.strerror or e}")
    return Source(path, decode(path, data))
