"""One pass over a log: the lines that tell about an engine start, in order.

The log is read in blocks of whole lines (a 100 MB log never sits in memory whole); one regular
expression finds the few lines worth reading, so the rest are never split or decoded into
lines one by one. A record that a terminal hard-wrapped (its repr not closed at the end of the
line) takes the following lines that carry no log header, up to MAX_RECORD characters.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from vllm_preflight.confirm.lines import Line, clean, has_header, strip

BLOCK = 16 << 20  # bytes read at a time
MAX_RECORD = 1 << 20  # characters of one log record (the engine line of 0.33.0 is about 10 KB)
MAX_WRAPPED = 4000  # physical lines one hard-wrapped record may take
MAX_LINE = 4 * MAX_RECORD  # bytes of one physical line; a longer line is skipped whole, and said

# What the start-up says, by kind (the first that matches a line's message wins).
KINDS = (
    ("args", re.compile(r"non-default args: ")),
    ("engine", re.compile(r"Initializing an? (?:V\d )?LLM engine \(v([^)\s]{1,80})\) with config: ")),
    ("version", re.compile(r"vLLM (?:API )?server version ([^\s,]{1,80})")),
    ("capture", re.compile(r"Capturing CUDA graphs? \(([^)]{1,80})\)")),
    ("captured", re.compile(r"Graph capturing finished in")),
    ("backend", re.compile(r"Using ([A-Za-z0-9_ ]{1,40}?) (?:attention )?backend")),
    ("runtime_mode", re.compile(r"(?:not supported|is not compatible|unsupported)[^\n]{0,300}?"
                                r"(?:setting|[Ss]etting|fall(?:ing)? back to|[Oo]verriding) "
                                r"(?:cudagraph_mode|CUDAGraphMode)")),
    ("deepep", re.compile(r"(?:DeepEP|WideEP|MoonEP)[^\n]{0,80}Disabling CUDA Graphs")),
    ("arch", re.compile(r"Resolved architecture: ([A-Za-z0-9_]{1,120})")),
    ("gpu", re.compile(r"NVIDIA ((?:GeForce )?(?:RTX ?)?[A-Z]{1,4}\d{2,4}[A-Za-z0-9 -]{0,30})")),
    ("flashinfer", re.compile(r"FlashInfer is not available|flashinfer[^\n]{0,40}not (?:installed|found)")),
    ("exception", re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception): \S")),
    ("crash", re.compile(r"EngineCore failed to start|Engine core initialization failed|"
                         r"Traceback \(most recent call last\)|RuntimeError: |CUDA out of memory")),
)
# the cheap first look: a line holding none of these is never split out or read (str.find runs at
# memory speed; one regular expression of alternatives would try each at every character)
KEYWORDS = ("non-default", "default args", "LLM engine (v", "compilation_config=", "server version ", "CUDA ",
            "Graph capturing", "backend", "cudagraph_mode", "CUDAGraphMode", "Resolved architecture", "NVIDIA ",
            "lashInfer", "lashinfer", "Traceback", "Error: ", "Exception: ", "failed to start", "initialization failed")


_KEYWORDS_B = tuple(k.encode() for k in KEYWORDS)


def _line_starts(data: bytes) -> list[int]:
    """Offsets of the lines of `data` that hold a keyword, in order (bytes: the search runs at
    memory speed whatever the text's characters)."""
    found: set[int] = set()
    for kw in _KEYWORDS_B:
        i = data.find(kw)
        while i >= 0:
            found.add(data.rfind(b"\n", 0, i) + 1)
            end = data.find(b"\n", i)
            if end < 0:
                break
            i = data.find(kw, end)
    return sorted(found)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


@dataclass
class Event:
    kind: str
    line: Line
    match: re.Match | None = None
    too_long: bool = False  # the record was cut at MAX_RECORD


class _Balance:
    """Whether a message's brackets or quotes are still open, fed piece by piece (a record a
    terminal wrapped into thousands of lines is read once, not once per line). Apostrophes in
    prose count only inside a bracket."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.esc = False

    def feed(self, text: str) -> bool:
        depth, quote, esc = self.depth, self.quote, self.esc
        for ch in text:
            if quote:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == quote:
                    quote = ""
            elif ch in "'\"" and depth > 0:
                quote = ch
            elif ch in "{[(":
                depth += 1
            elif ch in "}])":
                depth -= 1
        self.depth, self.quote, self.esc = depth, quote, esc
        return depth > 0 or bool(quote)


def _classify(line: Line) -> Iterator[tuple[str, re.Match]]:
    for kind, rx in KINDS:
        m = rx.search(line.text)
        if m:
            yield kind, m
            if kind in ("args", "engine"):
                return


class Scanner:
    """Feed it blocks of bytes; it yields the events of the lines it has seen whole."""

    def __init__(self) -> None:
        self.line_no = 0  # physical lines before the current block
        self.long_lines: list[int] = []
        self._skipping = False  # inside a line longer than MAX_RECORD

    def events(self, blocks: Iterable[bytes]) -> Iterator[Event]:
        carry = b""
        for block in blocks:
            data = carry + block if carry else block
            if self._skipping:
                first = data.find(b"\n")
                if first < 0:
                    carry = b""
                    continue
                data = data[first + 1:]
                self.line_no += 1
                self._skipping = False
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if len(data) > MAX_LINE:  # one line longer than any record: skip to its end
                    self.long_lines.append(self.line_no + 1)
                    carry = b""
                    self._skipping = True
                    continue
                carry = data
                continue
            done, evs = self._block(data[:cut], final=False)
            yield from evs
            self.line_no += data.count(b"\n", 0, done)
            carry = data[done:]
        if carry and not self._skipping:
            _, evs = self._block(carry if carry.endswith(b"\n") else carry + b"\n", final=True)
            yield from evs

    def _block(self, data: bytes, final: bool) -> tuple[int, list[Event]]:
        """Events of `data` (whole lines); the offset up to which it was read (a wrapped record
        that may go on past the block is left for the next one)."""
        out: list[Event] = []
        pos = 0  # offset counted up to
        line_at = self.line_no  # physical lines before `pos`
        last_end = 0  # records before here are read
        for start in _line_starts(data):
            if start < last_end:
                continue
            end = data.find(b"\n", start)
            if end - start > MAX_LINE:
                line_at += data.count(b"\n", pos, start)
                pos = start
                self.long_lines.append(line_at + 1)
                last_end = end + 1
                continue
            head, wrapped = start, False
            if not has_header(_text(data[start:end])):  # maybe a piece of a hard-wrapped record
                back = self._record_head(data, start, last_end)
                if back is not None:
                    head, wrapped = back, True
            line_at += data.count(b"\n", pos, head)
            pos = head
            got = self._record(data, head, wrapped, final)
            if got is None:
                return head, out  # the record may go on in the next block: read it again there
            line, rec_end, too_long = got
            line = Line(line_at + 1, line.text, line.stream, line.process, line.level, line.prefixed)
            events = [Event(kind, line, mm, too_long) for kind, mm in _classify(line)]
            if events:
                out += events
                last_end = rec_end + 1
        return len(data), out

    @staticmethod
    def _record_head(data: bytes, start: int, floor: int) -> int | None:
        """The start of the record whose hard-wrapped piece begins at `start`: the nearest line
        above with a log header, when only header-less, non-empty lines lie between."""
        at = start
        size = 0
        for _ in range(MAX_WRAPPED):
            if at <= floor or at == 0:
                return None
            prev = data.rfind(b"\n", 0, at - 1) + 1
            raw = _text(data[prev:at - 1])
            size += len(raw)
            if not raw.strip() or size > MAX_RECORD:
                return None
            if has_header(raw):
                return prev
            at = prev
        return None

    @staticmethod
    def _record(data: bytes, head: int, wrapped: bool, final: bool) -> tuple[Line, int, bool] | None:
        """The record starting at `head`, with the header-less lines a terminal wrapped it into:
        (its line, the offset of its last newline, cut at MAX_RECORD); None when it may go on
        past the block. A following line is part of it while the record's brackets are open, or,
        for a record known to be wrapped, while the lines above it are as wide as the first."""
        end = data.find(b"\n", head)
        first = _text(data[head:end])
        line = strip(first, 0)
        if "LLM engine (v" in line.text and "compilation_config=" not in line.text:
            wrapped = True  # an engine line always ends in its compilation_config: cut by a wrap
        parts = [line.text]
        size = len(line.text)
        width = len(first)
        prev_len = width
        at = end
        too_long = False
        quoted = clean(first).startswith(">")
        balance = _Balance()
        joined_open = balance.feed(line.text)
        for _ in range(MAX_WRAPPED):
            if not (joined_open or (wrapped and prev_len == width)):
                break
            if at + 1 >= len(data):
                if not final:
                    return None
                break
            nxt = data.find(b"\n", at + 1)
            raw = _text(data[at + 1:nxt])
            if not raw.strip() or has_header(raw):
                break
            piece = clean(raw)
            if quoted and piece.startswith(">"):  # each line of a Markdown quote carries its `>`
                piece = piece[2:] if piece.startswith("> ") else piece[1:]
            parts.append(piece)
            size += len(piece)
            prev_len = len(raw)
            at = nxt
            joined_open = balance.feed(piece)
            if size > MAX_RECORD:
                too_long = True
                break
        else:  # MAX_WRAPPED lines and still open
            too_long = True
        text = "".join(parts) if len(parts) > 1 else parts[0]
        if len(text) > MAX_RECORD:
            text, too_long = text[:MAX_RECORD], True
        return Line(0, text, line.stream, line.process, line.level, line.prefixed), at, too_long


def blocks_of(stream, size: int = BLOCK) -> Iterator[bytes]:
    """Blocks of a binary stream."""
    while True:
        data = stream.read(size)
        if not data:
            return
        yield data
