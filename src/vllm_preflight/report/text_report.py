"""The readable report: per deployment, a plan of what was written and what vLLM will run.

In the shape of Terraform's plan: a summary line, then one line per setting —
`=` as written, `~` changed by vLLM, `+` a default vLLM filled in (with --verbose) — then why
each change happened (rule ids, vLLM's own log lines, chains of rules), findings, what the
outcome depends on, the PR #29558 design where it differs, and the assumptions made.

Renders only what the resolver and the rules recorded (`result.extra["plan"]`, `findings`...).
On a terminal it colours through rich (`--color`, NO_COLOR, FORCE_COLOR: `color_wanted`) and
wraps each line between words to the terminal's width (`wrap`: no word broken, continuations
indented); piped or to a file it writes plain lines, never wrapped, padded or cut. Every
piece of every line goes through `safe_text.visible` in `Out.line`, the one place that writes,
so no text taken from an input can reach the terminal unescaped, nor start a line a CI runner
reads as a command (`safe_text.line_start`'s rule).
"""
from __future__ import annotations

import os
import sys

from vllm_preflight.model import Assumption
from vllm_preflight.report.headline import headline
from vllm_preflight.safe_text import starts_command, visible

# Settings shown even when vLLM only filled in its default: what a deployer reads first.
KEY_SETTINGS = ("mode", "cudagraph_mode", "max_cudagraph_capture_size")
STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan", "changed": "yellow", "same": "green",
         "default": "dim", "head": "bold", "dim": "dim"}


def short(value, limit: int = 5) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list):
        items = [str(v) for v in value]
        if len(items) > limit:
            return "[" + ", ".join(items[:limit]) + f", … {len(items)} in all]"
        return "[" + ", ".join(items) + "]"
    return str(value)


def list_change(before, after) -> str | None:
    """A list change as what was added and removed (`+ a, b; - c`); None when not both lists."""
    if not (isinstance(before, list) and isinstance(after, list)) or not before:
        return None
    added = [x for x in after if after.count(x) > before.count(x)]
    added = list(dict.fromkeys(added))
    removed = list(dict.fromkeys(x for x in before if before.count(x) > after.count(x)))
    parts = (["+ " + ", ".join(map(str, added))] if added else []) + \
            (["- " + ", ".join(map(str, removed))] if removed else [])
    return "; ".join(parts) or None


def change_text(before, after) -> str:
    return list_change(before, after) or f"{short(before)} → {short(after)}"


class Out:
    """Lines of (text, style) pieces, written through rich on a terminal, plainly otherwise.

    `width`: the terminal's columns. A line longer than that is wrapped between words, its
    continuation lines indented under the line's own indent plus two spaces; a word longer than
    a whole line stands on a line of its own (never cut). None (piped, a file): every line whole.
    """

    def __init__(self, console=None, stream=None, width: int | None = None):
        self.console = console
        self.stream = stream or sys.stdout
        self.width = width

    def line(self, *pieces, hang: int | None = None) -> None:
        """Pieces: a str, (text, style), or (text, style, KEEP): a piece whose spaces are no
        place to wrap (`partition False` stays on one line). `hang`: the column continuation
        lines start at (default: two past the line's indent)."""
        parts = []
        keep: list[bool] = []
        for p in pieces:
            text, style = (visible(p), None) if isinstance(p, str) else (visible(p[0]), p[1])
            parts.append((text, style))
            keep += [len(p) > 2 and p[2] == KEEP if not isinstance(p, str) else False] * len(text)
        if starts_command("".join(t for t, _ in parts)):  # as safe_text.line_start
            parts.insert(0, ("\\", None))
            keep.insert(0, False)
        for row in wrap(parts, self.width, keep, hang) if self.width else [parts]:
            self._write(row)

    def _write(self, parts) -> None:
        while parts and parts[-1][0].endswith(" "):  # no line ends in spaces (a piped line is never padded)
            text = parts[-1][0].rstrip(" ")
            parts = parts[:-1] + ([(text, parts[-1][1])] if text else [])
        if self.console is None:
            self.stream.write("".join(t for t, _ in parts) + "\n")
            return
        from rich.text import Text

        text = Text()
        for t, style in parts:
            text.append(t, style=STYLE.get(style, style) if style else None)
        self.console.print(text, soft_wrap=True, highlight=False)


KEEP = "keep"  # a piece's third item: never wrapped inside


def wrap(parts: list, width: int, keep: list[bool] | None = None, hang: int | None = None) -> list[list]:
    """(text, style) pieces as physical lines of at most `width` columns, broken only at spaces
    (not those `keep` marks); a word longer than the room left stands alone on its line, whole.
    Continuation lines are indented two columns past the line's own indent (or `hang` columns)."""
    text = "".join(t for t, _ in parts)
    if len(text) <= width:
        return [parts]
    styles = [s for t, s in parts for _ in t]
    keep = keep or [False] * len(text)
    indent = len(text) - len(text.lstrip(" "))
    lead = indent + 2 if hang is None else hang
    pad = " " * (lead if lead <= width * 2 // 3 else 2 if indent + 2 <= width // 2 else 0)
    words = []  # (start, end): runs between breakable spaces
    i, n = indent, len(text)
    while i < n:
        if text[i] == " " and not keep[i]:
            i += 1
            continue
        j = i
        while j < n and not (text[j] == " " and not keep[j]):
            j += 1
        words.append((i, j))
        i = j
    rows: list[list] = []
    group: list[tuple[int, int]] = []
    prefix = text[:indent]
    for w in words:
        if group and len(prefix) + w[1] - group[0][0] > width:
            rows.append(_slice(text, styles, group[0][0], group[-1][1], prefix))
            prefix, group = pad, []
        group.append(w)
    if group:
        rows.append(_slice(text, styles, group[0][0], group[-1][1], prefix))
    return rows


def _slice(text: str, styles: list, a: int, b: int, prefix: str) -> list:
    """text[a:b] as (text, style) runs, after `prefix` (unstyled)."""
    out: list = [(prefix, None)] if prefix else []
    k = a
    while k < b:
        m = k
        while m < b and styles[m] == styles[k]:
            m += 1
        out.append((text[k:m], styles[k]))
        k = m
    return out


def fit(lines, stream=None, hang: int | None = None) -> str:
    """Plain lines (no style) wrapped between words to the terminal `stream` is (standard
    output), unchanged when it is a pipe or a file; for the help-like texts of `explain` and
    `rules`."""
    width = terminal_width(stream)
    if width is None:
        return "\n".join(lines)
    return "\n".join("".join(t for t, _ in row) for line in lines
                     for row in wrap([(line, None)], width, hang=hang))


def color_wanted(color: str = "auto", stream=None) -> bool:
    """--color: `always` and `never` win; `auto` colours a terminal unless NO_COLOR is set, and
    FORCE_COLOR (any non-empty value) colours a pipe too (NO_COLOR wins over it)."""
    if color != "auto":
        return color == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def terminal_width(stream=None) -> int | None:
    """The columns to wrap at: the terminal's (COLUMNS wins, as rich reads it); None when the
    report goes to a pipe or a file, whose lines are never wrapped."""
    stream = stream or sys.stdout
    if not getattr(stream, "isatty", lambda: False)():
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


def make_out(console=None, color: str = "auto", stream=None) -> Out:
    if console is not None:  # a rich Console given (tests): wrap at its width when it is a terminal
        return Out(console, width=console.width if console.is_terminal else None)
    stream = stream or sys.stdout
    width = terminal_width(stream)
    if color_wanted(color, stream):
        from rich.console import Console

        return Out(Console(file=stream, highlight=False, soft_wrap=True, force_terminal=True,
                           width=width or 100_000, emoji=False), width=width)
    return Out(None, stream, width=width)


def _title(res) -> str:
    name = res.extra.get("name") or res.source
    label = (f"vLLM {res.vllm_version}" if res.target == "release"
             else f"PR #29558 design on vLLM {res.vllm_version}")
    return f"{name} · {label}"


def _written_text(row: dict, value: bool = True) -> str:
    w = row.get("written")
    if w is not None:
        return (f"you wrote {short(w['value'])} at " if value else "as written at ") + w["where"]
    if row.get("default_from"):
        return row["default_from"]
    return "not written" if row.get("changes") else "release default"


def _row_line(out: Out, row: dict, width: int) -> None:
    steps = row["changes"]
    name = row["setting"].ljust(width)
    hang = len("  ~ ") + width + 2  # a wrapped row continues under its value
    if steps:
        first = steps[0]["before"] if row.get("written") is None else row["written"]["value"]
        out.line("  ", ("~ ", "changed"), name, "  ", (change_text(first, row["resolved"]), "changed"),
                 ("   " + _written_text(row) + "; " + ", ".join(dict.fromkeys(s["rule"] for s in steps)), "dim"),
                 hang=hang)
    else:
        mark, style = ("= ", "same") if row.get("written") is not None else ("+ ", "default")
        out.line("  ", (mark, style), name, "  ", short(row["resolved"]),
                 ("   " + _written_text(row, value=False), "dim"), hang=hang)


def _why(out: Out, res, rows: list[dict]) -> None:
    steps = [(row, s) for row in rows for s in row["changes"]]
    if not steps:
        return
    reasons: dict[str, str] = {}
    for e in res.events:
        reasons.setdefault(e.rule, e.reason)
    by_setting = {row["setting"]: row for row in rows}
    out.line(("Why", "head"))
    for row, s in steps:
        repeat = {1: "", 2: "; vLLM appends it twice"}.get(s["repeats"], f"; vLLM does it {s['repeats']} times")
        out.line(f"  • {row['setting']}: ", change_text(s["before"], s["after"]),
                 (f"  ({s['rule']}{repeat})", "dim"))
        cause = s.get("cause")
        if cause:
            out.line(("    because " + _cause_text(cause, by_setting), "dim"))
        reason = reasons.get(s["rule"])
        if reason:
            out.line(("    " + reason, "dim"))


def _cause_text(setting: str, by_setting: dict) -> str:
    """`all2all_backend = deepep_high_throughput (you wrote … at f:6:5)`, following a chain of
    rules back to what was written (at most three links)."""
    parts: list[str] = []
    seen = set()
    current: str | None = setting
    while current and current not in seen and len(parts) < 3:
        seen.add(current)
        row = by_setting.get(current)
        if row is None:
            parts.append(current)
            break
        value = row["changes"][-1]["after"] if row["changes"] else row["resolved"]
        parts.append(f"{current} = {short(value)} ({_written_text(row)})")
        current = row["changes"][-1].get("cause") if row["changes"] else None
    return " ← ".join(parts)


def _runtime(out: Out, res) -> None:
    """The second stage: what the model runner captures after it picked the attention backends."""
    rt = (res.resolved or {}).get("runtime")
    if not rt:
        return
    backends = ", ".join(f"{a.get('backend')}: {a.get('support')}" for a in rt.get("attention") or [])
    head = f"Runtime (model runner {rt.get('model_runner') or '?'}" + (f"; {backends}" if backends else "") + ")"
    cfg, run = rt.get("config_cudagraph_mode"), rt.get("cudagraph_mode")
    if rt.get("error"):
        out.line((head, "head"))
        out.line(("  vLLM would fail at start-up, after the weights load: ", "error"), str(rt["error"]))
        return
    if cfg == run:
        out.line((head, "head"), f"  cudagraph_mode {run}, as at config time")
    else:
        out.line((head, "head"))
        out.line("  ", ("~ ", "changed"), "cudagraph_mode  ",
                 (f"{cfg} at config time → {run} at runtime", "changed"),
                 (f"   ({rt.get('support_backend') or rt.get('support')}: {rt.get('support')})", "dim"))
    for e in rt.get("events") or []:
        out.line(("  • " + e.get("reason", "") + f"  ({e.get('rule')})", "dim"))
    for alt in rt.get("depends_on") or []:
        out.line((f"  if {alt.get('fact')} = {alt.get('alternative')}: cudagraph_mode "
                  + str(alt.get("error") or alt.get("cudagraph_mode")), "dim"))


def _findings(out: Out, findings: list[dict]) -> None:
    if not findings:
        return
    out.line(("Findings", "head"))
    for f in findings:
        loc = f.get("location") or {}
        where = ""
        if loc.get("file"):
            where = str(loc["file"]) + (f":{loc['line']}" if loc.get("line") else "") + \
                (f":{loc['column']}" if loc.get("line") and loc.get("column") else "") + " "
        out.line("  ", (f"{f.get('severity', '')} {f.get('rule', '')}", f.get("severity")), " ", where,
                 f.get("message", ""))


def _pr_block(out: Out, res) -> None:
    pr = res.extra.get("pr29558")
    if not pr:
        return
    what_if = (f"What if: the PR #29558 design (--target pr29558, on vLLM {pr['vllm_version']}; not what this "
               "deployment runs, and not counted in the exit code)")
    out.line((what_if, "head"))
    if pr.get("vllm_error"):
        out.line(f"  vLLM would refuse: {pr['vllm_error']['type']}")
        return
    moe = [op for op in (pr.get("splitting_ops") or []) if "moe_forward" in op]
    out.line(f"  cudagraph_mode {pr['cudagraph_mode']}"
             + (f"; {', '.join(moe)} split out of the piecewise graphs" if moe else ""))
    for f in pr.get("findings") or []:
        # a what-if, never the user's own error: no severity colour, and said as what it would be
        out.line("  ", (f"would be {f['rule']} ({f['severity']} under that design)", "dim"), " ", f["message"])


def _depends(out: Out, res, findings: list[dict]) -> None:
    names = res.extra.get("depends_on") or []
    if not names:
        return
    out.line(("Depends on", "head"))
    shown = {f["message"] for f in findings if f.get("rule") == "VP103"}
    for name in names:
        alt = next((m for m in shown if f"depends on {name} " in m), None)
        out.line(f"  {name}: " + (alt.split(': ', 1)[-1] if alt else "the outcome changes with its value"))


def _assumptions(out: Out, res) -> None:
    seen = set()
    items = []
    runtime = (res.resolved or {}).get("runtime") or {}
    for a in list(res.assumptions) + [Assumption(x["fact"], x["value"], x["source"]) for x in runtime.get("assumptions") or []]:
        key = (a.fact, str(a.value))
        if key not in seen:
            seen.add(key)
            items.append(a)
    if not items:
        return
    out.line(("Assumed", "head"))
    for a in items:
        out.line(f"  {a.fact} = {a.value}", (f"  ({a.source})", "dim"))


def render_result(out: Out, res, verbose: bool = False) -> None:
    out.line((f"── {_title(res)} ", "head"))
    loc = res.extra.get("location") or {}
    if loc.get("line"):
        out.line((f"server command at {loc['file']}:{loc['line']}:{loc.get('column') or 1}", "dim"))
    summary = res.extra.get("summary") or {}
    findings = res.extra.get("findings") or []
    shown_findings = [f for f in findings if f.get("rule") != "VP103"]
    if summary.get("line"):
        worst = "error" if summary.get("errors") else "warning" if summary.get("hazards") else "head"
        out.line((summary["line"], worst))
    if res.vllm_error is not None:
        lines = (res.vllm_error.message or "").strip().splitlines() or [""]
        out.line(("vLLM would refuse to start: ", "error"), f"{res.vllm_error.type}: {lines[0]}")
        for more in lines[1:]:  # pydantic's messages run over several lines
            out.line("  " + more)
    else:
        out.line(headline(res))
        rows = res.extra.get("plan") or []
        shown = [r for r in rows if verbose or r["changes"] or r.get("written") is not None
                 or r["setting"] in KEY_SETTINGS]
        if shown:
            width = max(len(r["setting"]) for r in shown)
            out.line(("Plan", "head"), ("  (= as written, ~ changed by vLLM, + vLLM's default"
                                        + ("" if verbose else "; --verbose shows every default") + ")", "dim"))
            for r in shown:
                _row_line(out, r, width)
        _why(out, res, rows)
        _runtime(out, res)
        logs = list(dict.fromkeys(e.reason for e in res.events if e.field == "log" and e.level == "warning"))
        if logs:
            out.line(("vLLM also warns", "head"))
            for text in logs:
                out.line(("  • " + text, "dim"))
    _findings(out, shown_findings)
    _depends(out, res, findings)
    _pr_block(out, res)
    _assumptions(out, res)
    out.line("")


def render_text(report, console=None, verbose: bool = False, out: Out | None = None) -> None:
    out = out or make_out(console)
    for res in report.results:
        render_result(out, res, verbose)
