"""Markdown guides: the commands in their fenced code blocks.

Fenced blocks are found by a CommonMark parser (markdown-it-py): a fence closes only on a
fence of the same character at least as long, so a ````markdown block that shows a ```bash
example stays one block. Each block stands alone: one that the shell cannot read (program
output, a log, Python with an unbalanced quote in an unlabelled block) is skipped and listed
under `--verbose`, never fatal for its neighbours; variables set in one block still feed the
next, as in a terminal that follows the guide. Read as shell: ```bash, ```sh, ```shell,
```zsh, ```console (and other session languages), ```text and unlabelled blocks. A block
whose lines carry prompts (`$ `, `(venv) $ `, `user@host:~$ `) is a session: only prompted
lines (and their `\\` continuations) are commands, the rest is output. `<placeholder>` words
of documentation (`vllm serve <model> --port <port>`) are unknown values, not redirections.
```yaml blocks that hold Kubernetes manifests or a Compose file are read as those files are,
at their lines (a `--config` YAML shown in a guide is not a server by itself). Prose and
inline code spans are never read: only blocks.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from vllm_preflight.load.loaded import LoadedDeployment, Skipped
from vllm_preflight.load.shell import ScriptError, Shell, Shifted
from vllm_preflight.load.shell_file import deployments
from vllm_preflight.load.source import Source, fail
from vllm_preflight.load.symbols import lit
from vllm_preflight.model import Location

SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "sh-session",
               "text", "terminal", "ksh", "bash-session", "shellscript", "plaintext", "txt"}
SESSION_LANGS = {"console", "shell-session", "shellsession", "sh-session", "terminal", "bash-session"}
YAML_LANGS = {"yaml", "yml"}
_MANIFEST_KEY = re.compile(r"""\b(?:kind|services)["']?\s*:""")
# `$ `, `(venv) $ `, `user@host:~/dir$ `: a prompt before a command in a terminal session
_PROMPT = re.compile(r"^(\s*)(?:\([^()\s]*\)\s+)?(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?)?\$ ")


@dataclass
class Block:
    lang: str
    first: int  # 0-based line of the first body line
    lines: list[str]  # body lines, at their columns (list and quote markers blanked)

    @property
    def line(self) -> int:
        return self.first + 1


def markdown_blocks(text: str) -> list[Block]:
    """Every fenced code block, with its language and lines where they stand in the file."""
    from markdown_it import MarkdownIt  # imported for Markdown inputs only

    if "```" not in text and "~~~" not in text:
        return []  # no fenced block at all: nothing to parse
    lines = text.split("\n")
    out = []
    # block structure only: inline parsing of a 4 MiB paragraph is millions of tokens (>1 GB)
    for tok in MarkdownIt("commonmark").disable(["inline", "text_join"]).parse(text):
        if tok.type != "fence" or not tok.map:
            continue
        lang = (tok.info.split() or [""])[0].strip("{}.").lower()
        first = tok.map[0] + 1  # the line after the opening fence
        body = tok.content.split("\n")[:-1] if tok.content.endswith("\n") else tok.content.split("\n")
        kept = []
        for i, code in enumerate(body):
            n = first + i
            if n >= len(lines):
                break
            original = lines[n]
            # keep the column, drop `> ` and list indents
            kept.append(" " * (len(original) - len(code)) + code if code and original.endswith(code) else code)
        out.append(Block(lang, first, kept))
    return out


def _session(lines: list[str], always: bool) -> list[str] | None:
    """The commands of a terminal session (prompts blanked, output lines blank), or None when
    the block has no prompt and is not a session language."""
    if not always and not any(_PROMPT.match(ln) for ln in lines):
        return None
    out = []
    for k, line in enumerate(lines):
        m = _PROMPT.match(line)
        if m:
            out.append(" " * m.end() + line[m.end():])
        elif k and out[k - 1].rstrip().endswith("\\"):
            out.append(line)
        else:
            out.append("")
    return out


def shell_lines(block: Block) -> list[str]:
    """The lines of a shell block the way a shell reads them."""
    return _session(block.lines, block.lang in SESSION_LANGS) or block.lines


def markdown_shell(text: str) -> str:
    """The file with everything but shell code blocks blanked, lines and columns kept."""
    lines = text.split("\n")
    out = [""] * len(lines)
    for b in markdown_blocks(text):
        if b.lang in SHELL_LANGS:
            for i, line in enumerate(shell_lines(b)):
                out[b.first + i] = line
    return "\n".join(out)


def load_markdown(source: Source, variables: dict[str, str] | None = None, skipped: list | None = None
                  ) -> list[LoadedDeployment]:
    every = markdown_blocks(source.text)
    blocks = [b for b in every if b.lang in SHELL_LANGS]
    lines = [""] * (source.text.count("\n") + 1)
    for b in blocks:
        for i, line in enumerate(shell_lines(b)):
            lines[b.first + i] = line
    masked = Source(source.path, "\n".join(lines))  # every offset of a block maps to its place in the file
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    sh = Shell(pins=variables, arg0=lit("bash"))
    sh.placeholders = True
    sh.sourcing.add(os.path.realpath(source.path))
    for b in blocks:
        begin, end = starts[b.first], starts[b.first + len(b.lines)] - 1
        before = len(sh.found)
        try:
            sh.run_text(masked.text[begin:end], Shifted(masked, begin), fallback=Location(source.path, b.line, 1))
        except ScriptError as e:
            if e.message.startswith("input too complex"):
                loc = e.loc
                fail(source.path, e.message, loc.line if loc else None, loc.column if loc else None)
            del sh.found[before:]
            if skipped is not None:
                shown = f"```{b.lang}" if b.lang else "an unlabelled"
                skipped.append(Skipped(f"{source.path}:{b.line}", f"{shown} block the shell cannot read "
                                       f"({e.message}): not a command"))
    found = deployments(sh, source.path, "markdown", required=not any(b.lang in YAML_LANGS for b in every))
    # only a block naming a `kind` or `services` can be a manifest or a Compose file: others are not parsed
    manifests = [b for b in every if b.lang in YAML_LANGS and _MANIFEST_KEY.search("\n".join(b.lines))]
    return found + _yaml_servers(source, manifests, variables, skipped)


def _yaml_servers(source: Source, blocks: list[Block], variables, skipped: list | None) -> list[LoadedDeployment]:
    """Servers of the ```yaml blocks that are Kubernetes manifests or Compose files."""
    from vllm_preflight.errors import InputFailure
    from vllm_preflight.load import compose, manifests
    from vllm_preflight.load.templates import detemplate
    from vllm_preflight.load.yaml_marks import YamlDoc
    from vllm_preflight.load.yaml_stream import parse_stream, shift_lines

    if not blocks:
        return []
    lines = [""] * (source.text.count("\n") + 1)
    for b in blocks:
        for i, line in enumerate(b.lines):
            lines[b.first + i] = line
    masked = Source(source.path, "\n".join(lines))  # every block at its lines and columns
    text_source = detemplate(masked) if "{{" in masked.text else masked
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    docs: list[YamlDoc] = []
    for b in blocks:
        chunk = text_source.text[starts[b.first]:starts[b.first + len(b.lines)]]
        try:
            found, failures = parse_stream(Source(source.path, chunk), templates=False)
        except InputFailure as e:
            if skipped is not None:
                skipped.append(Skipped(f"{source.path}:{b.line}", f"a ```{b.lang} block that is not YAML "
                                                                   f"({e.error.message})"))
            continue
        for doc in found:
            shift_lines(doc, b.first)
            doc.source, doc.index = text_source, len(docs)
            docs.append(doc)
        for first, err in failures:
            if skipped is not None:
                skipped.append(Skipped(f"{source.path}:{b.first + first}", f"a YAML document that does not parse "
                                                                           f"({err.message})"))
    return manifests.load_docs(docs, variables, skipped) + compose.load_docs(docs, variables)
