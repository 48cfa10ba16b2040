"""The JSON contract of `check` (format_version 1): keys may be added, never changed."""
from __future__ import annotations

import json

from vllm_preflight import __version__

FORMAT_VERSION = 1


def as_dict(report) -> dict:
    out = {"format_version": FORMAT_VERSION, "tool_version": __version__,
           "results": [r.to_json() for r in report.results]}
    if report.errors:
        out["errors"] = [e.to_json() for e in report.errors]
    return out


def render_json(report) -> str:
    return json.dumps(as_dict(report), indent=2)
