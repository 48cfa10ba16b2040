"""Issue 21, items 1 and 6: `matrix --vs` leads with the settings that matter, lists only the ops of
the deployment's model and explains its symbols; `--advise` never moves a prefill pool to decode kernels."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli_support import ROOT

OTHER_FAMILIES = ("mamba", "gdn_attention", "olmo_hybrid", "short_conv", "linear_attention", "kda_attention",
                  "deepseek_v4_attention", "sparse_attn_indexer")


def matrix(*args: str) -> tuple[int, str]:
    from vllm_preflight.cli import cli

    r = CliRunner().invoke(cli, ["matrix", "--offline", *args])
    return r.exit_code, r.output


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_vs_leads_with_the_settings_that_matter(in_root):
    code, out = matrix("--vs", "0.12.0", "0.20.0", "examples/llm-d-wide-ep-pd.yaml")
    assert code == 0
    for block in out.split("== ")[1:]:
        lines = block.splitlines()
        k = lines.index("Settings that matter:")
        assert k == 2  # right after the deployment's name and the count of changed cells
        keys = lines[k + 1:k + 5]
        assert [line.split()[0] for line in keys] == ["compile", "cudagraph_mode", "capture", "runtime"]
        assert all(" unchanged: " in line or " changed: " in line for line in keys)
        other = [i for i, line in enumerate(lines) if line.startswith("Other changes")]
        assert not other or other[0] > k + 4
    # the decode pool: FULL_DECODE_ONLY on both, capture sizes differ between the releases
    decode = out.split("== ")[2]
    assert "  cudagraph_mode          unchanged: FULL_DECODE_ONLY" in decode
    assert "  compile mode            unchanged: VLLM_COMPILE" in decode


def test_vs_lists_only_the_ops_of_the_models_family(in_root):
    _code, out = matrix("--vs", "0.12.0", "0.20.0", "examples/llm-d-wide-ep-pd.yaml")
    assert not any(op in out for op in OTHER_FAMILIES), out
    assert "splitting ops of deepseek-ai/DeepSeek-R1 (MLA attention, MoE) only" in out
    assert "splitting-op entries of other model families left out" in out
    assert "vllm::unified_mla_kv_cache_update" in out  # the MLA model's own op that 0.20.0 adds


def test_vs_explains_every_symbol(in_root):
    _code, out = matrix("--vs", "0.12.0", "0.20.0", "examples/wide-ep-lws.yaml")
    legend = [line for line in out.splitlines() if line.startswith("Legend: ")]
    assert legend
    text = legend[0]
    for symbol in ("`A → B`", "`-` means that release has no such field", "`None` means", "`- x`", "`+ x`",
                   "`…`", "`(order)`", "parentheses name the rules"):
        assert symbol in text, symbol
    assert "pass_config.rope_kvcache_fusion_max_token_num: - → 256" in out  # `-`: 0.12.0 has no such field


def test_vs_json_says_the_key_settings(in_root):
    _code, out = matrix("--vs", "0.12.0", "pr29558", "--format", "json", "examples/deepep-ht-dp8.sh")
    keys = {k["setting"]: k for k in json.loads(out)["vs"][0]["key_settings"]}
    assert keys["cudagraph_mode"] == {"setting": "cudagraph_mode", "cells": 1, "changed_cells": 1,
                                      "a": "NONE", "b": "FULL_AND_PIECEWISE"}
    assert keys["compile mode"]["changed_cells"] == 0 and keys["capture sizes"]["changed_cells"] == 0


def test_model_ops_by_family():
    from vllm_preflight.matrix.model_ops import model_ops
    from vllm_preflight.model import Deployment

    ops, kind = model_ops(Deployment(("vllm", "serve", "deepseek-ai/DeepSeek-V3")))
    assert ops is not None and "unified_mla_attention_with_output" in ops and "moe_forward" in ops
    assert "unified_attention_with_output" not in ops and "mamba_mixer2" not in ops and "MLA" in kind
    ops, _ = model_ops(Deployment(("vllm", "serve", "Qwen/Qwen3-0.6B")))
    assert ops is not None and "unified_attention_with_output" in ops and "moe_forward" not in ops
    # a hybrid model's mixers are not sorted here: every op is kept
    ops, _ = model_ops(Deployment(("vllm", "serve", "m")), {"architecture": "NemotronHForCausalLM", "is_moe": "false"})
    assert ops is None


def test_advise_never_tells_a_prefill_pool_to_use_decode_kernels(in_root):
    _code, out = matrix("--advise", "--vllm-version", "0.20.0,0.22.1,pr29558", "--format", "json",
                        "examples/llm-d-wide-ep-pd.yaml")
    advice = {a["name"]: a["advice"] for a in json.loads(out)["advice"]}
    prefill = advice["examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)"]
    by_target = {a["target"]: a for a in prefill}
    assert by_target["0.20.0"]["status"] == "prefill" and by_target["0.20.0"]["fixes"] == []
    assert not any("deepep_low_latency" in f["change"] for a in prefill for f in a["fixes"])
    _code, text = matrix("--advise", "--vllm-version", "0.22.1", "examples/llm-d-wide-ep-pd.yaml")
    assert "graphs off on DeepEP high-throughput kernels, as intended for a prefill pool" in text


def test_advise_still_offers_decode_kernels_without_a_role(in_root):
    _code, out = matrix("--advise", "--vllm-version", "0.22.1", "--format", "json", "examples/deepep-ht-dp8.sh")
    fixes = json.loads(out)["advice"][0]["advice"][0]["fixes"]
    assert any("deepep_low_latency" in f["change"] for f in fixes)


def test_matrix_rows_carry_the_server_name(in_root):
    import csv
    import io

    _code, out = matrix("--vllm-version", "0.22.1", "--format", "json", "examples/llm-d-wide-ep-pd.yaml")
    names = [r["name"] for r in json.loads(out)["rows"]]
    assert names == ["examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)",
                     "examples/llm-d-wide-ep-pd.yaml › LeaderWorkerSet/wide-ep-decode › vllm (decode)"]
    _code, out = matrix("--vllm-version", "0.22.1", "--format", "csv", "examples/llm-d-wide-ep-pd.yaml")
    assert [r["name"] for r in csv.DictReader(io.StringIO(out))] == names
