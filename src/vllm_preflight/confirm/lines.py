"""A log's lines without what was put around vLLM's own text.

vLLM writes `INFO 12-02 14:43:37 [core.py:93] message`, a process prefix in front when the line
comes from a child process (`(EngineCore_DP0 pid=123) `, `(APIServer pid=1) `), and the way the
log was collected adds more: ANSI colour, CRLF, `docker logs --timestamps` / `kubectl logs
--timestamps` (RFC 3339), `kubectl logs --prefix` (`[pod/NAME/CONTAINER] `), journald
(`Dec 02 14:43:37 host vllm[1234]: `), Compose (`vllm-1  | `), Markdown quoting or indentation.
`strip` removes those, in any order they were stacked, and says which vLLM process wrote the
line and under which outer stream (a pod, a Compose service) it came.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_RFC3339 = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+")
_KUBECTL = re.compile(r"\[(pod/[^\]\s]+)\]\s")
_JOURNALD = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ ([^\s:\[]+)(?:\[\d+\])?: ")
_COMPOSE = re.compile(r"([A-Za-z0-9][\w.-]*)\s+\| ")
_MARKDOWN = re.compile(r"(?:>\s?|\s{1,8}|`)")
# vLLM's child-process prefix (its logger adds it in worker and engine-core processes)
_PROCESS = re.compile(r"\(([A-Za-z][\w .-]{0,60}?) pid=(\d+)\)\s")
# vLLM's record header: LEVEL MM-DD HH:MM:SS[.mmm] [file.py:123]
_HEADER = re.compile(r"(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+"
                     r"(?:\[[^\]\s]{1,120}\]\s?|[\w.]{1,120}:\d+\]\s?)")


def clean(raw: str) -> str:
    """The physical line without colour escapes and carriage returns (a progress bar's `\\r`
    keeps what was drawn last)."""
    if "\x1b" in raw:
        raw = _ANSI.sub("", raw)
    if "\r" in raw:
        raw = raw.rstrip("\r")
        if "\r" in raw:
            raw = raw.rsplit("\r", 1)[-1] or raw.replace("\r", "")
    return raw


@dataclass(frozen=True)
class Line:
    number: int  # 1-based physical line in its file
    text: str  # vLLM's message (or the line, when it has no vLLM header)
    stream: str  # the outer stream (pod, Compose service, journald unit); "" when none
    process: str  # vLLM's process prefix (`EngineCore_DP0 pid=123`); "" for the main process
    level: str  # INFO, WARNING, ...; "" when the line has no vLLM header
    prefixed: bool = False  # a prefix of vLLM's or of a log collector was taken off


def strip(raw: str, number: int) -> Line:
    """The line's vLLM message and where it came from."""
    text = clean(raw)
    stream = ""
    process = ""
    level = ""
    prefixed = False
    for _ in range(8):  # prefixes stacked in any order; each kind at most once or twice
        m = (_RFC3339.match(text) or _KUBECTL.match(text) or _JOURNALD.match(text)
             or (_COMPOSE.match(text) if not level else None))
        if m:
            if m.re is not _RFC3339 and not stream:
                stream = m.group(1)
            text = text[m.end():]
            prefixed = True
            continue
        m = _PROCESS.match(text)
        if m:
            process = f"{m.group(1)} pid={m.group(2)}"
            text = text[m.end():]
            prefixed = True
            continue
        m = _HEADER.match(text)
        if m and not level:
            level = m.group(1)
            text = text[m.end():]
            prefixed = True
            continue
        if not level and not process:
            m = _MARKDOWN.match(text)
            if m and m.end() < len(text):
                text = text[m.end():]
                continue
        break
    return Line(number, text, stream, process, level, prefixed)


def has_header(raw: str) -> bool:
    """Whether a physical line starts a new log record (a vLLM header, a process prefix, an
    outer prefix): a hard-wrapped line's continuation has none."""
    return strip(raw, 0).prefixed
