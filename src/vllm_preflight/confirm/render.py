"""`confirm`'s output: text (per start, `=`/`≠` per setting and the rules), json, concise.

Every line of text goes through `safe_text.visible` (a log is someone else's text: its escapes
are shown, never obeyed); JSON keeps the exact text as ASCII escapes.
"""
from __future__ import annotations

import json
import shlex
from typing import Any

from vllm_preflight.confirm.compare import Comparison
from vllm_preflight.safe_text import line_start, visible

SCHEMA_ID = "vllm-preflight/confirm/1"
# shown in the text report even when they agree; the rest are counted unless --verbose
KEY_SETTINGS = ("mode", "cudagraph_mode", "splitting_ops", "use_inductor_graph_partition", "custom_ops",
                "max_cudagraph_capture_size", "cudagraph_capture_sizes", "tensor_parallel_size",
                "data_parallel_size")


def _short(value: Any, limit: int = 6) -> str:
    if isinstance(value, list):
        items = [str(v) for v in value]
        if len(items) > limit:
            return "[" + ", ".join(items[:limit]) + f", … {len(items)} in all]"
        return "[" + ", ".join(items) + "]"
    return "unset" if value is None else str(value)


def text(comparisons: list[Comparison], verbose: bool = False) -> str:
    out: list[str] = []
    for c in comparisons:
        out += _start_text(c, verbose)
        out.append("")
    agree = sum(c.agrees and c.compared for c in comparisons)
    out.append(f"{len(comparisons)} engine start(s): {agree} agree with the prediction, "
               f"{sum(not c.agrees for c in comparisons)} disagree")
    return "\n".join(line_start(ln) if i == 0 or ln[:1] not in " ≠=" else visible(ln) for i, ln in enumerate(out))


def _start_text(c: Comparison, verbose: bool) -> list[str]:
    st = c.start
    procs = ", ".join(st.processes)
    head = f"{c.where} · vLLM {c.logged_release}"
    if c.release and c.release != c.logged_release:
        head += f" (checked as {c.release})"
    head += f" · {c.gpu or '?'} · {procs}"
    lines = [head]
    if c.argv and not c.arguments_unknown:
        lines.append("  arguments (non-default args): " + shlex.join(c.argv[2:]))
    if c.left_out:
        lines.append("  not an engine setting, left out: " + ", ".join(c.left_out))
    shown = [r for r in c.rows if verbose or not r.agree or r.setting in KEY_SETTINGS]
    hidden = [r for r in c.rows if r not in shown]
    width = max((len(r.setting) for r in shown + ([c.runtime] if c.runtime else [])), default=10)
    for r in shown + ([c.runtime] if c.runtime else []):
        if c.arguments_unknown:
            lines.append(f"  · {r.setting.ljust(width)}  logged {_short(r.logged)}")
        elif r.agree:
            lines.append(f"  = {r.setting.ljust(width)}  {_short(r.logged)}")
        else:
            lines.append(f"  ≠ {r.setting.ljust(width)}  logged {_short(r.logged)} · predicted {_short(r.predicted)}")
    if hidden:
        lines.append(f"  = {len(hidden)} more settings agree (pass_config fields and the rest; -v lists them)")
    whys = [r for r in c.rows + ([c.runtime] if c.runtime else []) if r.why and (verbose or r.rules or not r.agree)]
    if whys and not c.arguments_unknown:
        lines.append("Why")
        for r in whys:
            lines.append(f"  • {r.setting} {_short(r.predicted)}: " + " ← ".join(r.why))
    for n, note in st.runtime_notes[:8]:
        lines.append(f"  the node logged (line {n}): {note}")
    for d in c.disagreements:
        lines.append("  DISAGREES: " + d)
    for p in c.problems:
        lines.append("  not read: " + p)
    if c.not_compared and verbose:
        lines.append("  not compared: " + ", ".join(c.not_compared))
    for f in c.facts:
        lines.append("  from the log: " + f)
    for a in c.assumptions:
        lines.append("  assumed: " + a)
    if c.release is None:
        lines.append("  not compared: no release to check it against")
    elif c.arguments_unknown:
        lines.append("  not compared: the arguments are unknown (the values above are what the node logged)")
    elif not c.compared and c.agrees:
        lines.append("  not compared: the engine line's compilation_config could not be read")
    elif c.agrees:
        n = len(c.rows) + (1 if c.runtime else 0)
        lines.append(f"  agrees: {n} settings as predicted for vLLM {c.release}")
    return lines


def to_json(comparisons: list[Comparison], errors: list[str]) -> str:
    doc = {
        "schema": SCHEMA_ID,
        "starts": [_start_json(c) for c in comparisons],
        "errors": errors,
        "summary": {"starts": len(comparisons), "agree": sum(c.agrees and c.compared for c in comparisons),
                    "disagree": sum(not c.agrees for c in comparisons)},
    }
    return json.dumps(doc, indent=2, ensure_ascii=True, default=str)


def _row_json(r) -> dict:
    return {"setting": r.setting, "logged": r.logged, "predicted": r.predicted, "agree": r.agree,
            "rules": r.rules, "why": r.why}


def _start_json(c: Comparison) -> dict:
    st = c.start
    return {
        "source": c.source, "line": st.line, "processes": st.processes, "stream": st.stream or None,
        "logged_release": c.logged_release, "release": c.release, "gpu": c.gpu,
        "arguments": c.argv, "arguments_line": st.args_line, "left_out": c.left_out,
        "settings": [_row_json(r) for r in c.rows],
        "runtime": _row_json(c.runtime) if c.runtime else None,
        "captures": [{"line": n, "what": d} for n, d in st.captures],
        "backends": st.backends,
        "runtime_log": [{"line": n, "text": t} for n, t in st.runtime_notes],
        "crashed": {"line": st.crashed[0], "text": st.crashed[1]} if st.crashed else None,
        "facts": c.facts, "assumptions": c.assumptions, "problems": c.problems,
        "not_compared": c.not_compared, "disagreements": c.disagreements, "reproduce": c.reproduce,
        "agrees": c.agrees and c.compared,
    }


def concise(comparisons: list[Comparison]) -> str:
    """`path:line:1: severity confirm message`, one per disagreement, problem, and start."""
    out = []
    for c in comparisons:
        where = f"{c.source}:{c.start.line}:1"
        for d in c.disagreements:
            out.append(f"{where}: error confirm {d}")
        for p in c.problems:
            out.append(f"{where}: warning confirm not read: {p}")
        if c.agrees and c.compared:
            n = len(c.rows) + (1 if c.runtime else 0)
            out.append(f"{where}: info confirm vLLM {c.logged_release}: {n} settings as predicted")
    return "\n".join(line_start(visible(ln), path=True) for ln in out)
