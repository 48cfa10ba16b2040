"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run: the tool with every rule of the registry (id, name, descriptions, default level),
one result per finding at its physical location (file as a relative URI reference where the
path is relative, line and column), and input errors as tool execution notifications.
Text stays exact (JSON escapes it); nothing here reads the terminal.
"""
from __future__ import annotations

import json
import os

from vllm_preflight import __version__
from vllm_preflight.report._common import error_place, located, server_name
from vllm_preflight.safe_text import uri_path

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (code scanning resolves them
    against the repository), absolute ones become file: URIs. A file name that is not UTF-8 is
    written as its bytes on disk (percent-encoded), never lost."""
    return ("file://" if os.path.isabs(path) else "") + uri_path(path)


def _rule(rule) -> dict:
    out = {"id": rule.code, "name": rule.name,
           "shortDescription": {"text": rule.summary},
           "defaultConfiguration": {"level": LEVEL.get(rule.severity, "warning")},
           "help": {"text": f"vllm-preflight explain {rule.code}"}}
    why = getattr(rule, "why", "")
    if why:
        out["fullDescription"] = {"text": why}
    fix = getattr(rule, "fix", "")
    if fix:
        out["help"] = {"text": f"{fix}\n\nvllm-preflight explain {rule.code}"}
    return out


def as_dict(report) -> dict:
    from vllm_preflight.findings import RULES

    codes = list(RULES)
    index = {c: i for i, c in enumerate(codes)}
    rules = [_rule(RULES[c]) for c in codes]
    results = []
    for r, f, file, line, col in located(report):
        code = str(f.get("rule"))
        if code not in index:  # a finding of a rule the registry lacks: still described
            index[code] = len(rules)
            rules.append({"id": code, "shortDescription": {"text": code},
                          "defaultConfiguration": {"level": LEVEL.get(f.get("severity"), "warning")}})
        results.append({
            "ruleId": code, "ruleIndex": index[code],
            "level": LEVEL.get(f.get("severity"), "error"),
            "message": {"text": f.get("message") or code},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri(file)},
                "region": {"startLine": line, "startColumn": col}}}],
            "properties": {"server": r.source, "serverName": server_name(r), "vllmVersion": r.vllm_version, "target": r.target},
        })
    notes = []
    for err in report.errors:
        file, line, col = error_place(err)
        notes.append({"level": "error", "message": {"text": err.message},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(file)},
                                                          "region": {"startLine": line, "startColumn": col}}}]})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "vllm-preflight", "version": __version__,
                                "semanticVersion": __version__,
                                "rules": rules}},
            "invocations": [{"executionSuccessful": not report.errors,
                             "toolExecutionNotifications": notes}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(report) -> str:
    return json.dumps(as_dict(report), indent=2)
