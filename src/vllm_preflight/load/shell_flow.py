"""Control flow of a script: `if`, `while`/`until`, `for`, `case` and function definitions.

The lexer gives simple commands; this finds the compound commands they form (keywords at
command starts, `case` patterns ending in `)`, a clause ending at `;;`) so the interpreter can
run a script as bash would where the values are known here: a condition whose words are known
(`[ ... ]`, `[[ ... ]]`, `test`, `true`, `false`; `$#` is known, so an argument loop
`while [[ $# -gt 0 ]]` of a script run without arguments never runs) picks its branch, a
`case` on a known word runs its matching clause, a `for` over known words runs once per word,
and a function runs where it is called, with the call's arguments. Where a value is not known
here, every branch is read, as before (a server in either branch of an `if` is found).
Malformed structure (a missing `fi`) leaves its commands to be read one after the other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from vllm_preflight.load.shell_words import Command

_HEADERS = {"if", "while", "until", "for", "select", "case"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")


@dataclass
class Block:
    """A compound command: `kind` (if, while, until, for, case, function), the index of its
    first command and of its closing one (`fi`, `done`, `esac`, `}`)."""

    kind: str
    start: int
    end: int = -1
    # if: [(keyword, first command, `then` command)]; loops: the `do` command; case: [(patterns, body)]
    clauses: list = field(default_factory=list)
    body: int = -1
    name: str = ""  # function


def keywords(cmd: Command) -> list[str]:
    """The reserved words a command starts with (unquoted), in order."""
    out = []
    for w in cmd.words:
        text = w.literal()
        if text is None or w.is_quoted_anywhere or text not in _ALL:
            break
        out.append(text)
        if text in _HEADERS or text == "function":
            break  # what follows is the header's own words
    return out


_ALL = _HEADERS | {"then", "elif", "else", "fi", "do", "done", "esac", "{", "}", "!", "function", "in"}


def structure(cmds: list[Command]) -> dict[int, Block]:
    """The compound commands of a script, by the index of their first command."""
    blocks: dict[int, Block] = {}
    stack: list[Block] = []
    pending_function: tuple[str, int] | None = None
    expect_pattern = False
    pattern: list[int] = []
    braces: list[Block | None] = []  # `{` groups: a function body, or None for a plain group
    for i, cmd in enumerate(cmds):
        top = stack[-1] if stack else None
        if top is not None and top.kind == "case":
            if not cmd.words and cmd.separator in (";;", ";&", ";;&"):
                _close_clause(top, i)
                expect_pattern = True
                continue
            first = cmd.words[0].literal() if cmd.words else None
            if expect_pattern and first != "esac":
                pattern.append(i)
                if cmd.separator == ")":
                    top.clauses.append((pattern, i + 1, -1))
                    pattern, expect_pattern = [], False
                continue
        for kw in keywords(cmd):
            top = stack[-1] if stack else None
            if kw in ("if", "while", "until", "for", "select", "case"):
                block = Block("for" if kw == "select" else kw, i)
                if kw == "if":
                    block.clauses.append(["if", i, -1])
                stack.append(block)
                if kw == "case":
                    expect_pattern = True
                    words = [w.literal() for w in cmd.words]
                    if "in" in words and words.index("in") + 1 < len(words):
                        # `case $x in a|b) ...` on one line: the first pattern shares the header's command
                        pattern.append(i)
                        if cmd.separator == ")":
                            block.clauses.append((pattern, i + 1, -1))
                            pattern, expect_pattern = [], False
            elif kw == "then" and top is not None and top.kind == "if":
                top.clauses[-1][2] = i
            elif kw in ("elif", "else") and top is not None and top.kind == "if":
                top.clauses.append([kw, i, i if kw == "else" else -1])
            elif kw == "fi" and top is not None and top.kind == "if":
                _close(stack, blocks, i)
            elif kw == "do" and top is not None and top.kind in ("while", "until", "for"):
                top.body = i
            elif kw == "done" and top is not None and top.kind in ("while", "until", "for"):
                _close(stack, blocks, i)
            elif kw == "esac" and top is not None and top.kind == "case":
                _close_clause(top, i)
                _close(stack, blocks, i)
                expect_pattern = False
            elif kw == "function":
                name = cmd.words[1].literal() if len(cmd.words) > 1 else None
                if name:
                    pending_function = (name.removesuffix("()"), i)
            elif kw == "{":
                if pending_function is not None:
                    block = Block("function", pending_function[1], body=i, name=pending_function[0])
                    braces.append(block)
                    pending_function = None
                else:
                    braces.append(None)
            elif kw == "}" and braces:
                body = braces.pop()
                if body is not None and not any(b.start >= body.start for b in stack):
                    body.end = i
                    blocks[body.start] = body
        top = stack[-1] if stack else None
        if top is not None and top.kind == "case" and cmd.words and cmd.separator in (";;", ";&", ";;&"):
            _close_clause(top, i)  # `cmd ;;` ends its clause
            expect_pattern = True
        # `name() {` / `name()` then `{` on the next line
        if len(cmd.words) == 1 and cmd.separator == "(" and not keywords(cmd):
            name = cmd.words[0].literal()
            if name and _NAME.fullmatch(name):
                pending_function = (name, i)
        elif pending_function is not None and pending_function[1] != i and not keywords(cmd):
            pending_function = None
        # a `function NAME {` header with the brace in the same command
        if keywords(cmd)[:1] == ["function"] and len(cmd.words) > 2 and cmd.words[2].literal() == "{":
            name = (cmd.words[1].literal() or "").removesuffix("()")
            braces.append(Block("function", i, body=i, name=name))
            pending_function = None
    return blocks


def _close(stack: list[Block], blocks: dict[int, Block], i: int) -> None:
    block = stack.pop()
    block.end = i
    if block.kind == "if" and any(c[2] < 0 for c in block.clauses):
        return  # an `if` without `then`: not a structure the runner can follow
    if block.kind in ("while", "until", "for") and block.body < 0:
        return
    blocks[block.start] = block


def _close_clause(case: Block, i: int) -> None:
    if case.clauses and case.clauses[-1][2] < 0:
        patterns, body, _ = case.clauses[-1]
        case.clauses[-1] = (patterns, body, i)


# ------------------------------------------------------------------ conditions
def test_value(tokens: list[str | None]) -> bool | None:
    """A `test` / `[` / `[[` expression over words (None for an unknown word): True, False, or
    None when it depends on what is not known here (a file, an unknown value)."""
    parser = _Test(tokens)
    try:
        value = parser.expr()
    except _Unknown:
        return None
    return value if parser.i == len(tokens) else None


class _Unknown(Exception):
    pass


class _Test:
    def __init__(self, tokens: list[str | None]):
        self.t, self.i = tokens, 0

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> str | None:
        if self.i >= len(self.t):
            raise _Unknown()
        self.i += 1
        return self.t[self.i - 1]

    def expr(self) -> bool | None:
        value = self.conj()
        while self.i < len(self.t) and self.peek() in ("-o", "||"):
            self.i += 1
            value = either(value, self.conj())
        return value

    def conj(self) -> bool | None:
        value = self.neg()
        while self.i < len(self.t) and self.peek() in ("-a", "&&"):
            self.i += 1
            value = both(value, self.neg())
        return value

    def neg(self) -> bool | None:
        if self.peek() == "!" and self.i + 1 < len(self.t):
            self.i += 1
            v = self.neg()
            return None if v is None else not v
        return self.primary()

    def primary(self) -> bool | None:
        tok = self.take()
        if tok == "(":
            v = self.expr()
            if self.take() != ")":
                raise _Unknown()
            return v
        if tok in ("-z", "-n") and self.i < len(self.t) and self.peek() not in ("-a", "-o", "&&", "||", ")"):
            arg = self.take()
            if arg is None:
                return None
            return (arg == "") if tok == "-z" else (arg != "")
        if tok is not None and re.fullmatch(r"-[a-zA-Z]", tok) and self.i < len(self.t):
            self.take()
            return None  # a file test (-f, -d, -x, ...): the node's, not known here
        nxt = self.peek()
        if nxt in ("=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "=~", "<", ">"):
            self.i += 1
            right = self.take()
            return _compare(tok, nxt, right)
        return None if tok is None else tok != ""


def _compare(left: str | None, op: str, right: str | None) -> bool | None:
    if left is None or right is None or op in ("=~", "<", ">"):
        return None
    if op in ("=", "==") and any(c in right for c in "*?["):
        return None  # a pattern in `[[ ]]`: not followed
    if op in ("=", "=="):
        return left == right
    if op == "!=":
        return left != right
    try:
        a, b = int(left), int(right)
    except ValueError:
        return None
    return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[op]


def both(a: bool | None, b: bool | None) -> bool | None:
    """`a && b` over values that may be unknown (None)."""
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def either(a: bool | None, b: bool | None) -> bool | None:
    """`a || b` over values that may be unknown (None)."""
    if a is True or b is True:
        return True
    return None if a is None or b is None else False
