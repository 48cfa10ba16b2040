"""The node's own vLLM, where it is importable: the config stage (R1), its split_graph (S1) and
its CUDA-graph wrapper (G4), run against a small fake `vllm` package (tests/verify/fake_vllm)
that exposes the same entry points. This proves verify's feature detection, calling convention
and comparison (and that each can fail); the real vLLM on a GPU node is the dev-only check
recorded in the verify README."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from vllm_preflight.verify import node_vllm

FAKE = Path(__file__).parent / "fake_vllm"
HT = "examples/deepep-ht-dp8.sh"


def _forget_vllm():
    for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
        del sys.modules[name]


@pytest.fixture
def fake_vllm(monkeypatch):
    """The fake on sys.path (this process) and PYTHONPATH (children), removed afterwards."""
    _forget_vllm()
    monkeypatch.syspath_prepend(str(FAKE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKE)] + [p for p in os.environ.get("PYTHONPATH", "")
                                                                      .split(os.pathsep) if p]))
    yield node_vllm.detect()
    _forget_vllm()


def test_without_vllm_nothing_is_detected_and_r1_says_so():
    node = node_vllm.detect()
    if node.installed:
        pytest.skip("a vLLM is installed here")
    check = node_vllm.config_check(node, True, None, None, None)
    assert check.status == "skip" and "not importable" in check.detail


def test_the_fake_is_detected_as_a_release_without_importing_it(fake_vllm):
    assert fake_vllm == node_vllm.NodeVllm(True, "0.13.0", "0.13.0", "")
    assert "vllm" not in sys.modules


@pytest.mark.parametrize("version, release, words", [
    ("0.13.0+cu128", "0.13.0", "local build +cu128"),
    ("0.14.0rc2.dev34+gabc123", "0.14.0", "release candidate"),
    ("0.12.0.post1", "0.12.0", "post-release"),
    ("0.99.1", "0.33.0", "nearest supported"),
])
def test_dev_and_vendor_builds_are_compared_as_check_maps_them(version, release, words):
    got, mapping = node_vllm.release_for(version)
    assert got == release and words in mapping


def test_serve_words_become_the_server_parsers():
    assert node_vllm.server_args(("vllm", "serve", "org/m", "-dp", "8")) == ("serve", ["--model", "org/m", "-dp", "8"])
    assert node_vllm.server_args(("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m")) == \
        ("api_server", ["--model", "m"])


def _port(version="0.13.0"):
    from vllm_preflight.api import check_inputs

    res = check_inputs([HT], vllm_version=version).results[0]
    return res, res.resolved


def _answer(tmp_path, monkeypatch, resolved=None, error=None) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps({"resolved": resolved, "error": error}))
    monkeypatch.setenv("FAKE_VLLM_ANSWER", str(path))


def _r1(fake, res, gpu_here=True):
    return node_vllm.config_check(fake, gpu_here, node_vllm.run_config_child, lambda release: _port(release)[0],
                                  res.deployment)


def test_r1_passes_when_the_nodes_vllm_resolves_what_the_port_predicts(fake_vllm, tmp_path, monkeypatch):
    res, resolved = _port()
    _answer(tmp_path, monkeypatch, {k: resolved[k] for k in node_vllm.COMPARED_SECTIONS})
    check = _r1(fake_vllm, res)
    assert check.status == "pass", check.detail
    assert check.metrics["differences"] == 0 and check.metrics["settings"] > 20


def test_r1_fails_naming_the_one_setting_the_nodes_vllm_resolves_differently(fake_vllm, tmp_path, monkeypatch):
    res, resolved = _port()
    answer = json.loads(json.dumps({k: resolved[k] for k in node_vllm.COMPARED_SECTIONS}))
    answer["compilation_config"]["cudagraph_mode"] = "FULL_AND_PIECEWISE"  # the port said NONE
    _answer(tmp_path, monkeypatch, answer)
    check = _r1(fake_vllm, res)
    assert check.status == "fail" and check.metrics["differences"] == 1
    assert "compilation_config.cudagraph_mode: port \"NONE\", vLLM \"FULL_AND_PIECEWISE\"" in check.detail


def test_r1_fails_when_the_nodes_vllm_refuses_what_the_port_accepts(fake_vllm, tmp_path, monkeypatch):
    res, _ = _port()
    _answer(tmp_path, monkeypatch, error="ValueError: DeepEP needs something the port did not know")
    check = _r1(fake_vllm, res)
    assert check.status == "fail" and "refuses the config the port accepts" in check.detail


def test_r1_cannot_run_without_the_model_or_a_gpu(fake_vllm, tmp_path, monkeypatch):
    res, _ = _port()
    _answer(tmp_path, monkeypatch, error="OSError: We couldn't connect to the Hub")
    assert _r1(fake_vllm, res).status == "skip"
    no_gpu = _r1(fake_vllm, res, gpu_here=False)
    assert no_gpu.status == "skip" and "no CUDA GPU" in no_gpu.detail and "emulates nothing" in no_gpu.detail


def test_the_cli_reports_the_config_stage_and_the_nodes_vllm(fake_vllm, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from vllm_preflight.cli import cli
    from vllm_preflight.verify import environment

    monkeypatch.setattr(environment, "cuda_devices", lambda: (0, "no CUDA device visible"))
    out = tmp_path / "rec.json"
    res = CliRunner().invoke(cli, ["verify", HT, "--output", str(out)], catch_exceptions=False)
    rec = json.loads(out.read_text())
    assert res.exit_code == 0 and rec["environment"]["vllm"]["version"] == "0.13.0"
    r1 = next(c for c in rec["checks"] if c["id"] == "R1")
    assert r1["status"] == "skip" and "no CUDA GPU" in r1["detail"]
    off = CliRunner().invoke(cli, ["verify", HT, "--node-vllm", "off", "--output", str(out)], catch_exceptions=False)
    assert off.exit_code == 0 and json.loads(out.read_text())["environment"]["vllm"]["installed"] is False


torch_required = pytest.mark.usefixtures("torch_threads")


@torch_required
@pytest.mark.parametrize("plant, status", [(None, "pass"), ("no-getitem", "fail")])
def test_s1_splits_the_toy_with_the_nodes_split_graph(fake_vllm, ht_bench, monkeypatch, plant, status):
    from vllm_preflight.verify.node_split import split_check

    if plant:
        monkeypatch.setenv("FAKE_VLLM_SPLIT", plant)
    check = split_check(ht_bench, fake_vllm)
    assert check.status == status, check.detail
    assert "names as strings (splitting_ops)" in check.detail
    if plant:
        assert "holds other calls" in check.detail and "getitem" in check.detail


@torch_required
@pytest.mark.parametrize("stale, status", [(False, "pass"), (True, "fail")])
def test_g4_captures_verifys_pieces_with_the_nodes_wrapper(fake_vllm, dense_bench, monkeypatch, stale, status):
    import torch
    import vllm.compilation.cuda_graph as fake_wrapper  # the fake, on sys.path through the fixture
    from cuda_standin import FakeCuda

    from vllm_preflight.verify.tiers.gpu import vllm_wrapper_check

    monkeypatch.setattr(fake_wrapper, "CUDA", FakeCuda())
    monkeypatch.setattr(fake_wrapper, "REPLAY_STALE", stale)
    bench = dense_bench  # a capturable MoE: the cheapest toy to capture
    check = vllm_wrapper_check(bench.model, bench.sg, [1, 2], torch.device("cpu"), fake_vllm)
    assert check.status == status, check.detail
    assert check.metrics["address_mismatches"] == 0 and check.metrics["address_checks"] > 0
