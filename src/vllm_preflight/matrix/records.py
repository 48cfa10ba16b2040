"""`--records DIR`: the verify records (`verify --record DIR`) that cover a row.

A record covers a row when it names the same target and vLLM version and its
`input.resolved_digest` is the digest of the row's resolved settings (the same function verify
uses), so a record proves the resolved config, whichever file it came from.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from vllm_preflight.errors import UsageProblem

SCHEMA_ID = "vllm-preflight/verify-record/1"


@dataclass(frozen=True)
class Evidence:
    target: str
    vllm_version: str | None
    digest: str | None
    status: str
    tier: str
    device: str
    torch: str | None
    deep_ep: str | None
    date: str
    path: str

    def text(self) -> str:
        parts = [self.status, self.tier, self.device if self.device != self.tier else "", f"torch {self.torch or '-'}",
                 f"deep_ep {self.deep_ep or '-'}", self.date]
        return " · ".join(p for p in parts if p)


def read(directory: str) -> list[Evidence]:
    """Every record under DIR; a file that is not a verify record is a usage error (exit 2)."""
    root = Path(directory)
    if not root.is_dir():
        raise UsageProblem(f"--records {directory}: not a directory")
    out = []
    for path in sorted(root.rglob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise UsageProblem(f"{path}: not a verify record (unreadable JSON: {e})") from None
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
            raise UsageProblem(f"{path}: not a verify record (no \"schema\": \"{SCHEMA_ID}\")")
        try:
            inp, env, outcome = doc["input"], doc["environment"], doc["outcome"]
            deep_ep = env.get("deep_ep") or {}
            date = doc.get("date") or env.get("date") or dt.datetime.fromtimestamp(
                path.stat().st_mtime, dt.timezone.utc).strftime("%Y-%m-%d")
            out.append(Evidence(inp["target"], inp.get("vllm_version"), inp.get("resolved_digest"),
                                outcome["status"], doc.get("tier", ""), env.get("device", "?"), env.get("torch"),
                                deep_ep.get("version") if deep_ep.get("installed") else None, str(date)[:10],
                                str(path)))
        except (KeyError, TypeError, AttributeError) as e:
            raise UsageProblem(f"{path}: not a verify record (missing {e})") from None
    return out


def covering(rows: list[dict], evidence: list[Evidence]) -> dict[int, str]:
    """Row index -> the text of the records covering it."""
    from vllm_preflight.verify.record import digest

    by_key: dict[tuple, list[Evidence]] = {}
    for e in evidence:
        by_key.setdefault((e.target, e.vllm_version, e.digest), []).append(e)
    out = {}
    for i, r in enumerate(rows):
        found = by_key.get((r.get("target"), r.get("vllm_version"), digest(r.get("resolved"))))
        if found:
            out[i] = "; ".join(dict.fromkeys(e.text() for e in found))
    return out
