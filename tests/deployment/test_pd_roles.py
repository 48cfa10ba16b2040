"""Issue 21, items 1-2: server roles read from the deployment, the rules that use them, and the one
server name every format and command shows. Assertions on `check --format json` (no snapshots)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli_support import ROOT, run_check, work  # noqa: F401 - the `work` fixture

EXAMPLES = ROOT / "examples"
PD_EXAMPLES = ("llm-d-wide-ep-pd.yaml", "kserve-pd.yaml", "disaggregatedset-pd.yaml")


def check_json(*args: str) -> tuple[int, dict]:
    r = run_check("--format", "json", "--offline", *args)
    return r.code, json.loads(r.out)


def by_role(doc: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in doc["results"]:
        out.setdefault(r["role"]["role"], []).append(r)
    return out


def rules(result: dict) -> dict[str, str]:
    return {f["rule"]: f["severity"] for f in result["findings"]}


# ---------------------------------------------------------------- the recommended setups pass
@pytest.mark.parametrize("name", PD_EXAMPLES)
def test_recommended_pd_example_passes_fail_on_warning(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, doc = check_json("--fail-on", "warning", f"examples/{name}")
    assert code == 0, [(r["name"], r["findings"]) for r in doc["results"]]
    roles = by_role(doc)
    assert set(roles) == {"prefill", "decode"}
    for r in roles["prefill"]:
        # graphs off on the prefill pool (DeepEP high-throughput) is information, and no fix moves
        # a prefill pool to decode kernels
        assert rules(r).get("VP302") == "info"
        vp302 = next(f for f in r["findings"] if f["rule"] == "VP302")
        assert "deepep_low_latency" not in vp302["message"]
        assert r["resolved"]["compilation_config"]["cudagraph_mode"] == "NONE"
    for r in roles["decode"]:
        assert "VP302" not in rules(r) and "VP305" not in rules(r)
        assert r["resolved"]["compilation_config"]["cudagraph_mode"] != "NONE"


def test_llm_d_example_shape(monkeypatch):
    """DP 16 over 2 nodes, decode on deepep_low_latency with FULL_DECODE_ONLY; roles from labels."""
    monkeypatch.chdir(ROOT)
    _code, doc = check_json("examples/llm-d-wide-ep-pd.yaml")
    roles = by_role(doc)
    dec, pre = roles["decode"][0], roles["prefill"][0]
    assert dec["resolved"]["parallel_config"]["data_parallel_size"] == 16
    assert dec["resolved"]["parallel_config"]["all2all_backend"] == "deepep_low_latency"
    assert dec["resolved"]["compilation_config"]["cudagraph_mode"] == "FULL_DECODE_ONLY"
    assert pre["resolved"]["parallel_config"]["all2all_backend"] == "deepep_high_throughput"
    assert pre["role"] == {"role": "prefill", "source": "label llm-d.ai/role: prefill"}
    assert dec["name"] == "examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-decode › vllm (decode)"


# ---------------------------------------------------------------- misconfigured variants fail
def _variant(tmp_path, name: str, *edits: tuple[str, str]) -> str:
    text = (EXAMPLES / name).read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    out = tmp_path / name
    out.write_text(text)
    return str(out)


def test_decode_pool_on_high_throughput_kernels_fails(tmp_path):
    path = _variant(tmp_path, "llm-d-wide-ep-pd.yaml",
                    ("--all2all-backend deepep_low_latency", "--all2all-backend deepep_high_throughput"))
    code, doc = check_json("--fail-on", "warning", path)
    assert code == 1
    dec = by_role(doc)["decode"][0]
    assert rules(dec)["VP302"] == "warning"
    assert "this decode pool runs eagerly" in next(f["message"] for f in dec["findings"] if f["rule"] == "VP302")


def test_pools_serving_different_models_fail_vp305(tmp_path):
    path = _variant(tmp_path, "llm-d-wide-ep-pd.yaml",
                    ("exec vllm serve deepseek-ai/DeepSeek-R1 \\\n                  --port 8000 \\\n"
                     "                  --enable-expert-parallel \\\n                  --all2all-backend deepep_low_latency",
                     "exec vllm serve deepseek-ai/DeepSeek-V3 \\\n                  --port 8000 \\\n"
                     "                  --enable-expert-parallel \\\n                  --all2all-backend deepep_low_latency"))
    code, doc = check_json("--fail-on", "warning", path)
    assert code == 1
    for r in doc["results"]:
        vp305 = [f["message"] for f in r["findings"] if f["rule"] == "VP305"]
        assert vp305 and "prefill and decode pools of one deployment" in vp305[0] and "model is" in vp305[0]


def test_pools_over_different_connectors_fail_vp305(tmp_path):
    path = _variant(tmp_path, "disaggregatedset-pd.yaml",
                    ('{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}',
                     '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'))
    code, doc = check_json("--fail-on", "warning", path)
    assert code == 1
    assert all("VP305" in rules(r) for r in doc["results"])
    assert any("kv_connector is NixlConnector here" in f["message"] for r in doc["results"] for f in r["findings"])


def test_nixl_tensor_parallel_sizes_that_do_not_divide_fail_vp305(tmp_path):
    # NixlConnector's handshake asserts that one pool's TP size divides the other's (tp_ratio)
    # (a model of 96 heads, so that vLLM itself takes TP 3 and TP 4)
    path = _variant(tmp_path, "disaggregatedset-pd.yaml", ('"-tp", "4", "-dp", "4"', '"-tp", "3", "-dp", "4"'))
    code, doc = check_json("--fail-on", "warning", "--assume", "model.num_attention_heads=96", path)
    assert code == 1
    msgs = [f["message"] for r in doc["results"] for f in r["findings"] if f["rule"] == "VP305"]
    assert len(msgs) == 2 and all("NixlConnector needs one to be a multiple of the other" in m for m in msgs)


def test_kv_role_against_the_pool_role_fails_vp305(tmp_path):
    path = _variant(tmp_path, "disaggregatedset-pd.yaml",
                    ('{"kv_connector":"NixlConnector","kv_role":"kv_producer"}',
                     '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'))
    code, doc = check_json("--fail-on", "warning", path)
    assert code == 1
    pre = by_role(doc)["prefill"][0]
    assert any("kv_role kv_consumer on a prefill pool (role prefill)" in f["message"] for f in pre["findings"])


def test_a_pool_without_the_connector_fails_vp305(tmp_path):
    path = _variant(tmp_path, "disaggregatedset-pd.yaml",
                    (',\n                     "--kv-transfer-config", \'{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}\']',
                     ']'))
    code, doc = check_json("--fail-on", "warning", path)
    assert code == 1
    dec = by_role(doc)["decode"][0]
    assert any("no --kv-transfer-config" in f["message"] for f in dec["findings"] if f["rule"] == "VP305")


def test_differing_all2all_and_graphs_between_pools_is_no_vp305(monkeypatch):
    """P/D pools may differ in all2all backend, DP size and CUDA-graph mode: that is the split."""
    monkeypatch.chdir(ROOT)
    _code, doc = check_json("examples/disaggregatedset-pd.yaml")
    assert not any("VP305" in rules(r) for r in doc["results"])


# ---------------------------------------------------------------- where the role comes from
HT = "vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel --all2all-backend deepep_high_throughput"


def test_role_option_makes_graphs_off_information(work):
    code, doc = check_json("--fail-on", "warning", "--", *HT.split())
    assert code == 1 and rules(doc["results"][0])["VP302"] == "warning"
    code, doc = check_json("--fail-on", "warning", "--role", "prefill", "--", *HT.split())
    assert code == 0
    r = doc["results"][0]
    assert r["role"] == {"role": "prefill", "source": "--role"} and rules(r)["VP302"] == "info"
    code, doc = check_json("--fail-on", "warning", "--role", "decode", "--", *HT.split())
    assert code == 1 and rules(doc["results"][0])["VP302"] == "warning"


def test_kv_producer_is_a_prefill_server(work):
    words = HT.split() + ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}']
    code, doc = check_json("--fail-on", "warning", "--", *words)
    r = doc["results"][0]
    assert code == 0 and r["role"]["role"] == "prefill" and "kv_producer" in r["role"]["source"]
    words[-1] = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    code, doc = check_json("--fail-on", "warning", "--", *words)
    assert code == 1 and doc["results"][0]["role"]["role"] == "both"


def test_preflight_file_role_key(work):
    work("p.preflight.yaml", f"vllm_version: 0.22.1\nrole: prefill\ncommand: {HT}\n")
    code, doc = check_json("--fail-on", "warning", "p.preflight.yaml")
    assert code == 0 and doc["results"][0]["role"] == {"role": "prefill", "source": "role: in p.preflight.yaml"}


def test_role_from_container_and_compose_service_names(work):
    work("c.yaml", "services:\n  vllm-prefill:\n    image: vllm/vllm-openai:v0.22.1\n"
                   f"    command: {HT.removeprefix('vllm serve ')}\n")
    code, doc = check_json("--fail-on", "warning", "c.yaml")
    r = doc["results"][0]
    assert code == 0 and r["role"]["role"] == "prefill" and r["name"] == "c.yaml › service vllm-prefill (prefill)"


def test_unknown_role_keeps_the_warning_and_advice(work):
    code, doc = check_json("--fail-on", "warning", "--", *HT.split())
    r = doc["results"][0]
    assert r["role"] == {"role": None, "source": ""} and r["name"] == HT  # a command line: its words
    vp302 = next(f for f in r["findings"] if f["rule"] == "VP302")
    assert "deepep_low_latency" in vp302["message"]


def test_vp301_fix_never_moves_a_prefill_pool_to_decode_kernels(work):
    words = HT.split() + ["-cc.cudagraph_mode=FULL_DECODE_ONLY"]
    _code, doc = check_json("--target", "pr29558", "--role", "prefill", "--", *words)
    msg = next(f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP301")
    assert "deepep_low_latency" not in msg and "PIECEWISE" in msg


# ---------------------------------------------------------------- one name in every format
def test_every_format_names_servers_the_same_way(monkeypatch):
    monkeypatch.chdir(ROOT)
    path = "examples/llm-d-wide-ep-pd.yaml"
    _code, doc = check_json(path)
    names = [r["name"] for r in doc["results"]]
    assert names == ["examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)",
                     "examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-decode › vllm (decode)"]
    text = run_check("--offline", path).out
    assert all(f"── {n} · vLLM 0.22.1" in text for n in names)
    concise = run_check("--offline", "--format", "concise", path).out
    assert all(f"[{n}]" in concise for n in names)
    sarif = json.loads(run_check("--offline", "--format", "sarif", path).out)
    assert {x["properties"]["serverName"] for x in sarif["runs"][0]["results"]} == set(names)
    junit = ET.fromstring(run_check("--offline", "--format", "junit", path).out)
    assert [c.get("name") for c in junit.iter("testcase")] == [
        f"{n} (line {r['location']['line']}) · vLLM 0.22.1" for n, r in zip(names, doc["results"])]
    github = run_check("--offline", "--format", "github", path).out
    assert "title=VP302 · examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)::" \
        in github


def test_matrix_names_servers_as_check_does(monkeypatch):
    from click.testing import CliRunner

    from vllm_preflight.cli import cli

    monkeypatch.chdir(ROOT)
    out = CliRunner().invoke(cli, ["matrix", "--offline", "--vllm-version", "0.22.1",
                                   "examples/llm-d-wide-ep-pd.yaml"]).output
    assert "examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)" in out
    assert "examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-decode › vllm (decode)" in out
    assert ":0:leaderWorkerTemplate" not in out


def test_prefill_pool_text_never_points_it_to_decode_kernels(monkeypatch):
    monkeypatch.chdir(ROOT)
    _code, doc = check_json("examples/llm-d-wide-ep-pd.yaml")
    pre = by_role(doc)["prefill"][0]
    assert pre["summary"]["hazards"] == 0  # information is no hazard
    text = run_check("--offline", "examples/llm-d-wide-ep-pd.yaml").out
    block = text.split("── ")[1]
    assert "as intended for this prefill pool" in block
    # only vLLM's own log line (quoted in "Why") names the low-latency kernels
    assert [line for line in block.splitlines() if "deepep_low_latency" in line and "DeepEP: Disabling" not in line] \
        == []


def test_role_in_name_reads_words_not_substrings():
    from vllm_preflight.identity import role_in_name

    assert role_in_name("wide-ep-prefill") == "prefill" and role_in_name("vllm_decode") == "decode"
    assert role_in_name("DecodePool".replace("Pool", "-pool")) == "decode"
    assert role_in_name("prefilled") is None and role_in_name("decoder") is None
    assert role_in_name("prefill-decode") is None  # says both: says nothing
    assert role_in_name("vllm") is None


def test_several_servers_of_one_script_are_named_by_line(work):
    work("two.sh", "vllm serve Qwen/Qwen3-0.6B --port 8000 &\n"
                   "vllm serve Qwen/Qwen3-0.6B --port 8001 --kv-transfer-config "
                   "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}'\n")
    _code, doc = check_json("two.sh")
    assert [r["name"] for r in doc["results"]] == ["two.sh › line 1", "two.sh › line 2 (decode)"]


def test_kserve_pd_names_and_roles(monkeypatch):
    monkeypatch.chdir(ROOT)
    _code, doc = check_json("examples/kserve-pd.yaml")
    base = "examples/kserve-pd.yaml › LLMInferenceService/deepseek-v3-pd › "
    assert [(r["name"], r["role"]["source"]) for r in doc["results"]] == [
        (base + "leader › main (decode)", "KServe: the main workload of a service with spec.prefill"),
        (base + "worker › main (decode)", "KServe: the main workload of a service with spec.prefill"),
        (base + "prefill › leader › main (prefill)", "spec.prefill"),
        (base + "prefill › worker › main (prefill)", "spec.prefill")]


def test_llm_d_modelservice_sections_are_roles(monkeypatch):
    monkeypatch.chdir(ROOT)
    code, doc = check_json("--fail-on", "warning", "tests/deployment/data/llm-d-modelservice-pd.yaml")
    assert code == 0
    assert [(r["role"]["role"], r["role"]["source"]) for r in doc["results"]] == [("decode", "spec.decode"),
                                                                               ("prefill", "spec.prefill")]
    assert rules(by_role(doc)["prefill"][0]) == {"VP302": "info"}
