"""The hostile corpus (issue 25): texts an untrusted contributor can put in file names, flag
texts, model names and verify records, and the checks that an output shows them without obeying
them. Every format of every command runs this one corpus (test_hostile_output.py)."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shlex
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

TEXTS = {
    "clear-screen": "\x1b[2J\x1b[H",
    "osc8-link": "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "window-title": "\x1b]0;pwned\x07",
    "c1-csi": "\x9b31mred",
    "carriage-return": "ok\rFAKE",
    "backspace-bell": "a\x08\x07b",
    "bidi-override": "abc\u202efdp.sh",
    "bidi-isolate": "\u2066rtl\u2069",
    "zero-width": "a\u200bb\ufeffc",
    "line-separator": "one\u2028two",
    "html-img": "<img src=x onerror=alert(1)>",
    "html-script": "<script>alert(1)</script>",
    "html-entity": "&lt;b&gt;&#x202e;",
    "markdown-link": "[click](javascript:alert(1))",
    "markdown-image": "![pixel](http://evil.example/p.png)",
    "markdown-code": "`a` | b ``` c",
    "rich-markup": "[bold red]loud[/]",
    "rich-emoji": ":warning: :red_circle:",
    "formula-eq": '=HYPERLINK("http://evil.example","x")',
    "formula-plus": "+cmd|' /C calc'!A0",
    "formula-minus": "-2+3+cmd|' /C calc'!A0",
    "formula-at": "@SUM(1+1)*cmd|' /C calc'!A0",
    "formula-tab": "\t=1+1",
    "formula-cr": "\r=1+1",
    "gha-command": "::error file=x::pwned",
    "gha-stop": "::stop-commands::tok",
    "newline-command": "x\n::warning::injected",
    "nul": "nul\x00byte",
    "surrogate": "bad\udcffname",
    "percent": "%0A::error::x%25",
}

# the first character of a cell that a spreadsheet runs as a formula
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
ALLOWED_HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "span", "table",
                     "thead", "tbody", "tr", "th", "td", "pre", "footer"}
ALLOWED_HTML_ATTRS = {"lang", "charset", "class", "title", "style"}
ALLOWED_MARKDOWN_TAGS = {"h3", "p", "em", "strong", "table", "thead", "tbody", "tr", "th", "td", "pre", "code"}


def file_names() -> dict[str, str]:
    """Corpus name -> a file name holding that text as far as a Linux file name can: a `/` becomes
    U+2215 (the HTML, link or formula around it stays), NUL is left out; a surrogate is the byte
    0xff on disk (not UTF-8)."""
    return {k: v.replace("/", "\u2215").replace("\x00", "") + ".sh" for k, v in TEXTS.items()}


def write_inputs(folder: Path) -> list[str]:
    """One shell script per name, each serving a model and a flag named by its text (so the text
    reaches findings, refusals and assumptions); returns the names, relative to `folder`."""
    names = []
    for key, name in file_names().items():
        text = TEXTS[key].replace("\x00", "").replace("\udcff", "")  # the name holds those; the text is UTF-8
        (folder / name).write_text(f"vllm serve {shlex.quote('org/m' + text)} {shlex.quote('--x' + text)} 1 -tp 2\n",
                                   encoding="utf-8")
        names.append("./" + name if name.startswith("-") else name)  # not an option to click
    return names


def invoke(argv: list[str], cwd: Path | str | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the command line in this process, through `cli.run`, the
    process's own entry (click's usage errors and signals are handled there, not in `cli`)."""
    from vllm_preflight.cli import run

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run(argv)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- checks of outputs
def assert_no_raw_controls(text: str, where: str) -> None:
    """Every character printable, or a newline ending a line of the output itself."""
    bad = sorted({repr(c) for c in text if c != "\n" and not c.isprintable()})
    assert not bad, f"{where}: raw {', '.join(bad)} reached the output"


def assert_no_command_lines(text: str, where: str, ours: str | None = None) -> None:
    """No line a GitHub Actions runner reads as a workflow command, except the tool's own
    annotations (`ours`: a regex of them)."""
    for line in text.splitlines():
        if line.lstrip().startswith("::"):
            assert ours and re.match(ours, line), f"{where}: an input starts a workflow command: {line[:120]!r}"


GITHUB_LINE = r"^::(error|warning|notice) file=[^:,\n]*,line=\d+,col=\d+,title=[^:,\n]*::"


def assert_github(text: str) -> None:
    for line in text.splitlines():
        assert re.match(GITHUB_LINE, line), f"not one annotation: {line[:160]!r}"
        assert "\r" not in line


def assert_csv(text: str) -> None:
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) > 1
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_START):
                assert cell == "-" or re.fullmatch(r"-?\d+(\.\d+)?", cell), f"a formula cell: {cell[:80]!r}"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)


def assert_html(text: str, allowed_tags=frozenset(ALLOWED_HTML_TAGS)) -> None:
    page = _Tags()
    page.feed(text)
    assert page.tags <= allowed_tags, f"tags from an input: {page.tags - allowed_tags}"
    assert page.attrs <= ALLOWED_HTML_ATTRS, f"attributes from an input: {page.attrs - ALLOWED_HTML_ATTRS}"


def assert_markdown(text: str) -> None:
    """Rendered as GitHub renders it (CommonMark with tables): no HTML, link or image from an input."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert_html(rendered, frozenset(ALLOWED_MARKDOWN_TAGS))
    assert_no_raw_controls(rendered, "markdown rendered")


def assert_json_ascii(text: str) -> object:
    assert text.isascii(), "JSON is written as ASCII (exact text in escapes)"
    return json.loads(text)


def assert_xml(text: str) -> None:
    ET.fromstring(text.split("\n", 1)[1] if text.startswith("<?xml") else text)
