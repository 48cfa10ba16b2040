"""End to end through the CLI (click's CliRunner), with the real resolver.

The done-criteria of the verify issue: the bundled DeepEP-HT example passes under pr29558 with
PIECEWISE, fails with a clear reason with the default FULL_AND_PIECEWISE, releases capture
nothing, every control is caught; plus the documented exit codes for usage, config and missing
hardware, and the JSON record against its schema.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli

PIECEWISE = "examples/deepep-ht-dp8-piecewise.sh"
DEFAULT = "examples/deepep-ht-dp8.sh"


def invoke(*args):
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def piecewise_run(torch_threads, tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "piecewise.json"
    res = invoke(PIECEWISE, "--target", "pr29558", "--tier", "cpu", "--output", str(out))
    return res, json.loads(out.read_text())


@pytest.fixture(scope="module")
def default_run(torch_threads):
    res = invoke(DEFAULT, "--target", "pr29558", "--tier", "cpu", "--format", "json")
    return res, json.loads(res.stdout)


def statuses(record):
    return {(c["id"], c["graph"], c["metrics"].get("dtype")): c["status"] for c in record["checks"]}


def test_pr29558_piecewise_passes(piecewise_run):
    res, rec = piecewise_run
    assert res.exit_code == 0, res.output
    assert rec["outcome"]["status"] == "pass" and rec["outcome"]["exit_code"] == 0
    assert not any(c["status"] == "fail" for c in rec["checks"])
    ids = {c["id"] for c in rec["checks"] if c["status"] == "pass"}
    assert {"V1", "V2", "V3", "V4", "V5", "A1", "A2", "A3", "A4", "A5a", "A5b"} <= ids
    # V6 and V7 cannot fail, so they are information, never counted as passed checks
    assert {c["id"] for c in rec["checks"] if c["status"] == "info"} == {"V6", "V7"}
    a3 = [c for c in rec["checks"] if c["id"] == "A3"]
    assert all(c["metrics"]["relies_on_allocator_reuse"] for c in a3)
    assert "relies on allocator address reuse" in a3[0]["detail"]


def test_every_control_is_caught(piecewise_run):
    _, rec = piecewise_run
    controls = {c["id"]: c["status"] for c in rec["checks"] if c["id"].startswith("N")}
    assert controls == {f"N{i}": "expected-fail-observed" for i in range(8) if i != 4}  # N4 needs a GPU
    # the plan covers what cudagraph_mode captures, and verify tells check's story
    assert {c["id"]: c["status"] for c in rec["checks"] if c["id"] in ("P1", "P2")} == {"P1": "pass", "P2": "pass"}


def test_plan_and_pieces_are_printed_before_any_check(piecewise_run):
    res, rec = piecewise_run
    text = res.stdout
    assert text.index("Plan") < text.index("Pieces: 4 split call sites -> 9 pieces") < text.index("PASS V1")
    # 0.12.0 (the PR base) unpacks moe_forward_shared's tuple inside the MoE piece
    assert "shared_out from submod_7, fused_out from submod_7" in text and "tuple" not in text
    assert [p["captured"] for p in rec["plan"]["pieces"]] == [True, False] * 4 + [True]
    # coverage: the small sizes, and the middle and largest of the 51 planned sizes
    assert rec["plan"]["graphs_per_size"] == 5 and rec["plan"]["verified_sizes"] == [1, 2, 4, 8, 184, 512]
    assert len(rec["plan"]["unverified_sizes"]) == 45 and "NOT verified (45 of 51)" in text


def test_gloo_ranks_ran_in_lockstep(piecewise_run):
    _, rec = piecewise_run
    assert len(rec["ranks"]) == 2
    for rank in rec["ranks"]:
        replay = next(c for c in rank["checks"] if c["id"] == "A5b")
        assert replay["metrics"]["address_mismatches"] == 0 and replay["metrics"]["worst_level"] == "EXACT"


def test_default_full_and_piecewise_fails_with_a_clear_reason(default_run):
    res, rec = default_run
    assert res.exit_code == 1
    reason = rec["outcome"]["reason"]
    assert "FULL_AND_PIECEWISE" in reason and "DeepEP-HT dispatch" in reason
    s = statuses(rec)
    assert s[("V2", "full", None)] == "fail" and s[("V4", "full", None)] == "fail"
    # ... while the piecewise half is still checked, and holds
    assert s[("V4", "piecewise", None)] == "pass"
    assert s[("A3", "piecewise", "float32")] == "pass" and s[("A5b", None, None)] == "pass"
    # the FULL graph's run-time check fails on its own too: the emulated replay froze the HT
    # receive counts at capture and saw them change
    full = [c for c in rec["checks"] if c["id"] == "A3" and c["graph"] == "full"]
    assert [c["status"] for c in full] == ["fail", "fail"]
    assert all(c["metrics"]["frozen_changes"] > 0 for c in full)
    # one story: check reports VP301 for this config and verify's V2 fails (P2), and the plan
    # verifies both halves of FULL_AND_PIECEWISE (P1)
    p2 = next(c for c in rec["checks"] if c["id"] == "P2")
    assert p2["status"] == "pass" and p2["metrics"] == {"vp301": True, "v2_failed": True}
    assert s[("P1", None, None)] == "pass"


def test_json_mode_prints_only_the_record_and_it_validates(default_run):
    from vllm_preflight.verify.record import validate

    res, rec = default_run
    validate(rec)
    assert rec["schema"] == "vllm-preflight/verify-record/1" and rec["tier"] == "cpu"
    assert rec["input"]["target"] == "pr29558" and rec["input"]["resolved_digest"].startswith("sha256:")
    assert rec["environment"]["torch"] and rec["environment"]["deep_ep"]["installed"] in (True, False)
    assert "Plan" in res.stderr  # progress went to stderr


def test_release_captures_nothing():
    res = invoke(DEFAULT)
    assert res.exit_code == 0
    assert "nothing captured" in res.stdout and "DeepEP" in res.stdout


def test_capturable_backend_passes_with_full_and_piecewise(torch_threads):
    res = invoke("examples/verify-deepep-ll-dp8.sh", "--vllm-version", "0.13.0", "--format", "json")
    rec = json.loads(res.stdout)
    assert res.exit_code == 0, rec["outcome"]
    graphs = {c["graph"] for c in rec["checks"] if c["id"] == "A3" and c["status"] == "pass"}
    assert graphs == {"piecewise", "full"}


def test_mode_none_with_full_keeps_ht_inside_a_full_graph_and_fails(torch_threads):
    res = invoke("examples/verify-deepep-ht-mode-none-full.sh", "--vllm-version", "0.13.0")
    assert res.exit_code == 1
    # FULL at config time; 0.13.0's runner lowers it to FULL_DECODE_ONLY for the MLA backend
    # (UNIFORM_BATCH), which still captures a FULL decode graph around the HT dispatch
    assert "cudagraph_mode FULL_DECODE_ONLY captures a FULL graph" in res.stdout


def test_a_config_vllm_refuses_is_exit_2_with_vllms_reason(tmp_path):
    cfg = tmp_path / "bad.sh"
    cfg.write_text("vllm serve deepseek-ai/DeepSeek-V3 -cc.cudagraph_mode=SOMETIMES\n")
    res = invoke(str(cfg))
    assert res.exit_code == 2 and "would refuse to start" in res.stdout and "Traceback" not in res.output


def test_unreadable_input_is_exit_2_in_one_line(tmp_path):
    res = invoke(str(tmp_path / "missing.sh"))
    assert res.exit_code == 2
    assert "cannot read" in res.stdout and len(res.stdout.strip().splitlines()) == 1


def test_bad_version_is_a_usage_error():
    res = invoke(PIECEWISE, "--vllm-version", "0.1.0")
    assert res.exit_code == 2 and "unsupported --vllm-version" in res.output and "Traceback" not in res.output


def test_gpu_tier_without_a_gpu_is_exit_3_after_the_plan(torch_threads):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    res = invoke(PIECEWISE, "--target", "pr29558", "--tier", "gpu", "--format", "json")
    rec = json.loads(res.stdout)
    assert res.exit_code == 3 and rec["outcome"]["status"] == "unavailable"
    assert any("CUDA GPU" in m for m in rec["outcome"]["missing"])
    assert rec["plan"]["piecewise"] is True  # the CPU-side part ran


def test_multi_gpu_tier_names_what_is_missing(torch_threads):
    import torch

    if torch.cuda.device_count() >= 2:
        pytest.skip("GPUs are present")
    res = invoke(PIECEWISE, "--target", "pr29558", "--tier", "multi-gpu")
    assert res.exit_code == 3 and "deep_ep" in res.stdout and "2 CUDA GPUs" in res.stdout


def test_missing_torch_is_exit_3_with_what_to_install(monkeypatch):
    from vllm_preflight.verify import environment

    monkeypatch.setattr(environment, "torch_missing", lambda: ["torch"])
    res = invoke(PIECEWISE, "--target", "pr29558")
    assert res.exit_code == 3 and "missing torch" in res.stdout
    assert "pip install 'vllm-preflight[verify]'" in res.stdout and "internal error" not in res.stdout


def test_an_internal_error_is_exit_4_with_a_record(monkeypatch, tmp_path):
    from vllm_preflight.verify import runner

    def broken(resolved, version):
        raise KeyError("a bug")

    monkeypatch.setattr(runner, "plan_from_resolved", broken)
    out = tmp_path / "rec.json"
    res = invoke(PIECEWISE, "--target", "pr29558", "--output", str(out))
    rec = json.loads(out.read_text())
    assert res.exit_code == 4 and rec["outcome"]["status"] == "internal-error"
    assert "internal error in verify: KeyError" in res.stdout and "Traceback" not in res.output


def test_an_unwritable_output_fails_before_anything_runs(tmp_path):
    target = tmp_path / "no-such-dir" / "rec.json"
    res = invoke(PIECEWISE, "--target", "pr29558", "--output", str(target))
    assert res.exit_code == 2 and "cannot write there" in res.output
    assert "Plan" not in res.output  # nothing ran


def test_record_dir_gets_one_schema_valid_file_per_run(tmp_path):
    from vllm_preflight.verify.record import validate

    for _ in range(2):
        res = invoke(DEFAULT, "--record", str(tmp_path / "records"))
        assert res.exit_code == 0
    files = sorted((tmp_path / "records").glob("*.json"))
    assert len(files) == 2
    rec = json.loads(files[0].read_text())
    validate(rec)
    assert rec["date"].endswith("Z") and rec["outcome"]["status"] == "nothing-captured"
    assert rec["input"]["source"] == DEFAULT and rec["input"]["vllm_version"] == "0.33.0"
    assert {"device", "torch", "deep_ep"} <= set(rec["environment"])


def test_a_server_command_after_dashes_is_verified():
    res = invoke("--", "vllm", "serve", "deepseek-ai/DeepSeek-V3", "--data-parallel-size", "8",
                 "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput")
    assert res.exit_code == 0 and "nothing captured" in res.stdout


def test_several_servers_need_select_and_typos_get_a_suggestion():
    res = invoke("examples/kserve-dp-ep.yaml")
    assert res.exit_code == 2 and "--select" in res.stdout and "[1] 0:spec.worker.main" in res.stdout
    typo = invoke("examples/kserve-dp-ep.yaml", "--select", "spec.wroker.main")
    assert typo.exit_code == 2 and "did you mean '0:spec.worker.main'" in typo.output
    by_index = invoke("examples/kserve-dp-ep.yaml", "--select", "7")
    assert by_index.exit_code == 2 and "holds 2 deployment(s)" in by_index.output


def test_verify_command_and_package_import_no_torch():
    code = ("import sys, vllm_preflight.verify, vllm_preflight.verify.command, vllm_preflight.verify.runner;"
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_dp1_keeps_its_graphs_and_the_same_toy_passes(torch_threads, tmp_path):
    cfg = tmp_path / "dp1.sh"
    cfg.write_text("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput "
                   "--enable-expert-parallel\n")
    res = invoke(str(cfg), "--format", "json")
    rec = json.loads(res.stdout)
    assert res.exit_code == 0, rec["outcome"]
    assert rec["plan"]["moe_protocol"] == "capturable" and rec["plan"]["cudagraph_mode"] != "NONE"


def test_typos_in_choices_get_a_suggestion_and_an_unwritable_record_dir_is_a_usage_error(tmp_path):
    res = invoke(PIECEWISE, "--tier", "gpuu")
    assert res.exit_code == 2 and "Did you mean 'gpu'?" in res.output
    res = invoke(PIECEWISE, "--target", "pr2958")
    assert res.exit_code == 2 and "Did you mean 'pr29558'?" in res.output
    blocked = tmp_path / "file"
    blocked.write_text("")
    res = invoke(PIECEWISE, "--record", str(blocked / "records"))
    assert res.exit_code == 2 and "--record" in res.output and "Plan" not in res.output
