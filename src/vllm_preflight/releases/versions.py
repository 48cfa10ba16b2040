"""Version strings, read the way pip reads them (PEP 440, via `packaging.version`).

One place for every version the tool meets: release keys (`0.13.0`), `--vllm-version`
(`v0.13.0.post1`, `0.13`), image tags (`v0.11.0rc1`), torch's `2.13.0+cpu`. A pre-release,
post-release, dev or local build *belongs to* the release of its first three numbers:
`0.11.0rc1` is the release candidate of 0.11.0 (its branch is cut, the code is 0.11.0's),
`0.13.0.post1` a rebuild of 0.13.0, and `0.13` is PEP 440's spelling of 0.13.0.
"""
from __future__ import annotations

from functools import lru_cache

from packaging.version import InvalidVersion, Version

__all__ = ["InvalidVersion", "Version", "merged_since", "parse_version", "release_of", "value_since", "version_key"]


def parse_version(text: str) -> Version | None:
    """The PEP 440 version in `text` (a leading `v` allowed), else None."""
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


@lru_cache(maxsize=512)
def version_key(text: str) -> tuple[int, ...]:
    """The release numbers of a version, at least three (`0.13` -> (0, 13, 0)); comparable as
    tuples. Pre/post/dev/local parts are dropped. Raises ValueError (InvalidVersion) for text
    that is not a version, such as `pr29558`."""
    release = Version(text.strip()).release
    return release + (0,) * (3 - len(release))


def release_of(text: str) -> str | None:
    """The `X.Y.Z` release a version string belongs to, else None (`v0.11.0rc1` -> `0.11.0`)."""
    v = parse_version(text)
    if v is None:
        return None
    return ".".join(map(str, (v.release + (0, 0))[:3]))


def kind_of(text: str) -> str:
    """What a version is besides its release: "release candidate", "post-release", ... or ""."""
    v = parse_version(text)
    if v is None:
        return ""
    kinds = []
    if v.pre is not None:
        kinds.append({"a": "alpha", "b": "beta", "rc": "release candidate"}[v.pre[0]])
    if v.dev is not None:
        kinds.append("development build")
    if v.post is not None:
        kinds.append("post-release")
    if v.local is not None:
        kinds.append(f"local build +{v.local}")
    if len(v.release) > 3:
        kinds.append("patch build")
    return ", ".join(kinds)


def merged_since(table, key: tuple[int, ...]) -> dict:
    """The settings in effect at release `key` of a table of (first release, changes) rows in
    release order: every row up to `key`, later rows overriding earlier ones. Callers only read it."""
    out: dict = {}
    for first, changes in table:
        if key >= first:
            out.update(changes)
    return out


def value_since(table, key: tuple[int, ...], default=None):
    """The value in effect at release `key` of (first release, value) rows in release order:
    the last row up to `key`, else `default`."""
    out = default
    for first, value in table:
        if key >= first:
            out = value
    return out
