"""The config classes behind vLLM's JSON options, per release (releases/data/json_options.json,
written by tools/extract_json_options.py): fields, types, bounds, validators."""
from __future__ import annotations

from functools import lru_cache

from vllm_preflight.releases import data_file


@lru_cache(maxsize=1)
def _data() -> dict:
    return data_file("json_options.json")


def class_of(dest: str, version: str) -> dict | None:
    """The recorded config class behind an option of a release (None: not recorded)."""
    data = _data()
    key = data["releases"].get(version, {}).get(dest)
    return data["classes"][key] if key else None
