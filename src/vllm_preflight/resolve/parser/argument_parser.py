"""`vllm serve` argument parsing as a given release's parser does it.

Two stages, like vLLM's FlexibleArgumentParser: a rewrite of the words (underscores
to dashes in option names, `-O` forms, dotted `-x.a.b=v` JSON keys merged into one JSON
argument appended at the end), then argparse semantics over that release's option table
(exact names, unique-prefix abbreviations, `--opt=value`, nargs, choices, converters).
The option tables are data (`releases/data/`), recorded from each release's own parser.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from vllm_preflight.releases import Release
from vllm_preflight.resolve.base.state import Refusal
from vllm_preflight.resolve.compilation import compilation_config
from vllm_preflight.resolve.config.structured_outputs import structured_outputs_problem
from vllm_preflight.resolve.kv_transfer.kv_transfer_config import kv_transfer_problem
from vllm_preflight.resolve.parser import json_options
from vllm_preflight.resolve.parser.converters import _convert, _human_readable_int

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_UNDERSCORE_KEY = re.compile(r"(?<=--)[^.]*")


@dataclass
class ParsedArgs:
    """What the parser produced: option values by dest, and the log lines it wrote."""

    values: dict[str, Any] = field(default_factory=dict)
    given: set[str] = field(default_factory=set)  # dests the command set explicitly
    warnings: list[str] = field(default_factory=list)
    model_tag: str | None = None


class _LogList(list):
    """A list of warnings that also lands in the state's log as it grows."""

    def __init__(self, state):
        super().__init__()
        self._state = state

    def append(self, message: str) -> None:
        super().append(message)
        self._state.log("warning", message)


def _arg_error(message: str) -> Refusal:
    return Refusal("ArgumentError", message)


# --------------------------------------------------------------------- rewriting
@lru_cache(maxsize=4096)
def _dash_name(arg: str) -> str:
    """`--foo_bar.x_y=v` -> `--foo-bar.x_y=v`: underscores become dashes up to the first dot."""
    if "=" in arg:
        key, value = arg.split("=", 1)
        return _UNDERSCORE_KEY.sub(lambda m: m.group(0).replace("_", "-"), key, count=1) + "=" + value
    return _UNDERSCORE_KEY.sub(lambda m: m.group(0).replace("_", "-"), arg, count=1)


def _rewrite_words(args: list[str], release: Release, out: ParsedArgs) -> list[str]:
    style = release.o_flag
    processed: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            processed.append(_dash_name(arg) if "_" in arg else arg)
        elif style == "compilation_level":  # 0.11.x: -O is --compilation-config
            if arg.startswith("-O") and arg != "-O" and arg[2] != ".":
                level = arg[3:] if arg[2] == "=" else arg[2:]
                processed.append(f"-O.{release.mode_field}={level}")  # 0.11.1+: the mode field
            elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
                processed.append(f"-O.{release.mode_field}")
            else:
                processed.append(arg)
        elif style == "optimization_level_dotted_deprecated":  # 0.12.0
            if arg.startswith("-O") and arg != "-O" and arg[2] != ".":
                processed += ["--optimization-level", arg[3:] if arg[2] == "=" else arg[2:]]
            elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
                processed.append("--optimization-level")
            elif arg.startswith("-O."):
                out.warnings.append(
                    "The -O.* dotted syntax for --compilation-config is deprecated and will be "
                    "removed in v0.13.0 or v1.0.0, whichever is earlier.  Please use -cc.* "
                    "instead. Example: -cc.backend=eager instead of -O.backend=eager.")
                processed.append(arg.replace("-O", "-cc", 1))
            else:
                processed.append(arg)
        else:  # 0.13.0+: -O is only the optimization level
            if arg.startswith("-O") and arg != "-O":
                processed += ["--optimization-level", arg[3:] if arg[2] == "=" else arg[2:]]
            elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
                processed.append("--optimization-level")
            else:
                processed.append(arg)
    return processed


_JSON_START = set('[{"-0123456789')
_JSON_WORDS = {"true": True, "false": False, "null": None}


def _dotted_value(text: str, release: Release) -> Any:
    """json.loads of the value, else the text itself (what vLLM does), without paying for an
    exception on plain words."""
    if text in _JSON_WORDS:
        return _JSON_WORDS[text]
    if text[:1] in _JSON_START:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    if release.dotted_human_readable_int:
        try:
            return _human_readable_int(text)
        except ValueError:
            pass
    return text


def _merge(original: dict, update: dict, prefix: str, dups: set[str]) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(original.get(k), dict):
            _merge(original[k], v, f"{prefix}{k}.", dups)
        elif isinstance(v, list) and isinstance(original.get(k), list):
            original[k] += v
        else:
            if k in original:
                dups.add(prefix + k)
            original[k] = v


def _fold_dotted(words: list[str], release: Release, out: ParsedArgs) -> list[str]:
    """`-cc.a.b=v` / `--x.a v` / `-cc.list+=a,b` become one JSON value per key, at the end."""
    delete: set[int] = set()
    dict_args: dict[str, dict] = {}
    dups: set[str] = set()
    seen_plain: set[str] = set()
    for i, word in enumerate(words):
        if i in delete:
            continue
        if release.warn_duplicate_flags and word.startswith("--") and "." not in word:
            name = word.split("=", 1)[0]
            if name in seen_plain:
                dups.add(name)
            seen_plain.add(name)
            continue
        if word.startswith("-") and "." in word:
            if "=" in word:
                word, value_str = word.split("=", 1)
                if "." not in word:
                    continue  # the dot was in the value
            else:
                if i + 1 >= len(words):
                    raise _arg_error(f"argument {word}: expected one argument")
                value_str = words[i + 1]
                delete.add(i + 1)
            if word.endswith("+"):
                word = word[:-1]
                value_str = json.dumps(value_str.split(","))
            key, *keys = word.split(".")
            value: Any = _dotted_value(value_str, release)
            for k in reversed(keys):
                value = {k: value}
            bucket = dict_args.setdefault(key, {})
            if isinstance(value, dict):
                local: set[str] = set()
                _merge(bucket, value, "", local)
                dups |= {f"{key}.{d}" for d in local}
            delete.add(i)
    kept = [w for i, w in enumerate(words) if i not in delete]
    if dups:
        out.warnings.append("Found duplicate keys " + ", ".join(sorted(dups)))
    for key, value in dict_args.items():
        kept += [key, json.dumps(value)]
    return kept


# pydantic parses JSON with its own parser (jiter); its words for Python's JSONDecodeError messages
_JITER = (("Expecting property name enclosed in double quotes", "key must be a string"),
          ("Expecting value", "expected value"), ("Extra data", "trailing characters"),
          ("Unterminated string starting at", "EOF while parsing a string"),
          ("Expecting ':' delimiter", "expected `:`"))
_CONFIG_CLASSES = {"compilation_config": "CompilationConfig", "kv_transfer_config": "KVTransferConfig",
                   "kv_events_config": "KVEventsConfig", "eplb_config": "EPLBConfig",
                   "structured_outputs_config": "StructuredOutputsConfig", "attention_config": "AttentionConfig",
                   "ec_transfer_config": "ECTransferConfig"}


def _config_class(dest: str) -> str:
    return _CONFIG_CLASSES.get(dest) or "".join(p.title() for p in dest.split("_"))


def _jiter_text(e: json.JSONDecodeError) -> str:
    words = next((new for old, new in _JITER if e.msg.startswith(old)), e.msg)
    return f"{words} at line {e.lineno} column {e.colno}"


# --------------------------------------------------------------------- parsing
def _is_option_like(word: str, table) -> bool:
    if not word or word[0] != "-" or word == "-":
        return False
    if word in table.options:
        return True
    if _NEGATIVE_NUMBER.match(word) and not table.has_negative_number_options:
        return False
    return not (" " in word and "=" not in word.split(" ", 1)[0])


def _lookup(word: str, table):
    """Return (action, explicit value or None) for an option word, argparse-style."""
    if word in table.options:
        return table.options[word], None
    if "=" in word:
        name, value = word.split("=", 1)
        if name in table.options:
            return table.options[name], value
    if word.startswith("--"):
        name, _, value = word.partition("=")
        matches = [o for o in table.long_options if o.startswith(name)]
        if len(matches) == 1:
            return table.options[matches[0]], (value if "=" in word else None)
        if len(matches) > 1:
            raise _arg_error(f"ambiguous option: {name} could match {', '.join(matches)}")
    elif word.startswith("-") and not word.startswith("--"):
        # argparse also reads "-dp8" as "-dp" "8" only for single-letter options
        short = word[:2]
        if short in table.options and table.options[short].takes_value:
            return table.options[short], word[2:]
    return None, None


def parse(argv_tail: list[str], release: Release, state) -> ParsedArgs:
    """Parse the words after `vllm serve` (or after the api_server module); an argparse-level
    refusal carries the message Python's argparse gives over the same option table."""
    try:
        return _parse(argv_tail, release, state)
    except Refusal as r:
        if r.type != "ArgumentError" or "validation error" in r.message:
            raise
        try:
            scratch = ParsedArgs()
            words = _fold_dotted(_rewrite_words(list(argv_tail), release, scratch), release, scratch)
        except Refusal:
            raise r from None
        from vllm_preflight.resolve.parser.stdlib_argparse import message

        text = message(words, release.version)
        if text is None:
            raise
        raise Refusal("ArgumentError", text) from None


def _parse(argv_tail: list[str], release: Release, state) -> ParsedArgs:
    """Parse the words after `vllm serve` (or after the api_server module).

    Warnings go to the state's log as they happen (kept when parsing fails later) and
    `--compilation-config` values are built into the state as argparse converts them."""
    out = ParsedArgs()
    out.warnings = _LogList(state)
    table = release.options
    words = _rewrite_words(list(argv_tail), release, out)
    words = _fold_dotted(words, release, out)
    positionals: list[str] = []
    unknown: list[str] = []
    i = 0
    only_positionals = False
    while i < len(words):
        word = words[i]
        if only_positionals or not _is_option_like(word, table):
            if word == "--" and not only_positionals:
                only_positionals = True
            else:
                positionals.append(word)
            i += 1
            continue
        action, explicit = _lookup(word, table)
        if action is None:
            unknown.append(word)
            i += 1
            continue
        i += 1
        if not action.takes_value:
            if explicit is not None:
                raise _arg_error(f"argument {action.display}: ignored explicit argument {explicit!r}")
            value: Any = action.const_value(word)
        else:
            if explicit is not None:
                texts = [explicit]
            else:
                texts = []
                while i < len(words) and not _is_option_like(words[i], table) and words[i] != "--":
                    texts.append(words[i])
                    i += 1
                    if action.nargs in (None, "?") or (isinstance(action.nargs, int) and len(texts) == action.nargs):
                        break
            if action.nargs is None and not texts:
                raise _arg_error(f"argument {action.display}: expected one argument")
            if action.nargs == "+" and not texts:
                raise _arg_error(f"argument {action.display}: expected at least one argument")
            if isinstance(action.nargs, int) and len(texts) != action.nargs:
                raise _arg_error(f"argument {action.display}: expected {action.nargs} arguments")
            converted = []
            for text in texts:
                try:
                    v = _convert(action.converter, text)
                except (ValueError, TypeError, json.JSONDecodeError) as e:
                    if isinstance(e, json.JSONDecodeError) and action.converter.removeprefix("opt:") == "config":
                        # a config class validated from JSON by pydantic: its own "Invalid JSON" error
                        raise _arg_error(f"argument {action.display}: 1 validation error for "
                                         f"{_config_class(action.dest)}\n  Invalid JSON: {_jiter_text(e)} "
                                         f"[type=json_invalid, input_value={text!r}, input_type=str]") from e
                    if action.converter.removeprefix("opt:") == "config" and str(e) == "Input should be an object":
                        raise json_options.not_an_object(action, _config_class(action.dest), state) from e
                    label = action.converter_label
                    raise _arg_error(f"argument {action.display}: invalid {label} value: {text!r}") from e
                if action.choices is not None and v not in action.choices:
                    choices = ", ".join(repr(c) for c in action.choices)
                    raise _arg_error(f"argument {action.display}: invalid choice: {v!r} (choose from {choices})")
                if action.dest in json_options.DESTS or action.converter.removeprefix("opt:") == "config":
                    json_options.check(action, text, v, state)  # pydantic's field checks of a JSON option, first
                if action.dest == "compilation_config":
                    # argparse's converter validates the JSON as it reads it (pydantic)
                    try:
                        compilation_config.build(v, release, state)
                    except compilation_config.ConfigInvalid as e:
                        raise compilation_config.refusal_from(e, via_cli=True, option=action.display) from None
                elif action.dest in ("kv_transfer_config", "structured_outputs_config") and isinstance(v, dict):
                    problem = (kv_transfer_problem(v, state) if action.dest == "kv_transfer_config"
                               else structured_outputs_problem(v, state))
                    if problem:
                        raise _arg_error(f"argument {action.display}: {problem}")
                converted.append(v)
            if action.nargs in (None,):
                value = converted[0]
            elif action.nargs == "?":
                value = converted[0] if converted else action.const
            else:
                value = converted
        if action.kind == "append":
            out.values.setdefault(action.dest, []).append(value)
        else:
            out.values[action.dest] = value
        out.given.add(action.dest)
    for dest in sorted(out.given):
        opt = table.by_dest.get(dest)
        if opt is not None and opt.deprecated:
            out.warnings.append(f"argument '{dest}' is deprecated")
    if positionals:
        out.model_tag = positionals[0]
        unknown = positionals[1:] + unknown
    if unknown:
        raise _arg_error("unrecognized arguments: " + " ".join(unknown))
    return out


def parse_command(state, values: dict) -> None:
    """The release's parser over the words after `vllm serve`: what was set, by dest."""
    state.parsed = parse(state.tail, state.release, state)
    state.values = state.parsed.values
