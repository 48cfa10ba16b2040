"""The sub-configs `EngineArgs.create_engine_config` builds from plain flags (issue 9): CacheConfig,
SchedulerConfig, LoadConfig, ObservabilityConfig, OffloadConfig and their validators.

pydantic checks each class's `Field(gt=/ge=/lt=/le=)` bounds as vLLM builds it and reports every
failing field, in declaration order, in one ValidationError; the bounded fields and the flag
each one is read from are data per release (releases/data/subconfig_fields.json, written by
tools/extract_subconfig_fields.py). The classes' own validators that refuse a deployment are
ported below, one small function each, keyed by first release.
"""
from __future__ import annotations

import json
from functools import lru_cache

from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State


# ------------------------------------------------------------------ JSON options built with Cls(**value)
@reads("diffusion_config", "watermark_config")
def json_configs(state: State, values: dict) -> None:
    """--diffusion-config (0.24.0+) and --watermark-config (0.30.0+) are plain JSON that
    create_engine_config passes as keywords (0.33.0 arg_utils.py:2182-2196, right after the
    speculative config): pydantic checks each field as for a JSON config option, a field without
    a default is `Field required`, then WatermarkConfig's model validator (philox keys fit in
    64 bits). A value that is not an object: not modelled."""
    from vllm_preflight.resolve.parser import json_options

    for dest, cls in sorted(_classes().get(state.release.version, {}).items()):
        value = values.get(dest)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                continue
        if isinstance(value, (list, int, float)):  # `Cls(**value)` (bool is an int)
            raise Refusal("TypeError", f"{_MODULES.get(cls['name'], 'vllm.config')}.{cls['name']}() argument after ** "
                                       f"must be a mapping, not {type(value).__name__}")
        if not isinstance(value, dict):
            continue
        errors: list = []
        cfg = json_options._fields(cls, value, "", errors)
        order = [f[0] for f in cls["fields"]]
        missing = [json_options._Error(name, "Field required") for name in cls.get("required", []) if name not in value]
        if missing:
            def rank(e, order: list = order) -> int:
                head = e.loc.split(".")[0]
                return order.index(head) if head in order else len(order)
            errors = sorted(errors + missing, key=rank)
        if errors:
            n = len(errors)
            body = "\n".join(f"{e.loc}\n  {e.message} [type={'missing' if e.message == 'Field required' else json_options._code(e.message)}]"
                             for e in errors)
            raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for {cls['name']}\n{body}")
        key = cfg.get("key")
        if cls["name"] == "WatermarkConfig" and isinstance(key, int) and key > 2**64 - 1:
            raise _pyd("WatermarkConfig", "philox keys must fit in 64 bits")


_MODULES = {"WatermarkConfig": "vllm.config.watermarking", "DiffusionConfig": "vllm.config.diffusion"}


@lru_cache(maxsize=1)
def _classes() -> dict:
    return data_file("subconfig_fields.json").get("json_classes", {})
