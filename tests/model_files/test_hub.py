"""Model files from the Hugging Face cache and the Hub (a loopback Hub; no network), through
`check`, `matrix` and folders: where each fact came from, and every failure one finding."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hub_fixtures import cache, hub, online  # noqa: F401 - fixtures
from hub_models import HUB_IDS

from vllm_preflight.cli import cli

ROOT = Path(__file__).resolve().parents[2]
HUB_FIXTURES = ROOT / "tests" / "fixtures" / "hub"


def _check(*words: str, options: tuple[str, ...] = ()) -> dict:
    out = CliRunner().invoke(cli, ["check", "--format", "json", *options, "--", "vllm", "serve", *words])
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.stdout)


def _model(result: dict) -> str:
    return next(a["source"] for a in result["assumptions"] if a["fact"] == "model")


def _fact(result: dict, fact: str):
    return next((a for a in result["assumptions"] if a["fact"] == fact), None)


def _rules(result: dict) -> list[str]:
    return [f["rule"] for f in result["findings"]]


def _info_calls(hub, repo_id: str) -> int:
    return sum(1 for m, p in hub.requests if m == "GET" and p.startswith(f"/api/models/{repo_id}"))


def test_hub_fetch_reads_the_small_files_and_says_from_where(online):
    res = _check("deepseek-ai/DeepSeek-R1", "-dp", "8", "--enable-expert-parallel")["results"][0]
    where = _model(res)
    assert "hub @ " in where and "config.json" in where and online.url in where
    assert res["vllm_error"] is None and "VP130" not in _rules(res)
    # an MoE model read from its config: no dense/MoE guess, nothing under depends_on for it
    assert _fact(res, "model.is_moe") is None and "model.is_moe" not in res["depends_on"]
    files = {p.rsplit("/", 1)[1] for m, p in online.requests if "/resolve/" in p}
    assert files == {"config.json"}  # never weights, never anything not needed


def test_hf_quant_config_is_read_as_vllm_does(online, tmp_path):
    """ModelOpt's hf_quant_config.json becomes the quantization_config of a config.json without
    one (get_config): `--quantization modelopt_fp4` then finds its config; without the file
    vLLM refuses (no config file for modelopt_fp4)."""
    res = _check(HUB_IDS["modelopt-fp4-moe"], "--quantization", "modelopt_fp4")["results"][0]
    assert "hf_quant_config.json" in _model(res) and res["vllm_error"] is None
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "config.json").write_bytes((HUB_FIXTURES / "modelopt-fp4-moe" / "config.json").read_bytes())
    refused = _check(str(bare), "--quantization", "modelopt_fp4")["results"][0]
    assert refused["vllm_error"] is not None and "modelopt_fp4" in refused["vllm_error"]["message"]


def test_sentence_transformers_length_caps_a_pooling_model(online):
    res = _check(HUB_IDS["all-minilm-l6-v2"], "--max-model-len", "300")["results"][0]
    assert "sentence_bert_config.json" in _model(res)
    assert res["vllm_error"] is not None and "max_model_len (300)" in res["vllm_error"]["message"]
    assert _check(HUB_IDS["all-minilm-l6-v2"], "--max-model-len", "256")["results"][0]["vllm_error"] is None


def test_revision_pinning(online):
    pinned = _check("preflight-fixtures/pinned", "--revision", "v1")["results"][0]
    main = _check("preflight-fixtures/pinned")["results"][0]
    v1_commit = _model(pinned).split("hub @ ")[1].split()[0]
    assert v1_commit != _model(main).split("hub @ ")[1].split()[0]
    assert any(p.startswith("/api/models/preflight-fixtures/pinned/revision/v1") for _, p in online.requests)
    # v1 holds a dense model, main an MoE one: expert parallelism is refused only on v1
    ep = ("-dp", "2", "--enable-expert-parallel")
    assert _check("preflight-fixtures/pinned", "--revision", "v1", *ep)["results"][0]["vllm_error"] is not None
    assert _check("preflight-fixtures/pinned", *ep)["results"][0]["vllm_error"] is None


def test_gated_repo_is_one_finding_and_the_table_is_used(online):
    res = _check("meta-llama/Llama-3.3-70B-Instruct")["results"][0]
    found = [f for f in res["findings"] if f["rule"] == "VP130"]
    assert len(found) == 1 and "gated" in found[0]["message"] and "401" in found[0]["message"]
    assert "built-in table" in found[0]["message"]
    assert "table of well-known hub models" in _model(res) and res["resolved"] is not None


def test_missing_repo_is_one_finding_and_a_stated_guess(online):
    res = _check("nobody/no-such-model")["results"][0]
    found = [f for f in res["findings"] if f["rule"] == "VP130"]
    assert len(found) == 1 and "not found" in found[0]["message"] and "404" in found[0]["message"]
    assert _fact(res, "model.is_moe")["value"] is False  # the stated guess, with its other outcome checked


def test_a_hub_that_never_answers_ends_within_the_timeout(online, monkeypatch):
    monkeypatch.setenv("VLLM_PREFLIGHT_HUB_TIMEOUT", "1.5")
    start = time.monotonic()
    res = _check("preflight-fixtures/never-answers")["results"][0]
    took = time.monotonic() - start
    assert took < 1.5 + 5, took  # the timeout, plus resolving (never huggingface_hub's own retries)
    assert any(f["rule"] == "VP130" and "no answer" in f["message"] for f in res["findings"])


def test_a_50_mib_config_is_refused_by_its_size(online):
    res = _check("preflight-fixtures/huge-config")["results"][0]
    assert any(f["rule"] == "VP130" and "50.0 MiB" in f["message"] for f in res["findings"])
    assert not [p for m, p in online.requests if "/resolve/" in p]  # never downloaded


def test_no_network_is_one_finding(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    res = _check("Qwen/Qwen3-8B")["results"][0]
    assert any(f["rule"] == "VP130" and "could not reach" in f["message"] for f in res["findings"])
    assert "table of well-known" in _model(res)


def test_offline_flag_never_asks_the_hub(online):
    res = _check("deepseek-ai/DeepSeek-R1", options=("--offline",))["results"][0]
    assert online.requests == [] and "table of well-known" in _model(res) and "VP130" not in _rules(res)


def test_cache_hit_offline(cache, hub):
    hub.requests.clear()
    res = _check("Qwen/Qwen3-30B-A3B-GPTQ-Int4")["results"][0]
    assert "cache @ " in _model(res) and hub.requests == []
    assert _fact(res, "model.is_moe") is None  # read, not guessed


def test_cache_revision_and_uncached_model_offline(cache):
    assert "cache @ " in _model(_check("preflight-fixtures/pinned", "--revision", "v1")["results"][0])
    res = _check("nobody/not-cached")["results"][0]
    assert "VP130" not in _rules(res) and "unknown model" in _fact(res, "model.is_moe")["source"]


def test_folders_and_matrix_fetch_each_model_once(online, tmp_path):
    folder = tmp_path / "deploy"
    folder.mkdir()
    for i in range(6):
        model = ("deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-8B")[i % 2]
        (folder / f"s{i}.sh").write_text(f"vllm serve {model} -tp {1 + i % 2}\n")
    out = CliRunner().invoke(cli, ["check", "--format", "json", str(folder)])
    data = json.loads(out.stdout)
    assert len(data["results"]) == 6 and all("hub @ " in _model(r) for r in data["results"])
    assert _info_calls(online, "deepseek-ai/DeepSeek-R1") == 1 and _info_calls(online, "Qwen/Qwen3-8B") == 1
    online.requests.clear()
    out = CliRunner().invoke(cli, ["matrix", "--vllm-version", "0.12.0,0.20.0,0.33.0", "--format", "json",
                                   str(folder / "s0.sh")])
    assert out.exit_code == 0, out.output
    assert _info_calls(online, "deepseek-ai/DeepSeek-R1") == 1


def test_same_facts_from_the_hub_the_cache_and_a_local_folder(online, tmp_path, monkeypatch):
    """The three ways to one config give one resolution."""
    words = ("-dp", "8", "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput")
    hub = _check(HUB_IDS["ct-nvfp4-moe"], *words)["results"][0]
    local = _check(str(HUB_FIXTURES / "ct-nvfp4-moe"), *words)["results"][0]
    assert hub["resolved"] == local["resolved"] and hub["vllm_error"] == local["vllm_error"]


def test_check_on_a_local_folder_does_not_import_huggingface_hub(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("HF_HUB_OFFLINE", None)  # even online: a folder needs no Hub
    for model in (str(HUB_FIXTURES / "qwen3-8b"),):
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "vllm_preflight.cli", "check", "--format",
                            "json", "--", "vllm", "serve", model], capture_output=True, text=True, env=env, check=False)
        assert p.returncode in (0, 1), p.stderr[-500:]
        assert "huggingface_hub" not in p.stderr and "httpx" not in p.stderr


def test_check_on_a_cached_model_does_not_import_huggingface_hub(tmp_path):
    from loopback_hub import hub_repos, write_cache

    write_cache(tmp_path / "hub", hub_repos()["Qwen/Qwen3-8B"])
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_HUB_CACHE": str(tmp_path / "hub")}
    env.pop("HF_HUB_OFFLINE", None)
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "vllm_preflight.cli", "check", "--format", "json",
                        "--", "vllm", "serve", "Qwen/Qwen3-8B"], capture_output=True, text=True, env=env, check=False)
    assert "cache @ " in json.loads(p.stdout)["results"][0]["assumptions"][1]["source"] or "cache @ " in p.stdout
    assert "huggingface_hub" not in p.stderr and "httpx" not in p.stderr


@pytest.mark.parametrize("flag", ["--offline"])
def test_matrix_accepts_offline(flag, online):
    out = CliRunner().invoke(cli, ["matrix", "--vllm-version", "0.33.0", flag, "--", "vllm", "serve",
                                   "deepseek-ai/DeepSeek-R1"])
    assert out.exit_code == 0 and online.requests == []


def test_an_unreadable_cached_config_is_one_finding(tmp_path, monkeypatch):
    from loopback_hub import Repo, write_cache

    broken = Repo("org/broken")
    broken.add({"config.json": b"{not json"})
    write_cache(tmp_path / "hub", broken)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    res = _check("org/broken")["results"][0]
    found = [f for f in res["findings"] if f["rule"] == "VP130"]
    assert len(found) == 1 and "not readable as JSON" in found[0]["message"] and "{not json" not in found[0]["message"]


def test_no_network_on_the_kserve_example_is_information_not_a_warning(monkeypatch, tmp_path):
    """KServe states first where the model came from (its storage URI), then the resolver takes the
    table's facts: VP130 is info, so the recommended P/D setup still passes --fail-on warning with
    no Hub (as on a CI runner that cannot reach it)."""
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    root = Path(__file__).resolve().parents[2]
    out = CliRunner().invoke(cli, ["check", "--format", "json", "--fail-on", "warning",
                                   str(root / "examples" / "kserve-pd.yaml")])
    found = [f for r in json.loads(out.output)["results"] for f in r["findings"] if f["rule"] == "VP130"]
    assert found and {f["severity"] for f in found} == {"info"}
    assert out.exit_code == 0
