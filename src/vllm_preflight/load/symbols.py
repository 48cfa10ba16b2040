"""Values that may be only partly known: text with symbols in it.

A `Text` is a tuple of `Lit` (known characters, remembering where they were written) and
`Sym` (a variable, an arithmetic expression over unknown variables, or an opaque command
substitution). Loaders build Texts; the binder renders them once the tool knows which
values to assume (see `load.bind`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from vllm_preflight.model import Location


class Origin(Protocol):
    def location(self, offset: int) -> Location: ...


@dataclass(frozen=True)
class Lit:
    """Literal text and the place of its first character."""

    text: str
    # an Origin, or None for values with no place (pins, defaults); not part of equality
    origin: Any = field(default=None, compare=False, hash=False)
    base: int = field(default=0, compare=False, hash=False)  # offset of text[0] in the origin

    def location(self, k: int = 0) -> Location | None:
        if self.origin is None:
            return None
        return self.origin.location(self.base + k)

    def cut(self, a: int, b: int | None = None) -> Lit:
        return Lit(self.text[a:b], self.origin, self.base + a)


@dataclass(frozen=True)
class Sym:
    """Something only known when the deployment runs.

    kind `var`: the variable `name`; `arith`: `expr` over variables; `opaque`: a command
    substitution or an expansion the tool does not evaluate (`name` is its source text).
    """

    kind: str
    name: str
    source: str
    expr: Any = None
    loc: Location | None = None

    @property
    def names(self) -> tuple[str, ...]:
        if self.kind == "arith":
            return tuple(sorted(set(expr_names(self.expr))))
        return (self.name,)


Text = tuple  # of Lit | Sym


def lit(text: str, origin=None, base: int = 0) -> Text:
    return (Lit(text, origin, base),) if text else ()


def is_literal(text: Text) -> bool:
    return all(isinstance(s, Lit) for s in text)


def literal(text: Text) -> str | None:
    if not is_literal(text):
        return None
    return "".join(s.text for s in text)


def syms(text: Text) -> list[Sym]:
    return [s for s in text if isinstance(s, Sym)]


def location_of(text: Text) -> Location | None:
    for s in text:
        if isinstance(s, Lit):
            loc = s.location()
            if loc is not None:
                return loc
        elif s.loc is not None:
            return s.loc
    return None


def source_of(text: Text) -> str:
    """The text as written, with symbols as their source (`$DP`)."""
    return "".join(s.text if isinstance(s, Lit) else s.source for s in text)


def concat(*texts: Text) -> Text:
    out: list = []
    for t in texts:
        for s in t:
            if isinstance(s, Lit) and not s.text:
                continue
            out.append(s)
    return tuple(out)


_WS = re.compile(r"[ \t\n]+")


def split_fields(text: Text) -> tuple[bool, list[Text], bool]:
    """Field splitting of an unquoted expansion: (leading blank, fields, trailing blank)."""
    fields: list[list] = [[]]
    for s in text:
        if isinstance(s, Sym):
            fields[-1].append(s)
            continue
        pos = 0
        for m in _WS.finditer(s.text):
            if m.start() > pos:
                fields[-1].append(s.cut(pos, m.start()))
            fields.append([])
            pos = m.end()
        if pos < len(s.text):
            fields[-1].append(s.cut(pos))
    first = next((s for s in text if not (isinstance(s, Lit) and not s.text)), None)
    last = next((s for s in reversed(text) if not (isinstance(s, Lit) and not s.text)), None)
    lead = isinstance(first, Lit) and first.text[0] in " \t\n"
    trail = isinstance(last, Lit) and last.text[-1] in " \t\n"
    return lead, [tuple(f) for f in fields if f], trail


# ------------------------------------------------------------------ arithmetic
_TOKEN = re.compile(r"\s*(?:(\d+)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/%()]))")


class ArithError(ValueError):
    pass


def parse_arith(source: str):
    """Parse `a * (b + 2)` into a tree: ("num", n) | ("var", name) | (op, left, right) | ("neg", x)."""
    pos = 0
    tokens: list[tuple[str, int | str]] = []
    src = source.strip()
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise ArithError(f"cannot read {src[pos:]!r}")
        if m.group(1):
            if len(m.group(1)) > 19:  # past bash's 64-bit integers (and Python's int-from-text limit)
                raise ArithError(f"number too large: {m.group(1)[:20]}...")
            tokens.append(("num", int(m.group(1))))
        elif m.group(2) or m.group(3):
            tokens.append(("var", m.group(2) or m.group(3)))
        else:
            tokens.append(("op", m.group(4)))
        pos = m.end()
        while pos < len(src) and src[pos] in " \t\n":
            pos += 1
    i = 0

    def peek():
        return tokens[i] if i < len(tokens) else None

    def take():
        nonlocal i
        i += 1
        return tokens[i - 1]

    def primary():
        tok = peek()
        if tok is None:
            raise ArithError("expression ends early")
        if tok == ("op", "("):
            take()
            e = additive()
            if take() != ("op", ")"):
                raise ArithError("missing )")
            return e
        if tok == ("op", "-"):
            take()
            return ("neg", unary())
        if tok == ("op", "+"):
            take()
            return unary()
        if tok[0] in ("num", "var"):
            return take()
        raise ArithError(f"unexpected {tok[1]!r}")

    def unary():
        return primary()

    def power():
        left = unary()
        if peek() == ("op", "**"):
            take()
            return ("**", left, power())
        return left

    def multiplicative():
        left = power()
        while peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = take()[1]
            left = (op, left, power())
        return left

    def additive():
        left = multiplicative()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            left = (op, left, multiplicative())
        return left

    tree = additive()
    if i != len(tokens):
        raise ArithError(f"unexpected {tokens[i][1]!r}")
    return tree


def expr_names(expr) -> list[str]:
    if expr[0] == "var":
        return [expr[1]]
    if expr[0] == "num":
        return []
    return [n for sub in expr[1:] for n in expr_names(sub)]


def substitute(expr, values: dict[str, Any]):
    """Replace known variables by numbers or sub-trees; `values[name]` is an int or a tree."""
    if expr[0] == "var":
        v = values.get(expr[1])
        if v is None:
            return expr
        return ("num", v) if isinstance(v, int) else v
    if expr[0] == "num":
        return expr
    return (expr[0],) + tuple(substitute(s, values) for s in expr[1:])


def evaluate(expr, values: dict[str, int]) -> int:
    kind = expr[0]
    if kind == "num":
        return expr[1]
    if kind == "var":
        if expr[1] not in values:
            raise ArithError(f"{expr[1]} has no value")
        return values[expr[1]]
    if kind == "neg":
        return -evaluate(expr[1], values)
    a = evaluate(expr[1], values)
    b = evaluate(expr[2], values)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind in ("/", "%"):
        if b == 0:
            raise ArithError("division by zero")
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C-style truncation, as bash
        return q if kind == "/" else a - b * q
    if kind == "**":
        if b < 0 or b > 64 or abs(a) > 1 << 20:
            raise ArithError("exponent out of range")
        return a ** b
    raise ArithError(f"unknown operator {kind}")


def render_expr(expr) -> str:
    kind = expr[0]
    if kind == "num":
        return str(expr[1])
    if kind == "var":
        return expr[1]
    if kind == "neg":
        return f"-{render_expr(expr[1])}"
    return f"({render_expr(expr[1])}{kind}{render_expr(expr[2])})"


# ------------------------------------------------------------------- rendering
def render(text: Text, binding: dict[str, str]) -> str:
    """The text with each symbol replaced by its bound value (or its source if unbound)."""
    out = []
    for s in text:
        if isinstance(s, Lit):
            out.append(s.text)
        else:
            out.append(render_sym(s, binding))
    return "".join(out)


def render_sym(s: Sym, binding: dict[str, str]) -> str:
    if s.kind == "arith":
        values = {}
        for n in set(expr_names(s.expr)):
            if n not in binding:
                return s.source
            try:
                values[n] = int(str(binding[n]).strip())
            except ValueError:
                return s.source
        try:
            return str(evaluate(s.expr, values))
        except ArithError:
            return s.source
    return str(binding.get(s.name, s.source))
