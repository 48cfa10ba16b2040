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
    ("crash", re.compile(r"EngineCore failed to start|Engine core initialization failed|"
                         r"Traceback \(most recent call last\)|RuntimeError: |CUDA out of memory")),
)
# the cheap first look: a line holding none of these is never split out or read
_FIND = re.compile("|".join((
    r"non-default args: ", r"LLM engine \(v", r"server version ", r"Capturing CUDA graph",
    r"Graph capturing finished", r" backend", r"cudagraph_mode", r"CUDAGraphMode", r"Disabling CUDA Graphs",
    r"Resolved architecture: ", r"NVIDIA [A-Z]", r"FlashInfer is not available", r"flashinfer",
    r"EngineCore failed", r"Engine core initialization failed", r"Traceback \(most recent", r"RuntimeError: ",
    r"CUDA out of memory")))


@dataclass
class Event:
    kind: str
    line: Line
    match: re.Match | None = None
    too_long: bool = False  # the record was cut at MAX_RECORD


def _open(text: str, kind: str) -> bool:
    """Whether a record's repr is not closed yet (a hard-wrapped line goes on below)."""
    if kind == "args":
        body = text.split("non-default args: ", 1)[-1]
    elif kind == "engine":
        body = text.split(" with config: ", 1)[-1]
    else:
        return False
    depth = 0
    quote = ""
    esc = False
    for ch in body:
        if quote:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
    return depth > 0 or bool(quote)


def _classify(line: Line) -> Iterator[tuple[str, re.Match]]:
    for kind, rx in KINDS:
        m = rx.search(line.text)
        if m:
            yield kind, m
            if kind in ("args", "engine"):
                return


class Scanner:
    """Feed it blocks of text; it yields the events of the lines it has seen whole."""

    def __init__(self) -> None:
        self.line_no = 0  # physical lines before the current block
        self.long_lines: list[int] = []

    def events(self, blocks: Iterable[str]) -> Iterator[Event]:
        carry = ""
        for block in blocks:
            text = carry + block
            cut = text.rfind("\n") + 1
            if cut == 0:
                if len(text) > MAX_RECORD:  # one line longer than any record: skip to its end
                    self.long_lines.append(self.line_no + 1)
                    carry = ""
                    self._skipping = True
                    continue
                carry = text
                continue
            if getattr(self, "_skipping", False):
                first = text.find("\n") + 1
                text, cut = text[first:], cut - first
                self.line_no += 1
                self._skipping = False
            done, evs = self._block(text[:cut], final=False)
            yield from evs
            self.line_no += text.count("\n", 0, done)
            carry = text[done:]
            if len(carry) > MAX_RECORD + BLOCK:
                carry = carry[-MAX_RECORD:]
        if carry:
            if getattr(self, "_skipping", False):
                return
            _, evs = self._block(carry if carry.endswith("\n") else carry + "\n", final=True)
            yield from evs

    def _block(self, text: str, final: bool) -> tuple[int, list[Event]]:
        """Events of `text` (whole lines); the offset up to which it was read (a wrapped record
        that may go on past the block is left for the next one)."""
        out: list[Event] = []
        pos = 0  # offset counted up to
        line_at = self.line_no  # physical lines before `pos`
        last_end = 0
        for m in _FIND.finditer(text):
            if m.start() < last_end:
                continue
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.start())
            line_at += text.count("\n", pos, start)
            pos = start
            raw = text[start:end]
            if len(raw) > MAX_RECORD:
                self.long_lines.append(line_at + 1)
                last_end = end + 1
                continue
            line = strip(raw, line_at + 1)
            for kind, mm in _classify(line):
                too_long = False
                if kind in ("args", "engine") and _open(line.text, kind):
                    joined, end2, complete, too_long = self._wrapped(text, end, line.text, kind)
                    if not complete and not final and not too_long:
                        return start, out  # read again with the next block
                    line = Line(line.number, joined, line.stream, line.process, line.level, line.prefixed)
                    mm = KINDS[0][1].search(joined) if kind == "args" else KINDS[1][1].search(joined)
                    end = end2
                out.append(Event(kind, line, mm, too_long))
            last_end = end + 1
        return len(text), out

    @staticmethod
    def _wrapped(text: str, end: int, head: str, kind: str) -> tuple[str, int, bool, bool]:
        """The record that goes on below line end `end`: (joined text, its end, closed, cut)."""
        parts = [head]
        size = len(head)
        at = end
        for _ in range(MAX_WRAPPED):
            if at + 1 >= len(text):
                return "".join(parts), at, False, False
            nxt = text.find("\n", at + 1)
            raw = text[at + 1:nxt]
            if not raw.strip() or has_header(raw):
                return "".join(parts), at, True, False  # the record ended there
            piece = clean(raw)
            parts.append(piece)
            size += len(piece)
            at = nxt
            if size > MAX_RECORD:
                return "".join(parts), at, True, True
            if not _open("".join(parts), kind):
                return "".join(parts), at, True, False
        return "".join(parts), at, True, True


def blocks_of(stream, size: int = BLOCK) -> Iterator[str]:
    """Text blocks of a binary stream, decoded as UTF-8 (a bad byte becomes U+FFFD)."""
    import codecs

    dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while True:
        data = stream.read(size)
        if not data:
            tail = dec.decode(b"", final=True)
            if tail:
                yield tail
            return
        yield dec.decode(data)
