"""Text from inputs, made safe to print on a terminal.

File names and file contents reach the report; an escape sequence in them (ESC [ 2 J clears the
screen, OSC 8 forges links, CR overwrites a line) must be shown, never obeyed. JSON output stays
exact: only the human-facing renderers call this.
"""
from __future__ import annotations

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


def visible(text: str, *, keep_newlines: bool = False) -> str:
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
