"""The JSON Schema of our own deployment file (`*.preflight.yaml`).

Generated from the tool's own registries (the GPUs `--gpu` knows, the model facts
`--assume model.FACT` takes), so it cannot drift from them.
"""
from __future__ import annotations

from dataclasses import fields


def deployment_schema() -> dict:
    from vllm_preflight.gpus import GPUS
    from vllm_preflight.modelfacts import ModelFacts
    from vllm_preflight.releases import SUPPORTED
    from vllm_preflight.schema.generate import SCHEMA_BASE

    facts = {}
    for f in fields(ModelFacts):
        t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "str")
        facts[f.name] = {"boolean": {"type": ["boolean", "string"]}, "integer": {"type": ["integer", "string"]}}.get(
            {"bool": "boolean", "int": "integer"}.get(t, "string"), {"type": "string"})
    scalar = {"type": ["string", "number", "boolean"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_BASE}/deployment.json",
        "title": "vllm-preflight deployment file",
        "description": "What a deployment's own config cannot say: the vLLM release, the GPU, model facts, "
                       "environment and variable values; and the server, as a command line (`command`), "
                       "exec-form words (`args`), or a path to a file in another format (`from`).",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "description": {"type": "string"},
            "vllm_version": {"type": "string", "pattern": r"^v?[0-9]+(\.[0-9]+){1,3}((a|b|rc|\.post|\.dev)[0-9]+)*(\+[A-Za-z0-9.]+)?$",
                             "description": f"vLLM release; supported: {SUPPORTED[0]} to {SUPPORTED[-1]}"},
            "image": {"type": "string", "description": "container image; a vllm/vllm-openai tag names the release"},
            "gpu": {"enum": sorted(GPUS), "description": "GPU the deployment runs on"},
            "role": {"enum": ["prefill", "decode", "both"],
                     "description": "the server's role in a prefill/decode split (as `check --role`)"},
            "model": {"type": "object", "additionalProperties": False, "properties": facts,
                      "description": "model facts, as --assume model.FACT=VALUE"},
            "env": {"type": "object", "additionalProperties": scalar,
                    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                    "description": "environment of the server"},
            "variables": {"type": "object", "additionalProperties": scalar,
                          "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                          "description": "values of shell/Kubernetes variables, as --assume NAME=VALUE"},
            "command": {"type": "string", "description": "a shell command line or script starting the server"},
            "args": {"type": "array", "minItems": 1, "items": {"type": ["string", "number"]},
                     "description": "the server command as exec-form words"},
            "from": {"type": "string", "description": "path (relative to this file) of a shell script, vLLM "
                                                      "--config YAML or Kubernetes manifest holding the server"},
        },
        "oneOf": [{"required": ["command"]}, {"required": ["args"]}, {"required": ["from"]}],
    }
