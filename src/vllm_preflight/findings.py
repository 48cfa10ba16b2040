"""Findings: what the tool noticed about how a deployment is written, placed at a line.

A finding is not vLLM's behaviour (that is an Event) and not an unreadable input (that is
an InputError): it is a remark about the input with a stable rule id, a severity, a
message, and the location of the offending word, key or flag.

Rules are data: one entry per id in RULES. The code never changes meaning; a renamed rule
keeps its code. Severities: error (vLLM would reject it, or the tool had to guess in a
way that hides a refusal), warning (likely not what the author meant), info.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_preflight.model import Location


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str


RULES: dict[str, Rule] = {r.code: r for r in (
    # --- how the input is written (loaders) ---
    Rule("VP101", "comment-after-continuation", "warning",
         "A comment right after a `\\` continuation ends the command there; the lines after it "
         "are not passed to vLLM."),
    Rule("VP102", "unresolved-variable", "info",
         "A shell or Kubernetes variable has no value here; the tool resolved under a stated value."),
    Rule("VP103", "outcome-depends-on-variable", "warning",
         "What vLLM runs depends on the value of an unresolved variable."),
    Rule("VP104", "version-differs-from-image", "info",
         "The vLLM release checked differs from the one in the container image tag."),
    Rule("VP105", "unsupported-image-release", "warning",
         "The image tag names a vLLM release the tool does not model; the nearest supported "
         "release was used."),
    Rule("VP106", "config-yaml-nested-mapping", "error",
         "A nested mapping in a `--config` YAML file reaches the parser as a Python repr before "
         "vLLM 0.16.0, which the JSON parser rejects."),
    Rule("VP107", "config-file-unreadable", "warning",
         "A `--config` file named by the command could not be read; its settings are missing."),
    Rule("VP108", "duplicate-option", "info",
         "An option is given more than once; the last one wins."),
    Rule("VP109", "config-yaml-false-dropped", "info",
         "`false` in a `--config` YAML file is dropped by this release (no `--no-` flag is "
         "added), so the option keeps its default."),
    Rule("VP110", "config-yaml-overridden", "info",
         "A key of the `--config` file is also given on the command line, which wins."),
    Rule("VP111", "unknown-variable-flags", "info",
         "An unresolved variable stands where flags go; the tool assumed it adds no flags."),
    Rule("VP112", "env-value-unknown", "info",
         "An environment variable vLLM reads comes from `valueFrom`/`envFrom`; it is treated as unset."),
    # --- schema validation against the release ---
    Rule("VP201", "unknown-option", "error",
         "The option does not exist in this vLLM release; its parser rejects the command."),
    Rule("VP202", "invalid-option-value", "error",
         "The value does not fit the option's type or choices in this vLLM release."),
    Rule("VP203", "unknown-config-key", "error",
         "The key does not exist in this release's config dataclass; vLLM rejects it."),
    Rule("VP204", "invalid-config-value", "error",
         "The value of a config key does not fit its type or choices in this vLLM release."),
    Rule("VP205", "invalid-json", "error",
         "A JSON-valued option holds text that is not JSON."),
)}


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str
    location: Location | None = None
    severity: str = ""  # defaults to the rule's

    def __post_init__(self):
        if not self.severity:
            object.__setattr__(self, "severity", RULES[self.rule].severity)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message,
                "location": self.location.to_json() if self.location else None}

    def render(self) -> str:
        where = ""
        if self.location:
            where = self.location.file
            if self.location.line is not None:
                where += f":{self.location.line}"
                if self.location.column is not None:
                    where += f":{self.location.column}"
            where += ": "
        return f"{where}{self.severity} {self.rule} {self.message}"


def unique(findings) -> list[Finding]:
    """Keep the first of equal findings, in order."""
    seen: set = set()
    out = []
    for f in findings:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out
