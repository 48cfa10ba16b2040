"""Template placeholders in YAML: `{{ ... }}` actions of Helm (Go templates), kept as unknowns.

A manifest that is a template (a Helm chart's `templates/*.yaml`, a file one document of which
carries a `{{ .Values.x }}`) is not valid YAML until rendered. To read it anyway, the text is
rewritten before parsing, keeping every line and column: an action alone on a line that shapes
the document (`{{- if ... }}`, `{{- end }}`, `{{- include ... | nindent 4 }}`, `{{- toYaml ... }}`,
comments) is blanked; any other action becomes a token of the same length that YAML reads as
plain text. Loaders turn tokens back into symbols (`untoken`): a value only known when the
chart is rendered, shown as written (`{{ .Values.tp }}`), reported under `depends_on` when it
matters and pinned with `--assume .Values.tp=8`. `{{ .Values.x | default 8 }}` (or
`default 8 .Values.x`) is 8 with the assumption stated, as a shell default is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from vllm_preflight.load.source import Source
from vllm_preflight.load.symbols import Lit, Sym, Text
from vllm_preflight.model import Assumption

OPEN, FILL, FIRST = "\ue002", "\ue003", 0xE100
MAX_TOKENS = 0xF8FF - FIRST  # the private-use characters that number a token
_ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_TOKEN = re.compile(OPEN + "(.)" + FILL + "*", re.DOTALL)
# actions that shape the document rather than give a value
_SHAPING = re.compile(r"^\{\{-?\s*(?:/\*|(?:if|else|end|range|with|define|template|block|break|continue|"
                      r"include|toYaml|tpl|fail|required\s+\"[^\"]*\"\s+\(include)\b)|\|\s*n?indent\s+\d+\s*-?\}\}$")
_NAME = re.compile(r"[.$][A-Za-z_][\w.]*")
_DEFAULT = re.compile(r"^(?:(?P<name>[.$][\w.]+)\s*\|\s*default\s+(?P<a>\S+)|default\s+(?P<b>\S+)\s+(?P<name2>[.$][\w.]+))"
                      r"(?:\s*\|\s*(?:quote|squote|toString|int|int64))?$")


@dataclass
class TemplatedSource(Source):
    """A YAML text with its template actions replaced by tokens (same length, same lines)."""

    placeholders: list[str] = field(default_factory=list, repr=False)  # token k -> the action as written

    def restored(self, text: str) -> str:
        """A value of this text with its tokens back as the actions they stand for."""
        return _TOKEN.sub(lambda m: self._action(m.group(1)), text)

    def _action(self, ch: str) -> str:
        k = ord(ch) - FIRST
        return self.placeholders[k] if 0 <= k < len(self.placeholders) else ch


def detemplate(source: Source) -> TemplatedSource:
    text = source.text
    placeholders: list[str] = []
    out = []
    pos = 0
    for m in _ACTION.finditer(text):
        out.append(text[pos:m.start()])
        action = m.group(0)
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        alone = not (text[line_start:m.start()].strip() or _ACTION.sub("", text[m.end():line_end]).strip())
        if (alone and _SHAPING.search(action)) or len(placeholders) >= MAX_TOKENS:
            out.append(re.sub(r"[^\n]", " ", action))
        else:
            token = OPEN + chr(FIRST + len(placeholders))
            placeholders.append(action)
            # keep the line breaks of a multi-line action where they were
            out.append(token + "".join("\n" if c == "\n" else FILL for c in action[len(token):]))
        pos = m.end()
    out.append(text[pos:])
    return TemplatedSource(source.path, "".join(out), placeholders=placeholders)


def has_tokens(text: str) -> bool:
    return OPEN in text


def untoken(text: Text, source: Source | None, pins: dict[str, str] | None,
            assumptions: list[Assumption] | None = None) -> Text:
    """A Text with its template tokens as symbols (or their pinned or default values)."""
    placeholders = getattr(source, "placeholders", None) or []

    def value(m: re.Match, piece: Lit) -> list:
        k = ord(m.group(1)) - FIRST
        action = placeholders[k] if 0 <= k < len(placeholders) else m.group(0)
        return _value(action, piece, m.start(), pins, assumptions)

    return _replaced(text, OPEN, _TOKEN, value)


def _replaced(text: Text, mark: str, pattern: re.Pattern, value) -> Text:
    """A Text with each match of `pattern` in its known pieces (those holding `mark`) replaced
    by `value(match, piece)`."""
    if not any(isinstance(s, Lit) and mark in s.text for s in text):
        return text
    out: list = []
    for s in text:
        if not isinstance(s, Lit) or mark not in s.text:
            out.append(s)
            continue
        pos = 0
        for m in pattern.finditer(s.text):
            if m.start() > pos:
                out.append(s.cut(pos, m.start()))
            out.extend(value(m, s))
            pos = m.end()
        if pos < len(s.text):
            out.append(s.cut(pos))
    return tuple(out)


def _value(action: str, lit_piece: Lit, at: int, pins: dict[str, str] | None,
           assumptions: list[Assumption] | None) -> list:
    inner = action[2:-2].strip().removeprefix("-").removesuffix("-").strip()
    name = inner
    d = _DEFAULT.match(inner)
    simple = _NAME.fullmatch(inner) or re.fullmatch(r"([.$][\w.]+)\s*\|\s*(?:quote|squote|toString|int|int64)", inner)
    if d and (d.group("a") or d.group("b") or "").startswith((".", "$")):
        d = None  # `default .Chart.AppVersion`: another value, not a literal default
        name = inner
    if d:
        name = d.group("name") or d.group("name2")
    elif simple:
        name = simple.group(1) if simple.lastindex else simple.group(0)
    if pins and name in pins:
        return [Lit(pins[name])]
    if d:
        default = (d.group("a") or d.group("b")).strip("\"'")
        if assumptions is not None:
            a = Assumption(name, default, f"a template value, not rendered here; the default in `{action}`")
            if a not in assumptions:
                assumptions.append(a)
        return [Lit(default, lit_piece.origin, lit_piece.base + at)]
    return [Sym("var", name, action, loc=lit_piece.location(at))]


_ENVSUBST = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def envsubst(text: Text, pins: dict[str, str] | None) -> Text:
    """`${NAME}` / `$NAME` in words that reach the program unexpanded (a manifest's exec-form
    args: Kubernetes expands only `$(NAME)`): envsubst placeholders, unknown until rendered."""
    def value(m: re.Match, piece: Lit) -> list:
        name = m.group(1) or m.group(2)
        if pins and name in pins:
            return [Lit(pins[name])]
        return [Sym("var", name, m.group(0), loc=piece.location(m.start()))]

    return _replaced(text, "$", _ENVSUBST, value)
