"""The converters of vLLM's option table (argparse `type=`): int, float, JSON, vLLM's
human_readable_int, optional values, config classes from JSON. A ValueError is argparse's
"invalid ... value"."""
from __future__ import annotations

import json
import re
from typing import Any


# ------------------------------------------------------------------ converters
def _human_readable_int(value: str) -> int:
    value = value.strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if m:
        number, suffix = m.groups()
        dec = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
        if suffix in dec:
            return int(float(number) * dec[suffix])
        return int(number) * {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[suffix]
    return int(value)


def _convert(kind: str, text: str) -> Any:
    """Apply a converter named in the option table; ValueError when argparse would reject."""
    if kind == "str":
        return text
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "hint":
        return _human_readable_int(text)
    if kind == "hint_auto":
        return -1 if text.strip() in ("-1",) or text.strip().lower() == "auto" else _human_readable_int(text)
    if kind.startswith("opt:"):
        return None if text == "None" else _convert(kind[4:], text)
    if kind == "json":
        return json.loads(text)
    if kind == "config":
        # a config class validated from JSON: an object (its fields are checked later)
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("Input should be an object")
        return value
    if kind == "json_obj":
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        return value
    if kind == "dict_or_str":
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return text
        return value
    if kind == "bool":
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise ValueError(text)
    return text  # unknown converter: vLLM takes the text
