"""The JSON contract of `check` (format_version 1): keys may be added, never changed.

Top level: `format_version`, `tool_version`, `results[]` (each with its `findings`, after
ignores, its `name` and its prefill/decode `role` {role, source}: identity.py), `errors[]` (only when an input could not be read), `skipped[]` (files read that hold
no vLLM server, and parts of files left out, each with its reason) and `summary` (counts, `fail_on` and the `exit_code` of the run).
"""
from __future__ import annotations

import json

from vllm_preflight import __version__
from vllm_preflight.report.fast_json import dumps_indent2

FORMAT_VERSION = 1


def as_dict(report, fail_on: str = "error", *, require_servers: bool = True) -> dict:
    from vllm_preflight.outcome import summary

    out = {"format_version": FORMAT_VERSION, "tool_version": __version__,
           "results": [r.to_json() for r in report.results]}
    if report.errors:
        out["errors"] = [e.to_json() for e in report.errors]
    out["skipped"] = [{"path": str(p), "reason": getattr(p, "reason", "holds no vLLM server")}
                      for p in getattr(report, "skipped", ())]
    out["summary"] = summary(report, fail_on, require_servers=require_servers)
    return out


PRETTY_UP_TO = 50  # results; larger reports put one result per line


def render_json(report, fail_on: str = "error", *, require_servers: bool = True) -> str:
    doc = as_dict(report, fail_on, require_servers=require_servers)
    if len(doc["results"]) <= PRETTY_UP_TO:
        return dumps_indent2(doc)  # json.dumps(doc, indent=2), the same text
    # json's C encoder runs only without `indent`; indenting a thousand results in pure Python
    # costs more than checking them. Same JSON, one result per line.
    parts = []
    for key, value in doc.items():
        if key == "results":
            value = "[\n" + ",\n".join("  " + json.dumps(r) for r in value) + "\n]"
        else:
            value = json.dumps(value)
        parts.append(f"{json.dumps(key)}: {value}")
    return "{" + ",\n".join(parts) + "}"
