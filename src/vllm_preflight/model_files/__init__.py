"""A model's own files, found where vLLM finds them: a local folder, the Hugging Face cache, the Hub.

`find(request)` gives the files of one model request (`ModelRequest`: the model and the options
naming where its config is), read once per run however many servers and releases ask:

1. a name that is a folder (relative ones next to the input) is read there (`local`);
2. a hub id is looked up in the Hugging Face cache the deployment's environment names, then in
   this machine's (`cache @ COMMIT`): HF_HUB_CACHE, HF_HOME, --revision are honoured;
3. else, unless the run is offline (`--offline`, or HF_HUB_OFFLINE=1 in the tool's environment),
   the Hub is asked with huggingface_hub (`hub @ COMMIT`), only for the small files in repo.py,
   all models of a run in parallel (`prefetch`), each bounded by `timeout()` seconds and
   repo.MAX_BYTES per file. A gated or missing repo, no network or a timeout is a `problem`.

Not read, and said so: models served from ModelScope (VLLM_USE_MODELSCOPE), the config inside a
GGUF file, object-storage URIs. Nothing here imports huggingface_hub unless a fetch is needed.
"""
from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from vllm_preflight.model_files import repo
from vllm_preflight.model_files.repo import RepoFiles
from vllm_preflight.model_files.request import ModelRequest, is_repo_id, request_of, truthy, words_request

DEFAULT_TIMEOUT = 10.0  # seconds for all Hub calls of one model (huggingface_hub's own default per call)


def timeout() -> float:
    """VLLM_PREFLIGHT_HUB_TIMEOUT seconds (the README documents it), else DEFAULT_TIMEOUT."""
    try:
        value = float(os.environ.get("VLLM_PREFLIGHT_HUB_TIMEOUT", ""))
        return value if 0 < value <= 600 else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


@dataclass
class ModelFiles:
    """The files of one request: config.json (or params.json) from the config's location, the
    others from where vLLM reads each; `origin` None when no config was read."""

    request: ModelRequest
    origin: str | None = None  # local | cache | hub
    where: str = ""  # the folder, `cache @ COMMIT` or `hub @ COMMIT`
    config: dict | None = None
    params: dict | None = None  # the Mistral format's params.json, when that is the format
    quant_config: dict | None = None  # hf_quant_config.json
    encoder_config: dict | None = None  # the sentence-transformers config
    tokenizer_config: dict | None = None
    mistral: bool = False  # the config is params.json's (the Mistral format), as vLLM picks it
    read: tuple[str, ...] = ()  # the files read, for the report
    problem: tuple[str, str] | None = None  # (kind, text): gated, missing, timeout, network, ...
    not_read: str = ""  # why nothing was read when no problem says it (an offline run, a model not cached)


class _Run:
    """The policy and memo of one run (a `check` or `matrix` invocation)."""

    def __init__(self, offline: bool | None = None):
        self.offline = truthy(os.environ.get("HF_HUB_OFFLINE")) if offline is None else offline
        self.repos: dict[tuple, RepoFiles] = {}
        self.pending: dict[tuple, tuple[threading.Event, float, list]] = {}
        self.fetched: list[str] = []  # `repo @ commit` of every Hub fetch, for the run's notice
        self.lock = threading.Lock()


_RUN = _Run()


def begin_run(offline: bool | None = None) -> None:
    """Start a run: forget what earlier runs read (a cache may have changed), fix the policy."""
    global _RUN
    _RUN = _Run(offline)


def offline() -> bool:
    return _RUN.offline


def fetched() -> list[str]:
    """The Hub repos this run fetched from (for the notice that network was used)."""
    return list(_RUN.fetched)


def _local(request: ModelRequest, name: str) -> str | None:
    path = request.local_path(name)
    return path if os.path.isdir(path) else None


def _hub_key(request: ModelRequest, name: str, revision: str | None) -> tuple:
    from vllm_preflight.model_files.hub import endpoint

    return ("hub", name, revision, endpoint())


def _cached(request: ModelRequest, name: str, revision: str | None) -> RepoFiles | None:
    key = ("cache", name, revision, request.cache_dirs)
    if key not in _RUN.repos:
        got = None
        for d in request.cache_dirs:
            got = repo.read_cache(d, name, revision)
            if got is not None:
                break
        _RUN.repos[key] = got if got is not None else RepoFiles("none", "")
    hit = _RUN.repos[key]
    return hit if hit.origin != "none" else None


def _start_fetch(key: tuple, name: str, revision: str | None) -> None:
    """Fetch in a daemon thread (a Hub that never answers cannot keep the process alive)."""
    with _RUN.lock:
        if key in _RUN.pending or key in _RUN.repos:
            return
        done = threading.Event()
        box: list[Any] = []
        _RUN.pending[key] = (done, time.monotonic(), box)
    limit = timeout()

    def work() -> None:
        from vllm_preflight.model_files import hub

        try:
            box.append(hub.fetch(name, revision, repo.wanted, timeout=limit, max_bytes=repo.MAX_BYTES))
        except BaseException as e:  # noqa: BLE001 - a bug here is this model's problem, not the run's
            box.append(e)
        finally:
            done.set()

    threading.Thread(target=work, name=f"hub:{name}", daemon=True).start()


def _hub(request: ModelRequest, name: str, revision: str | None) -> RepoFiles:
    key = _hub_key(request, name, revision)
    if key in _RUN.repos:
        return _RUN.repos[key]
    _start_fetch(key, name, revision)
    done, started, box = _RUN.pending[key]
    done.wait(max(0.0, started + timeout() - time.monotonic()))
    with _RUN.lock:
        if key in _RUN.repos:
            return _RUN.repos[key]
        _RUN.repos[key] = out = _hub_files(name, revision, box[0] if box else None)
        _RUN.pending.pop(key, None)
    return out


def _hub_files(name: str, revision: str | None, answer: Any) -> RepoFiles:
    from vllm_preflight.model_files.hub import HubAnswer, endpoint

    what = name + (f" @ {revision}" if revision else "")
    if answer is None:
        return RepoFiles("none", "", problem=("timeout", f"{what}: no answer from {endpoint()} within {timeout():g} s"))
    if not isinstance(answer, HubAnswer):
        return RepoFiles("none", "", problem=("internal", f"{what}: {type(answer).__name__} while fetching"))
    commit = answer.commit or revision or "main"
    out = RepoFiles("hub" if answer.files else "none", f"hub @ {commit}", files=dict(answer.files),
                    listed=answer.listed, problem=answer.problem)
    if answer.files:
        _RUN.fetched.append(f"{name} @ {commit}")
    return out


def _files_of(request: ModelRequest, name: str, revision: str | None) -> RepoFiles:
    """One location's files: a folder, else the cache, else (online) the Hub."""
    path = _local(request, name)
    if path is not None:
        key = ("local", path)
        if key not in _RUN.repos:
            _RUN.repos[key] = repo.read_folder(path)
        return _RUN.repos[key]
    if request.modelscope:
        return RepoFiles("none", "", problem=None)
    if not is_repo_id(name):
        return RepoFiles("none", "")
    hit = _cached(request, name, revision)
    if hit is not None:
        return hit
    if _RUN.offline:
        return RepoFiles("none", "")
    return _hub(request, name, revision)


# vLLM's remote GGUF form `repo_id:quant_type` (is_remote_gguf's shape): a word with a colon
# that is not of this shape (a path, a shell placeholder `${1:?usage}`) is no GGUF reference
_REMOTE_GGUF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z0-9_+-]+")


def _is_gguf(name: str) -> bool:
    return name.endswith(".gguf") or _REMOTE_GGUF.fullmatch(name) is not None


def not_read_reason(request: ModelRequest) -> str:
    """Why a request's files cannot be read at all ("" when they may be)."""
    name = request.hf_config_path or request.model
    if name.startswith(("s3://", "gs://", "az://")):
        return "object storage is not read"
    if _is_gguf(request.model) and not request.hf_config_path:
        return "a GGUF file's own config is not read (give --hf-config-path to read one)"
    if request.modelscope and _local(request, name) is None:
        return "served from ModelScope (VLLM_USE_MODELSCOPE): only Hugging Face caches and the Hub are read"
    return ""


def _with_files(out: ModelFiles, request: ModelRequest, got: RepoFiles, names: tuple[str, ...]) -> None:
    for n in names:
        if n in got.files:
            out.read += (n,)


def mistral_format(request: ModelRequest, got: RepoFiles) -> bool:
    """Whether get_config reads params.json (the Mistral format): asked for with --config-format
    mistral, or under "auto" (transformers_utils/config.py, read in each release's wheel):
    0.11.x only without a config.json, 0.12.0-0.15.x whenever there is one, 0.16.0+ only on a repo
    with consolidated*.safetensors weights."""
    if not isinstance(got.files.get(repo.PARAMS), dict) or request.config_format == "hf":
        return False
    if request.config_format == "mistral":
        return True
    release = request.release or (99,)
    if release < (0, 12):
        return repo.CONFIG not in got.files
    return release < (0, 16) or repo.mistral_repo(got.listed)


def find(request: ModelRequest) -> ModelFiles:
    """The files vLLM reads for this request, from where it reads each."""
    out = ModelFiles(request)
    reason = not_read_reason(request)
    if reason:
        out.problem = ("not-read", f"{request.hf_config_path or request.model}: {reason}")
        return out
    cfg_name = request.hf_config_path or request.model
    got = _files_of(request, cfg_name, request.revision)
    out.problem = got.problem
    if repo.CONFIG in got.unreadable and out.problem is None:  # a cached or --hf-config-path config.json
        out.problem = ("unreadable", f"{cfg_name}: config.json ({got.where}) {got.unreadable[repo.CONFIG]}")
    if got.origin == "none":
        if not out.problem and _RUN.offline and _local(request, cfg_name) is None and is_repo_id(cfg_name):
            out.not_read = "not in the Hugging Face cache, and the run is offline"
        return out
    out.origin, out.where = got.origin, got.where
    out.config = got.config
    params = got.files.get(repo.PARAMS)
    out.params = params if isinstance(params, dict) else None
    quant = got.files.get(repo.QUANT)
    out.quant_config = quant if isinstance(quant, dict) else None
    out.mistral = mistral_format(request, got)
    _with_files(out, request, got, (repo.PARAMS,) if out.mistral else (repo.CONFIG, repo.QUANT))
    # sentence-transformers: from the model itself (not --hf-config-path), at --revision
    model_files = got if cfg_name == request.model else _files_of(request, request.model, request.revision)
    encoder = next((model_files.files[n] for n in repo.SENTENCE if isinstance(model_files.files.get(n), dict)), None)
    if encoder is not None:
        out.encoder_config = encoder
        _with_files(out, request, model_files, tuple(n for n in repo.SENTENCE if n in model_files.files)[:1])
    tok_name = request.tokenizer or request.model
    tok_rev = request.tokenizer_revision if request.tokenizer_revision is not None else request.revision
    tok_files = model_files if (tok_name, tok_rev) == (request.model, request.revision) \
        else _files_of(request, tok_name, tok_rev)
    tok = tok_files.files.get(repo.TOKENIZER)
    if isinstance(tok, dict):
        out.tokenizer_config = tok
        _with_files(out, request, tok_files, (repo.TOKENIZER,))
    return out


def start(deployments: list, offline: bool | None = None, wait: bool = False) -> None:
    """Begin a run and fetch, all at once, the hub models the deployments name (`wait`: until
    each is read or timed out, as a matrix wants before it forks its workers)."""
    begin_run(offline)
    requests = [r for d in deployments
                if (r := words_request(tuple(d.argv), dict(d.env), getattr(d, "base_dir", None))) is not None]
    prefetch(requests)
    if wait:
        for r in requests:
            find(r)


def prefetch(requests: list[ModelRequest]) -> None:
    """Start the Hub fetches these requests will need, all at once (one per repo and revision)."""
    if _RUN.offline:
        return
    for r in requests:
        if not_read_reason(r):
            continue
        for name, rev in ((r.hf_config_path or r.model, r.revision),):
            if _local(r, name) is None and not r.modelscope and is_repo_id(name) and _cached(r, name, rev) is None:
                _start_fetch(_hub_key(r, name, rev), name, rev)


__all__ = ["ModelFiles", "ModelRequest", "begin_run", "fetched", "find", "offline", "prefetch",
           "request_of", "start", "timeout"]
