"""Snapshots of the text report, piped (plain lines): what a deployer reads for the bundled examples.

Regenerate after an intended change with `VP_UPDATE_SNAPSHOTS=1 python -m pytest tests/text_report`
and read the diff before committing it.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from vllm_preflight.api import check_inputs
from vllm_preflight.report.text_report import Out, render_text

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).parent / "snapshots"
CASES = {
    "deepep-ht-dp8": (["examples/deepep-ht-dp8.sh"], {}),
    "deepep-ht-dp8.pr29558": (["examples/deepep-ht-dp8.sh"], {"target": "pr29558"}),
    "mode-none-full.0.13.0": (["examples/verify-deepep-ht-mode-none-full.sh"], {"vllm_version": "0.13.0"}),
    "wide-ep-lws": (["examples/wide-ep-lws.yaml"], {}),
}


def plain_report(paths, **how) -> str:
    cwd = os.getcwd()
    os.chdir(ROOT)  # sources are printed as given, relative to the repository
    try:
        report = check_inputs(paths, **how)
    finally:
        os.chdir(cwd)
    buf = io.StringIO()
    render_text(report, out=Out(None, buf))
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_report_snapshot(name):
    paths, how = CASES[name]
    text = plain_report(paths, **how)
    snap = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("VP_UPDATE_SNAPSHOTS"):
        snap.write_text(text)
    assert text == snap.read_text()


def test_plain_output_has_no_escape_codes_and_no_wrapping():
    text = plain_report(["examples/deepep-ht-dp8.sh"])
    assert "\x1b" not in text
    assert max(len(line) for line in text.splitlines()) > 120  # long lines stay whole when piped


def test_control_characters_from_the_input_are_shown_not_obeyed(tmp_path):
    bad = tmp_path / "a\x1b[2Jb.sh"
    bad.write_text("vllm serve m --all2all-backend deepep_low_latency -dp 2\n")
    report = check_inputs([str(bad)])
    buf = io.StringIO()
    render_text(report, out=Out(None, buf))
    assert "\x1b" not in buf.getvalue() and "\\x1b[2Jb.sh" in buf.getvalue()
