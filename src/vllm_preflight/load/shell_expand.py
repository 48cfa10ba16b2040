"""Shell expansion: what a word becomes once the shell has expanded it.

Parameter expansion (`$X`, `${X:-d}` and friends, positional and special parameters, arrays),
arithmetic `$((...))` with unknowns kept as expressions, command substitution kept opaque,
and field splitting on IFS. Unknown values stay symbols (`load.symbols`). `Expansion` is the
part of `load.shell.Shell` that does it; the interpreter (commands, wrappers, servers) stays
in `load.shell`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from vllm_preflight.load import limits
from vllm_preflight.load.shell_words import ShellSyntaxError, Word
from vllm_preflight.load.symbols import (
    ArithError,
    Lit,
    Sym,
    Text,
    concat,
    evaluate,
    expr_names,
    lit,
    literal,
    location_of,
    parse_arith,
    render_expr,
    source_of,
    split_fields,
    substitute,
)
from vllm_preflight.model import Assumption, Location

PLACE_OPEN, PLACE_CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")


@dataclass(frozen=True)
class TWord:
    """One word of a server command template."""

    text: Text
    loc: Location | None
    fields: bool = False  # an unquoted, unknown variable alone: expands to 0..n words
    tag: str = ""  # where it came from, for findings ("config:KEY" for --config YAML words)


class FixedOrigin:
    """Every offset maps to one place (text whose characters cannot be placed)."""

    def __init__(self, loc: Location | None):
        self.loc = loc

    def location(self, offset: int) -> Location | None:
        return self.loc


class RelexOrigin:
    """Offsets in text rebuilt from a Text (for `eval`, `bash -c`): back to where each
    character was written; symbols travel as placeholders."""

    def __init__(self, text: Text, fallback: Location | None):
        self.fallback = fallback
        self.pieces: list[tuple[int, int, Lit]] = []
        self.syms: list[Sym] = []
        flat = []
        pos = 0
        for s in text:
            if isinstance(s, Lit):
                self.pieces.append((pos, pos + len(s.text), s))
                flat.append(s.text)
                pos += len(s.text)
            else:
                ph = f"{PLACE_OPEN}{len(self.syms)}{PLACE_CLOSE}"
                self.syms.append(s)
                flat.append(ph)
                pos += len(ph)
        self.flat = "".join(flat)

    def location(self, offset: int) -> Location | None:
        end_piece = None
        for a, b, piece in self.pieces:
            if a <= offset < b:
                loc = piece.location(offset - a)
                return loc if loc is not None else self.fallback
            if offset == b and b > a:
                end_piece = (a, piece)
        if end_piece is not None:
            loc = end_piece[1].location(offset - end_piece[0])
            return loc if loc is not None else self.fallback
        return self.fallback


class Expansion:
    """Expansion over a shell's state (`vars`, `pins`, `positional`, `runtime`, ...)."""

    pins: dict[str, str]
    runtime: dict[str, str]
    vars: dict[str, Text | list[Text]]
    positional: list[Text]
    arg0: Text
    assumptions: list[Assumption]
    steps: list[int]
    # set while expanding when a value comes from outside the script (an unset variable, which
    # the deployment's environment may set, or one assigned from such a value): a condition
    # over it is not known here (load.shell_flow)
    uncertain: bool = False
    tainted: set[str]

    def lookup(self, name: str, index: str | None = None):
        if name in self.pins:
            value: object = lit(self.pins[name])
        elif name in self.vars:
            value = self.vars[name]
        else:
            return None
        if isinstance(value, list):
            if index in ("@", "*"):
                return value
            if index is None:
                return value[0] if value else ()
            try:
                k = int(index)
                return value[k] if -len(value) <= k < len(value) else ()
            except ValueError:
                return None
        if index in ("@", "*"):
            return [value]
        if index not in (None, "0"):
            return ()
        return value

    def expand(self, word: Word, origin, *, split: bool = True) -> list[TWord]:
        fields: list[list] = []
        cur: list = []
        started = False
        for part in word.parts:
            if part.kind == "lit":
                if part.quoted or part.text:
                    started = True
                cur.extend(self._lits(part.text, origin, part.start))
                continue
            value = self.value(part, origin)
            if isinstance(value, list):
                if part.quoted:
                    for k, v in enumerate(value):
                        if k:
                            fields.append(cur)
                            cur = []
                        cur.extend(v)
                        started = True
                    continue
                for k, v in enumerate(value):
                    if k and (cur or started):
                        fields.append(cur)
                        cur, started = [], False
                    cur, started = self._split_into(v, fields, cur, started)
                continue
            if part.quoted or not split:
                cur.extend(value)
                started = True
            else:
                cur, started = self._split_into(value, fields, cur, started)
        if cur or started:
            fields.append(cur)
        self._bounded(fields, origin.location(word.start))
        out = []
        for f in fields:
            text = concat(tuple(f))
            out.append(TWord(text, location_of(text) or origin.location(word.start)))
        if (len(word.parts) == 1 and word.parts[0].kind == "var" and not word.parts[0].quoted
                and len(out) == 1 and len(out[0].text) == 1 and isinstance(out[0].text[0], Sym)
                and out[0].text[0].kind == "var"):
            out[0] = replace(out[0], fields=True)
        return out

    def _bounded(self, fields: list, loc: Location | None) -> None:
        """Stop an input whose expansions grow past load.limits (`A="$A$A"` forty times)."""
        pieces = sum(len(f) for f in fields)
        self.steps[0] += pieces + 1
        if self.steps[0] > limits.MAX_EXPANSION_STEPS:
            _too_complex(f"more than {limits.MAX_EXPANSION_STEPS} expansion steps", loc)
        if pieces > limits.MAX_VALUE_PIECES:
            _too_complex(f"a word expands to more than {limits.MAX_VALUE_PIECES} pieces", loc)
        for f in fields:
            if text_size(f) > limits.MAX_VALUE_CHARS:
                _too_complex(f"a word expands to more than {limits.MAX_VALUE_CHARS >> 20} MiB", loc)

    @staticmethod
    def _split_into(value: Text, fields: list, cur: list, started: bool):
        lead, pieces, trail = split_fields(value)
        if lead and (cur or started):
            fields.append(cur)
            cur, started = [], False
        for k, piece in enumerate(pieces):
            if k:
                fields.append(cur)
                cur = []
            cur.extend(piece)
            started = True
        if trail and pieces:
            fields.append(cur)
            cur, started = [], False
        return cur, started

    def expand_scalar(self, word: Word | None, origin) -> Text:
        if word is None:
            return ()
        out: list = []
        for tw in self.expand(word, origin, split=False):
            out.extend(tw.text)
        return concat(tuple(out))

    @staticmethod
    def _lits(text: str, origin, start: int) -> list:
        if PLACE_OPEN in text and isinstance(origin, RelexOrigin):
            out: list = []
            pos = 0
            for m in _PLACEHOLDER.finditer(text):
                if m.start() > pos:
                    out.append(Lit(text[pos:m.start()], origin, start + pos))
                k = int(m.group(1))
                if k < len(origin.syms):
                    out.append(origin.syms[k])
                pos = m.end()
            if pos < len(text):
                out.append(Lit(text[pos:], origin, start + pos))
            return out
        return [Lit(text, origin, start)] if text else []

    def value(self, part, origin):
        loc = origin.location(part.start)
        if part.kind == "arith":
            return self.arith(part, loc)
        if part.kind == "cmd":
            self.uncertain = True
            return (Sym("opaque", part.source, part.source, loc=loc),)
        name, op = part.text, part.op
        opaque = (Sym("opaque", part.source, part.source, loc=loc),)
        if op == "other" or (name in "?$!-" and len(name) == 1):
            return opaque
        positional = name.isdigit() or name in ("@", "*")
        if name in ("@", "*"):
            val: Text | list[Text] | None = list(self.positional)
            if op == ":":
                val = self._slice_args(part.arg, loc)
                if val is None:
                    return opaque
            if name == "*" and part.quoted and isinstance(val, list):
                return self._joined(val)
            if op in ("", ":"):
                return val
        elif name == "#":
            val = lit(str(len(self.positional)))
        elif name == "0":
            val = self.arg0
        elif name.isdigit():
            val = self._arg(int(name))
        else:
            val = self.lookup(name, self._subscript(part.index, loc))
            if name not in self.pins and (val is None or name in self.tainted):
                self.uncertain = True
        if op == "length":
            if isinstance(val, list):
                return lit(str(len(val)))
            text = literal(val) if val is not None else ""
            return lit(str(len(text))) if text is not None else opaque
        is_empty = val is not None and not isinstance(val, list) and len(val) == 0
        unset = val is None or (name in ("@", "*") and not self.positional)
        if op in (":-", "-", ":=", "="):
            if unset or (op[0] == ":" and is_empty):
                if op.endswith("=") and positional:
                    # bash: "$1: cannot assign in this way"; the command is not run
                    raise CommandAborted(f"`{part.source}`: bash cannot assign to a positional parameter")
                if unset and name in self.runtime and not op.endswith("="):
                    # set when the deployment runs (an LWS index, a valueFrom): its default never applies
                    return (Sym("var", name, part.source, loc=loc),)
                default = self.expand_scalar(part.operand, origin)
                if unset and name in self.runtime:
                    self._assume(name, default, f"{self.runtime[name]}; resolved with the default in `{part.source}`")
                elif unset and positional:
                    self._assume(f"${name}", default, f"the script is read as run without arguments; the default "
                                                      f"in `{part.source}`")
                elif unset:
                    self._assume(name, default, f"not set in the input; the default in `{part.source}`")
                if op.endswith("="):
                    self.vars[name] = default
                return default
            return val
        if op in (":+", "+"):
            if unset or (op == ":+" and is_empty):
                if unset and not positional:
                    self._assume(name, "", f"not set in the input, so `{part.source}` is empty")
                return ()
            return self.expand_scalar(part.operand, origin)
        if op in (":?", "?"):
            if unset or (op == ":?" and is_empty):
                # bash stops the script here with the message; the deployment must set it, so its
                # value is an unknown the deployment provides
                return (Sym("var", name, part.source, loc=loc),)
            return val
        if val is None:
            if positional:
                return ()
            # an unknown value: itself, or (transformed: `${HOSTNAME##*-}`) a value only known when it runs
            return (Sym("var", name, part.source, loc=loc),) if op == "" else opaque
        if op == "":
            return val
        out = self._transformed(part, val, origin)
        return opaque if out is None else out

    def _subscript(self, index: str | None, loc: Location | None) -> str | None:
        """An array subscript as a number when it is arithmetic over known values (`${A[$i]}`,
        `${A[i+1]}`), else as written."""
        if index is None or index in ("@", "*") or index.lstrip("-").isdigit():
            return index
        from vllm_preflight.load.shell_words import Part

        value = literal(self.arith(Part("arith", index, False, 0, source=index), loc))
        return value if value is not None else index

    def _arg(self, k: int) -> Text | None:
        """Positional parameter $k (None when the shell has fewer arguments)."""
        return self.positional[k - 1] if 0 < k <= len(self.positional) else None

    @staticmethod
    def _joined(values: list[Text]) -> Text:
        """`"$*"`: the arguments joined by a blank (the first character of the default IFS)."""
        joined: list = []
        for k, v in enumerate(values):
            if k:
                joined.append(Lit(" "))
            joined.extend(v)
        return tuple(joined)

    def _slice_args(self, arg: str, loc: Location | None) -> list[Text] | None:
        """`${@:OFFSET[:LENGTH]}`: offset 0 is $0, 1 the first argument; negative counts from the end."""
        bounds = self._offsets(arg, loc)
        if bounds is None:
            return None
        offset, length = bounds
        values = [self.arg0] + list(self.positional)
        if offset < 0:  # counted back from one past the last argument ($0 when there is none)
            offset = len(values) + offset
            if offset < 0:
                return []
        if length is None:
            return values[offset:]
        if length < 0:
            return None  # bash: "substring expression < 0"
        return values[offset:offset + length]

    def _offsets(self, arg: str, loc: Location | None) -> tuple[int, int | None] | None:
        """The numbers of a substring expansion `OFFSET[:LENGTH]` (arithmetic), or None if unknown."""
        texts = arg.split(":", 1)
        out: list[int | None] = []
        for t in texts:
            if not t.strip():
                out.append(0 if not out else None)
                continue
            expr = self._arith_text(t, loc)
            try:
                n = evaluate(parse_arith(expr), {}) if expr is not None else None
            except ArithError:
                n = None
            if n is None:
                return None
            out.append(n)
        return (out[0] or 0), (out[1] if len(out) > 1 else None)

    def _transformed(self, part, val, origin) -> Text | list[Text] | None:
        """Pattern removal/replacement, case change and substrings of a known value; None when
        the value or the pattern is not known here."""
        if isinstance(val, list):
            out = [self._transformed(part, v, origin) for v in val]
            return None if any(v is None for v in out) else [v for v in out if v is not None and not isinstance(v, list)]
        text = literal(val)
        if text is None:
            return None
        op = part.op
        if op == ":":
            bounds = self._offsets(part.arg, origin.location(part.start))
            if bounds is None:
                return None
            offset, length = bounds
            if offset < 0:
                offset = max(len(text) + offset, 0) if -offset <= len(text) else len(text) + 1
            if offset > len(text):
                return ()
            end = len(text) if length is None else (offset + length if length >= 0 else len(text) + length)
            if end < offset:
                return None  # bash: "substring expression < 0"
            return lit(text[offset:end])
        if op in ("^^", "^", ",,", ","):
            if part.operand is not None and part.operand.parts:
                return None  # a pattern limits which characters change: not followed
            if op == "^^":
                return lit(text.upper())
            if op == ",,":
                return lit(text.lower())
            return lit((text[:1].upper() if op == "^" else text[:1].lower()) + text[1:])
        pattern = self._pattern(part.operand, origin)
        if pattern is None:
            return None
        if op in ("#", "##"):
            ends = range(len(text) + 1) if op == "#" else range(len(text), -1, -1)
            for k in ends:
                if pattern.fullmatch(text[:k]):
                    return lit(text[k:])
            return lit(text)
        if op in ("%", "%%"):
            starts = range(len(text), -1, -1) if op == "%" else range(len(text) + 1)
            for k in starts:
                if pattern.fullmatch(text[k:]):
                    return lit(text[:k])
            return lit(text)
        repl = literal(self.expand_scalar(part.replacement, origin)) if part.replacement is not None else ""
        if repl is None:
            return None
        return lit(_replace(text, pattern, repl, op))

    def _pattern(self, word: Word | None, origin) -> re.Pattern | None:
        """A shell glob (`*`, `?`, `[...]`; quoted characters literal) as a regular expression."""
        if word is None:
            return re.compile("")
        out = []
        for p in word.parts:
            if p.kind == "lit":
                out.append(re.escape(p.text) if p.quoted else _glob(p.text))
                continue
            v = self.value(p, origin)
            if isinstance(v, list):
                v = self._joined(v)
            t = literal(v)
            if t is None:
                return None
            out.append(re.escape(t) if p.quoted else _glob(t))
        try:
            return re.compile("".join(out), re.DOTALL)
        except re.error:
            return None

    def _assume(self, name: str, value, source: str) -> None:
        shown = value if isinstance(value, str) else source_of(value)
        a = Assumption(name, shown, source)
        if a not in self.assumptions:
            self.assumptions.append(a)

    def _arith_text(self, text: str, loc: Location | None) -> str | None:
        """The expression with its `$X`/`${X:-d}` expansions done (names kept for unknowns)."""
        if "$" not in text:
            return text
        from vllm_preflight.load.shell_words import _Lexer

        lexer = _Lexer(text + '"')
        parts: list = []
        try:
            lexer._double_quoted(parts)
        except ShellSyntaxError:
            return None
        pieces = []
        for p in parts:
            if p.kind == "lit":
                pieces.append(p.text)
                continue
            v = self.value(p, FixedOrigin(loc))
            if isinstance(v, list):
                v = v[0] if v else ()
            lit_text = literal(v)
            if lit_text is not None:
                pieces.append(lit_text if lit_text.strip() else "0")
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "var":
                pieces.append(v[0].name)
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "arith":
                pieces.append("(" + render_expr(v[0].expr) + ")")
            else:
                return None
        return "".join(pieces)

    def arith(self, part, loc: Location | None) -> Text:
        opaque = (Sym("opaque", part.source, part.source, loc=loc),)
        text = self._arith_text(part.text, loc)
        if text is None:
            return opaque
        try:
            tree = parse_arith(text)
        except ArithError:
            return opaque
        values: dict = {}
        for n in set(expr_names(tree)):
            v = self.lookup(n)
            if v is None:
                continue
            if isinstance(v, list):
                v = v[0] if v else ()
            s = literal(v)
            if s is not None:
                s = s.strip()
                if not s:
                    values[n] = 0
                    continue
                try:
                    values[n] = int(s)
                except ValueError:
                    return opaque
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "var":
                values[n] = ("var", v[0].name)
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "arith":
                values[n] = v[0].expr
            else:
                return opaque
        tree = substitute(tree, values)
        if not expr_names(tree):
            try:
                return lit(str(evaluate(tree, {})))
            except ArithError:
                return opaque
        return (Sym("arith", render_expr(tree), part.source, tree, loc=loc),)


def text_size(text) -> int:
    """Characters a Text stands for (symbols as their source)."""
    return sum(len(s.text) if isinstance(s, Lit) else len(s.source) for s in text)


def _too_complex(what: str, loc: Location | None):
    from vllm_preflight.errors import InputError, InputFailure

    raise InputFailure(InputError(loc.file if loc else "<input>", limits.too_complex(what), loc))


def _bounded_list(values: list, loc: Location | None) -> None:
    if len(values) > limits.MAX_VALUE_PIECES or sum(len(v) for v in values) > limits.MAX_VALUE_PIECES:
        _too_complex(f"an array grows past {limits.MAX_VALUE_PIECES} elements", loc)


class CommandAborted(Exception):
    """An expansion error that stops the command (bash prints it and runs the next one)."""


def _glob(text: str) -> str:
    """Unquoted glob characters as regular-expression syntax."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = text.find("]", i + 2 if text[i + 1:i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = text[i + 1:end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < len(text):
            out.append(re.escape(text[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _replace(text: str, pattern: re.Pattern, repl: str, op: str) -> str:
    """`${X/p/r}` (first, longest match), `//` (every match), `/#` (at the start), `/%` (at the end)."""
    n = len(text)
    if op == "/#":
        for k in range(n, -1, -1):
            if pattern.fullmatch(text[:k]):
                return repl + text[k:]
        return text
    if op == "/%":
        for k in range(n + 1):
            if pattern.fullmatch(text[k:]):
                return text[:k] + repl
        return text
    out, i, changed = [], 0, False
    while i <= n:
        if changed and op == "/":
            out.append(text[i:])
            break
        hit = next((k for k in range(n, i, -1) if pattern.fullmatch(text[i:k])), None)
        if hit is None:
            if i < n:
                out.append(text[i])
            i += 1
            continue
        out.append(repl)
        i, changed = hit, True
    return "".join(out)

