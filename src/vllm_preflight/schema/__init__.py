"""JSON Schemas generated from the release data, and validation against them.

`release_schema(version)` describes `vllm serve` options (a `--config` YAML file) for one
release; `deployment_schema()` describes our `*.preflight.yaml`; `validate_bound` turns
schema errors on a loaded command into findings placed at lines.
"""
from __future__ import annotations

__all__ = ["deployment_schema", "release_schema"]


def release_schema(name: str) -> dict:
    from vllm_preflight.schema.generate import release_schema as gen

    return gen(name)


def deployment_schema() -> dict:
    from vllm_preflight.schema.deployment import deployment_schema as gen

    return gen()
