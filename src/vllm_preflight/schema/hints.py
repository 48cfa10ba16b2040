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


# Renamed config keys (old, new, why). Release data tells which name a release has; this
# table only pairs them. PassConfig renames: vLLM PR #29646 (0.12.0 maps the old names with a
# deprecation, 0.13.0 rejects them); `level` became `mode` in 0.11.1.
RENAMED_KEYS = (
    ("enable_attn_fusion", "fuse_attn_quant", "PR #29646"),
    ("enable_fusion", "fuse_norm_quant", "PR #29646 (with fuse_act_quant)"),
    ("enable_noop", "eliminate_noops", "PR #29646"),
    ("enable_sequence_parallelism", "enable_sp", "PR #29646"),
    ("enable_async_tp", "fuse_gemm_comms", "PR #29646"),
    ("enable_fi_allreduce_fusion", "fuse_allreduce_rms", "PR #29646"),
    ("level", "mode", "vLLM 0.11.1"),
    ("use_cudagraph", "cudagraph_mode", "replaced by cudagraph_mode"),
    ("full_cuda_graph", "cudagraph_mode", "replaced by cudagraph_mode"),
    ("use_inductor", "backend", "replaced by backend"),
)
RENAMED_FLAGS = (
    ("--cuda-graph-sizes", "--cudagraph-capture-sizes", "deprecated in 0.11.1, removed in 0.13.0"),
)
# Flags whose setting older releases read from the environment instead (vllm-resolution.md §8).
ENV_INSTEAD = {"--all2all-backend": "VLLM_ALL2ALL_BACKEND", "--attention-backend": "VLLM_ATTENTION_BACKEND"}
FORBID_EXTRA_SINCE = (0, 13, 0)  # CompilationConfig/PassConfig reject unknown keys (extra="forbid")


def _vt(v: str) -> tuple[int, ...]:
    from vllm_preflight.releases.versions import version_key

    return version_key(v)


def config_forbids_extra(release) -> bool:
    rules = getattr(release, "rules", None) or {}
    if "config_forbids_extra" in rules:
        return bool(rules["config_forbids_extra"])
    return _vt(release.version) >= FORBID_EXTRA_SINCE


def _ranges(versions: list[str]) -> str:
    from vllm_preflight.releases import SUPPORTED

    spans: list[list[int]] = []  # [first, last] indices of consecutive releases
    for i in sorted(SUPPORTED.index(v) for v in versions):
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ", ".join(SUPPORTED[a] if a == b else f"{SUPPORTED[a]}–{SUPPORTED[b]}" for a, b in spans)


def _recorded(kind: str) -> set[str] | None:
    """Releases whose data was recorded (others borrow a neighbour's and prove nothing)."""
    try:
        from vllm_preflight import releases

        data = releases._options_data() if kind == "options" else releases._facts_data()
        return set(data)
    except Exception:  # noqa: BLE001 - the registry's internals may change; then trust every entry
        return None


def releases_with_option(flag: str) -> list[str]:
    from vllm_preflight.releases import SUPPORTED, option_table

    recorded = _recorded("options")
    return [v for v in SUPPORTED if (recorded is None or v in recorded) and flag in option_table(v).options]


def releases_with_key(section: str, key: str) -> list[str]:
    from vllm_preflight.releases import SUPPORTED, recorded_facts

    field = "pass_config_fields" if section == "PassConfig" else "compilation_fields"
    recorded = _recorded("facts")
    return [v for v in SUPPORTED if (recorded is None or v in recorded) and key in (recorded_facts(v).get(field) or ())]


_OPTION_HINTS: dict[tuple[str, int], str] = {}


def option_hint(flag: str, release) -> str:
    # a flag repeated thousands of times costs one similarity search, not one per repeat
    key = (flag, id(release.options))
    hit = _OPTION_HINTS.get(key)
    if hit is None:
        if len(_OPTION_HINTS) > 4096:
            _OPTION_HINTS.clear()
        hit = _OPTION_HINTS[key] = _option_hint(flag, release)
    return hit


def _option_hint(flag: str, release) -> str:
    table = release.options
    name = "--" + flag[2:].replace("_", "-") if flag.startswith("--") else flag
    parts = []
    for old, new, why in RENAMED_FLAGS:
        if name == old and new in table.options:
            parts.append(f"did you mean `{new}`? ({old} was {why})")
        elif name == new and old in table.options:
            parts.append(f"this release calls it `{old}`")
    elsewhere = [v for v in releases_with_option(name) if v != release.version]
    if elsewhere:
        parts.append(f"it exists in vLLM {_ranges(elsewhere)}")
        if name in ENV_INSTEAD:
            parts.append(f"on {release.version} set the environment variable {ENV_INSTEAD[name]} instead")
    if not parts:
        close = close_matches(name, [o for o in table.options if o.startswith("--")])
        if close:
            parts.append(f"did you mean `{close[0]}`?")
    return f" ({'; '.join(parts)})" if parts else ""


def key_hint(section: str, key: str, allowed: list[str], release) -> str:
    parts = []
    for old, new, why in RENAMED_KEYS:
        if key == old and new in allowed:
            parts.append(f"did you mean `{new}`? `{old}` was renamed ({why})")
        elif key == new and old in allowed:
            parts.append(f"did you mean `{old}`? this release predates `{new}`")
    if not parts:
        close = close_matches(key, allowed)
        if close:
            parts.append(f"did you mean `{close[0]}`?")
    if section in ("CompilationConfig", "PassConfig"):
        elsewhere = [v for v in releases_with_key(section, key) if v != release.version]
        if elsewhere:
            parts.append(f"it exists in vLLM {_ranges(elsewhere)}")
    return f" ({'; '.join(parts)})" if parts else ""
