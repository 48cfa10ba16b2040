"""Issue 21, items 4-5: a suggested fix is clean only if it is clean of everything, else it says what
it trades; the PR #29558 block shows what-ifs, never the user's own errors."""
from __future__ import annotations

import json

from cli_support import run_check, work  # noqa: F401 - the `work` fixture

VP306_ON_020 = ["--vllm-version", "0.20.0", "--", "env", "VLLM_ALL2ALL_BACKEND=deepep_high_throughput",
                "vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel"]
HT = ["--", "vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel",
      "--all2all-backend", "deepep_high_throughput"]


def _finding(args, rule):
    doc = json.loads(run_check("--format", "json", "--offline", *args).out)
    return next(f for f in doc["results"][0]["findings"] if f["rule"] == rule)


def test_vp306_fix_on_0_20_0_says_it_trades_for_vp302():
    # the fix (the flag instead of the variable vLLM 0.16.0+ ignores) resolves to DeepEP
    # high-throughput, which turns graphs off: VP302, a warning as VP306 is, so it is not clean
    msg = _finding(VP306_ON_020, "VP306")["message"]
    assert "No clean fix found" in msg and "trades VP306 for VP302 (warning)" in msg
    assert "Fix (resolved" not in msg


def test_the_same_fix_is_clean_on_a_prefill_pool():
    # there VP302 is information, below VP306's warning: the fix is clean of everything at warning
    msg = _finding(["--role", "prefill", *VP306_ON_020], "VP306")["message"]
    assert "Fix (resolved on vLLM 0.20.0: cudagraph_mode NONE, no VP306 and no other finding at warning or above)" \
        in msg and "trades" not in msg


def test_a_clean_fix_names_its_check():
    msg = _finding(HT, "VP302")["message"]
    assert "no VP302 and no other finding at warning or above): `--all2all-backend deepep_low_latency`" in msg


def test_pr29558_block_is_a_what_if_with_exit_0():
    r = run_check("--offline", "--fail-on", "error", *HT)
    assert r.code == 0  # VP302 is a warning; the design's VP301 is not this deployment's
    lines = r.out.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("What if: the PR #29558 design"))
    block = lines[k:k + 4]
    assert any(line.startswith("  would be VP301 (error under that design) ") for line in block)
    assert not any(line.lstrip().startswith("error VP301") for line in lines)
    doc = json.loads(run_check("--format", "json", "--offline", *HT).out)
    pr = doc["results"][0]["pr29558"]
    assert pr["findings"] and all(f["what_if"] is True for f in pr["findings"])
    assert doc["summary"]["exit_code"] == 0
    assert "VP301" not in {f["rule"] for f in doc["results"][0]["findings"]}


def _pools_file(work, order):
    """Two Deployments with the same vLLM words and environment, told apart only by their role
    label: the fix resolutions one check shares between servers must not share their findings."""
    doc = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: pool-{role}}}
spec:
  template:
    metadata: {{labels: {{llm-d.ai/role: {role}}}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.0
          env: [{{name: VLLM_ALL2ALL_BACKEND, value: deepep_high_throughput}}]
          command: [vllm, serve, deepseek-ai/DeepSeek-V3, -dp, "8", --enable-expert-parallel]
"""
    work("pools.yaml", "---\n".join(doc.format(role=r) for r in order))


def test_fix_judgements_are_not_shared_between_a_prefill_and_a_decode_pool(work):
    for order in (("prefill", "decode"), ("decode", "prefill")):
        _pools_file(work, order)
        doc = json.loads(run_check("--format", "json", "--offline", "pools.yaml").out)
        by_role = {r["role"]["role"]: next(f for f in r["findings"] if f["rule"] == "VP306")["message"]
                   for r in doc["results"]}
        assert "No clean fix found" in by_role["decode"] and "trades VP306 for VP302" in by_role["decode"], order
        assert "Fix (resolved on vLLM 0.20.0" in by_role["prefill"] and "trades" not in by_role["prefill"], order
