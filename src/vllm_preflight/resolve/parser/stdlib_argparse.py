"""vLLM's argparse messages, from Python's own argparse built over a release's option table.

vLLM's `vllm serve` parser is stdlib argparse (FlexibleArgumentParser rewrites the words
first). The resolver's own parser decides whether a command is refused; when it refuses with
an argparse-level error, the message is taken from a stdlib parser built from the same
recorded option table, so the order of "unrecognized arguments", abbreviation and choice
messages read exactly as vLLM prints them (issue 9). Messages depend on the Python version
of the node running vLLM; this uses the Python running the check.
"""
from __future__ import annotations

import argparse
import json
from functools import cache

from vllm_preflight.releases import option_table


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Refused(message)


class _EnableDisable(argparse.Action):
    """A boolean flag with its negative spellings (BooleanOptionalAction and vLLM's pairs)."""

    def __init__(self, option_strings, dest, negatives=(), **kwargs):
        kwargs.pop("nargs", None)
        super().__init__(option_strings, dest, nargs=0, **kwargs)
        self.negatives = set(negatives)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, option_string not in self.negatives)


def human_readable_int(value):
    from vllm_preflight.resolve.parser.converters import _human_readable_int

    return _human_readable_int(value)


def human_readable_int_or_auto(value):
    if value.strip() == "-1" or value.strip().lower() == "auto":
        return -1
    return human_readable_int(value)


def loads(value):
    return json.loads(value)


def parse_dataclass(value):  # its pydantic errors are the resolver's to report
    return value


_BASE = {"int": int, "float": float, "str": str, "hint": human_readable_int, "hint_auto": human_readable_int_or_auto,
         "json": loads, "config": parse_dataclass, "dict_or_str": str, "json_obj": loads, "bool": str}


# the frontend's three list options take json.loads itself (0.12.0 entrypoints/openai/cli_args.py:204-209);
# every other JSON option goes through EngineArgs' parse_type, which words the error its own way
_RAW_JSON_DESTS = ("allowed_origins", "allowed_methods", "allowed_headers")


def _parse_type(inner):
    def _parse(val):
        try:
            return inner(val)
        except ValueError:
            raise argparse.ArgumentTypeError(f"Value {val} cannot be converted to {inner}.") from None
    return _parse


def _optional(inner):
    def _optional_type(val):
        if val == "" or val == "None":
            return None
        try:
            return inner(val)
        except ValueError:
            raise argparse.ArgumentTypeError(f"Value {val} cannot be converted to {inner}.") from None
    return _optional_type


def _type(converter: str):
    if converter.startswith("opt:"):
        return _optional(_BASE.get(converter[4:], str))
    return _BASE.get(converter, str)


@cache  # one per release, kept (a matrix or a folder asks many releases)
def parser_for(version: str) -> _Parser:
    table = option_table(version)
    p = _Parser(prog="vllm serve", add_help=False)
    p.add_argument("model_tag", nargs="?")
    groups: dict[int, list[str]] = {}
    opts = {}
    for s, opt in table.options.items():
        groups.setdefault(id(opt), []).append(s)
        opts[id(opt)] = opt
    for key, strings in groups.items():
        opt = opts[key]
        dest = opt.dest
        if opt.kind == "boolopt":
            p.add_argument(*strings, dest=dest, action=_EnableDisable, negatives=tuple(opt.const or ()))
        elif opt.kind in ("store_true", "store_false", "help"):
            p.add_argument(*strings, dest=dest, action="store_false" if opt.kind == "store_false" else "store_true")
        elif opt.kind == "store_const":
            p.add_argument(*strings, dest=dest, action="store_const", const=opt.const)
        elif opt.kind == "count":
            p.add_argument(*strings, dest=dest, action="count")
        else:
            conv = _type(opt.converter)
            if opt.converter == "json" and dest not in _RAW_JSON_DESTS:
                conv = _parse_type(conv)
            kwargs = {"dest": dest, "type": conv, "action": "append" if opt.kind == "append" else "store"}
            if opt.nargs is not None:
                kwargs["nargs"] = opt.nargs
                if opt.nargs == "?":
                    kwargs["const"] = opt.const
            if opt.choices is not None:
                kwargs["choices"] = list(opt.choices)
            p.add_argument(*strings, **kwargs)
    return p


def message(words: list[str], version: str) -> str | None:
    """argparse's error message for these (already rewritten) words, or None if it accepts them."""
    try:
        parser_for(version).parse_args(words)
    except _Refused as e:
        return str(e)
    except Exception:  # noqa: BLE001 - a table argparse cannot build: keep the resolver's own message
        return None
    return None
