"""Findings never quote the text of a file an input named (README "Limits and hostile input").

A `--config` file or a `source`d script that an input names (not the user's own `--` command
line) is read to resolve the deployment, but what the tool prints about it names places, not
text: `check` output goes to CI logs and code-scanning uploads that others read, and the
file may be one the input's author could not read themselves.

From such a file, findings and refusal messages quote only vLLM's own vocabulary: option
names the release knows, numbers, true/false/None, an option's choices, the keys and
enumerated values of its JSON schema, and the hub ids of the tool's model table. Every other word — an unknown key and its values, a
free-text value (a model name, a path, an API key), a JSON string — is replaced wherever a
message would quote it (vLLM's refusal included, in any spelling: dashes or underscores,
any case, cut short) by its place, `[text of FILE:LINE:COL]`. A word of the input itself
that equals such text is replaced too: the tool cannot tell them apart, and saying less is
the safe side. Resolved settings are the tool's answer and are shown as resolved.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from vllm_preflight.model import Location

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_PLAIN = frozenset({"true", "false", "none", "null"})
_FRAGMENT = 12  # a long word is also caught by its first or last characters (a message may cut it short)


def placeholder(loc: Location | None) -> str:
    if loc is None:
        return "[text of a file the input names]"
    where = loc.file + (f":{loc.line}" if loc.line is not None else "") + \
        (f":{loc.column}" if loc.line is not None and loc.column is not None else "")
    return f"[text of {where}]"


# ----------------------------------------------------------------- vocabulary
@lru_cache(maxsize=8)
def _schema_words(name: str) -> frozenset:
    """Property names and enumerated string values of a release's option schema."""
    from vllm_preflight.schema.generate import release_schema

    words: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                words.update(str(k) for k in props)
            for key in ("enum", "const"):
                values = node.get(key)
                for v in values if isinstance(values, list) else [values] if key == "const" else []:
                    if isinstance(v, str):
                        words.add(v)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(release_schema(name))
    return frozenset(words)


@lru_cache(maxsize=1)
def _known_models() -> frozenset:
    """Hub ids of the built-in model table: public names, not a file's text."""
    from vllm_preflight.modelfacts import KNOWN_MODELS

    return frozenset(KNOWN_MODELS)


def _plain(text: str) -> bool:
    return text.lower() in _PLAIN or bool(_NUMBER.fullmatch(text))


# ----------------------------------------------------------------- which words
def private_words(bound) -> list[tuple[str, Location | None]]:
    """(text, place) of every word of a bound deployment's command and environment that
    comes from a file its input named and is not vLLM's vocabulary."""
    dep = bound.deployment
    files = set(getattr(dep, "private_files", ()) or ())
    if not files:
        return []
    from vllm_preflight.load.bind import _lookup  # prefix scans cached per word

    release = bound.release
    table = release.options
    name = bound.release_label if release.target == "pr29558" else release.version
    vocab = _schema_words(name)
    out: list[tuple[str, Location | None]] = []
    opt, unknown = None, False
    for k, w in enumerate(bound.words):
        parts = getattr(w, "private", ())
        text = w.text
        if k < bound.prefix:
            out += parts
            continue
        is_flag = text.startswith("-") and len(text) > 1 and not _NUMBER.fullmatch(text)
        if is_flag:
            flag, eq, value = text.partition("=")
            found = _lookup(flag.split(".", 1)[0], table)
            opt, unknown = found, found is None
            if parts and unknown:
                out += [(v, loc) for p, loc in parts for v in _flag_spellings(p, flag)]
            if eq and parts and _hidden(value, opt, unknown, vocab):
                out += [(v, loc) for _p, loc in parts for v, _path in _value_parts(value, vocab)]
            continue
        if parts and _hidden(text, opt, unknown, vocab):
            if len(parts) == 1 and parts[0][0] == text:
                sub = dict(w.sublocs or ())  # a JSON word's keys, at their own lines
                out += [(v, sub.get(path, parts[0][1]) if path else parts[0][1])
                        for v, path in _value_parts(text, vocab)]
            else:
                out += [(p, loc) for p, loc in parts if not _plain(p)]
    for item in getattr(dep, "template", ()) or ():  # keys that render no word (`key: false`, `key: []`)
        key = getattr(item, "key", None)
        if getattr(item, "private", False) and key and _lookup("--" + key, table) is None:
            out += [(v, item.key_loc) for v in _flag_spellings(key, "--" + key)]
    for _name, value in getattr(dep, "env_template", ()) or ():
        for piece in value:
            loc = piece.location() if hasattr(piece, "location") and hasattr(piece, "origin") else None
            if loc is not None and loc.file in files and piece.text and not _plain(piece.text):
                out.append((piece.text, loc))
    return out


def _hidden(value: str, opt, unknown: bool, vocab: frozenset) -> bool:
    """Whether a value word of a private file must not be quoted."""
    if unknown:
        return True
    if _plain(value) or value in vocab or value in _known_models():
        return False
    choices = getattr(opt, "choices", None) or ()
    if value in choices:
        return False
    return bool(_value_parts(value, vocab))


def _value_parts(value: str, vocab: frozenset) -> list[tuple[str, tuple]]:
    """(text, JSON path) of a value to hide: the word, and inside JSON each key and leaf that
    is not vocabulary (a message may quote one alone); nothing when all of it is vocabulary."""
    if not value.startswith(("{", "[")):
        return [(value, ())]
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return [(value, ())]
    found: list[tuple[str, tuple]] = []

    def walk(node, path: tuple) -> None:
        if isinstance(node, dict):
            for key, v in node.items():
                if str(key) not in vocab:
                    found.append((str(key), path + (key,)))
                walk(v, path + (key,))
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
        elif isinstance(node, str) and node and not _plain(node) and node not in vocab:
            found.append((node, path))

    walk(data, ())
    return [(value, ()), *found] if found else []


def _flag_spellings(part: str, flag: str) -> list[str]:
    """An unknown flag as messages may write it: dashes or underscores, with or without `--`."""
    texts = {part, flag} if part.startswith("-") else {part}
    out: set[str] = set()
    for t in texts:
        bare = t.lstrip("-")
        for s in (bare, bare.replace("_", "-"), bare.replace("-", "_")):
            if s:
                out.update((s, "--" + s))
    return sorted(out, key=len, reverse=True)


# ----------------------------------------------------------------- replacing
class Scrubber:
    """Replaces the hidden words (any case, as whole words) in messages by their places.

    Matching is by lookup, not one big regular expression: a file of thousands of keys gives
    tens of thousands of forms, which an alternation would try at every position of every
    message. Here each message is cut at its word boundaries once, and each boundary is
    looked up for every length a hidden form has (leftmost, then longest, wins)."""

    def __init__(self, words: Iterable[tuple[str, Location | None]]):
        by_text: dict[str, str] = {}
        for text, loc in words:
            if not text:
                continue
            for t in self._forms(text):
                by_text.setdefault(t.lower(), placeholder(loc))
        self._by_text = by_text
        self._lengths = sorted({len(t) for t in by_text}, reverse=True)

    @staticmethod
    def _forms(text: str) -> list[str]:
        forms = [text, repr(text)[1:-1], json.dumps(text)[1:-1]]
        if len(text) > 2 * _FRAGMENT:
            forms += [text[:_FRAGMENT], text[-_FRAGMENT:]]
        return list(dict.fromkeys(f for f in forms if f))

    def __bool__(self) -> bool:
        return bool(self._by_text)

    def __call__(self, message):
        if not self._by_text or not isinstance(message, str) or not message:
            return message
        low = message.lower()
        n = len(low)
        out: list[str] = []
        pos = i = 0
        while i < n:
            # a form starts where no word character precedes it (`1` in `0.13.0` or `16` stays whole)
            if i and (_word(low[i - 1]) and _word(low[i]) or (low[i - 1] == "." and i > 1 and low[i - 2].isdigit())):
                i += 1
                continue
            hit = 0
            for length in self._lengths:
                end = i + length
                if end > n:
                    continue
                if low[i:end] in self._by_text and _ends(low, end):
                    hit = length
                    break
            if not hit:
                i += 1
                continue
            out.append(message[pos:i])
            out.append(self._by_text[low[i:i + hit]])
            pos = i = i + hit
        out.append(message[pos:])
        return "".join(out)


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _ends(low: str, end: int) -> bool:
    """No word character (nor `.` and a digit) right after a match."""
    if end >= len(low):
        return True
    if _word(low[end]) and (end == 0 or _word(low[end - 1])):
        return False
    return not (low[end] == "." and end + 1 < len(low) and low[end + 1].isdigit() and low[end - 1].isdigit())


def scrub_findings(findings: list, scrub: Scrubber) -> list:
    if not scrub:
        return findings
    return [replace(f, message=scrub(f.message)) for f in findings]


def scrub_result(result, scrub: Scrubber) -> None:
    """vLLM's refusal, the events' and assumptions' words, the runtime stage's errors."""
    if not scrub:
        return
    from vllm_preflight.model import Assumption, VllmError

    if result.vllm_error is not None:
        result.vllm_error = VllmError(result.vllm_error.type, scrub(result.vllm_error.message))
    for e in result.events:
        e.reason = scrub(e.reason)
    result.assumptions = [Assumption(a.fact, scrub(a.value), scrub(a.source)) for a in result.assumptions]
    runtime = (result.resolved or {}).get("runtime")
    if isinstance(runtime, dict):
        for key in ("error", "scheduler_error"):
            err = runtime.get(key)
            if isinstance(err, dict) and isinstance(err.get("message"), str):
                runtime[key] = {**err, "message": scrub(err["message"])}
        for e in runtime.get("events") or ():
            if isinstance(e, dict) and isinstance(e.get("reason"), str):
                e["reason"] = scrub(e["reason"])
