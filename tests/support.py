"""Helpers shared by the loader and schema tests (their conftests re-export them)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INPUTS = ROOT / "tests" / "fixtures" / "inputs"
EXAMPLES = ROOT / "examples"


def recorded(version: str) -> bool:
    """Whether the release data for a version was recorded (not borrowed from a neighbour)."""
    from vllm_preflight import releases

    return version in releases._facts_data() and version in releases._options_data()


@pytest.fixture
def inputs() -> Path:
    return INPUTS


@pytest.fixture
def in_root(monkeypatch):
    """Run with the repository root as working directory (sources are paths as given)."""
    monkeypatch.chdir(ROOT)
    return ROOT


def by_source(deployments) -> dict:
    return {d.source: d for d in deployments}


def rel(path: Path) -> str:
    return os.path.relpath(path, ROOT)
