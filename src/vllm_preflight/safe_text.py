"""Text from inputs, made safe for every output format: the one place that neutralises it.

File names, file contents, flag texts and verify records reach every output (terminal, CI logs,
pull-request annotations, spreadsheets, web pages), and those are read by people other than the
one who wrote the input. An input must be shown there, never obeyed:

- terminal and plain text (`visible`): control and invisible-format characters become escapes
  (ESC [ 2 J would clear the screen, OSC 8 forge a link, OSC 0 set the window title, CR overwrite
  a line, a bidi override reorder what a reader sees; a lone surrogate from a non-UTF-8 file name
  cannot even be encoded);
- a line that starts with an input's text (`line_start`): never a GitHub Actions workflow
  command (`::error ...`, `::stop-commands::`, which the runner reads from any line of a log);
- rich markup (`rich`), Markdown (`markdown`, `fence`), HTML (`html`), CSV (`csv_cell`: no
  spreadsheet formula), GitHub workflow-command values (`github_data`, `github_property`);
- JSON (and SARIF) keep the exact text: the encoder writes it as ASCII escapes (`ensure_ascii`),
  so a reader gets what the input held and the terminal nothing to obey.

Each function takes any value (str() of it).
"""
from __future__ import annotations

import re

_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe(ch: str) -> bool:
    # Python's "printable" excludes C0/C1 controls (ESC, BEL, CSI 0x9b), bidi overrides and other
    # invisible formatting that can reorder what a reader sees, line/paragraph separators,
    # surrogates, private-use and unassigned code points, and spaces other than U+0020.
    return not ch.isprintable()


def visible(text, *, keep_newlines: bool = False) -> str:
    """`text` with every control or invisible-format character written as a Python-style escape
    (ESC -> `\\x1b`, CR -> `\\r`). Printable text, including non-ASCII letters, is unchanged.

    A backslash is doubled only in text that needs escaping, so ordinary paths and messages read
    as they are while an escaped line cannot be forged by writing a literal `\\x1b`.
    `keep_newlines=True` keeps `\\n` (for multi-line messages the caller wants as lines)."""
    if not isinstance(text, str):
        text = str(text)
    if text.isprintable():
        return text
    if not any(_unsafe(ch) and not (keep_newlines and ch == "\n") for ch in text):
        return text
    return "".join(ch if (keep_newlines and ch == "\n") or not (_unsafe(ch) or ch == "\\") else _escape(ch)
                   for ch in text)


def line_start(text, *, path: bool = False) -> str:
    """`visible(text)` for the start of an output line. Text that a GitHub Actions runner would
    read as a workflow command there (`::error::...`, `::stop-commands::...`, once leading blanks
    are trimmed) gets `./` in front when it is a path (the same file: concise lines start with
    one), else a backslash, as an escape of what follows."""
    out = visible(text)
    if not starts_command(out):
        return out
    return ("./" if path else "\\") + out


def starts_command(line: str) -> bool:
    """Whether a GitHub Actions runner reads `line` of a log as a workflow command."""
    return line.lstrip().startswith("::")


def rich(text) -> str:
    """`visible(text)` with rich's markup escaped: `[bold]` from an input is shown, not applied
    (the consoles that print it are made with `emoji=False`, so `:warning:` stays text too)."""
    from rich.markup import escape

    return escape(visible(text))


# Markdown: backslash-escape what starts raw HTML or an autolink, an entity (`&#x202e;` would
# decode to a bidi override), a link or image, a code span or a table cell; CommonMark shows an
# escaped ASCII punctuation character as itself. Emphasis is left alone: it hides nothing.
_MARKDOWN_SPECIAL = re.compile(r"([\\`\[\]<>|&])")


def markdown(text) -> str:
    """Inline Markdown (a table cell, a heading, a note): shown as written, never HTML, a link,
    an image or an entity; one line (a newline reads as a space)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible(str(text).replace("\n", " ")))


def fence(lines) -> list[str]:
    """A fenced code block holding `lines` verbatim (each made `visible`): the fence is longer
    than any run of backticks inside, so no line can close it early."""
    shown = [visible(line) for line in lines]
    longest = max((len(run) for line in shown for run in re.findall(r"`+", line)), default=0)
    mark = "`" * max(3, longest + 1)
    return [f"{mark}text", *shown, mark]


def html(text, *, keep_newlines: bool = False) -> str:
    """HTML text or attribute value: `visible`, then `& < > " '` as character references."""
    from html import escape

    return escape(visible(text, keep_newlines=keep_newlines), quote=True)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def csv_cell(text) -> str:
    """A CSV cell a spreadsheet shows as text, never runs: `visible`, and a cell that starts like
    a formula (`=`, `+`, `-`, `@`, tab, CR, or their full-width forms) gets a `'` in front. A
    number (`-1`) and the lone `-` the tables write for "none" stay as they are."""
    raw = text if isinstance(text, str) else str(text)
    out = visible(raw)
    if (raw.startswith(_FORMULA_START) or out.startswith(_FORMULA_START)) \
            and out != "-" and not _PLAIN_NUMBER.fullmatch(out):
        return "'" + out
    return out


def github_data(text) -> str:
    """The message of a workflow command: lines kept (as the runner's `%0A`), every other
    control character an escape, `%` escaped so nothing decodes to one."""
    out = visible(text, keep_newlines=True)
    return out.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text) -> str:
    """A property of a workflow command (`file=`, `title=`): also `:` and `,` escaped."""
    return github_data(visible(text)).replace(":", "%3A").replace(",", "%2C")


def uri_path(path) -> str:
    """A path as a URI reference (RFC 3986 percent-encoding of its bytes): a file name that is
    not UTF-8 (a lone surrogate in Python) is written as the bytes it has on disk."""
    import os
    from urllib.parse import quote

    text = str(path).replace(os.sep, "/")
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: its code point's bytes
        data = text.encode("utf-8", "surrogatepass")
    return quote(data)
