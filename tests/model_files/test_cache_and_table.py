"""The cache reader answers as huggingface_hub's own try_to_load_from_cache does, and the built-in
table (the offline fallback) holds, key for key, what the recorded published config.json files say."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hub_models import TABLE_RECORDED
from loopback_hub import Repo, write_cache

from vllm_preflight.model_files import cache

HUB_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hub"
TABLE = Path(__file__).resolve().parents[2] / "src" / "vllm_preflight" / "releases" / "data" / "models.json"


@pytest.fixture
def layout(tmp_path) -> Path:
    folder = tmp_path / "hub"
    r = Repo("org/model")
    r.add({"config.json": b"{}", "tokenizer_config.json": b"{}"}, ref="main")
    r.add({"config.json": b'{"a": 1}'}, ref="v1")
    write_cache(folder, r)
    repo = folder / "models--org--model"
    v1 = r.refs["v1"]
    (repo / ".no_exist" / v1).mkdir(parents=True)
    (repo / ".no_exist" / v1 / "hf_quant_config.json").write_text("")
    (repo / "refs" / "dangling").write_text("f" * 40)  # a ref whose snapshot is gone
    write_cache(folder, Repo("solo"))  # a repo id without an organisation, nothing cached
    return folder


CASES = [(repo, name, rev) for repo in ("org/model", "solo", "org/absent")
         for name in ("config.json", "tokenizer_config.json", "hf_quant_config.json")
         for rev in (None, "main", "v1", "dangling", "no-such-ref")]


@pytest.mark.parametrize("repo,name,rev", CASES)
def test_cache_reader_equals_huggingface_hub(layout, repo, name, rev):
    from huggingface_hub import try_to_load_from_cache
    from huggingface_hub.file_download import _CACHED_NO_EXIST

    theirs = try_to_load_from_cache(repo, name, cache_dir=str(layout), revision=rev)
    ours = cache.cached_file(str(layout), repo, name, rev)
    assert (ours is cache.NO_EXIST) == (theirs is _CACHED_NO_EXIST)
    assert (ours if isinstance(ours, str) else None) == (theirs if isinstance(theirs, str) else None)


def test_cache_reader_by_commit_and_outside_the_repo(layout):
    commit = (layout / "models--org--model" / "refs" / "v1").read_text()
    assert cache.cached_file(str(layout), "org/model", "config.json", commit).endswith("config.json")
    # a revision from the input never leads outside the repo's folders
    assert cache.commit_of(str(layout), "org/model", "../../../etc") is None
    assert cache.commit_of(str(layout), "org/model", "/etc/passwd") is None


def _kept(table_value, file_value) -> bool:
    """The table keeps a config's keys the resolver reads: a nested object may keep some of its keys."""
    if isinstance(table_value, dict) and isinstance(file_value, dict):
        return all(_kept(v, file_value.get(k, "(absent)")) for k, v in table_value.items())
    return table_value == file_value


@pytest.mark.parametrize("hub_id", sorted(TABLE_RECORDED))
def test_table_entry_equals_the_recorded_config(hub_id):
    entry = json.loads(TABLE.read_text())["models"][hub_id]["config"]
    recorded = json.loads((HUB_FIXTURES / TABLE_RECORDED[hub_id] / "config.json").read_text())
    differs = {k: (v, recorded.get(k, "(absent)")) for k, v in entry.items() if not _kept(v, recorded.get(k, "(absent)"))}
    assert not differs, f"{hub_id}: the table says, the published file says: {differs}"


def test_recorded_fixtures_say_where_they_come_from():
    for folder in sorted(p for p in HUB_FIXTURES.iterdir() if p.is_dir()):
        source = (folder / "SOURCE.md").read_text()
        assert "Recorded" in source or "project-made" in source, folder.name
        assert os.listdir(folder)
