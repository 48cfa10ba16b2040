"""Fixtures: the loopback Hub (started and stopped per test module) and a prebuilt cache.
Test modules import them (`from hub_fixtures import online`): a conftest.py here would be one
more module named `conftest`, which other test folders import by that name."""
from __future__ import annotations

import pytest
from loopback_hub import LoopbackHub, hub_repos, write_cache


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
