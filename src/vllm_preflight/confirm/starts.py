"""Engine starts: the events of one log grouped per start, and what each start says.

A start is an engine config line (`Initializing a V1 LLM engine (vX) with config: ...`); the
`non-default args` line before it in the same stream (the API server logs it, the engine core
process logs the config) holds the arguments. DP ranks log the same config each: identical
starts of one launch are one start with several processes. Capture, backend and runtime lines
after a start belong to it (to the start of their DP rank where the prefix names one).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.confirm.literal import LiteralProblem, parse
from vllm_preflight.confirm.scan import Event


@dataclass
class Start:
    version: str
    line: int  # the engine config line
    stream: str
    processes: list[str] = field(default_factory=list)
    config_text: str = ""
    args_text: str | None = None
    args_line: int | None = None
    captures: list[tuple[int, str]] = field(default_factory=list)  # (line, "decode, FULL")
    capture_done: bool = False
    backends: list[str] = field(default_factory=list)
    runtime_notes: list[tuple[int, str]] = field(default_factory=list)
    gpu: str | None = None
    arch: str | None = None
    flashinfer_missing: bool = False
    crashed: tuple[int, str] | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)  # what could not be read, and where
    server_version: str | None = None
    engine_started: bool = True  # False: the server failed after its arguments, before an engine line
    exception: tuple[int, str] | None = None  # the exception line the failure ended in

    @property
    def dp_rank(self) -> str | None:
        return _dp_rank(self.processes[0]) if self.processes else None


def _dp_rank(process: str) -> str | None:
    m = re.search(r"DP(\d+)", process)
    return m.group(1) if m else None


def group(events: list[Event]) -> tuple[list[Start], dict]:
    """The starts of a log, and the facts seen outside any start (a GPU line before it)."""
    starts: list[Start] = []
    last_args: dict[str, Event] = {}
    args_used: set[int] = set()  # args lines a start (with or without an engine line) took
    pending: dict[str, Any] = {}  # facts logged before the first start of a stream
    for ev in events:
        ln = ev.line
        if ev.kind == "args":
            last_args[ln.stream] = ev
            continue
        if ev.kind == "version":
            pending["server_version"] = ev.match.group(1) if ev.match else None
            continue
        if ev.kind == "engine":
            st = Start(version=ev.match.group(1) if ev.match else "?", line=ln.number, stream=ln.stream,
                       processes=[ln.process or "main"])
            st.config_text = ln.text[ev.match.end():] if ev.match else ""
            if ev.too_long:
                st.problems.append((ln.number, ("the engine config line is longer than the reader takes; "
                                                "read up to its limit")))
            args = last_args.get(ln.stream)
            if args is not None and args.line.number in args_used and not any(
                    s.args_line == args.line.number and s.engine_started for s in starts):
                starts[:] = [s for s in starts if s.engine_started or s.args_line != args.line.number]
            if args is not None:
                args_used.add(args.line.number)
                st.args_text = args.line.text.split("non-default args: ", 1)[1]
                st.args_line = args.line.number
                if args.too_long:
                    st.problems.append((args.line.number, ("the non-default args line is longer than the reader "
                                                          "takes")))
            st.gpu = pending.get("gpu")
            st.arch = pending.get("arch")
            st.server_version = pending.get("server_version")
            st.flashinfer_missing = bool(pending.get("flashinfer_missing"))
            same = next((s for s in starts if s.config_text == st.config_text and s.args_text == st.args_text
                         and s.stream == st.stream and s.crashed is None and not s.captures
                         and (ln.process or "main") not in s.processes), None)
            if same is not None:
                same.processes.append(ln.process or "main")
            else:
                starts.append(st)
            continue
        if ev.kind in ("crash", "exception"):
            args = last_args.get(ln.stream)
            if args is not None and args.line.number not in args_used:
                # the server failed after logging its arguments and before any engine line
                args_used.add(args.line.number)
                starts.append(Start(version=pending.get("server_version") or "?", line=args.line.number,
                                    stream=ln.stream, processes=[args.line.process or "main"],
                                    args_text=args.line.text.split("non-default args: ", 1)[1],
                                    args_line=args.line.number, crashed=(ln.number, ln.text[:200]),
                                    engine_started=False, gpu=pending.get("gpu")))
        target = _owner(starts, ln)
        if ev.kind == "gpu" and ev.match:
            if target is None:
                pending["gpu"] = ev.match.group(1).strip()
            elif target.gpu is None:
                target.gpu = ev.match.group(1).strip()
            continue
        if ev.kind == "arch" and ev.match:
            if target is None or target.captures:
                pending["arch"] = ev.match.group(1)
            else:
                target.arch = target.arch or ev.match.group(1)
            continue
        if ev.kind == "flashinfer":
            if target is None:
                pending["flashinfer_missing"] = True
            else:
                target.flashinfer_missing = True
            continue
        if target is None:
            continue
        if ev.kind == "capture" and ev.match:
            target.captures.append((ln.number, ev.match.group(1)))
        elif ev.kind == "captured":
            target.capture_done = True
        elif ev.kind == "backend" and ev.match:
            name = ev.match.group(1).strip()
            if name not in target.backends and len(target.backends) < 16:
                target.backends.append(name)
        elif ev.kind in ("runtime_mode", "deepep"):
            target.runtime_notes.append((ln.number, ln.text[:300]))
        elif ev.kind == "crash" and target.crashed is None and not target.capture_done:
            target.crashed = (ln.number, ln.text[:200])
        elif ev.kind == "exception" and target.exception is None and not target.capture_done \
                and (target.crashed is not None or not target.engine_started):
            target.exception = (ln.number, ln.text.strip()[:300])
    return starts, pending


def _owner(starts: list[Start], line) -> Start | None:
    """The start a later line belongs to: the last one of its stream, of its DP rank if named."""
    rank = _dp_rank(line.process) if line.process else None
    fallback = None
    for st in reversed(starts):
        if st.stream != line.stream:
            continue
        if fallback is None:
            fallback = st
        if rank is None or any(_dp_rank(p) == rank for p in st.processes):
            return st
    return fallback


# ------------------------------------------------------------------ the config line
_FIELD = re.compile(r"(?:^|, )([a-z_][a-z0-9_]{0,60})=")


def config_fields(text: str, wanted: tuple[str, ...]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The `name=value` fields of `str(VllmConfig)` that are wanted, each parsed as a literal
    (`compilation_config={...}` may be cut short: what was read is kept), and per field that
    could not be read, why."""
    out: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    for name in wanted:
        m = re.search(r"(?:^|, )" + re.escape(name) + "=", text)
        if m is None:
            continue
        at = m.end()
        try:
            got = parse(text, at, allow_truncated=True)
        except LiteralProblem as e:
            problems.append((name, f"{e.message} (at character {e.offset + 1} of the config)"))
            continue
        if got.truncated:
            problems.append((name, "cut short: the line ends inside it; the fields before the cut are read"))
        out[name] = got.value
    return out, problems


def fields_text(text: str) -> dict[str, str]:
    """Every `name=value` of the config line as text (for facts such as `quantization=fp8`)."""
    marks = list(_FIELD.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(m.group(1), text[m.end():end])
    return out
