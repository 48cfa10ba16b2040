"""`--format junit`: JUnit XML for GitLab, Jenkins and other CI test reports.

One test case per server checked (classname: its file; name: the server and release). Findings at
or above `--fail-on` (and a vLLM refusal) are its failures; the others are listed in its
system-out. An input that could not be read is a test case with an error. Each test case has
the seconds its server took to check as `time`, the suite and the whole run their sum. XML 1.0
cannot hold control characters, so text passes through safe_text.visible.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from vllm_preflight.outcome import fails, findings_of
from vllm_preflight.report._common import error_place, place, server_name
from vllm_preflight.safe_text import line_start, visible


def _case_name(r) -> str:
    where = r.extra.get("location") or {}
    label = r.vllm_version if r.target == "release" else f"pr29558 on {r.vllm_version}"
    at = f" (line {where['line']})" if where.get("line") else ""
    return f"{server_name(r)}{at} · vLLM {label}"


def as_element(report, fail_on: str = "error") -> ET.Element:
    suites = ET.Element("testsuites", name="vllm-preflight")
    suite = ET.SubElement(suites, "testsuite", name="vllm-preflight check")
    failures = errors = 0
    seconds = getattr(report, "seconds", None) or {}
    total = 0.0
    for r in report.results:
        server = r.extra.get("location") or {}
        took = seconds.get(id(r), 0.0)
        total += took
        case = ET.SubElement(suite, "testcase", classname=visible(server.get("file") or r.source),
                             name=visible(_case_name(r)), time=f"{took:.3f}")
        failed: list[tuple[dict, str]] = []
        other: list[tuple[dict, str]] = []
        for f in findings_of(r):
            file, line, col = place(f, r)
            text = (f"{line_start(file, path=True)}:{line}:{col}: {f.get('severity')} {f.get('rule')} "
                    + visible(f.get("message", "")))
            (failed if fails(f.get("severity", "error"), fail_on) else other).append((f, text))
        if failed:
            failures += 1
            first = failed[0][0]
            el = ET.SubElement(case, "failure", type=str(first.get("rule")),
                               message=visible(f"{first.get('rule')} {first.get('message', '')}"))
            el.text = "\n".join(t for _f, t in failed)
        if other:
            ET.SubElement(case, "system-out").text = "\n".join(t for _f, t in other)
    for err in report.errors:
        errors += 1
        file, line, _col = error_place(err)
        case = ET.SubElement(suite, "testcase", classname=visible(file), name=visible(f"{file}:{line}"),
                             time="0.000")
        ET.SubElement(case, "error", type="input", message=visible(err.message)).text = line_start(err.render(), path=True)
    counts = {"tests": len(report.results) + len(report.errors), "failures": failures, "errors": errors}
    for el in (suite, suites):
        for k, n in counts.items():
            el.set(k, str(n))
        el.set("time", f"{total:.3f}")
    return suites


def render_junit(report, fail_on: str = "error") -> str:
    root = as_element(report, fail_on)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
