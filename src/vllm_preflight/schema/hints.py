"""Did-you-mean hints for near misses: similar spellings, renamed keys, other releases."""
from __future__ import annotations

import difflib


def _norm(s: str) -> str:
    return s.lower().replace("-", "_").lstrip("_")


def close_matches(word: str, candidates, n: int = 1, cutoff: float = 0.75) -> list[str]:
    by_norm: dict[str, str] = {}
    for c in candidates:
        by_norm.setdefault(_norm(c), c)
    hits = difflib.get_close_matches(_norm(word), list(by_norm), n=n, cutoff=cutoff)
    return [by_norm[h] for h in hits]


def did_you_mean(word: str, candidates, cutoff: float = 0.75) -> str:
    hits = close_matches(word, candidates, cutoff=cutoff)
    return f" (did you mean `{hits[0]}`?)" if hits else ""
