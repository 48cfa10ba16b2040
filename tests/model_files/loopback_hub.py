"""A Hugging Face Hub served on loopback, answering the endpoints huggingface_hub calls for the
small files vllm-preflight reads, and a hub cache folder in huggingface_hub's layout.

Endpoints (as the real Hub answers them, read from huggingface_hub's client):
  GET  /api/models/ORG/NAME[/revision/REV]?blobs=True   model_info: sha, siblings with sizes
  HEAD /ORG/NAME/resolve/REV/FILE                       X-Repo-Commit, ETag, Content-Length
  GET  /ORG/NAME/resolve/REV/FILE                       the file
Errors carry X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo) as the Hub's do.
A repo's `mode`: "ok", "gated" (model_info answers, files 401 GatedRepo), "hang" (never answers).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

from hub_models import GATED, HUB_IDS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hub"


def commit_of(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@dataclass
class Repo:
    """One model repo: its commits (revision name -> commit) and each commit's files."""

    repo_id: str
    files: dict[str, dict[str, bytes]] = field(default_factory=dict)  # commit -> name -> bytes
    refs: dict[str, str] = field(default_factory=dict)  # "main", tags -> commit
    mode: str = "ok"
    sizes: dict[str, int] = field(default_factory=dict)  # a size announced instead of the real one

    def add(self, files: dict[str, bytes], ref: str = "main") -> str:
        commit = commit_of(self.repo_id + ref + json.dumps(sorted(files)))
        self.files[commit] = dict(files)
        self.refs[ref] = commit
        return commit

    def commit(self, revision: str | None) -> str | None:
        rev = revision or "main"
        return self.refs.get(rev) or (rev if rev in self.files else None)


def fixture_files(name: str) -> dict[str, bytes]:
    """The recorded files of one fixture model (tests/fixtures/hub/NAME/)."""
    folder = FIXTURES / name
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.name != "SOURCE.md"}


class LoopbackHub:
    """`with LoopbackHub(repos) as hub:` serves them on 127.0.0.1:hub.port."""

    def __init__(self, repos: dict[str, Repo]):
        self.repos = repos
        self.requests: list[tuple[str, str]] = []  # (method, path) as received
        self.stop = threading.Event()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_HEAD(self):
                hub.answer(self, head=True)

            def do_GET(self):
                hub.answer(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()

    def _send(self, h, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, str(v))
        h.send_header("Content-Length", str((headers or {}).get("Content-Length", len(body))))
        h.end_headers()
        if not head and body:
            h.wfile.write(body)

    def _error(self, h, status: int, code: str, head: bool) -> None:
        body = json.dumps({"error": code}).encode()
        self._send(h, status, body, {"X-Error-Code": code, "Content-Type": "application/json"}, head)

    def answer(self, h, head: bool) -> None:
        path = unquote(urlparse(h.path).path)
        self.requests.append(("HEAD" if head else "GET", path))
        m = re.match(r"^/api/models/([^/]+/[^/]+|[^/]+?)(?:/revision/(.+))?$", path)
        if m:
            return self._info(h, m.group(1), m.group(2), head)
        m = re.match(r"^/([^/]+/[^/]+|[^/]+)/resolve/([^/]+)/(.+)$", path)
        if m:
            return self._file(h, m.group(1), m.group(2), m.group(3), head)
        self._error(h, 404, "NotFound", head)

    def _hang(self, repo: Repo | None) -> bool:
        if repo is not None and repo.mode == "hang":
            self.stop.wait()  # never answers while the hub runs
            return True
        return False

    def _info(self, h, repo_id: str, revision: str | None, head: bool) -> None:
        repo = self.repos.get(repo_id)
        if self._hang(repo):
            return
        if repo is None:
            return self._error(h, 404, "RepoNotFound", head)
        commit = repo.commit(revision)
        if commit is None:
            return self._error(h, 404, "RevisionNotFound", head)
        files = repo.files[commit]
        siblings = [{"rfilename": n, "size": repo.sizes.get(n, len(b))} for n, b in sorted(files.items())]
        body = json.dumps({"id": repo_id, "modelId": repo_id, "sha": commit, "private": False,
                           "gated": "auto" if repo.mode == "gated" else False, "siblings": siblings}).encode()
        self._send(h, 200, body, {"Content-Type": "application/json"}, head)

    def _file(self, h, repo_id: str, revision: str, name: str, head: bool) -> None:
        repo = self.repos.get(repo_id)
        if self._hang(repo):
            return
        if repo is None:
            return self._error(h, 404, "RepoNotFound", head)
        if repo.mode == "gated":
            return self._error(h, 401, "GatedRepo", head)
        commit = repo.commit(revision)
        if commit is None:
            return self._error(h, 404, "RevisionNotFound", head)
        data = repo.files[commit].get(name)
        if data is None:
            return self._error(h, 404, "EntryNotFound", head)
        etag = hashlib.sha256(data).hexdigest()
        self._send(h, 200, data, {"X-Repo-Commit": commit, "ETag": f'"{etag}"', "Content-Type": "application/json"},
                   head)


def write_cache(cache_dir: Path, repo: Repo) -> None:
    """The repo in huggingface_hub's cache layout: blobs by hash, snapshots linking to them,
    refs naming commits (as `hf download` leaves it)."""
    folder = cache_dir / ("models--" + repo.repo_id.replace("/", "--"))
    for ref, commit in repo.refs.items():
        (folder / "refs").mkdir(parents=True, exist_ok=True)
        (folder / "refs" / ref).write_text(commit)
    for commit, files in repo.files.items():
        snap = folder / "snapshots" / commit
        snap.mkdir(parents=True, exist_ok=True)
        (folder / "blobs").mkdir(exist_ok=True)
        for name, data in files.items():
            blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            link = snap / name
            if not link.exists():
                os.symlink(os.path.relpath(blob, snap), link)


BIG = 50 << 20  # a config.json of 50 MiB: refused by its size


def hub_repos() -> dict[str, Repo]:
    repos: dict[str, Repo] = {}
    for folder, repo_id in HUB_IDS.items():
        r = Repo(repo_id, mode="gated" if folder in GATED else "ok")
        r.add(fixture_files(folder))
        repos[repo_id] = r
    # revision pinning: `v1` holds the dense Qwen3-8B config, `main` the MoE one
    pinned = Repo("preflight-fixtures/pinned")
    pinned.add(fixture_files("qwen3-8b"), ref="v1")
    pinned.add(fixture_files("qwen3-30b-a3b-gptq-int4"), ref="main")
    repos[pinned.repo_id] = pinned
    big = Repo("preflight-fixtures/huge-config")
    big.add({"config.json": b"{}"})
    big.sizes["config.json"] = BIG
    repos[big.repo_id] = big
    repos["preflight-fixtures/never-answers"] = Repo("preflight-fixtures/never-answers", mode="hang")
    repos["preflight-fixtures/never-answers"].add({"config.json": b"{}"})
    return repos
