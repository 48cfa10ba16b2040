"""`--records DIR`: the verify records (`verify --record DIR`) that cover a row.

A record covers a row when it names the same target and vLLM version and its
`input.resolved_digest` is the digest of the row's resolved settings (the same function verify
uses), so a record proves the resolved config, whichever file it came from.

Records are inputs, read under the rules of `check`'s inputs: only regular files (a FIFO, a
device or a link to /dev/zero is never opened), at most 4 MiB each, JSON nested at most 100
brackets deep, each checked against the record's schema (types included) before a field is
read. The walk stays inside DIR (a link leading out of it is not followed), goes at most
MAX_DEPTH folders down and reads at most MAX_FILES records. A record that breaks a rule is an
InputError naming its path; the matrix is still drawn from the others.
"""
from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from functools import lru_cache

from vllm_preflight.errors import InputError, InputFailure, UsageProblem

SCHEMA_ID = "vllm-preflight/verify-record/1"
MAX_FILES = 10_000  # records read from one DIR (as files in one folder scan of `check`)
MAX_DEPTH = 32  # folders below DIR (verify writes its records straight into DIR)
MAX_NESTING = 100  # JSON brackets, as for a JSON word of a server command

_TEXT = {"type": "string", "maxLength": 200}
_TEXT_OR_NULL = {"type": ["string", "null"], "maxLength": 200}
# What the matrix reads of a record, with types; verify's own schema (verify/result.schema.json)
# is stricter, but a record of another tool version that holds these fields still covers a row.
RECORD_SCHEMA = {
    "type": "object",
    "required": ["schema", "input", "environment", "outcome"],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "date": _TEXT,
        "tier": _TEXT,
        "input": {"type": "object", "required": ["target"],
                  "properties": {"target": {"enum": ["release", "pr29558"]},
                                 "vllm_version": _TEXT_OR_NULL, "resolved_digest": _TEXT_OR_NULL}},
        "environment": {"type": "object",
                        "properties": {"device": _TEXT, "torch": _TEXT_OR_NULL, "date": _TEXT,
                                       "deep_ep": {"type": ["object", "null"],
                                                   "properties": {"installed": {"type": "boolean"},
                                                                  "version": _TEXT_OR_NULL}}}},
        "outcome": {"type": "object", "required": ["status"], "properties": {"status": _TEXT}},
    },
}


@dataclass(frozen=True)
class Evidence:
    target: str
    vllm_version: str | None
    digest: str | None
    status: str
    tier: str
    device: str
    torch: str | None
    deep_ep: str | None
    date: str
    path: str

    def text(self) -> str:
        parts = [self.status, self.tier, self.device if self.device != self.tier else "", f"torch {self.torch or '-'}",
                 f"deep_ep {self.deep_ep or '-'}", self.date]
        return " · ".join(p for p in parts if p)


def read(directory: str) -> tuple[list[Evidence], list[InputError]]:
    """Every record under DIR, and an error for each file that is not one (the others still
    count). DIR itself not being a folder is a usage error (exit 2)."""
    if not os.path.isdir(directory):
        raise UsageProblem(f"--records {directory}: not a directory")
    errors: list[InputError] = []
    out = []
    for path in _walk(directory, errors):
        try:
            out.append(_evidence(path, _record(path)))
        except InputFailure as e:
            errors.append(e.error)
    return out, errors


def _walk(top: str, errors: list[InputError]) -> list[str]:
    """The `*.json` files under `top`, sorted, without following a link out of it."""
    root = os.path.realpath(top)
    files: list[str] = []
    seen: set[str] = set()
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            errors.append(InputError(folder, f"cannot read folder: {e.strerror or e}"))
            continue
        subfolders = []
        for entry in entries:
            is_json = entry.name.endswith(".json")
            try:
                is_link, is_dir = entry.is_symlink(), entry.is_dir(follow_symlinks=False)
            except OSError:
                is_link = is_dir = False
            if is_link:
                real = os.path.realpath(entry.path)
                if os.path.commonpath([root, real]) != root:
                    if is_json or os.path.isdir(entry.path):
                        errors.append(InputError(entry.path, "a link out of the --records folder; not followed"))
                    continue
                if os.path.isdir(real):  # the walk reaches what it links to inside DIR anyway
                    continue
            if is_dir:
                if depth + 1 > MAX_DEPTH:
                    errors.append(InputError(entry.path, f"more than {MAX_DEPTH} folders deep; not read"))
                    continue
                subfolders.append((entry.path, depth + 1))
            elif is_json:
                real = os.path.realpath(entry.path)
                if real in seen:
                    continue
                seen.add(real)
                files.append(entry.path)
                if len(files) > MAX_FILES:
                    errors.append(InputError(top, f"more than {MAX_FILES} records; the rest are not read"))
                    return files[:MAX_FILES]
        stack.extend(reversed(subfolders))
    return files


def _record(path: str) -> dict:
    """The record in one file, checked; InputFailure naming the file otherwise."""
    from vllm_preflight.load.source import fail, read_bytes

    try:
        data = read_bytes(path, what="a verify record")  # regular files of at most 4 MiB, never blocks
    except OSError as e:
        fail(path, f"cannot read: {e.strerror or e}")
    depth = _nesting(data)
    if depth > MAX_NESTING:
        fail(path, f"not a verify record: JSON nested {depth} brackets deep (limit {MAX_NESTING})")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        fail(path, "not a verify record: not UTF-8 text")
    except ValueError as e:
        line, col = getattr(e, "lineno", None), getattr(e, "colno", None)
        fail(path, f"not a verify record (unreadable JSON: {getattr(e, 'msg', e)})", line, col)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        fail(path, f"not a verify record (no \"schema\": \"{SCHEMA_ID}\")")
    problem = next((_problem(err) for err in _validator().iter_errors(doc)), None)
    if problem:
        fail(path, f"not a verify record: {problem}")
    return doc


def _nesting(data: bytes) -> int:
    """The deepest bracket nesting of JSON text, brackets inside strings counted too (only absurd
    depths matter), at C speed: the brackets alone, each +1 or -1, summed as it goes."""
    import itertools

    brackets = data.translate(_BRACKETS, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(0, max(itertools.accumulate(memoryview(brackets).cast("b"))))


_BRACKETS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[{]}")


@lru_cache(maxsize=1)
def _validator():
    from vllm_preflight.schema.engine import validator

    return validator(RECORD_SCHEMA)


_JSON_TYPE = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
              float: "a number", type(None): "null"}


def _problem(err) -> str:
    """One schema error in words, naming the field; never the record's own text."""
    where = ".".join(str(p) for p in err.absolute_path) or "the record"
    kind = err.validator
    if kind == "required":
        missing = next((k for k in err.validator_value if k not in (err.instance or {})), "?")
        return f"{where} has no \"{missing}\"" if err.absolute_path else f"no \"{missing}\""
    if kind == "type":
        wanted = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return f"{where} is {_JSON_TYPE.get(type(err.instance), 'a value')}, not {' or '.join(wanted)}"
    if kind == "enum":
        return f"{where} is not one of {', '.join(map(str, err.validator_value))}"
    if kind == "maxLength":
        return f"{where} is longer than {err.validator_value} characters"
    return f"{where} fails the record schema ({kind})"


def _evidence(path: str, doc: dict) -> Evidence:
    inp, env, outcome = doc["input"], doc["environment"], doc["outcome"]
    deep_ep = env.get("deep_ep") or {}
    date = doc.get("date") or env.get("date")
    if not date:
        try:
            date = dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.timezone.utc).strftime("%Y-%m-%d")
        except OSError:
            date = "-"
    return Evidence(inp["target"], inp.get("vllm_version"), inp.get("resolved_digest"), outcome["status"],
                    doc.get("tier", ""), env.get("device", "?"), env.get("torch"),
                    deep_ep.get("version") if deep_ep.get("installed") else None, str(date)[:10], path)


def covering(rows: list[dict], evidence: list[Evidence]) -> dict[int, str]:
    """Row index -> the text of the records covering it."""
    from vllm_preflight.verify.record import digest

    by_key: dict[tuple, list[Evidence]] = {}
    for e in evidence:
        by_key.setdefault((e.target, e.vllm_version, e.digest), []).append(e)
    out = {}
    for i, r in enumerate(rows):
        found = by_key.get((r.get("target"), r.get("vllm_version"), digest(r.get("resolved"))))
        if found:
            out[i] = "; ".join(dict.fromkeys(e.text() for e in found))
    return out

