"""Loaders: files of the formats deployers write, turned into Deployments.

Each loader knows its format, not vLLM. `load_path` picks the loader for a path.
"""
from __future__ import annotations

from vllm_preflight.load.command import load_command_file, deployment_from_words

__all__ = ["load_path", "load_command_file", "deployment_from_words"]


def load_path(path: str, *, input_format: str | None = None):
    """Deployments found in one file. Raises InputFailure when the file cannot be read."""
    return load_command_file(path)
