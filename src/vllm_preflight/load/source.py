"""Reading an input file as text, with the checks every format shares.

Too large, binary, not UTF-8, empty, or holding merge-conflict markers: each is one
InputError naming the file (and the line, where there is one). Offsets in the text map
to 1-based line and column.
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.model import Location

MAX_BYTES = 4 << 20  # deployment configs are kilobytes; Helm output of a big chart, a megabyte
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?:[ \t].*)?$", re.M)


def fail(source: str, message: str, line: int | None = None, column: int | None = None):
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
        if os.path.isdir(path):
            fail(path, "is a directory")
        if os.path.exists(path) and not os.path.isfile(path):
            fail(path, "not a regular file")
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            fail(path, f"file is {size >> 20} MiB, larger than {MAX_BYTES >> 20} MiB; not a deployment config")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        fail(path, f"cannot read: {e.strerror or e}")
    return Source(path, decode(path, data))
