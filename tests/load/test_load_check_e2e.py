"""`vllm-preflight check` over the bundled examples and fixtures: every server, resolved, placed."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import INPUTS, rel
from vllm_preflight.cli import cli


def check(*args):
    r = CliRunner().invoke(cli, ["check", "--format", "json", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r, json.loads(r.stdout)


def test_examples_folder_shows_every_format(in_root):
    r, out = check("examples")
    # exit 1: one example is there to show a hazard (a FULL graph around the DeepEP-HT dispatch,
    # which verify fails too); every other error-level finding would be a bug
    assert r.exit_code == 1, r.output
    errors = {(x["source"], f["rule"]) for x in out["results"] for f in x["findings"] if f["severity"] == "error"}
    assert errors == {("examples/verify-deepep-ht-mode-none-full.sh", "VP301")}
    assert "errors" not in out or out["errors"] == []
    sources = [x["source"] for x in out["results"]]
    assert set(sources) >= {
        "examples/README.md",  # markdown
        "examples/deepep-ht-dp8.sh",  # shell
        "examples/deepseek-v3.config.yaml",  # vLLM --config YAML
        "examples/kserve-dp-ep.yaml:0:spec.template.main",  # KServe
        "examples/kserve-dp-ep.yaml:0:spec.worker.main",
        "examples/qwen3-moe.preflight.yaml",  # deployment file
        "examples/wide-ep-lws.yaml:0:leaderWorkerTemplate.workerTemplate.vllm",  # Kubernetes LWS
        "examples/wide-ep-lws.yaml:1:leaderWorkerTemplate.workerTemplate.vllm",
    }
    import os

    files = {f"examples/{n}" for n in os.listdir("examples") if not n.startswith(".")}
    assert files == {s.split(":")[0] for s in sources}  # every example file holds a server
    for res in out["results"]:
        assert res["resolved"] is not None and res["vllm_error"] is None
        loc = res["location"]
        assert loc["file"] == res["source"].split(":")[0] and loc["line"] >= 1 and loc["column"] >= 1
        assert isinstance(res["findings"], list) and isinstance(res["depends_on"], list)
    by = {x["source"]: x for x in out["results"]}
    prefill = by["examples/wide-ep-lws.yaml:0:leaderWorkerTemplate.workerTemplate.vllm"]
    assert prefill["vllm_version"] == "0.22.1"  # from the image tag
    assert prefill["resolved"]["parallel_config"]["data_parallel_size"] == 16
    assert prefill["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"  # DeepEP-HT, DP>1
    decode = by["examples/wide-ep-lws.yaml:1:leaderWorkerTemplate.workerTemplate.vllm"]
    assert decode["resolved"]["compilation_config"]["cudagraph_mode"] != "NONE"
    kserve = by["examples/kserve-dp-ep.yaml:0:spec.template.main"]
    assert kserve["resolved"]["parallel_config"]["all2all_backend"] == "deepep_high_throughput"
    assert kserve["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"
    assert by["examples/qwen3-moe.preflight.yaml"]["vllm_version"] == "0.14.1"
    assert {"fact": "vllm_version", "value": "0.33.0"}.items() <= {**by["examples/deepep-ht-dp8.sh"]["assumptions"][0]}.items()


def test_the_issue2_command_still_works():
    r, out = check("--", "vllm", "serve", "deepseek-ai/DeepSeek-V3", "--all2all-backend", "deepep_high_throughput",
                   "-dp", "8", "--enable-expert-parallel")
    assert r.exit_code == 0
    [res] = out["results"]
    assert res["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"
    assert res["location"] is None and res["depends_on"] == []
    assert [f["rule"] for f in res["findings"]] == ["VP302"]  # graphs off: a warning, exit 0


def test_mixed_folder_with_a_bad_file_reports_it_and_checks_the_rest(in_root, tmp_path):
    import shutil

    shutil.copytree(INPUTS / "kubernetes", tmp_path / "k8s")
    (tmp_path / "k8s" / "broken.yaml").write_text("kind: [\n")
    r, out = check(str(tmp_path / "k8s"))
    assert r.exit_code == 2
    assert [e["source"] for e in out["errors"]] == [str(tmp_path / "k8s" / "broken.yaml")]
    assert len(out["results"]) == 11  # LWS 3, KServe 2, Helm 1, roles 2, Pod/Job/StatefulSet 3


def test_depends_on_names_variables_that_change_the_outcome(in_root):
    r, out = check(rel(INPUTS / "shell" / "wrappers-and-vars.sh"))
    [res] = out["results"]
    assert res["depends_on"] == ["A2A_BACKEND", "DP"]
    rules = [f["rule"] for f in res["findings"]]
    assert rules.count("VP103") == 2 and "VP111" in rules
    dp = [f for f in res["findings"] if f["rule"] == "VP103" and "depends on DP" in f["message"]][0]
    assert "cudagraph_mode is NONE" in dp["message"] and dp["location"]["line"] == 12
    facts = {a["fact"]: a for a in res["assumptions"]}
    assert facts["DP"]["value"] == 1 and facts["USER_FLAGS"]["value"] == ""
    # pinning the variables removes the question, and the outcome follows the pins
    r, out = check("--assume", "DP=8", "--assume", "A2A_BACKEND=deepep_high_throughput",
                   "--assume", "USER_FLAGS=", rel(INPUTS / "shell" / "wrappers-and-vars.sh"))
    [res] = out["results"]
    assert res["depends_on"] == [] and res["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"


def test_least_value_of_arithmetic_is_stated():
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "run.sh")
        with open(p, "w") as f:
            f.write("vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel "
                    "--all2all-backend deepep_high_throughput -dp $((NODES*8))\n")
        r, out = check(p)
    [res] = out["results"]
    assert res["resolved"]["parallel_config"]["data_parallel_size"] == 8
    assert res["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"
    assert res["depends_on"] == []  # every value NODES can take gives DP >= 8: same outcome
    a = [a for a in res["assumptions"] if a["fact"] == "NODES"][0]
    assert a["value"] == 1 and "at least 8" in a["source"]


def test_image_version_rules(in_root, tmp_path):
    r, out = check(rel(INPUTS / "kubernetes" / "pod-job-statefulset.yaml"))
    by = {x["source"].rsplit(":", 1)[-1]: x for x in out["results"]}
    sts = by["spec.template.vllm"]
    assert sts["vllm_version"] == "0.33.0"  # v0.40.0 is not modelled: the nearest supported release
    assert [f["rule"] for f in sts["findings"]] == ["VP105"]
    assert any(a["fact"] == "vllm_version" and "0.40.0" in a["source"] for a in sts["assumptions"])
    r, out = check("--vllm-version", "0.12.0", rel(INPUTS / "kubernetes" / "pod-job-statefulset.yaml"))
    pod = [x for x in out["results"] if x["source"].endswith(":0:spec.server")][0]
    assert pod["vllm_version"] == "0.12.0"
    [f] = [f for f in pod["findings"] if f["rule"] == "VP104"]
    assert "0.11.0" in f["message"] and f["location"]["line"] == 8


@pytest.mark.parametrize("fmt", ["shell", "kubernetes"])
def test_input_format_option(in_root, fmt):
    path = rel(INPUTS / ("shell/docker-run.sh" if fmt == "shell" else "kubernetes/disaggregated-roles.yaml"))
    r, out = check("--input-format", fmt, path)
    assert r.exit_code in (0, 1) and out["results"]


def test_symbols_take_the_domain_of_what_they_set(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel "
                 "--all2all-backend deepep_high_throughput -dp 8 -cc.cudagraph_mode=$MODE\n")
    r, out = check(str(p))
    [res] = out["results"]
    assert res["vllm_error"] is None  # never a refusal made up from an unknown value
    facts = {a["fact"]: a["value"] for a in res["assumptions"]}
    assert facts["MODE"] == "NONE"  # the first cudagraph_mode name of the release
    assert res["depends_on"] == ["MODE"]


def test_pr29558_target_notes_the_image_release(in_root):
    r, out = check("--target", "pr29558", rel(INPUTS / "kubernetes" / "disaggregated-roles.yaml"))
    for res in out["results"]:
        assert res["target"] == "pr29558" and res["vllm_version"] == "0.12.0"
        assert [f["rule"] for f in res["findings"]] == ["VP104"]
