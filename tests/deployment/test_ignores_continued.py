"""Issue 21, item 3: ignores on continued lines and on Kubernetes resources; `\\ #` is VP101."""
from __future__ import annotations

import json

from cli_support import run_check, work  # noqa: F401 - the `work` fixture

CMD = ("vllm serve deepseek-ai/DeepSeek-V3 \\\n  --data-parallel-size 8 --enable-expert-parallel \\\n"
       "  --all2all-backend deepep_high_throughput\n")


def check(*args):
    r = run_check("--format", "json", "--offline", *args)
    return r.code, json.loads(r.out)


def findings(doc, k=0):
    return [(f["rule"], f["severity"], (f["location"] or {}).get("line")) for f in doc["results"][k]["findings"]]


def test_ignore_on_a_line_of_its_own_covers_the_next_command(work):
    work("a.sh", "# vllm-preflight: ignore[VP302]\n" + CMD)
    code, doc = check("--fail-on", "warning", "a.sh")
    assert code == 0 and findings(doc) == [] and doc["summary"]["ignored"] == 1


def test_backslash_space_hash_is_vp101_naming_where_the_command_ends(work):
    work("b.sh", "vllm serve deepseek-ai/DeepSeek-V3 \\\n"
                 "  --all2all-backend deepep_high_throughput \\ # vllm-preflight: ignore[VP302]\n"
                 "  --data-parallel-size 8 --enable-expert-parallel\n")
    code, doc = check("b.sh")
    assert code == 1
    got = findings(doc)
    assert ("VP101", "error", 2) in got
    rules = [g[0] for g in got]
    # no invisible "unrecognized arguments" refusal, and the glued `# vllm-preflight:` is no ignore
    assert "VP300" not in rules and "VP390" not in rules
    msg = next(f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP101")
    assert "really ends at line 2" in msg and "' #'" in msg
    assert "`--data-parallel-size 8 --enable-expert-parallel` (line 3) runs as a separate command" in msg
    assert doc["results"][0]["resolved"]["parallel_config"]["data_parallel_size"] == 1


def test_a_space_after_the_backslash_is_vp101(work):
    work("c.sh", "vllm serve Qwen/Qwen3-0.6B \\ \n  --max-model-len 4096\n")
    code, doc = check("c.sh")
    assert code == 1 and findings(doc) == [("VP101", "error", 1)]
    assert "a space follows this `\\`" in doc["results"][0]["findings"][0]["message"]


def test_a_real_comment_after_an_escaped_space_still_ignores(work):
    # `\  # ...`: the escaped space is its own word (VP101), and the `#` after a plain space is a comment
    work("d.sh", "vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --max-model-len 8192 \\  "
                 "# vllm-preflight: ignore[VP108]\n")
    _code, doc = check("d.sh")
    assert [g[0] for g in findings(doc)] == ["VP101"]


POD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: ht
  {resource_ann}
spec:
  template:
    metadata:
      {pod_ann}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.22.1
          args: ["deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel",
                 "--all2all-backend", "deepep_high_throughput"]
"""


def _pod(resource_ann: str = "labels: {}", pod_ann: str = "labels: {}") -> str:
    return POD.format(resource_ann=resource_ann, pod_ann=pod_ann)


def test_annotation_on_the_resource_silences_its_servers(work):
    work("p.yaml", _pod())
    code, _doc = check("--fail-on", "warning", "p.yaml")
    assert code == 1
    work("p.yaml", _pod(resource_ann='annotations: {"vllm-preflight.io/ignore": "VP302"}'))
    code, doc = check("--fail-on", "warning", "p.yaml")
    assert code == 0 and "VP302" not in [g[0] for g in findings(doc)] and doc["summary"]["ignored"] == 1


def test_annotation_on_the_pod_template_silences_too(work):
    work("p.yaml", _pod(pod_ann='annotations: {"vllm-preflight.io/ignore": "VP302,VP303"}'))
    code, doc = check("--fail-on", "warning", "p.yaml")
    assert code == 1  # VP303 silences nothing here: VP390 (a warning) at the annotation's line
    assert [g for g in findings(doc) if g[0] in ("VP302", "VP390")] == [("VP390", "warning", 9)]


def test_annotation_naming_no_rule_is_vp391(work):
    work("p.yaml", _pod(resource_ann='annotations: {"vllm-preflight.io/ignore": "VP302, VP999"}'))
    _code, doc = check("p.yaml")
    assert ("VP391", "warning", 5) in findings(doc) and "VP302" not in [g[0] for g in findings(doc)]


LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: ep
  annotations:
    vllm-preflight.io/ignore: VP302,VP303
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.22.1
            args: ["deepseek-ai/DeepSeek-V3", "-dp", "16", "--data-parallel-size-local", "8",
                   "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput"]
    workerTemplate:
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.22.1
            args: ["deepseek-ai/DeepSeek-V3", "-dp", "16", "--data-parallel-size-local", "8", "--headless",
                   "--data-parallel-start-rank", "8",
                   "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput"]
"""


def test_one_annotation_over_leader_and_workers_is_said_once(work):
    work("lws.yaml", LWS)
    _code, doc = check("lws.yaml")
    names = [r["name"] for r in doc["results"]]
    assert names == ["lws.yaml › LeaderWorkerSet/ep › leader › vllm", "lws.yaml › LeaderWorkerSet/ep › worker › vllm"]
    every = [g for k in range(2) for g in findings(doc, k)]
    assert not [g for g in every if g[0] == "VP302"] and doc["summary"]["ignored"] == 2
    assert [g for g in every if g[0] == "VP390"] == [("VP390", "warning", 6)]


def test_what_vp101_says_is_what_bash_does(tmp_path):
    """Real bash on the same script: the words VP101 names are the extra arguments bash passes, the
    rest is what the tool checks, and the next line runs as a command of its own."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:  # the tool's own reading is tested above; this compares it with bash
        import pytest

        pytest.skip("needs bash")
    stub = tmp_path / "bin" / "vllm"
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\nprintf '%s\\0' \"$@\" >> \"$LOG\"\nprintf '\\1\\0' >> \"$LOG\"\n")
    stub.chmod(0o755)
    script = ("vllm serve Qwen/Qwen3-0.6B \\\n  --max-model-len 4096 \\ # vllm-preflight: ignore[VP302]\n"
              "  --port 8001\n")
    (tmp_path / "s.sh").write_text(script)
    log = tmp_path / "log"
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "LOG": str(log)}
    subprocess.run([bash, str(tmp_path / "s.sh")], env=env, capture_output=True, timeout=30, check=False)
    runs = [r.split("\0")[:-1] for r in log.read_text().split("\1\0") if r]
    assert runs == [["serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4096", " #", "vllm-preflight:", "ignore[VP302]"]]
    r = run_check("--format", "json", "--offline", str(tmp_path / "s.sh"))
    res = json.loads(r.out)["results"][0]
    msg = next(f["message"] for f in res["findings"] if f["rule"] == "VP101")
    assert "bash passes ' #' 'vllm-preflight:' 'ignore[VP302]' to vLLM" in msg and "really ends at line 2" in msg
    assert "`--port 8001` (line 3) runs as a separate command" in msg
