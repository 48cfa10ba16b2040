"""The server command vLLM is started with: `vllm serve MODEL ...` or `python -m
vllm.entrypoints.openai.api_server ...` (vllm/entrypoints/cli/main.py), the words its parser
sees, and 0.11.0-0.12.x's handling of `vllm serve --model X`."""
from __future__ import annotations

import os

from vllm_preflight.releases import Release
from vllm_preflight.resolve.base.state import Refusal, State

SERVE_WORDS = ("serve",)


def _command_tail(words: tuple[str, ...], release: Release) -> list[str]:
    """The words the server's parser sees: after `vllm serve` or after `-m MODULE`."""
    w = list(words)
    if len(w) >= 2 and os.path.basename(w[0]) == "vllm" and w[1] == "serve":
        return w[2:]
    if len(w) >= 3 and w[1] == "-m":
        return w[3:]
    return w


SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)


def _serve_entry(words: tuple[str, ...], is_serve: bool) -> str | None:
    """"serve" for `vllm serve`, "api_server" for `python -m vllm.entrypoints.openai.api_server`."""
    if is_serve:
        return "serve"
    if len(words) >= 3 and words[1] == "-m" and words[2] in SERVER_MODULES:
        return "api_server"
    return None


def _serve_model_flag(tail: list[str], release: Release, is_serve: bool, parsed_warnings: list[str]) -> list[str]:
    """`vllm serve --model X`: an error on 0.11.0, moved to the front (with a warning) later."""
    if not is_serve:
        return tail
    idx = next((i for i, a in enumerate(tail) if a == "--model" or a.startswith("--model=")), None)
    if idx is None:
        return tail
    if release.serve_model_flag == "error":
        if "--model" in tail:
            raise Refusal("ValueError", "With `vllm serve`, you should provide the model as a positional "
                          "argument or in a config file instead of via the `--model` option.")
        return tail
    parsed_warnings.append("With `vllm serve`, you should provide the model as a positional argument or in "
                           "a config file instead of via the `--model` option. The `--model` option will "
                           "be removed in v0.13.")
    if tail[idx] == "--model":
        if idx + 1 >= len(tail):
            return tail
        model, rest = tail[idx + 1], tail[:idx] + tail[idx + 2:]
    else:
        model, rest = tail[idx].removeprefix("--model="), tail[:idx] + tail[idx + 1:]
    return [model] + rest


def server_command(state: State, values: dict) -> None:
    """The words after `vllm serve` (or the server module) as the parser will see them, and
    which entry point runs (its own checks only when `state.serve_stage`)."""
    words = state.words
    is_serve = len(words) >= 2 and os.path.basename(words[0]) == "vllm" and words[1] == "serve"
    warnings: list[str] = []
    state.tail = _serve_model_flag(_command_tail(words, state.release), state.release, is_serve, warnings)
    for w in warnings:
        state.log("warning", w)
    state.serve_entry = _serve_entry(words, is_serve) if state.serve_stage else None
