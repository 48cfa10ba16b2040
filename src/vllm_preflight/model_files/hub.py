"""Small model files from the Hugging Face Hub, fetched with huggingface_hub (imported here only).

One call lists the repo at the revision (its commit and every file name and size: the
`model_info` endpoint), then each wanted file is downloaded pinned to that commit, into a
temporary folder that is deleted afterwards: the user's Hugging Face cache is read elsewhere
(cache.py) and never written. huggingface_hub honours HF_TOKEN, HF_ENDPOINT and its own
timeouts; a file larger than `max_bytes` (by the listing, and again on disk) is not read.
Every failure is an answer (`problem`), never an exception: the caller goes on without the files.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DEFAULT_ENDPOINT = "https://huggingface.co"


def endpoint() -> str:
    """The Hub huggingface_hub talks to, read now (HF_ENDPOINT may change within one process)."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


@dataclass
class HubAnswer:
    """What the Hub gave for one repo at one revision."""

    repo_id: str
    revision: str | None
    endpoint: str
    commit: str | None = None
    listed: frozenset[str] = frozenset()  # the repo's file names at `commit`
    files: dict[str, Any] = field(default_factory=dict)  # file name -> its JSON value
    problem: tuple[str, str] | None = None  # (kind, what happened) - kind: gated, missing, http,
    # timeout, network, too-large, unreadable; the text never holds the server's own words


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def _problem(e: BaseException, what: str) -> tuple[str, str]:
    """An exception of huggingface_hub or its HTTP client as (kind, text); the server's reply is
    not quoted (it is not the user's input)."""
    from huggingface_hub import errors

    response = getattr(e, "response", None)
    status = getattr(response, "status_code", None)
    code = f"HTTP {status}" if status else "no HTTP status"
    if isinstance(e, errors.GatedRepoError):
        return "gated", f"{what} is gated ({code}): accept its terms on the Hub and set HF_TOKEN"
    if isinstance(e, errors.RepositoryNotFoundError):
        return "missing", (f"{what} was not found ({code}; the Hub answers so for private repos too: "
                           f"check the name, or set HF_TOKEN)")
    if isinstance(e, errors.RevisionNotFoundError):
        return "missing", f"{what}: the revision was not found ({code})"
    if isinstance(e, errors.HfHubHTTPError) and status:
        return "http", f"{what}: the Hub answered {code}"
    name = type(e).__name__.lower()
    if "timeout" in name or isinstance(e, TimeoutError):
        return "timeout", f"{what}: no answer from {endpoint()} in time"
    return "network", f"{what}: could not reach {endpoint()} ({type(e).__name__})"


def _prepare() -> None:
    """No progress bars or log lines of huggingface_hub in the tool's output; its offline switch
    as this run decided it (huggingface_hub reads HF_HUB_OFFLINE once, at its import). The endpoint
    is passed to each call (its import-time one is rewritten to it, so that one is left alone)."""
    import logging

    from huggingface_hub import constants
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()
    logging.getLogger("huggingface_hub").setLevel(logging.ERROR)
    constants.HF_HUB_OFFLINE = False  # only an online run fetches


def fetch(repo_id: str, revision: str | None, wanted: Callable[[frozenset[str], dict[str, Any]], list[str]],
          *, timeout: float, max_bytes: int) -> HubAnswer:
    """List the repo, then download what `wanted(listed, read so far)` names until it names
    nothing new. Runs in a worker thread; the caller bounds the whole call in time."""
    answer = HubAnswer(repo_id, revision, endpoint())
    what = f"{repo_id}" + (f" @ {revision}" if revision else "")
    try:
        from huggingface_hub import HfApi, hf_hub_download

        _prepare()
        info = HfApi(endpoint=answer.endpoint).model_info(repo_id, revision=revision, files_metadata=True,
                                                          timeout=timeout)
        answer.commit = info.sha or revision
        sizes = {s.rfilename: s.size for s in (info.siblings or [])}
        answer.listed = frozenset(sizes)
    except Exception as e:  # noqa: BLE001 - any failure of the listing is the answer
        answer.problem = _problem(e, what)
        return answer
    tmp = tempfile.mkdtemp(prefix="vllm-preflight-hub-")
    try:
        asked: set[str] = set()
        while True:
            todo = [f for f in wanted(answer.listed, answer.files) if f not in asked and f in answer.listed]
            if not todo:
                return answer
            for name in todo:
                asked.add(name)
                size = sizes.get(name)
                if size is not None and size > max_bytes:
                    too_large = f"{what}: {name} is {_size(size)}, larger than {_size(max_bytes)}; not read"
                    answer.problem = ("too-large", too_large)
                    return answer
                try:
                    path = hf_hub_download(repo_id, name, revision=answer.commit, cache_dir=tmp,
                                           etag_timeout=timeout, endpoint=answer.endpoint)
                except Exception as e:  # noqa: BLE001
                    answer.problem = _problem(e, f"{what}: {name}")
                    return answer
                parsed = _read_json(path, max_bytes)
                if isinstance(parsed, str):
                    answer.problem = ("unreadable", f"{what}: {name} {parsed}")
                    return answer
                answer.files[name] = parsed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read_json(path: str, max_bytes: int) -> dict | list | str:
    """The file's JSON value, or why it is not read (size, not JSON) - never its text."""
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            return f"is {_size(size)}, larger than {_size(max_bytes)}; not read"
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
        value = json.loads(data)
    except RecursionError:
        return "is JSON nested too deeply"
    except (OSError, ValueError):
        return "is not valid JSON"
    return value if isinstance(value, (dict, list)) else "is not a JSON object"
