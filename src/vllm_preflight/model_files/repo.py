"""The small files of one model location - a folder, a cached snapshot, or a Hub repo - that
vLLM's config path reads and that can change a resolved setting or a refusal.

Which files (vLLM's transformers_utils/config.py, the same in 0.11.0-0.33.0 where not said):
- `config.json` (get_config; with its quantization_config, text_config, speculators config);
- `params.json`, the Mistral format's config (config_format "mistral", or "auto" on a repo
  with `consolidated*.safetensors` weights);
- `hf_quant_config.json` (ModelOpt up to 0.29 wrote its quantization config there; get_config
  reads it when config.json has no quantization_config);
- the first sentence-transformers config present (`sentence_bert_config.json`, ...):
  get_sentence_transformer_tokenizer_config, whose `max_seq_length` becomes the model's length;
- `tokenizer_config.json` (its `model_max_length` caps a pooling model with absolute position
  embeddings: ModelConfig.get_and_verify_max_len).
Never weights, never anything else. Each file is read bounded (`MAX_BYTES`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.model_files import cache

MAX_BYTES = 4 << 20  # as for every other input file (README, Limits)
CONFIG = "config.json"
PARAMS = "params.json"
QUANT = "hf_quant_config.json"
TOKENIZER = "tokenizer_config.json"
# get_sentence_transformer_tokenizer_config's names, in its order
SENTENCE = ("sentence_bert_config.json", "sentence_roberta_config.json", "sentence_distilbert_config.json",
            "sentence_camembert_config.json", "sentence_albert_config.json", "sentence_xlm-roberta_config.json",
            "sentence_xlnet_config.json")


@dataclass
class RepoFiles:
    """What one location gave: its files' JSON values by name, and where they came from."""

    origin: str  # "local" | "cache" | "hub" | "none"
    where: str  # the folder, `cache @ COMMIT` or `hub @ COMMIT`, for the `model` assumption
    files: dict[str, Any] = field(default_factory=dict)
    listed: frozenset[str] | None = None  # every file name there (None: not known, a cache)
    problem: tuple[str, str] | None = None  # (kind, text): why nothing (or not all) was read
    unreadable: dict[str, str] = field(default_factory=dict)  # local file -> why it is not usable

    @property
    def config(self) -> dict | None:
        cfg = self.files.get(CONFIG)
        return cfg if isinstance(cfg, dict) else None


def wanted(listed: frozenset[str], read: dict[str, Any]) -> list[str]:
    """The files to read next, given the names there and what is read: the config first, then
    what depends on it."""
    first = [n for n in (CONFIG, PARAMS) if n in listed]
    if CONFIG in listed and CONFIG not in read:
        return first
    cfg = read.get(CONFIG)
    out = list(first)
    if not (isinstance(cfg, dict) and cfg.get("quantization_config") is not None) and QUANT in listed:
        out.append(QUANT)
    out += [n for n in SENTENCE if n in listed][:1]
    # a tokenizer-only repo, or a BERT-like config: its tokenizer's length may cap the model
    if (not isinstance(cfg, dict) or cfg.get("position_embedding_type") == "absolute") and TOKENIZER in listed:
        out.append(TOKENIZER)
    return out


def _read(path: str) -> Any:
    """A small JSON file's value; a str saying why it is not used."""
    from vllm_preflight.errors import InputFailure
    from vllm_preflight.load.source import read_bytes

    try:
        data = read_bytes(path, limit=MAX_BYTES, what="a model file")
        return json.loads(data)
    except InputFailure as e:
        return e.error.message
    except RecursionError:
        return "JSON nested too deeply"
    except (OSError, ValueError) as e:
        return f"not readable as JSON ({type(e).__name__})"


def read_folder(path: str) -> RepoFiles:
    """A local model folder: the files that are there (a missing one is simply absent)."""
    out = RepoFiles("local", path)
    try:
        names = frozenset(os.listdir(path))
    except OSError:
        names = frozenset()
    out.listed = names
    for _ in range(3):  # config first, then what depends on it
        todo = [n for n in wanted(names, out.files) if n not in out.files and n not in out.unreadable]
        if not todo:
            break
        for n in todo:
            value = _read(os.path.join(path, n))
            if isinstance(value, str):
                out.unreadable[n] = value
            else:
                out.files[n] = value
    return out


def read_cache(cache_dir: str, repo_id: str, revision: str | None) -> RepoFiles | None:
    """A cached snapshot holding the model's config (config.json, or params.json); None when the
    cache does not have it. Other files not in the snapshot are taken as absent."""
    commit = cache.commit_of(cache_dir, repo_id, revision)
    if commit is None:
        return None
    found = {n: cache.cached_file(cache_dir, repo_id, n, revision) for n in (CONFIG, PARAMS)}
    if not any(isinstance(p, str) for p in found.values()):
        return None
    snapshot = os.path.join(cache.repo_folder(cache_dir, repo_id), "snapshots", commit)
    out = read_folder(snapshot)
    out.origin, out.where = "cache", f"cache @ {commit}"
    return out


def mistral_repo(listed: frozenset[str] | None) -> bool:
    """vLLM's is_mistral_model_repo: the repo holds `consolidated*.safetensors` weights."""
    return bool(listed) and any(n.startswith("consolidated") and n.endswith(".safetensors")
                                for n in (listed or ()))
