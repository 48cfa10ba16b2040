"""The map's rows and how a row and its port column are written."""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any

PortItem = Any  # a function or module of the port (rendered as its file), or markdown text


@dataclass(frozen=True)
class Row:
    step: str  # what vLLM runs
    v0_12: str  # its source lines in 0.12.0
    v0_33: str  # ... and in 0.33.0
    status: str  # ported / not ported / out of scope, and the goldens behind it
    port: tuple[PortItem, ...] = ()  # where the port lives


@dataclass(frozen=True)
class Section:
    heading: str
    intro: str
    rows: tuple  # Row, or (rule, first release) for the release table
    header: tuple[str, ...] = ("step", "0.12.0", "0.33.0", "status", "port")


def _module_path(name: str) -> str:
    parts = name.split(".")[1:]  # below vllm_preflight
    return "/".join(parts) + ".py"


def port_text(item: PortItem) -> str:
    """`resolve/stage/module.py: function`, `resolve/stage/module.py`, or the text itself."""
    if isinstance(item, str):
        return item
    if isinstance(item, types.ModuleType):
        if item.__file__ and item.__file__.endswith("__init__.py"):
            return "`" + "/".join(item.__name__.split(".")[1:]) + "/`"
        return f"`{_module_path(item.__name__)}`"
    if callable(item):
        module = sys.modules[item.__module__]
        path = _module_path(item.__module__)
        if module.__file__ and module.__file__.endswith("__init__.py"):
            path = path.removesuffix(".py") + "/__init__.py"
        return f"`{path}: {item.__name__}`"
    raise TypeError(item)


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if "`" not in text else text


def render_section(number: int, section: Section) -> str:
    out = [f"## {number}. {section.heading}", ""]
    if section.intro:
        out += [section.intro, ""]
    out += ["| " + " | ".join(section.header) + " |", "|" + "---|" * len(section.header)]
    for row in section.rows:
        if isinstance(row, Row):
            cells = [row.step, row.v0_12, row.v0_33, row.status, ", ".join(port_text(p) for p in row.port)]
        else:
            cells = list(row)
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)
