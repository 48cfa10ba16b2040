"""Files of a hub model already in a Hugging Face cache, read without the network stack.

huggingface_hub's `try_to_load_from_cache` answers the same question, but importing it loads
its HTTP client (0.3-0.8 s measured on a 2-core machine, more than a whole `check`), so a cached
model is looked up here by the same rules and `tests/model_files/test_cache.py` holds this
reader equal to huggingface_hub's own on every layout case (refs, commit revisions, `.no_exist`
markers, missing repos). The cache layout is huggingface_hub's documented one:
`models--ORG--NAME/refs/REVISION` holds a commit hash, `snapshots/COMMIT/FILE` the file,
`.no_exist/COMMIT/FILE` marks a file the Hub said is absent.
"""
from __future__ import annotations

import os

NO_EXIST = object()  # the Hub said the file is absent at this commit (huggingface_hub's _CACHED_NO_EXIST)


def repo_folder(cache_dir: str, repo_id: str) -> str:
    return os.path.join(cache_dir, "models--" + repo_id.replace("/", "--"))


def _safe(revision: str) -> bool:
    """A revision that stays inside the repo's folders (the input names it: `../` is not followed)."""
    return not (os.path.isabs(revision) or ".." in revision.split("/") or "\\" in revision or "\0" in revision)


def commit_of(cache_dir: str, repo_id: str, revision: str | None) -> str | None:
    """The commit a revision names in this cache (a ref's content, else the revision itself);
    None when the repo is not cached or the revision leaves its folder."""
    repo = repo_folder(cache_dir, repo_id)
    revision = revision or "main"
    if not os.path.isdir(repo) or not _safe(revision):
        return None
    ref = os.path.join(repo, "refs", revision)
    if os.path.isfile(ref):
        try:
            with open(ref) as f:
                revision = f.read(4096)
        except OSError:
            return None
    return revision if revision and _safe(revision) else None


def cached_file(cache_dir: str, repo_id: str, filename: str, revision: str | None) -> str | object | None:
    """The cached file's path, NO_EXIST when the cache records it as absent, None when unknown
    (try_to_load_from_cache's three answers, in its order of checks)."""
    commit = commit_of(cache_dir, repo_id, revision)
    if commit is None:
        return None
    repo = repo_folder(cache_dir, repo_id)
    if os.path.isfile(os.path.join(repo, ".no_exist", commit, filename)):
        return NO_EXIST
    snapshots = os.path.join(repo, "snapshots")
    try:
        if commit not in os.listdir(snapshots):
            return None
    except OSError:
        return None
    path = os.path.join(snapshots, commit, filename)
    return path if os.path.isfile(path) else None
