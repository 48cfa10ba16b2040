"""Checks of the public API's arguments (and so of the command line's), before anything is read.

A wrong type is a TypeError naming the argument (a string `paths` would otherwise be walked
character by character, `/` included); a wrong value is a UsageProblem (exit 2 on the
command line): empty names and values, a command that is no vLLM server, impossible model facts.
"""
from __future__ import annotations

import os

from vllm_preflight.errors import UsageProblem

TARGETS = ("release", "pr29558")
# model facts that are counts or lengths: a model has at least one of each
_POSITIVE_FACTS = ("max_position_embeddings", "hidden_size")


def _strings(value, name: str, *, allow_none: bool = False) -> list[str] | None:
    if value is None and allow_none:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of strings, not {type(value).__name__}"
                        + (f" (wrap one in a list: [{value!r}])" if isinstance(value, str) else ""))
    out = []
    for i, v in enumerate(value):
        if isinstance(v, os.PathLike):
            v = os.fspath(v)
        if not isinstance(v, str):
            raise TypeError(f"{name}[{i}] must be a string, not {type(v).__name__}")
        out.append(v)
    return out


def _optional_text(value, name: str, option: str) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, not {type(value).__name__}")
    if not value.strip():
        raise UsageProblem(f"{option} is empty; give a value or leave the option out")


def _pairs(value, name: str, option: str) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        value = list(value.items())
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of (name, value) pairs or a dict, not {type(value).__name__}")
    out = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise TypeError(f"{name}[{i}] must be a (name, value) pair of strings, not {pair!r}")
        key, val = pair
        if not key.strip():
            raise UsageProblem(f"{option} {key}={val}: the name is empty")
        out.append((key, val))
    return out


def check_arguments(paths, *, command, vllm_version, target, gpu, env, assume) -> None:
    """TypeError or UsageProblem for arguments no run could use."""
    _strings(paths, "paths")
    words = _strings(command, "command", allow_none=True)
    _optional_text(vllm_version, "vllm_version", "--vllm-version")
    _optional_text(gpu, "gpu", "--gpu")
    if not isinstance(target, str):
        raise TypeError(f"target must be a string, not {type(target).__name__}")
    if target not in TARGETS:
        raise UsageProblem(f"unknown target {target!r}: one of {', '.join(TARGETS)}")
    _pairs(env, "env", "--env")
    for key, val in _pairs(assume, "assume", "--assume"):
        if key.startswith("model."):
            _model_fact(key, val)
        # an empty value pins a shell variable to the empty string, as `NAME=` does in a script
    if words is not None:
        _server_command(words)


def _model_fact(key: str, val: str) -> None:
    fact = key[len("model."):]
    if not fact:
        raise UsageProblem(f"--assume {key}={val}: name a model fact, e.g. model.is_moe=true")
    if not val.strip():
        raise UsageProblem(f"--assume {key}=: the value is empty")
    if fact in _POSITIVE_FACTS:
        try:
            number = int(val)
        except ValueError:
            return  # modelfacts says why it is no number
        if number <= 0:
            raise UsageProblem(f"--assume {key}={val}: a model's {fact} is a positive number")


def _server_command(words: list[str]) -> None:
    from vllm_preflight.load.command import split_env_words
    from vllm_preflight.load.shell import program_prefix

    if not words:
        raise UsageProblem("nothing after `--`: give the server command, e.g. -- vllm serve MODEL ...")
    _env, cmd = split_env_words(list(words))
    span = program_prefix(cmd)
    if span is None or span[0] != 0:
        shown = " ".join(cmd[:3]) or " ".join(words[:3])
        raise UsageProblem(f"`{shown}` is not a vLLM server command: after `--` give `vllm serve MODEL ...` "
                           f"or `python -m vllm.entrypoints.openai.api_server ...`")


def check_limits(allow_paths, max_servers) -> list[str]:
    """The folders of `allow_paths` (each an existing folder), and a positive `max_servers`."""
    folders = _strings(allow_paths, "allow_paths") or []
    for folder in folders:
        if not folder.strip():
            raise UsageProblem("--allow-path is empty; give a folder")
        if not os.path.isdir(folder):
            raise UsageProblem(f"--allow-path {folder}: not a folder")
    if max_servers is not None and (isinstance(max_servers, bool) or not isinstance(max_servers, int)):
        raise TypeError(f"max_servers must be an integer or None, not {type(max_servers).__name__}")
    if max_servers is not None and max_servers < 1:
        raise UsageProblem(f"max-servers-per-file must be at least 1, not {max_servers}")
    return folders
