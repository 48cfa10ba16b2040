"""What the server asks vLLM to load: the model name and the options that say where its files are.

Built from the parsed command (the resolver's values for the release) and the deployment's
environment; plain data, compared and hashed so that one run reads each model once.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# huggingface_hub's repo-id rule (validate_repo_id): `name` or `namespace/name`, each part of
# letters, digits, `-`, `_`, `.`, at most 96 characters, no `--` or `..`, not ending with `.`
_REPO_ID = re.compile(r"^(?:[\w\-.]{1,96}/)?[\w\-.]{1,96}$")


def is_repo_id(name: str) -> bool:
    """Whether a model name that is no path on disk is one the Hub could answer for."""
    return bool(_REPO_ID.match(name)) and "--" not in name and ".." not in name and not name.endswith(".")


def truthy(text: str | None) -> bool:
    """vLLM's and huggingface_hub's reading of a boolean environment variable."""
    return str(text or "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class ModelRequest:
    """One model as a server names it, with what decides where vLLM reads its config from."""

    model: str
    base_dir: str | None = None  # a relative model path is looked up here (the input's folder)
    revision: str | None = None  # --revision (None: the default branch)
    hf_config_path: str | None = None  # --hf-config-path: config.json is read from here instead
    tokenizer: str | None = None  # --tokenizer (its tokenizer_config.json)
    tokenizer_revision: str | None = None
    config_format: str = "auto"  # --config-format: auto | hf | mistral (params.json)
    modelscope: bool = False  # VLLM_USE_MODELSCOPE in the deployment's environment
    cache_dirs: tuple[str, ...] = ()  # Hugging Face hub caches to look in, the node's first
    release: tuple[int, ...] = ()  # the vLLM release's version key (where finding the config changed); () newest

    def local_path(self, name: str | None = None) -> str:
        """A model name as a path: relative ones next to the input (never the caller's cwd)."""
        name = self.model if name is None else name
        return os.path.normpath(name if os.path.isabs(name) else os.path.join(self.base_dir or os.getcwd(), name))


def hub_cache_dir(env: dict[str, str]) -> str | None:
    """The hub cache an environment points huggingface_hub at (its constants module's order:
    HF_HUB_CACHE, the legacy HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub);
    None when the environment sets none of them."""
    for key in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(key):
            return os.path.expanduser(env[key])
    if env.get("HF_HOME"):
        return os.path.join(os.path.expanduser(env["HF_HOME"]), "hub")
    if env.get("XDG_CACHE_HOME"):
        return os.path.join(os.path.expanduser(env["XDG_CACHE_HOME"]), "huggingface", "hub")
    return None


_CACHE_VARS = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME")


def cache_dirs(deployment_env: dict[str, str], tool_env: dict[str, str] | None = None) -> tuple[str, ...]:
    """Where to look for cached model files: the cache the deployment's environment names (the
    node's, when the tool runs there), then the tool's own (the same hub files on this machine)."""
    tool = os.environ if tool_env is None else tool_env  # read in place: copying os.environ decodes it all
    return _cache_dirs(tuple(deployment_env.get(k) for k in _CACHE_VARS), tuple(tool.get(k) for k in _CACHE_VARS),
                       os.environ.get("HOME"))


@lru_cache(maxsize=64)
def _cache_dirs(deployment: tuple, tool: tuple, home: str | None) -> tuple[str, ...]:
    """cache_dirs for the variables that decide it (and HOME, which `~` expands to)."""
    out = []
    for d in (hub_cache_dir({k: v for k, v in zip(_CACHE_VARS, deployment) if v is not None}),
              hub_cache_dir({k: v for k, v in zip(_CACHE_VARS, tool) if v is not None})
              or os.path.join(os.path.expanduser("~"), ".cache", "huggingface", "hub")):
        if d and d not in out:
            out.append(d)
    return tuple(out)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def request_of(model: str, values: dict, env: dict[str, str], base_dir: str | None,
               release: tuple[int, ...] = ()) -> ModelRequest:
    """The request of a parsed server command (`values`: the engine arguments by field name)."""
    fmt = values.get("config_format")
    return ModelRequest(model=model, base_dir=base_dir, revision=_text(values.get("revision")),
                        hf_config_path=_text(values.get("hf_config_path")),
                        tokenizer=_text(values.get("tokenizer")),
                        tokenizer_revision=_text(values.get("tokenizer_revision")),
                        config_format=str(getattr(fmt, "value", fmt) or "auto"),
                        modelscope=truthy(env.get("VLLM_USE_MODELSCOPE")),
                        cache_dirs=cache_dirs(env), release=release)


_SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)
_OPTIONS = {"--model": "model", "--revision": "revision", "--hf-config-path": "hf_config_path",
            "--tokenizer": "tokenizer", "--tokenizer-revision": "tokenizer_revision", "--config-format": "config_format"}


def words_request(words: tuple[str, ...], env: dict[str, str], base_dir: str | None) -> ModelRequest | None:
    """A first look at a server command's model, for fetching ahead (the resolver parses the
    command per release and asks again): `vllm serve MODEL`, `--model`, and the options that
    say where the config is. None when no model word is plain text."""
    w = list(words)
    serve = len(w) >= 2 and os.path.basename(w[0]) == "vllm" and w[1] == "serve"
    if not serve and not (len(w) >= 3 and w[1] == "-m" and w[2] in _SERVER_MODULES):
        return None
    tail = w[2:] if serve else w[3:]
    values: dict[str, str] = {}
    model = tail[0] if serve and tail and not tail[0].startswith("-") else None
    for i, word in enumerate(tail):
        name, eq, value = word.partition("=")
        key = _OPTIONS.get(name)
        if key is None:
            continue
        if not eq:
            value = tail[i + 1] if i + 1 < len(tail) else ""
        values[key] = value
    model = model or values.pop("model", None)
    if not model or "$" in model:
        return None
    return request_of(model, values, env, base_dir)
