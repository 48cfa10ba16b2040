"""Snapshots of the text report: what a deployer reads for the bundled examples, piped (plain
lines, never wrapped: `NAME.txt`) and on terminals of 80 and 200 columns (a rich Console of that
width, colour off: `NAME.80.txt`, `NAME.200.txt`).

Regenerate after an intended change with

    VP_UPDATE_SNAPSHOTS=1 python -m pytest tests/text_report

and read the diff (`git diff tests/text_report/snapshots`) before committing it.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from vllm_preflight.api import check_inputs
from vllm_preflight.report.text_report import Out, make_out, render_text

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).parent / "snapshots"
CASES = {
    "deepep-ht-dp8": (["examples/deepep-ht-dp8.sh"], {}),
    "deepep-ht-dp8.pr29558": (["examples/deepep-ht-dp8.sh"], {"target": "pr29558"}),
    "mode-none-full.0.13.0": (["examples/verify-deepep-ht-mode-none-full.sh"], {"vllm_version": "0.13.0"}),
    "wide-ep-lws": (["examples/wide-ep-lws.yaml"], {}),
}


WIDTHS = (None, 80, 200)  # None: piped


def _report(paths, **how):
    cwd = os.getcwd()
    os.chdir(ROOT)  # sources are printed as given, relative to the repository
    try:
        return check_inputs(paths, **how)
    finally:
        os.chdir(cwd)


def plain_report(paths, **how) -> str:
    buf = io.StringIO()
    render_text(_report(paths, **how), out=Out(None, buf))
    return buf.getvalue()


def terminal_report(paths, width: int, **how) -> str:
    """As on a terminal of `width` columns: rich's Console, a terminal, without colour."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=True, color_system=None, highlight=False)
    render_text(_report(paths, **how), out=make_out(console))
    return buf.getvalue()


def _snapshot(name: str, width: int | None) -> Path:
    return SNAPSHOTS / (f"{name}.txt" if width is None else f"{name}.{width}.txt")


@pytest.mark.parametrize("width", WIDTHS, ids=lambda w: "piped" if w is None else f"{w}cols")
@pytest.mark.parametrize("name", sorted(CASES))
def test_text_report_snapshot(name, width):
    paths, how = CASES[name]
    text = plain_report(paths, **how) if width is None else terminal_report(paths, width, **how)
    snap = _snapshot(name, width)
    if os.environ.get("VP_UPDATE_SNAPSHOTS"):
        snap.write_text(text)
    assert text == snap.read_text()


@pytest.mark.parametrize("width", [40, 80, 200])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_terminal_report_fits_and_breaks_no_word(name, width):
    """Every line fits the width unless it is one word; the words are the piped report's, in
    order, none cut in two (wrapping only moves words to the next line)."""
    paths, how = CASES[name]
    piped = plain_report(paths, **how)
    wrapped = terminal_report(paths, width, **how)
    for line in wrapped.splitlines():
        assert len(line) <= width or " " not in line.strip(), line
    assert wrapped.split() == piped.split()
    if width == 200:
        assert max(len(line) for line in piped.splitlines()) > 200  # the case does need wrapping


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


def _cli(args, env_extra, tty: bool) -> str:
    """Run `vllm-preflight` with its stdout a terminal (a pseudo-terminal) or a pipe."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), HF_HUB_OFFLINE="1", **env_extra)
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    cmd = [sys.executable, "-m", "vllm_preflight", *args]
    if not tty:
        return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120).stdout
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=follower, stderr=subprocess.DEVNULL, close_fds=True)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.mark.parametrize("command", [
    ["check", "examples/wide-ep-lws.yaml"], ["matrix", "examples/deepep-ht-dp8.sh"],
    ["matrix", "--vllm-version", "0.33.0", "--axes", "all2all,dp", "--where", "dp=8"],
    ["matrix", "examples/deepep-ht-dp8.sh", "--vs", "0.12.0", "pr29558"],
    ["explain", "VP302"], ["rules"],
], ids=lambda c: "-".join(w.split("/")[-1] for w in c[:2]))
def test_on_a_terminal_lines_fit_columns_and_piped_they_stay_whole(command):
    """COLUMNS=80 on a terminal: every line fits (colour on, its escapes not counted); the same
    COLUMNS piped: plain lines, not wrapped, not padded, nothing cut with `…` that the data
    does not hold."""
    import re

    shown = _cli(command, {"COLUMNS": "80"}, tty=True)
    assert "\x1b[" in shown or command[0] in ("explain", "rules") or "--vs" in command  # a terminal: coloured
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    examples = [line for line in plain.splitlines() if line.startswith("      vllm serve")]  # explain's, verbatim
    assert plain.strip() and all(len(line) <= 80 for line in plain.splitlines() if line not in examples), plain
    piped = _cli(command, {"COLUMNS": "80"}, tty=False)
    assert "\x1b" not in piped
    lines = piped.splitlines()
    assert max(len(line) for line in lines) > 80 or command[0] == "explain"  # not wrapped at COLUMNS
    assert all(line == line.rstrip() for line in lines)  # not padded to a width
    if command == ["matrix", "examples/deepep-ht-dp8.sh"]:  # the refusal's `why` is whole: vLLM's message, not `…`
        assert "unrecognized arguments: --all2all-backend deepep_high_throughput" in piped
        assert plain.split("why: unrecognized arguments:")[1].split()[:2] == ["--all2all-backend",
                                                                               "deepep_high_throughput"]
