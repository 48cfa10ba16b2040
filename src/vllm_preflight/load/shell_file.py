"""Shell scripts, entrypoints and README snippets holding `vllm serve ...`.

A script is read the way the shell would run it (`load.shell`); each server command it
starts is one Deployment. A file with one server keeps the path as its source (the issue-2
FILE form); with several, each is `PATH:LINE`. Markdown files are read by `load.markdown`.
"""
from __future__ import annotations

import os

from vllm_preflight.load.images import version_source
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import Found, ScriptError, Shell, image_version
from vllm_preflight.load.source import Source, fail
from vllm_preflight.load.symbols import lit


def _sources(found: list[Found], path: str) -> list[str]:
    if len(found) == 1:
        return [path]
    names = []
    for f in found:
        name = f"{path}:{f.loc.line}" if f.loc and f.loc.line else path
        while name in names:
            name += "+"
        names.append(name)
    return names


def servers_in(source: Source, variables: dict[str, str] | None, fmt: str) -> list[LoadedDeployment]:
    sh = Shell(pins=variables, arg0=lit(source.path))  # $0: the script as named
    sh.sourcing.add(os.path.realpath(source.path))  # `source` of the script itself is a loop
    try:
        sh.run_text(source.text, source)
    except ScriptError as e:
        loc = e.loc
        what = e.message if e.message.startswith("input too complex") else f"shell syntax error: {e.message}"
        fail(source.path, what, loc.line if loc else None, loc.column if loc else None)
    return deployments(sh, source.path, fmt)


def deployments(sh: Shell, path: str, fmt: str, *, required: bool = True) -> list[LoadedDeployment]:
    """The servers a shell found in the file at `path`. With `required`, a file whose only
    mention of vLLM is a construct the tool does not follow is an error that says so."""
    source = Source(path, "")
    base = os.path.dirname(os.path.abspath(source.path))
    if not sh.found and required:
        # a server the tool cannot follow (a here-document fed to ssh, eval of an unknown value)
        # is said, not skipped silently
        about = [n for n in sh.notes if "vLLM" in n.message or "vllm" in n.message]
        if about:
            loc = about[0].location
            fail(source.path, f"no vLLM server the tool can follow: {about[0].message}",
                 loc.line if loc else None, loc.column if loc else None)
    out = []
    for found, name in zip(sh.found, _sources(sh.found, source.path)):
        version = image_version(found.image) if found.image else None
        out.append(build(found, source=name, file=source.path, base_dir=base, fmt=fmt,
                         assumptions=sh.assumptions, findings=list(sh.notes), vllm_version=version,
                         version_source=version_source(found.image) if version else None,
                         version_location=found.image_loc if version else None))
    return out


def load(source: Source, variables: dict[str, str] | None = None) -> list[LoadedDeployment]:
    return servers_in(source, variables, "shell")
