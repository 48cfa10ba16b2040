"""Fixtures: the loopback Hub (started and stopped per test module) and a prebuilt cache."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hub_models import GATED, HUB_IDS
from loopback_hub import LoopbackHub, Repo, fixture_files, write_cache

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


@pytest.fixture(scope="module")
def hub():
    with LoopbackHub(hub_repos()) as h:
        yield h


@pytest.fixture
def online(hub, monkeypatch, tmp_path):
    """An online run against the loopback Hub, with an empty cache of its own."""
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("VLLM_PREFLIGHT_HUB_TIMEOUT", "5")
    hub.requests.clear()
    return hub


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A prebuilt hub cache (huggingface_hub's layout) holding every fixture model, offline."""
    folder = tmp_path / "hf-home" / "hub"
    for repo in hub_repos().values():
        if repo.mode == "ok" and not repo.sizes:
            write_cache(folder, repo)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return folder
