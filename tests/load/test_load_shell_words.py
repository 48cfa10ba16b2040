"""The shell lexer: words, offsets, separators, and the continuation-comment trap."""
from __future__ import annotations

import pytest

from vllm_preflight.load.shell_words import ShellSyntaxError, lex


def words(text: str):
    return [[w.literal() if w.literal() is not None else [(p.kind, p.text, p.op) for p in w.parts]
             for w in c.words] for c in lex(text).commands]


def test_quotes_escapes_and_continuations_make_one_command():
    text = "vllm serve 'a b' \"c $D\" e\\ f \\\n  --x=1"
    assert words(text) == [["vllm", "serve", "a b", [("lit", "c ", ""), ("var", "D", "")], "e f", "--x=1"]]


def test_separators_split_commands():
    cmds = lex("a 1; b 2 && c 3 || d | e &\nf").commands
    assert [c.words[0].literal() for c in cmds] == ["a", "b", "c", "d", "e", "f"]
    assert [c.separator for c in cmds] == [";", "&&", "||", "|", "&", ""]


def test_comment_after_continuation_ends_the_command_and_is_recorded():
    text = "vllm serve m \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\n"
    cmds = lex(text).commands
    assert [w.literal() for w in cmds[0].words] == ["vllm", "serve", "m", "--a", "1"]
    assert text[cmds[0].comment_after_continuation] == "#"
    assert [w.literal() for w in cmds[1].words] == ["--c", "3"]


def test_a_hash_inside_a_word_is_not_a_comment():
    assert words("echo a#b '#c' # d") == [["echo", "a#b", "#c"]]


def test_expansions_are_parts_with_offsets():
    text = 'X ${A:-8} $((B * 2)) $(nproc) `hostname` ${C[@]} $1 "$@"'
    cmd = lex(text).commands[0]
    kinds = [[(p.kind, p.text, p.op, p.index) for p in w.parts] for w in cmd.words[1:]]
    assert kinds == [[("var", "A", ":-", None)], [("arith", "B * 2", "", None)], [("cmd", "nproc", "", None)],
                     [("cmd", "hostname", "", None)], [("var", "C", "", "@")], [("var", "1", "", None)],
                     [("var", "@", "", None)]]
    for w in cmd.words[1:]:
        assert text[w.parts[0].start] in "$`"


def test_redirections_and_heredocs_are_skipped():
    text = "cat <<EOF > /tmp/x 2>&1\nvllm serve inside-heredoc\nEOF\nvllm serve real >log 2>&1"
    assert words(text) == [["cat"], ["vllm", "serve", "real"]]


def test_array_assignment_and_arithmetic_command():
    cmds = lex("ARGS=(--a 1 \"--b c\")\nfor ((i=0; i<3; i++)); do x; done").commands
    assert [e.literal() for e in cmds[0].words[0].array] == ["--a", "1", "--b c"]
    assert [c.words[0].literal() for c in cmds[1:]] == ["for", "do", "done"]


def test_empty_quotes_are_a_word():
    assert words("a '' \"\" b") == [["a", "", "", "b"]]


@pytest.mark.parametrize("text", ["echo 'open", 'echo "open', "echo $(open", "echo ${open", "echo `open", "A=(a b"])
def test_unbalanced_input_is_a_syntax_error_with_an_offset(text):
    with pytest.raises(ShellSyntaxError) as e:
        lex(text)
    assert 0 <= e.value.offset <= len(text)
