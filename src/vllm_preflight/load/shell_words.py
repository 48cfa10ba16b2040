"""A POSIX-shell lexer that keeps offsets: scripts into simple commands of words.

Enough of the shell grammar for how deployers start servers: quotes ('', "", $''),
backslash escapes and `\\`-newline continuations, comments, `;`/`&&`/`||`/`|`/`&`/newline
separators, redirections and here-documents (skipped), parameter expansion (`$X`, `${X}`,
`${X:-word}` and friends, `${A[@]}`), arithmetic `$((...))`, command substitution `$(...)`
and backticks (kept opaque), and array assignments `A=(...)`. Keywords (`if`, `then`, ...)
are words; the interpreter skips them.

Each word is a list of parts with the offset where the part starts, so findings can name
line and column. A comment that directly follows a `\\` continuation ends the command, as
in the shell; the command records where that happened.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_META = set(" \t\n;&|()<>")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REDIR = re.compile(r"\d*(?:<<<|<<-|<<|<>|>>|>&|<&|>\||&>>|&>|<|>)")
_SPECIAL = set("@*#?$!-0123456789")
# a documentation placeholder (`vllm serve <model> --port <port>`), read only in Markdown
_DOC_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_.:/-]*>")


MAX_COMMAND_WORDS = 10_000  # load.limits.MAX_WORDS; stops lexing a huge command early (memory)


class ShellSyntaxError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass
class Part:
    """A piece of a word.

    kind: `lit` (text), `var` (parameter expansion of `name`), `arith` (the expression text
    of `$((...))`), `cmd` (the command text of `$(...)` or backticks).
    """

    kind: str
    text: str
    quoted: bool
    start: int
    # var: "", ":-", "-", ":=", "=", ":+", "+", ":?", "?", patterns "#", "##", "%", "%%", "/", "//",
    # "/#", "/%", case "^", "^^", ",", ",,", substring ":", `${#X}` "length", or "other"
    op: str = ""
    operand: Word | None = None  # var: the word after the operator (a pattern's pattern)
    replacement: Word | None = None  # var `/`: the replacement word
    index: str | None = None  # var: array subscript text ("@", "*", "0", ...)
    source: str = ""  # the text as written, e.g. "${X:-8}"
    arg: str = ""  # var `:`: the `offset[:length]` text


@dataclass
class Word:
    """One shell word as its parts."""

    parts: list[Part]
    start: int
    end: int
    array: list[Word] | None = None  # for NAME=(...) assignments: the elements

    def literal(self) -> str | None:
        """The word's text if it holds no expansion, else None."""
        if any(p.kind != "lit" for p in self.parts):
            return None
        return "".join(p.text for p in self.parts)

    @property
    def is_quoted_anywhere(self) -> bool:
        return any(p.quoted for p in self.parts)


@dataclass
class Command:
    """One simple shell command: its words and redirections."""

    words: list[Word]
    start: int
    end: int
    separator: str = ""  # what ended it: "\n", ";", "&&", "||", "|", "&", ")", "" (end)
    comment_after_continuation: int | None = None  # offset of the `#` that ended it
    # `\ ` where a `\` continuation was meant (`--x y \ # note`, or a space after the `\`): the offset
    # of that `\`, and the words from it to the line's end, which bash passes as arguments (` #`, ...)
    # while the command ends at that line; they are left out here and said by VP101
    escaped_break: int | None = None
    escaped_words: tuple = ()
    heredoc: tuple[int, int, bool] | None = None  # (start, end, delimiter quoted) of a here-document on its line


@dataclass
class Script:
    """A parsed shell script: its commands."""

    commands: list[Command] = field(default_factory=list)


class _Lexer:
    def __init__(self, text: str, placeholders: bool = False):
        self.t = text
        self.n = len(text)
        self.i = 0
        self.placeholders = placeholders  # `<name>` is an unknown value, not a redirection
        self.heredocs: list[tuple[str, bool, bool]] = []
        self.line_cmds: list[Command] = []  # commands of the current line (their here-documents follow it)

    # ------------------------------------------------------------------ top level
    def script(self) -> Script:
        out = Script()
        words: list[Word] = []
        start = None
        cont_after = False  # a `\`-newline was the last thing seen in this command
        t = self.t
        while self.i < self.n:
            c = t[self.i]
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\\" and t.startswith("\n", self.i + 1):
                self.i += 2
                cont_after = bool(words)
                continue
            if c == "#":
                end = t.find("\n", self.i)
                end = self.n if end < 0 else end
                if cont_after and words:
                    self._emit(out, words, start, "\n", comment=self.i)
                    words, start = [], None
                self.i = end
                cont_after = False
                continue
            cont_after = False
            if c == "\n":
                self._emit(out, words, start, "\n")
                words, start = [], None
                self.i += 1
                self._skip_heredocs()
                continue
            if c == "(" and t.startswith("((", self.i):  # an arithmetic command: nothing to run
                self.i = self._matching_close(self.i + 2, "(", ")", depth=2)
                continue
            if c in ";&|()":
                op = c
                for two in (";;", "&&", "||", "|&", ";&"):
                    if t.startswith(two, self.i):
                        op = two
                        break
                if op == "&" and t.startswith("&>", self.i):
                    self._redirection()
                    continue
                self.i += len(op)
                self._emit(out, words, start, op)
                words, start = [], None
                continue
            if _REDIR.match(t, self.i) and not self._placeholder():
                self._redirection()
                continue
            if start is None:
                start = self.i
            if len(words) >= MAX_COMMAND_WORDS:
                raise ShellSyntaxError(f"input too complex: a command of more than {MAX_COMMAND_WORDS} words",
                                       start)
            words.append(self._word())
        self._emit(out, words, start, "")
        return out

    def _emit(self, out: Script, words: list[Word], start, sep: str, comment: int | None = None) -> None:
        if not words and sep in (";;", ";&") and out.commands:
            # the end of a `case` clause with no command of its own (`*) ;;`): kept, wordless
            out.commands.append(Command([], self.i - len(sep), self.i - len(sep), sep))
            return
        if words:
            cut = self._escaped_break(words) if sep in ("\n", "") else None
            kept = list(words[:cut]) if cut is not None else list(words)
            if not kept:
                return
            out.commands.append(Command(kept, start if start is not None else words[0].start,
                                        kept[-1].end, sep, comment))
            if cut is not None:
                out.commands[-1].escaped_break = words[cut].start
                out.commands[-1].escaped_words = tuple(self.t[w.start:w.end] for w in words[cut:])
            self.line_cmds.append(out.commands[-1])

    def _escaped_break(self, words: list[Word]) -> int | None:
        """The index of a word that starts with an escaped space where a continuation was
        meant: backslash-space-`#` (the `#` is glued to the escaped space, so no comment starts),
        or a lone backslash-space ending the line (a space typed after the backslash)."""
        for k, w in enumerate(words):
            raw = self.t[w.start:w.end]
            if len(raw) < 2 or raw[0] != "\\" or raw[1] not in " \t":
                continue
            rest = raw[2:]
            if rest.startswith("#") or (not rest and k == len(words) - 1):
                return k
        return None

    def _redirection(self) -> None:
        m = _REDIR.match(self.t, self.i)
        op = m.group(0) if m else "&>"
        self.i += len(op)
        while self.i < self.n and self.t[self.i] in " \t":
            self.i += 1
        if self.i >= self.n or self.t[self.i] in "\n;&|()<>":
            return
        target = self._word()
        if op.lstrip("0123456789") in ("<<", "<<-"):
            delim = "".join(p.text for p in target.parts)
            self.heredocs.append((delim, op.endswith("-"), any(p.quoted for p in target.parts)))

    def _skip_heredocs(self) -> None:
        cmds, self.line_cmds = self.line_cmds, []
        while self.heredocs:
            delim, strip_tabs, quoted = self.heredocs.pop(0)
            body_start = body_end = self.i
            while self.i < self.n:
                end = self.t.find("\n", self.i)
                end = self.n if end < 0 else end
                line = self.t[self.i:end]
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    self.i = min(end + 1, self.n)
                    break
                self.i = min(end + 1, self.n)
                body_end = self.i
            for c in cmds:  # the body is the stdin of the line's commands (the shell interpreter decides whose)
                if c.heredoc is None:
                    c.heredoc = (body_start, body_end, quoted)

    # ---------------------------------------------------------------------- words
    def _word(self) -> Word:
        t = self.t
        start = self.i
        parts: list[Part] = []
        while self.i < self.n:
            c = t[self.i]
            if c == "<" and self._placeholder(parts, quoted=False):
                continue
            if c in _META:
                if c == "(" and parts and self._is_array_assignment(parts):
                    elements = self._array()
                    return Word(parts, start, self.i, array=elements)
                break
            if c == "'":
                end = t.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote", self.i)
                self._lit(parts, t[self.i + 1:end], True, self.i + 1)
                self.i = end + 1
            elif c == '"':
                self.i += 1
                self._double_quoted(parts)
            elif c == "\\":
                if self.i + 1 >= self.n:
                    self.i += 1
                    break
                if t[self.i + 1] == "\n":
                    self.i += 2
                    continue
                self._lit(parts, t[self.i + 1], True, self.i + 1)
                self.i += 2
            elif c == "$":
                self._dollar(parts, quoted=False)
            elif c == "`":
                self._backtick(parts, quoted=False)
            else:
                j = self.i
                while j < self.n and t[j] not in _META and t[j] not in "'\"\\$`":
                    j += 1
                self._lit(parts, t[self.i:j], False, self.i)
                self.i = j
        return Word(parts, start, self.i)

    def _placeholder(self, parts: list[Part] | None = None, quoted: bool = False) -> bool:
        """At a `<name>` placeholder (with placeholders on): add it to `parts` as a variable."""
        if not self.placeholders:
            return False
        m = _DOC_PLACEHOLDER.match(self.t, self.i)
        if m is None:
            return False
        if parts is not None:
            parts.append(Part("var", m.group(0), quoted, self.i, source=m.group(0)))
            self.i = m.end()
        return True

    @staticmethod
    def _lit(parts: list[Part], text: str, quoted: bool, start: int) -> None:
        if not text and not quoted:
            return
        prev = parts[-1] if parts else None
        if prev is not None and prev.kind == "lit" and prev.quoted == quoted and prev.start + len(prev.text) == start:
            prev.text += text
            prev.source += text
        else:
            parts.append(Part("lit", text, quoted, start, source=text))

    def _is_array_assignment(self, parts: list[Part]) -> bool:
        if len(parts) != 1 or parts[0].kind != "lit" or parts[0].quoted:
            return False
        return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\+?=", parts[0].text) is not None

    def _array(self) -> list[Word]:
        self.i += 1  # (
        elements: list[Word] = []
        while self.i < self.n:
            c = self.t[self.i]
            if c in " \t\n\r":
                self.i += 1
            elif c == "\\" and self.t.startswith("\n", self.i + 1):
                self.i += 2
            elif c == "#":
                end = self.t.find("\n", self.i)
                self.i = self.n if end < 0 else end
            elif c == ")":
                self.i += 1
                return elements
            elif c in ";&|(<>":
                raise ShellSyntaxError(f"unexpected {c!r} in array", self.i)
            else:
                elements.append(self._word())
        raise ShellSyntaxError("unterminated array `(`", self.i)

    def _double_quoted(self, parts: list[Part]) -> None:
        t = self.t
        before = len(parts)
        while self.i < self.n:
            c = t[self.i]
            if c == '"':
                self.i += 1
                if len(parts) == before:  # "" is an empty word, not no word
                    parts.append(Part("lit", "", True, self.i - 1))
                return
            if c == "\\" and self.i + 1 < self.n and t[self.i + 1] in '$`"\\\n':
                if t[self.i + 1] != "\n":
                    self._lit(parts, t[self.i + 1], True, self.i + 1)
                self.i += 2
            elif c == "$":
                self._dollar(parts, quoted=True)
            elif c == "`":
                self._backtick(parts, quoted=True)
            elif c == "<" and self._placeholder(parts, quoted=True):
                continue
            else:
                j = self.i
                while j < self.n and t[j] not in '"\\$`<':
                    j += 1
                if j == self.i:
                    j += 1
                self._lit(parts, t[self.i:j], True, self.i)
                self.i = j
        raise ShellSyntaxError("unterminated double quote", self.i)

    def _backtick(self, parts: list[Part], quoted: bool) -> None:
        start = self.i
        j = self.i + 1
        while j < self.n and self.t[j] != "`":
            j += 2 if self.t[j] == "\\" else 1
        if j >= self.n:
            raise ShellSyntaxError("unterminated backquote", start)
        parts.append(Part("cmd", self.t[start + 1:j], quoted, start, source=self.t[start:j + 1]))
        self.i = j + 1

    def _dollar(self, parts: list[Part], quoted: bool) -> None:
        t = self.t
        start = self.i
        nxt = t[self.i + 1] if self.i + 1 < self.n else ""
        if nxt == "'" and not quoted:
            self.i += 2
            self._ansi_c(parts, start)
            return
        if nxt == '"' and not quoted:
            self.i += 2
            self._double_quoted(parts)
            return
        if t.startswith("$((", self.i):
            end = self._matching_close(self.i + 3, "(", ")", depth=2)
            parts.append(Part("arith", t[self.i + 3:end - 2], quoted, start, source=t[start:end]))
            self.i = end
            return
        if nxt == "(":
            end = self._matching_close(self.i + 2, "(", ")")
            parts.append(Part("cmd", t[self.i + 2:end - 1], quoted, start, source=t[start:end]))
            self.i = end
            return
        if nxt == "{":
            self._braced(parts, quoted)
            return
        m = _NAME.match(t, self.i + 1)
        if m:
            parts.append(Part("var", m.group(0), quoted, start, source=t[start:m.end()]))
            self.i = m.end()
            return
        if nxt and nxt in _SPECIAL:
            parts.append(Part("var", nxt, quoted, start, source=t[start:start + 2]))
            self.i += 2
            return
        self._lit(parts, "$", quoted, start)
        self.i += 1

    def _ansi_c(self, parts: list[Part], start: int) -> None:
        t = self.t
        out: list[str] = []
        esc = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
               "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v", "?": "?"}
        while self.i < self.n:
            c = t[self.i]
            if c == "'":
                self.i += 1
                self._lit(parts, "".join(out), True, start + 2)
                return
            if c == "\\" and self.i + 1 < self.n:
                out.append(esc.get(t[self.i + 1], "\\" + t[self.i + 1]))
                self.i += 2
            else:
                out.append(c)
                self.i += 1
        raise ShellSyntaxError("unterminated $'...' quote", start)

    def _braced(self, parts: list[Part], quoted: bool) -> None:
        t = self.t
        start = self.i
        end = self._matching_close(self.i + 2, "{", "}")
        inner = t[self.i + 2:end - 1]
        self.i = end
        source = t[start:end]
        m = re.match(r"(#?)([A-Za-z_][A-Za-z0-9_]*|[@*#?$!0-9-])(\[[^\]]*\])?", inner)
        if not m or (m.group(1) and m.end() != len(inner)):
            parts.append(Part("var", inner, quoted, start, op="other", source=source))
            return
        name = m.group(2)
        index = m.group(3)[1:-1] if m.group(3) else None
        if m.group(1):  # ${#X}: a length
            parts.append(Part("var", name, quoted, start, op="length", index=index, source=source))
            return
        rest = inner[m.end():]
        if not rest:
            parts.append(Part("var", name, quoted, start, index=index, source=source))
            return
        operand_start = start + 2 + m.end()
        op = next((o for o in _OPS if rest.startswith(o)), None)
        if op is None and rest[0] == ":":  # ${X:offset[:length]} (`${X: -1}` too)
            parts.append(Part("var", name, quoted, start, op=":", index=index, source=source, arg=rest[1:]))
            return
        if op is None:
            parts.append(Part("var", name, quoted, start, op="other", index=index, source=source))
            return
        text = rest[len(op):]
        at = operand_start + len(op)
        if op[0] == "/":  # ${X/pattern/replacement}: split at the first unquoted `/`
            cut = _unquoted_slash(text)
            pattern, repl = (text, None) if cut < 0 else (text[:cut], text[cut + 1:])
            operand = _operand(pattern, at, False)  # a pattern stays a pattern inside double quotes
            replacement = _operand(repl, at + cut + 1, quoted) if repl is not None else None
            parts.append(Part("var", name, quoted, start, op=op, operand=operand, index=index, source=source,
                              replacement=replacement))
            return
        pattern_op = op[0] in "#%^,"  # a pattern stays a pattern inside double quotes
        parts.append(Part("var", name, quoted, start, op=op, operand=_operand(text, at, quoted and not pattern_op),
                          index=index, source=source))

    def _matching_close(self, i: int, open_: str, close: str, depth: int = 1) -> int:
        """Offset just past the close that balances `depth` opens, quote-aware."""
        t = self.t
        start = i
        while i < self.n:
            c = t[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                end = t.find("'", i + 1)
                if end < 0:
                    break
                i = end + 1
                continue
            if c == '"':
                j = i + 1
                while j < self.n and t[j] != '"':
                    j += 2 if t[j] == "\\" else 1
                i = j + 1
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ShellSyntaxError(f"unterminated `{open_}`", start - len(open_))


def _shift(part: Part, by: int) -> None:
    part.start += by
    for word in (part.operand, part.replacement):
        if word is not None:
            word.start += by
            word.end += by
            for p in word.parts:
                _shift(p, by)


# parameter-expansion operators, longest first where one is a prefix of another
_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/#", "/%", "/", "^^", "^", ",,", ",")


def _operand(text: str, at: int, quoted: bool) -> Word:
    """The word after an expansion operator, read like a double-quoted word when the
    expansion is quoted; a blank or operator inside it stays literal."""
    sub = _Lexer(text)
    sub_parts: list[Part] = []
    try:
        if quoted:
            sub.t = text + '"'
            sub.n = len(sub.t)
            sub._double_quoted(sub_parts)
        else:
            while sub.i < sub.n:
                w = sub._word()
                sub_parts.extend(w.parts)
                if sub.i < sub.n:
                    _Lexer._lit(sub_parts, sub.t[sub.i], False, sub.i)
                    sub.i += 1
    except ShellSyntaxError as e:
        raise ShellSyntaxError(e.message, at + e.offset) from None
    for p in sub_parts:
        _shift(p, at)
    return Word(sub_parts, at, at + len(text))


def _unquoted_slash(text: str) -> int:
    """Offset of the first `/` outside quotes and escapes, or -1."""
    i, quote = 0, ""
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "/":
            return i
        i += 1
    return -1


def lex(text: str, placeholders: bool = False) -> Script:
    """Split a script into simple commands; ShellSyntaxError for unbalanced quotes and such.
    With `placeholders`, `<name>` words of documentation are unknown values."""
    return _Lexer(text, placeholders).script()
