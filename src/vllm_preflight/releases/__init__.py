"""What vLLM releases ARE, as data.

A release is the accumulation of CHANGES up to its version: each entry says what a
release changed against the one before it (parser style, rule variants, defaults).
Lists recorded from the releases themselves (their `vllm serve` options, attention
ops, PassConfig fields, all2all backends) live in `data/` and are read lazily.
`get_release("0.13.0")` or `get_release("pr29558")` returns a frozen Release.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vllm_preflight.releases.changes import CHANGES, PR29558_CHANGES
from vllm_preflight.releases.versions import version_key

SUPPORTED = (
    "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.15.0", "0.15.1",
    "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.19.1", "0.20.0", "0.20.1",
    "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0",
    "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0",
)
NEWEST = SUPPORTED[-1]
PR29558 = "pr29558"
PR29558_BASE = "0.12.0"
DATA = Path(__file__).parent / "data"


@cache
def data_file(name: str) -> Any:
    """A recorded data file of releases/data/, read once per process (the resolver's tables
    are built from these; it never opens them itself)."""
    with open(DATA / name) as f:
        return json.load(f)



# ---------------------------------------------------------------- option tables
@dataclass(frozen=True)
class Option:
    """One `vllm serve` option as that release's argparse defines it."""

    strings: tuple[str, ...]
    dest: str
    nargs: Any
    kind: str  # store | store_true | store_false | boolopt | store_const | append | count | help
    converter: str
    choices: tuple | None
    const: Any
    deprecated: bool = False

    @property
    def takes_value(self) -> bool:
        return self.kind in ("store", "append")

    @property
    def display(self) -> str:
        return "/".join(self.strings)

    @property
    def converter_label(self) -> str:
        base = self.converter.removeprefix("opt:")
        return {"hint": "human_readable_int", "json": "loads", "config": "parse_dataclass",
                "hint_auto": "human_readable_int_or_auto"}.get(base, base)

    def const_value(self, word: str) -> Any:
        if self.kind == "store_true":
            return True
        if self.kind == "store_false":
            return False
        if self.kind == "boolopt":
            return word not in (self.const or ())
        return self.const


@dataclass(frozen=True)
class OptionTable:
    """A release's command-line options by flag."""

    options: dict[str, Option]
    long_options: tuple[str, ...]
    by_dest: dict[str, Option] = field(default_factory=dict)
    has_negative_number_options: bool = False
    _prefixed: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)

    def prefixed(self, dashed: str) -> list[str]:
        """Long options `dashed` abbreviates; one scan per word (a flag repeated thousands of
        times costs one)."""
        hit = self._prefixed.get(dashed)
        if hit is None:
            if len(self._prefixed) > 4096:
                self._prefixed.clear()
            hit = self._prefixed[dashed] = [o for o in self.long_options if o.startswith(dashed)]
        return hit


@lru_cache(maxsize=1)
def _options_data() -> dict:
    with open(DATA / "options.json") as f:
        return json.load(f)


@lru_cache(maxsize=1)
def _facts_data() -> dict:
    with open(DATA / "facts.json") as f:
        return json.load(f)


def _nearest_recorded(version: str, recorded) -> str:
    """Releases whose tables were not recorded take the nearest earlier recorded one."""
    key = version_key(version)
    earlier = [v for v in recorded if version_key(v) <= key]
    return max(earlier, key=version_key) if earlier else min(recorded, key=version_key)


@cache
def _option_rows(version: str) -> dict:
    data = _options_data()
    entry = data[version]
    if "base" in entry:
        return dict(entry["base"])
    rows = dict(_option_rows(entry["from"]))
    for k in entry["drop"]:
        rows.pop(k, None)
    rows.update(entry["set"])
    return rows


def _hidden_negatives(strings, kind: str, const) -> list[str]:
    """Where a release pairs `--enable-x` with `--disable-x` (its EnableDisableAction), the
    `--no-enable-x` / `--no-disable-x` spellings argparse's BooleanOptionalAction adds stay
    registered but leave the help, which the tables were read from (recorded on 0.33.0)."""
    if kind != "boolopt" or not const:
        return []
    if not any(n.startswith(("--enable-", "--disable-")) for n in const):
        return []
    return ["--no-" + s[2:] for s in strings
            if s.startswith("--") and not s.startswith("--no-") and s not in const]


@cache
def option_table(version: str) -> OptionTable:
    recorded = _options_data()
    rows = _option_rows(version if version in recorded else _nearest_recorded(version, recorded))
    options: dict[str, Option] = {}
    for strings, dest, nargs, kind, conv, choices, const, *rest in rows.values():
        hidden = _hidden_negatives(strings, kind, const)
        if hidden:
            const = list(const) + hidden
        opt = Option(tuple(strings), dest, nargs, kind, conv,
                     tuple(choices) if choices is not None else None, const, bool(rest and rest[0]))
        for s in list(strings) + hidden:
            options[s] = opt
    longs = tuple(sorted(s for s in options if s.startswith("--")))
    return OptionTable(options, longs, {o.dest: o for o in options.values()})


@cache
def known_env_vars(version: str) -> frozenset[str] | None:
    """The VLLM_* environment variables a release knows (None: not recorded)."""
    with open(DATA / "env_vars.json") as f:
        data = json.load(f)
    if not data:
        return None
    if version not in data:
        version = _nearest_recorded(version, data)
    chain = []
    while version is not None:
        chain.append(data[version])
        version = data[version].get("from")
    names: set[str] = set()
    for entry in reversed(chain):
        if "base" in entry:
            names = set(entry["base"])
        else:
            names = (names | set(entry["add"])) - set(entry["drop"])
    return frozenset(names)


def recorded_facts(version: str) -> dict:
    data = _facts_data()
    return data[version if version in data else _nearest_recorded(version, data)]


# --------------------------------------------------------------------- releases
@dataclass(frozen=True)
class Release:
    """One supported vLLM release (or the PR #29558 design) and its tables."""

    version: str  # the vLLM version whose code runs (0.12.0 for pr29558)
    target: str  # "release" | "pr29558"
    rules: dict = field(hash=False, compare=False)

    def __post_init__(self) -> None:
        # rule knobs become plain attributes (the resolver reads them on every step)
        for name, value in self.rules.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "key", version_key(self.version))

    if TYPE_CHECKING:
        # the rule knobs of releases/changes.py (o_flag, mode_field, ...), set in __post_init__
        def __getattr__(self, name: str) -> Any: ...

    # read on every step: looked up once, then plain attributes of the instance (cached_property)
    @cached_property
    def options(self) -> OptionTable:
        return option_table(self.version)

    @cached_property
    def facts(self) -> dict:
        return recorded_facts(self.version)

    @cached_property
    def label(self) -> str:
        return PR29558 if self.target == PR29558 else self.version


@cache
def get_release(name: str) -> Release:
    """A release by version, or the pr29558 design (on 0.12.0)."""
    if name == PR29558:
        base = get_release(PR29558_BASE)
        return Release(PR29558_BASE, PR29558, {**base.rules, **PR29558_CHANGES})
    if name not in SUPPORTED:
        raise KeyError(name)
    rules: dict = {}
    key = version_key(name)
    for since, change in CHANGES:
        if version_key(since) <= key:
            rules.update(change)
    return Release(name, "release", rules)


@cache
def env_choices(version: str) -> dict[str, dict]:
    """{NAME: {"choices", "case_sensitive", "kind", "default"}}: the variables a release reads
    through vLLM's choice-checking readers (vllm/envs.py `env_with_choices` and its list/set
    forms), from releases/data/env_choices.json (tools/extract_env_choices.py)."""
    with open(DATA / "env_choices.json") as f:
        data = json.load(f)["releases"]
    if version == PR29558:
        version = PR29558_BASE
    if version not in data:
        version = _nearest_recorded(version, data)
    chain = []
    while version is not None:
        chain.append(data[version])
        version = data[version].get("from")
    table: dict[str, dict] = {}
    for entry in reversed(chain):
        if "base" in entry:
            table = dict(entry["base"])
        else:
            table.update(entry["set"])
            for name in entry["drop"]:
                table.pop(name, None)
    return table


@cache
def config_class_defaults(version: str) -> dict[str, dict]:
    """{model_type: {key: default}}: the expert counts transformers' config classes default to, as
    installed with the release (the nearest recorded one: releases/data/config_class_defaults.json,
    tools/extract_config_defaults.py)."""
    with open(DATA / "config_class_defaults.json") as f:
        data = json.load(f)["releases"]
    if version == PR29558:
        version = PR29558_BASE
    if version not in data:
        version = _nearest_recorded(version, data)
    return data[version]["defaults"]
