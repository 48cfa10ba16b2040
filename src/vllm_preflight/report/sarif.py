"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run: the tool (its `informationUri`) with every rule of the registry (id, name,
descriptions, default level, `helpUri` to its section of docs/rules.md and `help.markdown`),
one result per finding at its physical location, and input errors as tool execution
notifications. A path under the folder the tool ran in is a relative URI with `uriBaseId`
`%SRCROOT%` (code scanning resolves it against the repository); any other absolute path is a
file: URI. A region has its start and, where the finding points at a word of its file, that
word's end (`endLine`/`endColumn`, exclusive). `partialFingerprints` hold a hash of the rule, the
file and the message without line numbers, so a finding keeps its identity when
lines move; `automationDetails.id` is `vllm-preflight/` (GitHub's category).
Text stays exact (JSON escapes it); nothing here reads the terminal.
"""
from __future__ import annotations

import hashlib
import json
import os
import re

from vllm_preflight import __version__
from vllm_preflight.report._common import error_place, located, server_name
from vllm_preflight.safe_text import uri_path

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
HOME = "https://github.com/vllm-preflight/vllm-preflight"
RULES_DOC = f"{HOME}/blob/main/docs/rules.md"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "vllmPreflightFinding/v1"
_LINE_NUMBERS = re.compile(r":\d+(?::\d+)?\b|\bline \d+")


def uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (code scanning resolves them
    against the repository), absolute ones become file: URIs. A file name that is not UTF-8 is
    written as its bytes on disk (percent-encoded), never lost."""
    return ("file://" if os.path.isabs(path) else "") + uri_path(path)


def artifact(path: str) -> dict:
    """An artifactLocation: relative to %SRCROOT% (the working folder) where the path is inside
    it, an absolute file: URI otherwise."""
    rel = path
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(path)
        except (OSError, ValueError):  # no working folder, another drive
            return {"uri": uri(path)}
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return {"uri": uri(path)}
    return {"uri": uri_path(rel), "uriBaseId": SRCROOT}


def _help_uri(code: str) -> str:
    return f"{RULES_DOC}#{code.lower()}"


def _rule(rule) -> dict:
    why = getattr(rule, "why", "")
    fix = getattr(rule, "fix", "")
    explain = f"vllm-preflight explain {rule.code}"
    text = "\n\n".join(x for x in (fix, explain) if x)
    markdown = "\n\n".join(x for x in (
        f"**{rule.code} {rule.name}** ({rule.severity}): {rule.summary}",
        f"**Why:** {why}" if why else "", f"**Fix:** {fix}" if fix else "",
        f"`{explain}` shows a failing and a passing example; [docs/rules.md]({_help_uri(rule.code)})") if x)
    out = {"id": rule.code, "name": rule.name,
           "shortDescription": {"text": rule.summary},
           "defaultConfiguration": {"level": LEVEL.get(rule.severity, "warning")},
           "helpUri": _help_uri(rule.code),
           "help": {"text": text, "markdown": markdown}}
    if why:
        out["fullDescription"] = {"text": why}
    return out


class _Words:
    """The end of the word a finding points at, read from its file once (None: not known)."""

    LIMIT = 16 << 20

    def __init__(self):
        self.lines: dict[str, list[str] | None] = {}

    def end(self, file: str, line: int, col: int) -> int | None:
        if file not in self.lines:
            self.lines[file] = self._read(file)
        lines = self.lines[file]
        if not lines or line > len(lines):
            return None
        text = lines[line - 1]
        start = col - 1
        if start >= len(text) or text[start].isspace():
            return None
        if text[start] in "\"'":  # a quoted word: to its closing quote
            close = text.find(text[start], start + 1)
            if close > start:
                return close + 2
        stop = start
        while stop < len(text) and not text[stop].isspace():
            stop += 1
        while stop > start + 1 and text[stop - 1] in ",;":  # a list's separator is not the word's
            stop -= 1
        return stop + 1

    def _read(self, file: str) -> list[str] | None:
        try:  # a regular file only (never blocks on a FIFO); what a finding already names
            if not os.path.isfile(file) or os.path.getsize(file) > self.LIMIT:
                return None
            with open(file, "rb") as f:
                return f.read(self.LIMIT).decode("utf-8", errors="replace").splitlines()
        except OSError:
            return None


def fingerprint(code: str, file: str, message: str) -> str:
    """Stable across moved lines: the rule, the file (as its URI) and the message with its line
    numbers taken out (findings alike in one file are told apart by their order)."""
    key = "\0".join((code, file, _LINE_NUMBERS.sub("", message)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def as_dict(report) -> dict:
    from vllm_preflight.findings import RULES

    codes = list(RULES)
    index = {c: i for i, c in enumerate(codes)}
    rules = [_rule(RULES[c]) for c in codes]
    results = []
    words = _Words()
    seen: dict[str, int] = {}
    for r, f, file, line, col in located(report):
        code = str(f.get("rule"))
        if code not in index:  # a finding of a rule the registry lacks: still described
            index[code] = len(rules)
            rules.append({"id": code, "shortDescription": {"text": code},
                          "defaultConfiguration": {"level": LEVEL.get(f.get("severity"), "warning")}})
        region = {"startLine": line, "startColumn": col}
        own = f.get("location") or {}
        if own.get("file") and own.get("line"):
            end = words.end(file, line, col)
            if end is not None:
                region.update(endLine=line, endColumn=end)
        message = f.get("message") or code
        where = artifact(file)
        mark = fingerprint(code, where["uri"], message)
        seen[mark] = seen.get(mark, 0) + 1  # the same finding twice in a file: told apart by order
        results.append({
            "ruleId": code, "ruleIndex": index[code],
            "level": LEVEL.get(f.get("severity"), "error"),
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": where, "region": region}}],
            "partialFingerprints": {FINGERPRINT: f"{mark}:{seen[mark]}"},
            "properties": {"server": r.source, "serverName": server_name(r), "vllmVersion": r.vllm_version,
                           "target": r.target},
        })
    notes = []
    for err in report.errors:
        file, line, col = error_place(err)
        notes.append({"level": "error", "message": {"text": err.message},
                      "locations": [{"physicalLocation": {"artifactLocation": artifact(file),
                                                          "region": {"startLine": line, "startColumn": col}}}]})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "vllm-preflight", "version": __version__,
                                "semanticVersion": __version__, "informationUri": HOME,
                                "rules": rules}},
            "automationDetails": {"id": "vllm-preflight/"},
            "originalUriBaseIds": {SRCROOT: {"description": {"text": "The folder vllm-preflight ran in "
                                                                     "(the repository's root in CI)."}}},
            "invocations": [{"executionSuccessful": not report.errors,
                             "toolExecutionNotifications": notes}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(report) -> str:
    return json.dumps(as_dict(report), indent=2)
