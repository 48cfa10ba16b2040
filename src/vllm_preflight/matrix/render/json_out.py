"""JSON (format_version 1): every cell as a `check` result plus `axes`, unfolded."""
from __future__ import annotations

import json

from vllm_preflight import __version__

FORMAT_VERSION = 1


def render(rows: list[dict], **extra) -> str:
    doc = {"format_version": FORMAT_VERSION, "tool_version": __version__, "rows": rows}
    doc.update({k: v for k, v in extra.items() if v is not None})
    # compact: json's C encoder (indent= takes the pure-Python one, seconds for a large matrix)
    return json.dumps(doc)
