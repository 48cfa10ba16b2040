"""What the deployer wrote for each compared setting, and where they wrote it.

Read from the words the schema validation parsed (`bound.written`: the option values by
option name, with the location of each word and JSON key) and from the deployment's
environment. Pure: no resolution, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_preflight.model import Location

CC = "compilation-config"


@dataclass(frozen=True)
class Written:
    """A setting as the deployment wrote it, and where."""

    value: Any
    where: str  # "file:line:col", "env VLLM_ALL2ALL_BACKEND", "--config file:line:col"
    location: Location | None = None


# setting -> the places it can be written, first match wins: (option name, JSON path inside it)
_SOURCES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "mode": ((CC, ("mode",)), (CC, ("level",))),
    "cudagraph_mode": ((CC, ("cudagraph_mode",)),),
    "splitting_ops": ((CC, ("splitting_ops",)),),
    "use_inductor_graph_partition": ((CC, ("use_inductor_graph_partition",)),),
    "custom_ops": ((CC, ("custom_ops",)),),
    "cudagraph_capture_sizes": ((CC, ("cudagraph_capture_sizes",)), ("cudagraph-capture-sizes", ()),
                                ("cuda-graph-sizes", ())),
    "max_cudagraph_capture_size": ((CC, ("max_cudagraph_capture_size",)), ("max-cudagraph-capture-size", ())),
    "all2all_backend": (("all2all-backend", ()),),
    "data_parallel_size": (("data-parallel-size", ()),),
    "tensor_parallel_size": (("tensor-parallel-size", ()),),
    "enable_expert_parallel": (("enable-expert-parallel", ()),),
    "optimization_level": (("optimization-level", ()),),
    "enforce_eager": (("enforce-eager", ()),),
}
# Settings read from the environment when no flag sets them (the release decides whether it listens).
ENV_SOURCES = {"all2all_backend": "VLLM_ALL2ALL_BACKEND"}


def _where(loc: Location | None) -> str:
    if loc is None:
        return "the command"
    out = loc.file
    if loc.line is not None:
        out += f":{loc.line}"
        if loc.column is not None:
            out += f":{loc.column}"
    return out


def _dig(value, path: tuple[str, ...]):
    for p in path:
        if not isinstance(value, dict) or p not in value:
            return _MISSING
        value = value[p]
    return value


_MISSING = object()


def _place(entry, path: tuple[str, ...]) -> Location | None:
    if entry is None:
        return None
    sub = entry.sublocs or {}
    for k in range(len(path), 0, -1):
        if path[:k] in sub:
            return sub[path[:k]]
    return sub.get((), entry.loc) if path else entry.loc


def written_settings(bound, env: dict[str, str] | None = None) -> dict[str, Written]:
    """{setting: Written} for every compared setting the deployer wrote (pass_config flags
    as `pass_config.NAME`)."""
    parsed = getattr(bound, "written", None)
    if parsed is None:  # validation was memoised elsewhere (the matrix): parse the words here
        from vllm_preflight.schema.validate import build_instance

        parsed = build_instance(bound, bound.release.options)[:2]
    instance, entries = parsed
    out: dict[str, Written] = {}
    for setting, sources in _SOURCES.items():
        for option, path in sources:
            value = _dig(instance.get(option, _MISSING), path) if option in instance else _MISSING
            if value is _MISSING:
                continue
            loc = _place(entries.get(option), path)
            out[setting] = Written(value, _where(loc), loc)
            break
    passes = _dig(instance.get(CC, {}), ("pass_config",))
    if isinstance(passes, dict):
        for name, value in passes.items():
            loc = _place(entries.get(CC), ("pass_config", name))
            out[f"pass_config.{name}"] = Written(value, _where(loc), loc)
    if "optimization_level" not in out:
        level = _dash_o(bound)
        if level is not None:
            out["optimization_level"] = level
    ignored = getattr(getattr(bound, "release", None), "all2all_env", None) == "ignored"
    for setting, name in ENV_SOURCES.items():
        if ignored and name == "VLLM_ALL2ALL_BACKEND":
            continue  # a release that no longer reads it: the value is vLLM's default, not this
        if env and name in env and setting not in out:
            out[setting] = Written(env[name], f"env {name}")
    return out


def _dash_o(bound) -> Written | None:
    """`-O3`, `-O 3`, `-O=3`: the optimization level, which the schema pass leaves to the parser."""
    words = getattr(bound, "words", ())
    for i, w in enumerate(words):
        text = w.text
        if text == "-O" and i + 1 < len(words):
            return Written(words[i + 1].text, _where(w.loc), w.loc)
        if text.startswith("-O") and not text.startswith("-O.") and len(text) > 2:
            return Written(text[2:].lstrip("="), _where(w.loc), w.loc)
    return None
