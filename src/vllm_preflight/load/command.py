"""A file holding one server command, read the way a shell reads it.

Handles `\\` line continuations, `#` comments, `export K=V` lines and leading `K=V`
words (the command's own environment). The first vLLM server command is the result.
"""
from __future__ import annotations

import os
import shlex

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.model import Deployment, Location

SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)
MAX_BYTES = 1 << 20


def is_server_command(words: list[str]) -> bool:
    """`vllm serve ...` or `python -m vllm.entrypoints.openai.api_server ...`."""
    if len(words) >= 2 and os.path.basename(words[0]) == "vllm" and words[1] == "serve":
        return True
    if len(words) >= 3 and os.path.basename(words[0]).startswith("python") and words[1] == "-m":
        return words[2] in SERVER_MODULES
    return False


def split_env_words(words: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Leading NAME=VALUE words are the command's environment, as in a shell."""
    env = []
    i = 0
    while i < len(words) and "=" in words[i] and words[i].split("=", 1)[0].isidentifier():
        k, v = words[i].split("=", 1)
        env.append((k, v))
        i += 1
    if i < len(words) and words[i] == "env":  # `env K=V cmd`
        rest_env, rest = split_env_words(words[i + 1:])
        return env + rest_env, rest
    return env, words[i:]


def deployment_from_words(words: list[str], *, source: str | None = None,
                          env: list[tuple[str, str]] | None = None,
                          location: Location | None = None, base_dir: str | None = None) -> Deployment:
    """A command given as words (`check -- vllm serve ...`). A server command goes through the
    loaders' own builder, so a `--config FILE` is folded in exactly as in a script or manifest."""
    from vllm_preflight.load.limits import check_words

    lead_env, cmd = split_env_words(list(words))
    all_env = (env or []) + lead_env
    shown = source if source is not None else shlex.join(words)
    check_words(cmd, shown if len(shown) <= 200 else shown[:200] + "…", location)
    from vllm_preflight.load.shell import program_prefix

    found = program_prefix(cmd)
    if found is None or found[0] != 0:
        return Deployment(argv=tuple(cmd), env=tuple(all_env), source=shown, location=location, base_dir=base_dir)
    from dataclasses import replace

    from vllm_preflight.load.server import build
    from vllm_preflight.load.shell import Found, TWord
    from vllm_preflight.load.symbols import lit

    twords = [TWord(lit(w) if w else (), location if i == 0 else None) for i, w in enumerate(cmd)]
    text_env = [(k, lit(v)) for k, v in all_env]
    loaded = build(Found(twords, found[1], text_env, location), source=shown,
                   file=location.file if location else "<command>",
                   base_dir=base_dir if base_dir is not None else os.getcwd(), fmt="command")
    return replace(loaded, location=location)  # a command line has no place in a file


def _logical_lines(text: str):
    """Yield (first line number, text) for each logical line, continuations joined."""
    buf, start = "", None
    for n, line in enumerate(text.splitlines(), 1):
        if start is None:
            start = n
        if line.endswith("\\") and not line.endswith("\\\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        yield start, buf
        buf, start = "", None
    if buf:
        yield start, buf


def load_command_file(path: str) -> list[Deployment]:
    try:
        if os.path.isdir(path):
            raise InputFailure(InputError(path, "is a directory; give a file holding a vllm serve command"))
        from vllm_preflight.load.source import read_bytes

        data = read_bytes(path, MAX_BYTES, "a command file")
    except OSError as e:
        raise InputFailure(InputError(path, f"cannot read: {e.strerror or e}")) from None
    if len(data) > MAX_BYTES:
        raise InputFailure(InputError(path, "larger than 1 MiB; not a command file"))
    if b"\0" in data:
        raise InputFailure(InputError(path, "binary file; not a command file"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFailure(InputError(path, "not UTF-8 text")) from None
    exported: list[tuple[str, str]] = []
    for line_no, line in _logical_lines(text):
        try:
            words = shlex.split(line, comments=True, posix=True)
        except ValueError as e:
            raise InputFailure(InputError(path, f"cannot split into words: {e}",
                                          Location(path, line_no, 1))) from None
        if not words:
            continue
        if words[0] == "export":
            for w in words[1:]:
                if "=" in w:
                    k, v = w.split("=", 1)
                    exported.append((k, v))
            continue
        lead_env, cmd = split_env_words(words)
        if is_server_command(cmd):
            column = line.find(cmd[0]) + 1 if cmd[0] in line else 1
            from vllm_preflight.load import confine

            base = os.path.dirname(os.path.abspath(path))
            with confine.default_for(path):  # a file's words: its --config is confined like a script's
                return [deployment_from_words(cmd, source=path, env=exported + lead_env,
                                              location=Location(path, line_no, column), base_dir=base)]
    raise InputFailure(InputError(path, "no `vllm serve` (or api_server) command found", Location(path, 1, 1)))
