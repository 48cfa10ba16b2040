"""Validating a server command against its release's schema, with findings placed at lines.

The words of the command (each with the place it was written) become the schema's instance
the way the release's parser reads them: long options (dash or underscore spelling,
unique prefixes), `--opt=value`, nargs, converters; dotted `-cc.a.b=v` keys merge into the
config object. Unknown flags are findings straight away; the instance is then validated
with jsonschema and each error becomes a finding at the word, JSON key or YAML key it is
about, with a did-you-mean for near misses (similar names, renamed keys, names that exist
in other releases).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache

from vllm_preflight.findings import Finding
from vllm_preflight.model import Location
from vllm_preflight.schema import hints
from vllm_preflight.schema.generate import release_schema
from vllm_preflight.schema.surely import surely_valid

_NUMBER = re.compile(r"^-\d+(\.\d+)?$")
JSON_CONVERTERS = {"json", "opt:json", "json_obj", "config", "dict_or_str"}


@dataclass
class Entry:
    """One key's schema entry on the check path."""

    key: str
    loc: Location | None
    sublocs: dict = field(default_factory=dict)
    from_config: bool = False


def _convert(conv: str, text: str):
    from vllm_preflight.resolve.parser.converters import (
        _convert as convert,  # the resolver's converters: one truth
    )

    return convert(conv, text)


def _json_key_loc(word, path: tuple) -> Location | None:
    """Where a JSON key sits inside a word written on one line (`'{"mode": 3}'`)."""
    sub = dict(word.sublocs or ())
    if path in sub:
        return sub[path]
    loc = word.loc
    if loc is None or loc.line is None:
        return loc
    needle = f'"{path[-1]}"'
    k = word.text.find(needle)
    if k < 0:
        return loc
    return Location(loc.file, loc.line, (loc.column or 1) + k)


def build_instance(bound, table):
    """(instance, entries by key, findings) for the words after the program."""
    words = bound.words
    instance: dict = {}
    entries: dict[str, Entry] = {}
    findings: list[Finding] = []
    version = bound.release_label
    i = bound.prefix
    positional = 0
    while i < len(words):
        w = words[i]
        text = w.text
        if not text.startswith("-") or text == "-" or _NUMBER.match(text):
            positional += 1
            i += 1
            continue
        if text == "--":
            break
        if text.startswith("-O") and not text.startswith("--"):
            i += 2 if text == "-O" else 1  # optimization level / -O.x: the parser's business
            continue
        name, eq, value = text.partition("=")
        dotted = "." in name and not name.startswith("--") or (name.startswith("--") and "." in name)
        base = name.split(".", 1)[0] if dotted else name
        opt = _lookup(base, table)
        if opt is None:
            # a did-you-mean would tell what a file the input named holds (private_text)
            hint = "" if getattr(w, "private", ()) else hints.option_hint(base, bound.release)
            findings.append(Finding("VP201", f"`{base}` is not an option of vLLM {version}{hint}", w.loc))
            i += 1
            continue
        key = next(s for s in opt.strings if s.startswith("--"))[2:]
        i += 1
        if dotted:
            path = tuple(name.split(".")[1:])
            if not eq:
                if i >= len(words):
                    break
                value = words[i].text
                i += 1
            append = path and path[-1].endswith("+")
            if append:
                path = path[:-1] + (path[-1][:-1],)
                val = value.split(",")
            else:
                try:
                    val = json.loads(value)
                except ValueError:
                    val = value
            target = instance.setdefault(key, {})
            if not isinstance(target, dict):
                continue
            node = target
            for p in path[:-1]:
                node = node.setdefault(p, {}) if isinstance(node.get(p, {}), dict) else {}
            if path:
                if append and isinstance(node.get(path[-1]), list):
                    node[path[-1]] = node[path[-1]] + val
                else:
                    node[path[-1]] = val
            entry = entries.setdefault(key, Entry(key, w.loc))
            for k in range(1, len(path) + 1):
                entry.sublocs.setdefault(path[:k], w.loc)
            continue
        if not opt.takes_value:
            _store(instance, entries, key, True, w, findings, version, opt)
            continue
        texts: list = []
        if eq:
            texts = [(value, w)]
        else:
            while i < len(words):
                nxt = words[i]
                if nxt.text.startswith("-") and len(nxt.text) > 1 and not _NUMBER.match(nxt.text):
                    break
                texts.append((nxt.text, nxt))
                i += 1
                if opt.nargs in (None, "?") or (isinstance(opt.nargs, int) and len(texts) == opt.nargs):
                    break
        if not texts:
            continue  # the parser reports the missing value
        values = []
        bad = False
        for t, src in texts:
            try:
                v = _convert(opt.converter, t)
            except (ValueError, TypeError) as e:
                bad = True
                if opt.converter in JSON_CONVERTERS or isinstance(e, json.JSONDecodeError):
                    if src.tag != "config-repr":
                        findings.append(Finding("VP205", f"`--{key}` takes JSON; {t!r} is not JSON ({e})", src.loc))
                else:
                    findings.append(Finding("VP202", f"`--{key}` takes {_kind(opt.converter)}; got {t!r}", src.loc))
                continue
            if opt.converter in ("config",) and isinstance(v, str):
                try:
                    v = json.loads(v)
                except ValueError as e:
                    if src.tag != "config-repr":
                        why = getattr(e, "msg", str(e))
                        findings.append(Finding("VP205", f"`--{key}` takes JSON; {t!r} is not JSON ({why})", src.loc))
                    bad = True
                    continue
            values.append((v, src))
        if bad or not values:
            continue
        if opt.nargs in (None, "?") and opt.kind != "append":
            v, src = values[0]
        else:
            v, src = [x for x, _ in values], values[0][1]
        _store(instance, entries, key, v, w, findings, version, opt, value_word=src)
    return instance, entries, findings


def _store(instance, entries, key, value, word, findings, version, opt, value_word=None) -> None:
    prev = entries.get(key)
    if prev is not None and key in instance:
        if isinstance(instance[key], dict) and isinstance(value, dict):
            merged = dict(instance[key])
            merged.update(value)
            value = merged
        elif word.tag == "config" or prev.from_config:
            cfg, cli = (prev, word) if prev.from_config else (word, prev)
            findings.append(Finding("VP110", f"`{key}` is set in the --config file and on the command line "
                                             f"({_where(cli.loc)}), which wins", cfg.loc))
        else:
            findings.append(Finding("VP108", f"`--{key}` is given more than once; the last one "
                                             f"({_where(word.loc)}) wins", prev.loc))
    instance[key] = value
    e = Entry(key, word.loc, from_config=word.tag == "config")
    if value_word is not None:
        e.sublocs = {(): value_word.loc, "__word__": value_word}
    entries[key] = e


def _where(loc: Location | None) -> str:
    if loc is None:
        return "?"
    import os

    return f"{os.path.basename(loc.file)}:{loc.line}"


def _kind(conv: str) -> str:
    base = conv.removeprefix("opt:")
    return {"int": "an integer", "float": "a number", "hint": "an integer (1k, 2M ...)",
            "hint_auto": "an integer or auto", "bool": "true or false"}.get(base, "a value")


def _lookup(name: str, table):
    if name in table.options:
        return table.options[name]
    if name.startswith("--"):
        dashed = "--" + name[2:].replace("_", "-")
        if dashed in table.options:
            return table.options[dashed]
        matches = table.prefixed(dashed)  # one scan per word and table
        if len(matches) == 1:
            return table.options[matches[0]]
    return None


# ---------------------------------------------------------------- validation
def validate_bound(bound, release) -> list[Finding]:
    """Findings for one bound deployment under `release`."""
    bound.release = release
    bound.release_label = getattr(release, "label", release.version)
    instance, entries, findings = build_instance(bound, release.options)
    bound.written = (instance, entries)  # the report's "written" column reads what was parsed here
    name = bound.release_label if release.target == "pr29558" else release.version
    if surely_valid(instance, name):  # the common case: neither the full schema nor the validator needed
        return findings
    for err in _validator(name).iter_errors(instance):
        findings += _findings_for(err, entries, bound, release)
    return findings


@cache
def _validator(name: str):
    from vllm_preflight.schema.engine import validator

    return validator(release_schema(name))


def _findings_for(err, entries: dict[str, Entry], bound, release) -> list[Finding]:
    path = tuple(err.absolute_path)
    if not path:
        return []
    if err.validator in ("anyOf", "oneOf") and err.context:
        # the first branch that takes the value's type says what is wrong with it (`1.0` for an
        # integer option: "not an integer", not "not of type integer or string")
        fitting = _fitting_branch(err)
        if fitting and not _is_choice(fitting):
            out: list[Finding] = []
            for e in fitting:
                out += _findings_for(e, entries, bound, release)
            return out
    key = path[0]
    entry = entries.get(key)
    inner = path[1:]
    version = bound.release_label

    def place(p: tuple) -> Location | None:
        if entry is None:
            return None
        sub = entry.sublocs
        if p in sub:
            return sub[p]
        word = sub.get("__word__")
        if word is not None and p:
            return _json_key_loc(word, p)
        for k in range(len(p), 0, -1):
            if p[:k] in sub:
                return sub[p[:k]]
        return sub.get((), entry.loc) if p else entry.loc

    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties") or {})
        extra = [k for k in (err.instance or {}) if k not in allowed]
        section = "PassConfig" if inner and inner[-1] == "pass_config" else "CompilationConfig" \
            if key == "compilation-config" else key
        out = []
        for k in extra:
            hint = hints.key_hint(section, str(k), allowed, release)
            forbids = hints.config_forbids_extra(release)
            if forbids:
                msg = f"`{k}` is not a field of {section} in vLLM {version}; vLLM rejects it{hint}"
                out.append(Finding("VP203", msg, place(inner + (k,))))
            else:
                msg = f"`{k}` is not a field of {section} in vLLM {version}; vLLM ignores it{hint}"
                out.append(Finding("VP203", msg, place(inner + (k,)), severity="warning"))
        return out
    rule = "VP204" if inner else "VP202"
    where = ".".join(map(str, inner)) if inner else None
    shown = f"`{key}`" if not inner else f"`{key}` key `{where}`"
    detail = _explain(err)
    return [Finding(rule, f"{shown}: {detail} in vLLM {version}", place(inner))]


def _branches(err) -> dict[int, list]:
    """The errors of an anyOf/oneOf error's context, by branch, in branch order."""
    out: dict[int, list] = {}
    for e in err.context:
        rel = list(e.relative_schema_path)
        out.setdefault(int(rel[0]) if rel and isinstance(rel[0], int) else 0, []).append(e)
    return dict(sorted(out.items()))


def _fitting_branch(err) -> list | None:
    """The errors of the first branch whose type the value has (no `type` error at its path)."""
    here = tuple(err.absolute_path)
    for errors in _branches(err).values():
        if not any(e.validator == "type" and tuple(e.absolute_path) == here for e in errors):
            return errors
    return None


def _is_choice(errors: list) -> bool:
    return any(e.validator == "enum" for e in errors)


def _explain(err) -> str:
    """A short reason for a schema error, with the choices and a did-you-mean."""
    value = err.instance
    if err.validator in ("anyOf", "oneOf") and err.context:
        fitting = _fitting_branch(err)
        if fitting:
            enum = next((e for e in fitting if e.validator == "enum"), None)
            if enum is not None:
                # names vLLM reads in any case are an enum next to a case-insensitive pattern
                any_case = any(e.validator == "pattern" for errs in _branches(err).values() for e in errs)
                return _choices(value, enum.validator_value, any_case)
            return _explain(fitting[0])
        types = [e.validator_value for errs in _branches(err).values() for e in errs
                 if e.validator == "type" and tuple(e.absolute_path) == tuple(err.absolute_path)]
        flat = [t for ts in types for t in (ts if isinstance(ts, list) else [ts])]
        return f"{value!r} is not of type {' or '.join(dict.fromkeys(flat))}"
    if err.validator == "enum":
        return _choices(value, err.validator_value, False)
    if err.validator == "type":
        types = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return f"{value!r} is not of type {' or '.join(types)}"
    if err.validator == "pattern" and isinstance(err.schema, dict) and err.schema.get("description"):
        return f"{value!r} is not {err.schema['description']}"
    return err.message


def _choices(value, names, any_case: bool) -> str:
    names = [str(n) for n in names]
    hint = hints.did_you_mean(str(value), names, cutoff=0.6)
    return f"{value!r} is not one of {', '.join(names)}{' (any case)' if any_case else ''}{hint}"
