"""Our own deployment file (`*.preflight.yaml`): what the other formats cannot say.

```yaml
vllm_version: 0.13.0            # or image: vllm/vllm-openai:v0.13.0
gpu: H100
model: {is_moe: true}           # model facts, as --assume model.FACT=VALUE
env: {VLLM_USE_DEEP_GEMM: "1"}
variables: {DP_SIZE: 16}        # pins, as --assume NAME=VALUE (the command line wins)
command: vllm serve deepseek-ai/DeepSeek-V3 -dp $DP_SIZE ...   # or args: [...], or from: lws.yaml
```

The file is validated against its JSON Schema (`schema/deployment.py`); every problem is
one error with its key and line, and the file is not used (exit 2).
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import (
    ScriptError,
    Shell,
    TWord,
    image_entrypoint,
    image_version,
    is_vllm_image,
    program_prefix,
)
from vllm_preflight.load.source import fail
from vllm_preflight.load.symbols import lit
from vllm_preflight.load.yaml_marks import YamlDoc
from vllm_preflight.model import Location

MAX_FROM_DEPTH = 4


class InputFailures(InputFailure):
    """Several errors about one input (a deployment file failing its schema)."""

    def __init__(self, errors: list[InputError]):
        super().__init__(errors[0])
        self.errors = errors


def is_deployment_file(path: str, data) -> bool:
    if path.lower().endswith((".preflight.yaml", ".preflight.yml")):
        return True
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    from vllm_preflight.schema.deployment import deployment_schema

    keys = set(map(str, data))
    return bool(keys & {"command", "args", "from"}) and keys <= set(deployment_schema()["properties"])


def _named_keys(data):
    """The document with every mapping key as text (YAML 1.1 reads `on:` as the key True, which
    the schema validator cannot take): such a key is then an unknown property, said as one."""
    if isinstance(data, dict):
        return {str(k): _named_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_named_keys(v) for v in data]
    return data


def _not_cuda(name) -> bool:
    from vllm_preflight.gpus import NOT_CUDA

    key = str(name).upper().replace(" ", "").replace("-", "")
    return key.removeprefix("AMD").removeprefix("INSTINCT") in NOT_CUDA


def validate(doc: YamlDoc) -> None:
    from vllm_preflight.schema.deployment import deployment_schema
    from vllm_preflight.schema.engine import validator as schema_validator
    from vllm_preflight.schema.hints import did_you_mean

    schema = deployment_schema()
    validator = schema_validator(schema)
    errors: list[InputError] = []
    for err in sorted(validator.iter_errors(_named_keys(doc.data)), key=lambda e: [str(p) for p in e.absolute_path]):
        path = tuple(err.absolute_path)
        where = ".".join(map(str, path)) or "(top level)"
        loc = doc.location(path)
        if err.validator == "additionalProperties":
            allowed = sorted(err.schema.get("properties", {}))
            extra = [k for k in (err.instance or {}) if k not in allowed]
            for k in extra:
                kpath = path + (k,)
                hint = did_you_mean(str(k), allowed)
                errors.append(InputError(doc.source.path, f"unknown key `{'.'.join(map(str, kpath))}`"
                                         f"{hint}; allowed: {', '.join(allowed)}", doc.location(kpath, key=True)))
            continue
        if err.validator == "oneOf" and not path:
            keys = [k for k in ("command", "args", "from") if k in (doc.data or {})]
            msg = ("give the server as one of `command`, `args` or `from`" if not keys
                   else f"give only one of `command`, `args`, `from` (found {', '.join(keys)})")
            errors.append(InputError(doc.source.path, msg, Location(doc.source.path, 1, 1)))
            continue
        if err.validator == "enum" and where == "gpu" and _not_cuda(err.instance):
            msg = (f"`gpu`: {err.instance!r} is an AMD Instinct GPU: vLLM runs it on its ROCm platform, and "
                   "vllm-preflight resolves vLLM's CUDA platform only (NVIDIA GPUs)")
        elif err.validator == "enum":
            hint = did_you_mean(str(err.instance), [str(x) for x in err.validator_value])
            msg = f"`{where}`: {err.instance!r} is not one of {', '.join(map(str, err.validator_value))}{hint}"
        else:
            msg = f"`{where}`: {err.message}"
        errors.append(InputError(doc.source.path, msg, loc))
    if errors:
        raise InputFailures(errors)


def load(docs: list[YamlDoc], variables: dict[str, str] | None = None, *, depth: int = 0,
         input_format: str | None = None, load_file=None) -> list[LoadedDeployment]:
    """`load_file`: the loader of any input format (load.load_file), for a `from:` file."""
    doc = docs[0]
    path = doc.source.path
    if len(docs) != 1 or not isinstance(doc.data, dict):
        fail(path, "a deployment file holds one YAML mapping")
    validate(doc)
    data = doc.data
    pins = {str(k): _env_str(v) for k, v in (data.get("variables") or {}).items()}
    pins.update(variables or {})  # --assume wins over the file
    env = {str(k): _env_str(v) for k, v in (data.get("env") or {}).items()}
    facts = tuple((str(k), _env_str(v)) for k, v in (data.get("model") or {}).items())
    version = data.get("vllm_version")
    version_source = "deployment file" if version else None
    version_loc = doc.location(("vllm_version",)) if version else None
    if not version and data.get("image"):
        version = image_version(str(data["image"]))
        version_source = f"image {data['image']}" if version else None
        version_loc = doc.location(("image",)) if version else None
    if isinstance(version, str) and version.startswith("v"):
        version = version[1:]
    base = os.path.dirname(os.path.abspath(path))
    if "from" in data:
        if depth >= MAX_FROM_DEPTH:
            fail(path, "`from` chain is too deep (a loop?)", *_place(doc, ("from",)))
        from vllm_preflight.load import confine

        frm = str(data["from"])
        target = frm if os.path.isabs(frm) else os.path.normpath(os.path.join(os.path.dirname(path), frm))
        conf = confine.current(base)
        if not conf.allows(target):
            fail(path, f"`from: {data['from']}`: {conf.refusal()}", *_place(doc, ("from",)))
        try:
            inner = load_file(target, pins, depth=depth + 1)  # its own format, detected
        except InputFailure as e:
            fail(path, f"`from: {data['from']}`: {e.error.render()}", *_place(doc, ("from",)))
        if not inner:
            fail(path, f"`from: {data['from']}`: no vLLM server found there", *_place(doc, ("from",)))
        out = []
        for d in inner:
            changes: dict[str, Any] = {"gpu": data.get("gpu") or getattr(d, "gpu", None), "model_facts": facts or getattr(d, "model_facts", ())}
            if data.get("role"):
                changes.update(role=str(data["role"]), role_source=f"role: in {os.path.basename(path)}")
            if version:
                changes.update(vllm_version=version, version_source=version_source, version_location=version_loc)
            if env:
                merged = dict(d.env)
                merged.update(env)
                tmpl = dict(getattr(d, "env_template", ()) or ())
                tmpl.update({k: lit(v) for k, v in env.items()})
                changes.update(env=tuple(merged.items()), env_template=tuple(tmpl.items()))
            if isinstance(d, LoadedDeployment):
                out.append(replace(d, **changes))
            else:
                out.append(d)
        return out
    sh = Shell(pins=pins, env={k: lit(v) for k, v in env.items()})
    try:
        if "command" in data:
            sh.run_text(str(data["command"]), doc.scalar_text(("command",)), fallback=doc.location(("command",)))
        else:
            words = [TWord(lit(str(a), doc.scalar_text(("args", k)), 0), doc.location(("args", k)))
                     for k, a in enumerate(data["args"])]
            image = str(data.get("image") or "")
            if program_prefix([str(a) for a in data["args"]]) is None and is_vllm_image(image):
                head, note = image_entrypoint(words, doc.location(("image",)))
                words = head + words
                sh.assumptions.append(note)
            sh.exec_words(words, [], doc.location(("args",)))
    except ScriptError as e:
        what = e.message if e.message.startswith("input too complex") else f"shell syntax error: {e.message}"
        fail(path, what, e.loc.line if e.loc else None, e.loc.column if e.loc else None)
    if not sh.found:
        key = "command" if "command" in data else "args"
        fail(path, f"`{key}` does not start a vLLM server (`vllm serve ...`)", *_place(doc, (key,)))
    out = []
    for k, found in enumerate(sh.found):
        name = path if len(sh.found) == 1 else f"{path}#{k + 1}"
        d = build(found, source=name, file=path, base_dir=base, fmt="preflight", assumptions=sh.assumptions,
                  vllm_version=version, version_source=version_source, version_location=version_loc)
        d = replace(d, gpu=data.get("gpu"), model_facts=facts)
        if data.get("role"):
            d = replace(d, role=str(data["role"]), role_source=f"role: in {os.path.basename(path)}")
        out.append(d)
    return out


def _env_str(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _place(doc: YamlDoc, path: tuple) -> tuple[int | None, int | None]:
    loc = doc.location(path)
    return loc.line, loc.column
