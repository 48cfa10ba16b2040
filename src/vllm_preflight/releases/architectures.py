"""What each release's model registry says about an architecture: whether it is registered,
implements `SupportsPP` / `SupportsLoRA`, and is multimodal.

Recorded per release from vLLM's own registry (`releases/data/architectures.json`, written by
`tools/extract_arch_facts.py`). `arch_support` answers None where nothing is recorded, so a
check built on it is skipped (and says so) rather than guessed.

The file holds, per architecture, the releases where its answer changes:
`{"releases": [...], "archs": {ARCH: {FIRST_RELEASE: FLAGS | null}}}`; FLAGS is a string of
letters (P: SupportsPP, L: SupportsLoRA, M: multimodal), null: not registered from there on.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache

from vllm_preflight.releases.versions import release_of, value_since, version_key


class ArchSupport:
    """What a release's model registry says of one architecture. Read only; equal by value. A
    plain class (a frozen dataclass cost about 0.5 ms of every cold start to create)."""

    __slots__ = ("is_multimodal", "registered", "supports_lora", "supports_pp")
    _ORDER = ("registered", "supports_pp", "is_multimodal", "supports_lora")
    registered: bool
    supports_pp: bool
    is_multimodal: bool
    supports_lora: bool

    def __init__(self, registered: bool, supports_pp: bool, is_multimodal: bool, supports_lora: bool) -> None:
        for name, value in zip(self._ORDER, (registered, supports_pp, is_multimodal, supports_lora)):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return (self.registered, self.supports_pp, self.is_multimodal, self.supports_lora)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"ArchSupport is read only: cannot set {name!r}")

    def __eq__(self, other) -> bool:
        return type(other) is ArchSupport and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "ArchSupport(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._ORDER, self._values())) + ")"


_NOT_REGISTERED = ArchSupport(registered=False, supports_pp=False, is_multimodal=False, supports_lora=False)


@lru_cache(maxsize=1)
def _data() -> tuple[frozenset[str], dict[str, list[tuple[tuple[int, ...], str | None]]]]:
    path = os.path.join(os.path.dirname(__file__), "data", "architectures.json")
    with open(path) as f:
        raw = json.load(f)
    runs = {arch: sorted((version_key(v), flags) for v, flags in changes.items())
            for arch, changes in raw["archs"].items()}
    return frozenset(raw["releases"]), runs


def recorded_releases() -> frozenset[str]:
    """The releases whose registry is recorded."""
    return _data()[0]


@lru_cache(maxsize=4096)
def arch_support(version: str, architecture: str) -> ArchSupport | None:
    """The registry's answer for `architecture` in release `version` (pr29558: its base).

    None when the release's registry is not recorded or the architecture is registered in no
    recorded release (a class this data knows nothing of); `registered=False` when it is
    known but not registered in this release."""
    release = "0.12.0" if version == "pr29558" else (version if version in _data()[0] else release_of(version))
    releases, runs = _data()
    if release is None or release not in releases:
        return None
    changes = runs.get(architecture)
    if changes is None:
        return None
    key = version_key(release)
    flags: str | None = None
    for start, value in changes:
        if start > key:
            break
        flags = value
    if flags is None:
        return _NOT_REGISTERED
    return ArchSupport(registered=True, supports_pp="P" in flags, is_multimodal="M" in flags,
                       supports_lora="L" in flags)


# The architecture-name suffixes vLLM reads a default runner and convert type from, in its
# order (ModelConfig's suffix table); 0.13.0 added `ForTokenClassification` and made the
# reward suffixes convert with `embed`.
def _suffix_defaults(version: str) -> list[tuple[str, str, str]]:
    release = "0.12.0" if version == "pr29558" else (release_of(version) or version)
    new = version_key(release) >= (0, 13, 0)
    reward = "embed" if new else "reward"
    rows = [("ForCausalLM", "generate", "none"), ("ForConditionalGeneration", "generate", "none"),
            ("ChatModel", "generate", "none"), ("LMHeadModel", "generate", "none"),
            ("ForTextEncoding", "pooling", "embed"), ("EmbeddingModel", "pooling", "embed"),
            ("ForSequenceClassification", "pooling", "classify")]
    if new:
        rows.append(("ForTokenClassification", "pooling", "classify"))
    rows += [("ForAudioClassification", "pooling", "classify"), ("ForImageClassification", "pooling", "classify"),
             ("ForVideoClassification", "pooling", "classify"), ("ClassificationModel", "pooling", "classify"),
             ("ForRewardModeling", "pooling", reward), ("RewardModel", "pooling", reward),
             ("Model", "pooling", "embed")]
    return rows


def _match(rows, arch: str, runner: str | None = None, convert: str | None = None):
    for suffix, r, c in rows:
        if (runner is None or runner == r) and (convert is None or convert == c) and arch.endswith(suffix):
            return suffix, r, c
    return None


def registry_class(version: str, architecture: str, runner: str = "auto", convert: str = "auto",
                   model_impl: str = "auto") -> str | None:
    """The registered architecture whose class vLLM inspects for `architecture` (itself when
    registered), or None where vLLM would try the Transformers backend or refuse the model
    (which one depends on the installed Transformers library, not on vLLM's registry).

    An unregistered name resolves its runner and convert type from its suffix; a pooling
    conversion then looks for a registered base model by swapping the suffix (so
    `LlamaForSequenceClassification` is `LlamaForCausalLM` converted)."""
    support = arch_support(version, architecture)
    if support is not None and support.registered:
        return architecture
    if arch_support(version, "LlamaForCausalLM") is None:  # release not recorded
        return None
    rows = _suffix_defaults(version)
    if runner == "auto":
        m = _match(rows, architecture)
        runner = m[1] if m else "generate"
    if convert == "auto":
        m = _match(rows, architecture, runner=runner)
        convert = m[2] if m else ("embed" if runner == "pooling" else "none")
    if convert == "none" and model_impl == "auto":
        return None  # the Transformers backend is tried first
    m = _match(rows, architecture, runner=runner, convert=convert)
    if m:
        for repl, _, _ in rows:
            base = architecture.replace(m[0], repl)
            s = arch_support(version, base)
            if s is not None and s.registered:
                return base
    return None


# ---------------------------------------------------------------- IsHybrid / attention-free
# Attention-free (IsAttentionFree) classes of the registry: Mamba-only models, every release
MAMBA_ARCHS = frozenset({"MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM"})


@lru_cache(maxsize=1)
def _hybrid_runs() -> dict[str, list[tuple[tuple[int, ...], bool]]]:
    """releases/data/hybrid_archs.json (tools/extract_hybrid_archs.py): per architecture, the
    releases where the registry's `is_hybrid` answer changes (null: not registered)."""
    path = os.path.join(os.path.dirname(__file__), "data", "hybrid_archs.json")
    with open(path) as f:
        raw = json.load(f)
    return {arch: sorted((version_key(v), bool(val)) for v, val in runs.items())
            for arch, runs in raw["archs"].items()}


def registry_is_hybrid(key: tuple[int, ...], arch: str) -> bool:
    """The class is IsHybrid in the registry of the release `key` (its config's layer types not
    read: ModelConfig.is_hybrid does that, resolve/)."""
    return value_since(_hybrid_runs().get(arch, ()), key, False)
