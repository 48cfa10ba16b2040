"""`json.dumps(doc, indent=2)`, the same text, faster.

The stdlib's C encoder runs only without `indent`; with it every value goes through a chain of
Python generators, which cost more than checking a deployment. This writes the same text with
one Python call per container (scalars are encoded by the C helpers the stdlib itself uses).
Anything outside plain JSON types (a value the stdlib would hand to `default`, a key it would
refuse) falls back to `json.dumps` itself, so errors and output stay the stdlib's.
"""
from __future__ import annotations

import json
import math
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring_ascii as _str
from typing import Any

_INF = float("inf")


class _Unplain(Exception):
    """A value this encoder leaves to the stdlib."""


def _float(f: float) -> str:
    if math.isnan(f):
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    return float.__repr__(f)


def _key(k: Any) -> str:
    if isinstance(k, str):
        return _str(k)
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    if isinstance(k, float):
        return '"' + _float(k) + '"'
    raise _Unplain


def _scalar(v: Any) -> str | None:
    """The JSON of a scalar, or None for a container."""
    if isinstance(v, str):
        return _str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, (dict, list, tuple)):
        return None
    raise _Unplain


_SCALARS = frozenset((str, int, float, bool, type(None)))
_FLAT: dict[str, Any] = {}


def _refuse(o: Any) -> Any:
    raise _Unplain


def _flat(ind: str, v: Any) -> str:
    """A container of scalars at this indent, its items one a line, by the stdlib's C encoder."""
    enc = _FLAT.get(ind)
    if enc is None:
        if c_make_encoder is None:
            raise _Unplain
        enc = _FLAT[ind] = c_make_encoder(None, _refuse, _str, None, ": ", ",\n" + ind + "  ", False, False, True)
    return "".join(enc(v, 0))


def _enc(v: Any, ind: str, out: list[str]) -> None:
    if isinstance(v, dict):
        if not v:
            out.append("{}")
            return
        for item in v.values():
            if type(item) not in _SCALARS:
                break
        else:  # keys are checked by the C encoder (a key it refuses: the stdlib's error)
            text = _flat(ind, v)
            out.append("{\n" + ind + "  " + text[1:-1] + "\n" + ind + "}")
            return
        inner = ind + "  "
        sep = "{\n" + inner
        for k, item in v.items():
            out.append(sep)
            out.append(_key(k))
            out.append(": ")
            s = _scalar(item)
            if s is None:
                _enc(item, inner, out)
            else:
                out.append(s)
            sep = ",\n" + inner
        out.append("\n" + ind + "}")
    elif isinstance(v, (list, tuple)):
        if not v:
            out.append("[]")
            return
        for item in v:
            if type(item) not in _SCALARS:
                break
        else:
            text = _flat(ind, v)
            out.append("[\n" + ind + "  " + text[1:-1] + "\n" + ind + "]")
            return
        inner = ind + "  "
        sep = "[\n" + inner
        for item in v:
            out.append(sep)
            s = _scalar(item)
            if s is None:
                _enc(item, inner, out)
            else:
                out.append(s)
            sep = ",\n" + inner
        out.append("\n" + ind + "]")
    else:
        s = _scalar(v)
        out.append(s if s is not None else json.dumps(v))


def dumps_indent2(doc: Any) -> str:
    """Exactly `json.dumps(doc, indent=2)`."""
    out: list[str] = []
    try:
        _enc(doc, "", out)
    except (_Unplain, RecursionError, TypeError, ValueError):
        return json.dumps(doc, indent=2)
    return "".join(out)
