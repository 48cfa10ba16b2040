"""What a loaded deployment is, but for the names of the files it was read from.

`content_key(d)` walks everything a deployment carries (its words, their places and the text
they were read from, its config items, loader findings ...) with each file name replaced by
its index in the order first met. Two deployments with equal keys were read from equal texts
at equal places, so every output of checking them differs only in those file names
(`files`: the names, in index order, the deployment's `source` first). A value the walk
does not know (a YAML origin, an object of another kind) makes the deployment unkeyable
(`Unkeyable`): it is then checked afresh, never guessed at.
"""
from __future__ import annotations

import sys
from dataclasses import fields, is_dataclass

from vllm_preflight.load.source import Source
from vllm_preflight.model import Deployment, Location

_PLAIN = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...]] = {}
# origins keyed by what they hold; their modules are not imported here (no instance of a class
# exists before its module is loaded, and a YAML-only check never loads the shell interpreter)
_ORIGINS = {"vllm_preflight.load.shell": ("Shifted",),
            "vllm_preflight.load.shell_expand": ("FixedOrigin", "RelexOrigin")}


def _origin_types() -> tuple[type, ...]:
    return tuple(getattr(sys.modules[m], n) for m, names in _ORIGINS.items() if m in sys.modules for n in names)


class Unkeyable(Exception):
    """The deployment holds a value the walk cannot key."""


def content_key(d: Deployment) -> tuple[tuple, list[str]]:
    files: dict[str, int] = {d.source: 0}
    origins = _origin_types()
    seen: dict[int, tuple] = {}

    def index(name: str) -> int:
        return files.setdefault(name, len(files))

    def walk(x, depth: int = 0):
        t = type(x)
        if t in _PLAIN:
            return x
        if depth > 40:
            raise Unkeyable("too deep")
        if t is Location:
            return ("@", index(x.file), x.line, x.column)
        if t is tuple or t is list:
            return (t is list, *(walk(e, depth + 1) for e in x))
        if t is dict:
            return ("{", *((walk(k, depth + 1), walk(v, depth + 1)) for k, v in x.items()))
        known = seen.get(id(x))
        if known is not None and known[0] is x:
            return known[1]
        if t is Source:
            got: tuple = ("S", index(x.path), x.text)
        elif t in origins:
            got = (t.__name__, *((k, walk(v, depth + 1)) for k, v in sorted(vars(x).items())))
        elif is_dataclass(x) and not isinstance(x, type):
            names = _FIELDS.get(t)
            if names is None:
                names = _FIELDS[t] = tuple(f.name for f in fields(x))
            got = (t.__name__, *(walk(getattr(x, n), depth + 1) for n in names))
        else:
            raise Unkeyable(t.__name__)
        seen[id(x)] = (x, got)
        return got

    names = _FIELDS.get(type(d))
    if names is None:
        names = _FIELDS[type(d)] = tuple(f.name for f in fields(d))
    key = (type(d).__name__, *(walk(getattr(d, n)) for n in names if n != "source"))
    return key, list(files)
