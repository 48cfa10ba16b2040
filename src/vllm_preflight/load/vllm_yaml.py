"""vLLM `--config` YAML files: keys are long option names, read the way vLLM reads them.

vLLM's FlexibleArgumentParser turns the file into words and puts them right after
`serve MODEL`, so any flag on the command line wins (argparse keeps the last value):
`true` is the bare flag; `false` is dropped (or `--no-KEY` where that flag exists, from
0.28.0); a list is the flag then its items; a nested mapping is JSON from 0.16.0 on and a
Python repr before (which vLLM's JSON parser rejects); anything else is `str(value)`.
Keys may be written with dashes or underscores (the parser turns `_` into `-`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vllm_preflight.findings import Finding
from vllm_preflight.load.shell import TWord
from vllm_preflight.load.symbols import lit, literal
from vllm_preflight.model import Location

if TYPE_CHECKING:  # yaml is imported only where a YAML file is read (a shell file never needs it)
    from vllm_preflight.load.yaml_marks import YamlDoc

# Release behaviour of the YAML reader (vllm-resolution.md §8); a release entry may carry
# `config_yaml_nested_json` / `config_yaml_false_no_flag` to override these.
NESTED_JSON_SINCE = (0, 16, 0)
FALSE_AS_NO_FLAG_SINCE = (0, 28, 0)


@dataclass(frozen=True)
class ConfigItem:
    """One top-level key of a `--config` file, rendered per release by the binder."""

    key: str
    value: Any = field(compare=False, hash=False)
    key_loc: Location | None = None
    value_loc: Location | None = None
    item_locs: tuple = ()  # list values: one Location per item
    sublocs: tuple = field(default=(), compare=False, hash=False)  # ((json path), Location) for nested keys
    file: str = ""
    private: bool = field(default=False, compare=False)  # read because an input named the file: never quoted


def version_tuple(version: str) -> tuple[int, ...]:
    from vllm_preflight.releases.versions import version_key

    try:
        return version_key(version)
    except ValueError:
        return (0,)


def _release_flag(release, name: str, default: bool) -> bool:
    rules = getattr(release, "rules", None) or {}
    return bool(rules.get(name, default))


def render_item(item: ConfigItem, release, option_names) -> tuple[list[tuple[str, Location | None, tuple]], list[Finding]]:
    """The words vLLM makes of one config key under `release` (a Release)."""
    version = version_tuple(release.version)
    flag = "--" + item.key
    value = item.value
    findings: list[Finding] = []
    if isinstance(value, bool):
        if value:
            return [(flag, item.key_loc, ())], findings
        no_flag = "--no-" + item.key.replace("_", "-")
        if _release_flag(release, "config_yaml_false_no_flag", version >= FALSE_AS_NO_FLAG_SINCE) \
                and no_flag in option_names:
            return [(no_flag, item.key_loc, ())], findings
        findings.append(Finding("VP109", f"`{item.key}: false` is dropped by vLLM {release.version}'s "
                                         f"--config reader: no flag is passed, so the option keeps its default",
                                item.key_loc))
        return [], findings
    if isinstance(value, list):
        if not value:
            return [], findings
        locs = list(item.item_locs) + [item.value_loc] * (len(value) - len(item.item_locs))
        return [(flag, item.key_loc, ())] + [(_str(v), locs[k], ()) for k, v in enumerate(value)], findings
    if isinstance(value, dict):
        if _release_flag(release, "config_yaml_nested_json", version >= NESTED_JSON_SINCE):
            return [(flag, item.key_loc, ()), (json.dumps(value, default=str), item.value_loc, item.sublocs)], findings
        text = _str(value)
        findings.append(Finding(
            "VP106", f"`{item.key}` is a nested mapping: vLLM {release.version} passes it on as the Python "
                     f"repr {text!r}, which its JSON parser rejects (nested mappings work from 0.16.0); "
                     f"write it as a quoted JSON string, e.g. {item.key}: '{json.dumps(value, default=str)}'",
            item.key_loc))
        return [(flag, item.key_loc, ()), (text, item.value_loc, item.sublocs)], findings
    return [(flag, item.key_loc, ()), (_str(value), item.value_loc, ())], findings


def _str(value: Any) -> str:
    return str(value)  # what vLLM does: str(value), so None is "None" and True is "True"


def items_from_doc(doc: YamlDoc, file_label: str) -> tuple[list[ConfigItem], ConfigItem | None]:
    """The config keys of a document (and the `model` key apart, vLLM treats it specially)."""
    items: list[ConfigItem] = []
    model = None
    if not isinstance(doc.data, dict):
        return items, None
    for key, value in doc.data.items():
        path = (key,)
        item_locs: tuple = ()
        if isinstance(value, list):
            item_locs = tuple(doc.location(path + (k,)) for k in range(len(value)))
        sublocs: list = []
        if isinstance(value, dict):
            for p in doc.key_nodes:
                if len(p) > 1 and p[0] == key:
                    sublocs.append((p[1:], doc.location(p, key=True)))
        item = ConfigItem(str(key), value, doc.location(path, key=True), doc.location(path), item_locs,
                          tuple(sublocs), file_label)
        if str(key) == "model" and not isinstance(value, (dict, list, bool)):
            model = item
        items.append(item)
    return items, model


# --------------------------------------------------------- looks like a config
def known_option_keys() -> set[str]:
    """Every long option name any recorded release knows, without the dashes."""
    from vllm_preflight.releases import SUPPORTED, option_table

    keys: set[str] = set()
    seen_tables: set[int] = set()
    for v in SUPPORTED:
        table = option_table(v)
        if id(table) in seen_tables:
            continue
        seen_tables.add(id(table))
        keys.update(s[2:] for s in table.options if s.startswith("--"))
    return keys


_KNOWN: set[str] | None = None


def looks_like_config(data: Any) -> bool:
    """A mapping whose keys are mostly vLLM long option names (either spelling)."""
    global _KNOWN
    if not isinstance(data, dict) or not data:
        return False
    if "apiVersion" in data or "kind" in data:
        return False
    if _KNOWN is None:
        _KNOWN = known_option_keys()
    keys = [str(k).replace("_", "-") for k in data]
    hits = sum(1 for k in keys if k in _KNOWN)
    return hits >= 1 and hits * 2 >= len(keys)


# ------------------------------------------------------------ --config splice
def find_config_word(words: list, prefix: int) -> tuple[int, int, Any] | None:
    """(index, how many words, path Text) of `--config PATH` / `--config=PATH` in a template."""
    for i in range(prefix, len(words)):
        w = words[i]
        if not isinstance(w, TWord):
            continue
        s = literal(w.text)
        if s is None:
            if w.text and hasattr(w.text[0], "text") and w.text[0].text.startswith("--config="):
                return i, 1, None
            continue
        if s == "--config" and i + 1 < len(words) and isinstance(words[i + 1], TWord):
            return i, 2, words[i + 1].text
        if s.startswith("--config="):
            return i, 1, lit(s[len("--config="):])
    return None


def splice_config(words: list, prefix: int, items: list[ConfigItem]) -> list:
    """Put config items where vLLM does: after `serve MODEL` (or after `serve`), CLI after."""
    found = find_config_word(words, prefix)
    if found is None:
        return words
    i, n, _ = found
    rest = words[:i] + words[i + n:]
    insert = prefix
    first = rest[prefix] if prefix < len(rest) else None
    model_in_cli = False
    if isinstance(first, TWord):
        s = literal(first.text)
        if s is None or not s.startswith("-"):
            model_in_cli = True
            insert = prefix + 1  # the model is positional: config args come after it
    model = next((it for it in items if it.key == "model" and not isinstance(it.value, (dict, list, bool))), None)
    spliced: list[ConfigItem | TWord] = list(items)
    if model is not None:
        # vLLM's serve takes `model:` from the file as the model; the positional one wins
        spliced = [it for it in items if it is not model]
        if not model_in_cli:
            spliced.insert(0, TWord(lit(str(model.value)), model.value_loc))
    return rest[:insert] + spliced + rest[insert:]


def resolve_path(path: str, base_dir: str | None) -> str:
    if os.path.isabs(path) or base_dir is None:
        return path
    return os.path.normpath(os.path.join(base_dir, path))
