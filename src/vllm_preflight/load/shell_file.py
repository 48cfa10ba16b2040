"""Shell scripts, entrypoints and README snippets holding `vllm serve ...`.

A script is read the way the shell would run it (`load.shell`); each server command it
starts is one Deployment. A file with one server keeps the path as its source (the issue-2
FILE form); with several, each is `PATH:LINE`. Markdown files contribute their shell code
blocks (```bash, ```sh, ```console with `$ ` prompts, unlabelled), at their own lines.
"""
from __future__ import annotations

import os

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
    base = os.path.dirname(os.path.abspath(source.path))
    if not sh.found:
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
                         version_source=f"image {found.image}" if version else None,
                         version_location=found.image_loc if version else None))
    return out


def load(source: Source, variables: dict[str, str] | None = None) -> list[LoadedDeployment]:
    return servers_in(source, variables, "shell")


_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "text"}
_PROMPT_LANGS = ("console", "shell-session", "shellsession")


def markdown_shell(text: str) -> str:
    """The file with everything but shell code blocks blanked, lines kept in place.

    Fenced blocks are found by a CommonMark parser (markdown-it-py): a fence closes only on
    a fence of the same character at least as long, so a ````markdown block that shows a
    ```bash example stays one block. Lines keep their columns where the block is indented.
    """
    from markdown_it import MarkdownIt  # imported for Markdown inputs only

    lines = text.split("\n")
    out = [""] * len(lines)
    if "```" not in text and "~~~" not in text:
        return "\n".join(out)  # no fenced block at all: nothing to parse
    # block structure only: inline parsing of a 4 MiB paragraph is millions of tokens (>1 GB)
    for tok in MarkdownIt("commonmark").disable(["inline", "text_join"]).parse(text):
        if tok.type != "fence" or not tok.map:
            continue
        lang = (tok.info.split() or [""])[0].strip("{}.").lower()
        if lang not in _SHELL_LANGS:
            continue
        first = tok.map[0] + 1  # the line after the opening fence
        body = tok.content.split("\n")[:-1] if tok.content.endswith("\n") else tok.content.split("\n")
        for i, code in enumerate(body):
            n = first + i
            if n >= len(lines):
                break
            original = lines[n]
            line = code
            if code and original.endswith(code):
                line = " " * (len(original) - len(code)) + code  # keep the column, drop `> ` and indents
            if lang in _PROMPT_LANGS:
                stripped = line.lstrip()
                if stripped.startswith("$ "):
                    indent = len(line) - len(stripped)
                    line = " " * (indent + 2) + stripped[2:]
                elif not (n > 0 and out[n - 1].rstrip().endswith("\\")):
                    line = ""
            out[n] = line
    return "\n".join(out)


def load_markdown(source: Source, variables: dict[str, str] | None = None) -> list[LoadedDeployment]:
    masked = Source(source.path, markdown_shell(source.text))
    return servers_in(masked, variables, "markdown")
