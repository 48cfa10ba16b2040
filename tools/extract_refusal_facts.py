"""Dump, from one installed vLLM release, the value sets its config checks accept (issue 9).

    VENV/bin/python tools/extract_refusal_facts.py VERSION >> facts.jsonl
    python tools/extract_refusal_facts.py --merge facts.jsonl   # -> releases/data/refusals.json

Reads Literal types and pydantic field constraints (values only; no vLLM code is copied):
speculative methods (and the MTP aliases vLLM renames to "mtp"), KV-transfer roles,
numeric bounds of SpeculativeConfig fields, and whether SpeculativeConfig/KVTransferConfig
forbid unknown keys.
"""
from __future__ import annotations

import json
import sys
import typing
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "refusals.json"


def _flat(t) -> list[str]:
    args = typing.get_args(t)
    if not args:
        return [t] if isinstance(t, str) else []
    out: list[str] = []
    for a in args:
        out += _flat(a)
    return out


def _bounds(cls) -> dict:
    out: dict[str, dict] = {}
    fields = getattr(cls, "__pydantic_fields__", {}) or {}
    for name, info in fields.items():
        for m in getattr(info, "metadata", []) or []:
            for key in ("gt", "ge", "lt", "le"):
                v = getattr(m, key, None)
                if v is not None:
                    out.setdefault(name, {})[key] = v
    return out


def _extra(cls) -> str | None:
    cfg = getattr(cls, "__pydantic_config__", None) or {}
    return cfg.get("extra") if isinstance(cfg, dict) else None


def extract(version: str) -> dict:
    from vllm.config import kv_transfer, speculative

    facts = {"version": version,
             "spec_methods": _flat(speculative.SpeculativeMethod),
             "mtp_methods": _flat(speculative.MTPModelTypes),
             "eagle_methods": _flat(speculative.EagleModelTypes),
             "spec_bounds": _bounds(speculative.SpeculativeConfig),
             "spec_extra": _extra(speculative.SpeculativeConfig),
             "kv_roles": _flat(kv_transfer.KVRole),
             "kv_extra": _extra(kv_transfer.KVTransferConfig)}
    facts["spec_fields"] = sorted(getattr(speculative.SpeculativeConfig, "__pydantic_fields__", {}) or {})
    facts["kv_fields"] = sorted(getattr(kv_transfer.KVTransferConfig, "__pydantic_fields__", {}) or {})
    try:
        from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
        facts["kv_connectors"] = sorted(KVConnectorFactory._registry)
    except Exception as e:  # noqa: BLE001 - a fact we could not read is left out
        print(f"kv connectors not read: {e}", file=sys.stderr)
    from vllm.config import structured_outputs
    facts["structured_outputs_backends"] = _flat(structured_outputs.StructuredOutputsBackend)
    from vllm.config import cache
    if hasattr(cache, "KV_CACHE_DTYPES"):
        facts["kv_cache_dtypes"] = list(cache.KV_CACHE_DTYPES)
    return facts


def merge(path: str) -> None:
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            f = json.loads(line)
            data[f.pop("version")] = f
    OUT.write_text(json.dumps(dict(sorted(data.items())), indent=1, sort_keys=True) + "\n")
    print(f"{OUT.name}: {', '.join(sorted(data))}")


if __name__ == "__main__":
    if sys.argv[1] == "--merge":
        merge(sys.argv[2])
    else:
        print(json.dumps(extract(sys.argv[1]), sort_keys=True))
