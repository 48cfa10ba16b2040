"""visible(): terminal control sequences from inputs are shown, never obeyed."""
from hypothesis import given
from hypothesis import strategies as st

from vllm_preflight.safe_text import visible


def test_escape_sequences_are_rendered_visibly():
    assert visible("--x\x1b[2J\x1b[H") == "--x\\x1b[2J\\x1b[H"
    assert visible("a\rb") == "a\\rb"
    assert visible("\x9b31m") == "\\x9b31m"          # C1 CSI
    assert visible("abc\u202efdp.sh") == "abc\\u202efdp.sh"  # bidi override


def test_plain_text_is_unchanged():
    for s in ("deploy/serve.sh", "vLLM 0.13.0 → FULL", "日本語", "C:\\path\\x1b", ""):
        assert visible(s) == s


def test_newlines_kept_only_when_asked():
    assert visible("a\nb") == "a\\nb"
    assert visible("a\nb\x1b", keep_newlines=True) == "a\nb\\x1b"


def test_escaped_text_cannot_forge_an_escape():
    # once escaping happens, a literal backslash is doubled: "\x1b" typed by hand stays distinct
    assert visible("\\x1b\x07") == "\\\\x1b\\x07"


@given(st.text())
def test_output_has_no_control_characters(s):
    out = visible(s)
    assert all(ch.isprintable() for ch in out)
    assert all(ch == "\n" or ch.isprintable() for ch in visible(s, keep_newlines=True))
