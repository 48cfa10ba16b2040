"""One `--config` case through every way of giving a command: each must read the file alike.

Issue 9: `check -- vllm serve MODEL --config FILE.yaml` used to ignore the file. The
expected values follow from the file (PIECEWISE and TP 2 are set only there), and every
path must give the same resolved settings.
"""
from __future__ import annotations

import textwrap

import pytest

from vllm_preflight.api import check_inputs

CONFIG = textwrap.dedent("""\
    tensor-parallel-size: 2
    compilation-config: '{"cudagraph_mode": "PIECEWISE"}'
    max-num-seqs: 64
    """)
CMD = "vllm serve Qwen/Qwen3-8B --config cfg.yaml --max-num-seqs 32"


def _resolved(report):
    assert not report.errors
    [r] = report.results
    out = r.to_json() if hasattr(r, "to_json") else r
    return out


def _key(res) -> tuple:
    cc = res.resolved["compilation_config"] if hasattr(res, "resolved") else res["resolved"]["compilation_config"]
    pc = res.resolved["parallel_config"] if hasattr(res, "resolved") else res["resolved"]["parallel_config"]
    return cc["cudagraph_mode"], pc["tensor_parallel_size"], tuple(cc.get("cudagraph_capture_sizes") or ())


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "cfg.yaml").write_text(CONFIG)
    (tmp_path / "serve.sh").write_text("#!/bin/bash\n" + CMD + "\n")
    (tmp_path / "README.md").write_text("Run:\n\n```bash\n" + CMD + "\n```\n")
    (tmp_path / "job.preflight.yaml").write_text(f"vllm_version: 0.13.0\ncommand: {CMD}\n")
    (tmp_path / "k8s.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: vcfg}
        data:
          cfg.yaml: |
        """) + textwrap.indent(CONFIG, "    ") + textwrap.dedent("""\
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: v}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.13.0
                  command: ["vllm", "serve"]
                  args: ["Qwen/Qwen3-8B", "--config", "/etc/vllm/cfg.yaml", "--max-num-seqs", "32"]
                  volumeMounts: [{name: c, mountPath: /etc/vllm}]
              volumes: [{name: c, configMap: {name: vcfg}}]
        """))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _one(paths=(), command=None):
    report = check_inputs(list(paths), command=command, vllm_version="0.13.0")
    assert not report.errors, report.errors
    [r] = report.results
    return r


def test_every_input_path_reads_config_alike(folder):
    results = {
        "command": _one(command=CMD.split()),
        "command-abs": _one(command=CMD.replace("cfg.yaml", str(folder / "cfg.yaml")).split()),
        "shell": _one(["serve.sh"]),
        "markdown": _one(["README.md"]),
        "preflight": _one(["job.preflight.yaml"]),
        "kubernetes": _one(["k8s.yaml"]),
    }
    keys = {name: _key(r) for name, r in results.items()}
    # the file sets PIECEWISE and TP 2; the CLI's --max-num-seqs 32 wins over the file's 64
    want = keys["shell"]
    assert want[0] == "PIECEWISE" and want[1] == 2
    # 0.13.0 caps capture sizes at 2 x max_num_seqs: 64 from the CLI's 32 (the file's 64 would give 128)
    assert max(want[2]) == 64
    assert keys == {name: want for name in keys}
    for name, r in results.items():
        rules = [f["rule"] for f in r.extra["findings"]]
        assert "VP107" not in rules, (name, r.extra["findings"])


def test_command_path_reports_unreadable_config(folder):
    r = _one(command=["vllm", "serve", "m", "--config", "missing.yaml"])
    [f] = [f for f in r.extra["findings"] if f["rule"] == "VP107"]
    assert "missing.yaml" in f["message"]
