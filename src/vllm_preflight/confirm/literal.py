"""Python reprs (and JSON) read as data, never evaluated.

vLLM logs its config with `str()`/`repr()`: dicts, lists, tuples, sets, strings, numbers,
True/False/None, enum members (`<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>`), dataclass reprs
(`PassConfig(fuse_norm_quant=False, ...)`) and, in older releases, JSON (`true`, `null`). This
module reads exactly that grammar with a small hand-written parser; nothing is imported, looked
up or called. What is no literal (`<function f at 0x7f...>`, `torch.bfloat16`) becomes an
`Opaque` holding its text. Limits: MAX_DEPTH nested brackets and MAX_ITEMS values per parse;
past them the parse stops with a LiteralProblem naming the offset. A text cut short (a truncated
log line) gives what was read before the cut with `truncated` set, when the caller allows it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 64  # vLLM's deepest config repr is about 5 brackets
MAX_ITEMS = 200_000  # values in one parse (capture-size lists hold about 500)


class LiteralProblem(ValueError):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class Opaque:
    """A value that is no literal, kept as the text the log held."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class EnumMember:
    """`<CUDAGraphMode.FULL: 2>`: the class, the member's name and its value."""

    cls: str
    name: str
    value: Any

    def __str__(self) -> str:
        return self.name


@dataclass
class Call:
    """`PassConfig(a=1, b=2)`: a dataclass or pydantic repr, its fields in order."""

    name: str
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)


@dataclass
class Parsed:
    value: Any
    end: int  # offset just after the value
    truncated: bool = False  # the text ended inside the value; `value` holds what came before


_CLOSE = {"{": "}", "[": "]", "(": ")"}
_WORDS = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None,
          "inf": float("inf"), "nan": float("nan"), "Infinity": float("inf"), "NaN": float("nan")}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v", "/": "/"}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT = _IDENT_START | frozenset("0123456789")
_NUMBER = frozenset("0123456789+-.eExXabcdefABCDEF_jJ")


class _Cut(Exception):
    """The text ended inside a value."""


class _Parser:
    def __init__(self, text: str, max_depth: int, max_items: int):
        self.s = text
        self.n = len(text)
        self.max_depth = max_depth
        self.items_left = max_items
        self.truncated = False

    # ------------------------------------------------------------------ helpers
    def ws(self, i: int) -> int:
        s, n = self.s, self.n
        while i < n and s[i] in " \t\n\r":
            i += 1
        return i

    def need(self, i: int) -> None:
        if i >= self.n:
            raise _Cut

    def count(self, i: int) -> None:
        self.items_left -= 1
        if self.items_left < 0:
            raise LiteralProblem("more values than the reader takes in one config", i)

    # ------------------------------------------------------------------ grammar
    def value(self, i: int, depth: int) -> tuple[Any, int]:
        i = self.ws(i)
        self.need(i)
        self.count(i)
        ch = self.s[i]
        if ch in "{[(":
            return self.container(i, depth)
        if ch in "'\"":
            return self.string(i, i)
        if ch == "<":
            return self.angle(i, depth)
        if ch.isdigit() or ch in "-+.":
            return self.number(i, depth)
        if ch in _IDENT_START:
            return self.word(i, depth)
        raise LiteralProblem(f"unexpected {ch!r}", i)

    def container(self, i: int, depth: int, name: str | None = None) -> tuple[Any, int]:
        if depth >= self.max_depth:
            raise LiteralProblem(f"nested more than {self.max_depth} brackets deep", i)
        opener = self.s[i]
        close = _CLOSE[opener]
        items: list = []
        pairs: dict = {}
        kwargs: dict = {}
        is_dict = opener == "{" and name is None
        kind = None  # for `{`: "dict" or "set", decided by the first item
        saw_comma = False
        j = i + 1
        try:
            while True:
                j = self.ws(j)
                self.need(j)
                if self.s[j] == close:
                    j += 1
                    break
                if name is not None:  # a call: `key=value` or a positional value
                    k = self._kwarg_name(j)
                    if k is not None:
                        key, j = k
                        v, j = self.value(j, depth + 1)
                        kwargs[key] = v
                    else:
                        v, j = self.value(j, depth + 1)
                        items.append(v)
                else:
                    v, j = self.value(j, depth + 1)
                    j = self.ws(j)
                    self.need(j)
                    if is_dict and (kind == "dict" or (kind is None and self.s[j] == ":")):
                        kind = "dict"
                        if self.s[j] != ":":
                            raise LiteralProblem("expected ':' in a dict", j)
                        val, j = self.value(j + 1, depth + 1)
                        try:
                            pairs[v] = val
                        except TypeError:  # an unhashable key: not a literal vLLM logs
                            raise LiteralProblem("a dict key that is not a plain value", j) from None
                    else:
                        kind = kind or "set"
                        items.append(v)
                j = self.ws(j)
                self.need(j)
                if self.s[j] == ",":
                    saw_comma = True
                    j += 1
                    continue
                if self.s[j] == close:
                    j += 1
                    break
                raise LiteralProblem(f"expected ',' or {close!r}", j)
        except _Cut:
            if depth > 0:  # a cut inner value is dropped whole: a cut list would read as complete
                raise
            self.truncated = True
            j = self.n
        if name is not None:
            return Call(name, items, kwargs), j
        if opener == "[":
            return items, j
        if opener == "(":
            return (items[0] if len(items) == 1 and not saw_comma else tuple(items)), j
        if kind == "set":
            return _as_set(items), j
        return pairs, j

    def _kwarg_name(self, j: int) -> tuple[str, int] | None:
        s, n = self.s, self.n
        if j >= n or s[j] not in _IDENT_START:
            return None
        k = j
        while k < n and s[k] in _IDENT:
            k += 1
        e = self.ws(k)
        if e < n and s[e] == "=" and not (e + 1 < n and s[e + 1] == "="):
            return s[j:k], e + 1
        return None

    def string(self, i: int, start: int) -> tuple[str, int]:
        s, n = self.s, self.n
        prefix = s[start:i].lower()
        raw = "r" in prefix
        q = s[i]
        triple = s.startswith(q * 3, i)
        j = i + (3 if triple else 1)
        out: list[str] = []
        run = j
        while True:
            if j >= n:
                raise _Cut
            ch = s[j]
            if ch == q and (not triple or s.startswith(q * 3, j)):
                out.append(s[run:j])
                return "".join(out), j + (3 if triple else 1)
            if ch == "\\" and not raw:
                out.append(s[run:j])
                if j + 1 >= n:
                    raise _Cut
                e = s[j + 1]
                if e in _ESCAPES:
                    out.append(_ESCAPES[e])
                    j += 2
                elif e in "xuU":
                    width = {"x": 2, "u": 4, "U": 8}[e]
                    digits = s[j + 2:j + 2 + width]
                    if len(digits) < width:
                        raise _Cut
                    try:
                        out.append(chr(int(digits, 16)))
                    except ValueError:
                        raise LiteralProblem("a bad escape in a string", j) from None
                    j += 2 + width
                else:
                    out.append("\\" + e)
                    j += 2
                run = j
                continue
            if ch in "\n\r" and not triple:
                raise LiteralProblem("a string that runs past the end of its line", j)
            j += 1

    def number(self, i: int, depth: int) -> tuple[Any, int]:
        s, n = self.s, self.n
        j = i
        if s[j] in "+-" and j + 1 < n and s[j + 1] in _IDENT_START:  # -inf
            word, k = self._ident(j + 1)
            if word in ("inf", "Infinity"):
                return (float("-inf") if s[j] == "-" else float("inf")), k
            raise LiteralProblem("not a number", i)
        while j < n and s[j] in _NUMBER:
            if s[j] in "+-" and j > i and s[j - 1] not in "eE":
                break
            j += 1
        text = s[i:j].replace("_", "")
        if j >= n and depth > 0:  # inside a container the text cannot end: a cut number
            raise _Cut
        try:
            return int(text, 0) if not any(c in text for c in ".eEjJ") or text.lower().startswith("0x") else \
                float(text), j
        except ValueError:
            try:
                return float(text), j
            except ValueError:
                raise LiteralProblem("not a number", i) from None

    def _ident(self, i: int) -> tuple[str, int]:
        s, n = self.s, self.n
        j = i
        while j < n and (s[j] in _IDENT or (s[j] == "." and j + 1 < n and s[j + 1] in _IDENT_START)):
            j += 1
        return s[i:j], j

    def word(self, i: int, depth: int) -> tuple[Any, int]:
        s, n = self.s, self.n
        word, j = self._ident(i)
        if j < n and s[j] in "'\"" and word.lower() in ("r", "b", "u", "rb", "br", "f"):
            return self.string(j, i)
        if word in _WORDS:
            return _WORDS[word], j
        if j < n and s[j] == "(":  # a dataclass / pydantic repr
            return self.container(j, depth, name=word)
        if j >= n:
            raise _Cut
        return Opaque(word), j

    def angle(self, i: int, depth: int) -> tuple[Any, int]:
        """`<Enum.MEMBER: value>`; anything else in angle brackets is opaque up to its `>`."""
        s = self.s
        name, j = self._ident(i + 1)
        if "." in name and j < self.n and s[j] == ":":
            value, k = self.value(j + 1, depth + 1)
            k = self.ws(k)
            self.need(k)
            if s[k] == ">":
                cls, _, member = name.rpartition(".")
                return EnumMember(cls, member, value), k + 1
            raise LiteralProblem("expected '>' closing an enum member", k)
        end = s.find(">", i)
        if end < 0:
            raise _Cut
        nl = s.find("\n", i, end)
        if nl >= 0:
            raise LiteralProblem("an unclosed '<'", i)
        return Opaque(s[i:end + 1]), end + 1


def _as_set(items: list):
    try:
        return set(items)
    except TypeError:
        return list(items)


def parse(text: str, start: int = 0, *, allow_truncated: bool = False, max_depth: int = MAX_DEPTH,
          max_items: int = MAX_ITEMS) -> Parsed:
    """The literal starting at `start` (after blanks). A text that ends inside it is a
    LiteralProblem unless `allow_truncated` (then what was read, `truncated=True`)."""
    p = _Parser(text, max_depth, max_items)
    try:
        value, end = p.value(start, 0)
    except _Cut:
        if not allow_truncated:
            raise LiteralProblem("the text ends inside the value (a truncated line)", len(text)) from None
        return Parsed(None, len(text), True)
    if p.truncated and not allow_truncated:
        raise LiteralProblem("the text ends inside the value (a truncated line)", len(text))
    return Parsed(value, end, p.truncated)


def literal(text: str) -> Any:
    """The whole of `text` as one literal (blanks around it allowed)."""
    got = parse(text)
    rest = got.end
    while rest < len(text) and text[rest] in " \t\r\n":
        rest += 1
    if rest != len(text):
        raise LiteralProblem("text after the value", rest)
    return got.value


def plain(value: Any) -> Any:
    """A parsed value as JSON-like data: enum members by name, calls as dicts of their fields,
    tuples and sets as lists, opaque values as their text."""
    if isinstance(value, EnumMember):
        return value.name
    if isinstance(value, Call):
        return {k: plain(v) for k, v in value.kwargs.items()}
    if isinstance(value, dict):
        return {str(plain(k)) if not isinstance(k, str) else k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, Opaque):
        return value.text
    return value
