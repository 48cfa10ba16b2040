"""ProfilerConfig's model validator and IrOpPriorityConfig's `*` field validator on releases
without a recorded golden (0.22.0, 0.30.0 and 0.33.0 are in tests/golden/data/model_families/validators/).
From each release's vllm/config/profiler.py `_validate_profiler_config`:
- 0.13.0-0.25.x: only the torch_profiler_dir / profiler pairing (0.13.0, 0.16.0);
- 0.26.0: + capture_torch_profiler needs the torch profiler;
- 0.28.0: + the proton options (non-default ones need profiler 'proton', a local proton dir, the
  output format against proton_data); 0.30.0 + proton_graph_attribution;
- 0.31.0: + torch_profiler_activities (needs 'torch', no duplicates).
IrOpPriorityConfig (0.20.0+ config/kernel.py:58, the same validator through 0.33.0 :66-73): a string
is split at commas; a list item that is not a string fails its bare assert; a number or null is
not iterable, a TypeError that argparse words as an invalid parse_dataclass value.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

DENSE = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "llama-dense")
PREFIX = "argument --profiler-config: 1 validation error for ProfilerConfig\n  Value error, "


def _err(version: str, *words: str) -> str | None:
    res = resolve(Deployment(argv=("vllm", "serve", DENSE) + words, env=(), source="t"), version,
                  serve_stage=False)  # create_engine_config alone, not `vllm serve`'s own checks
    return res.vllm_error.message if res.vllm_error else None


def _prof(version: str, cfg: dict) -> str | None:
    return _err(version, "--profiler-config", json.dumps(cfg))


@pytest.mark.parametrize("version", ["0.13.0", "0.16.0", "0.28.0"])
def test_torch_dir_pairing(version):
    assert _prof(version, {"profiler": "torch"}) == PREFIX + "torch_profiler_dir must be set when profiler is " \
                                                             "'torch' [type=value_error]"
    assert _prof(version, {"profiler": "cuda", "torch_profiler_dir": "/p"}) == (
        PREFIX + "torch_profiler_dir is only applicable when profiler is set to 'torch' [type=value_error]")
    assert _prof(version, {"profiler": "torch", "torch_profiler_dir": "/p"}) is None


def test_capture_torch_profiler_from_0_26_0():
    msg = PREFIX + "capture_torch_profiler is only applicable when profiler is set to 'torch' [type=value_error]"
    assert _prof("0.26.0", {"profiler": "cuda", "capture_torch_profiler": True}) == msg
    assert "Unexpected keyword" in _prof("0.25.0", {"profiler": "cuda", "capture_torch_profiler": True})


def test_proton_from_0_28_0():
    assert _prof("0.28.0", {"profiler": "cuda", "proton_data": "trace"}) == (
        PREFIX + "proton_data only applicable when profiler is set to 'proton' [type=value_error]")
    assert _prof("0.28.0", {"profiler": "proton"}) == (
        PREFIX + "proton_profiler_dir must be set when profiler is 'proton' [type=value_error]")
    assert _prof("0.28.0", {"profiler": "proton", "proton_profiler_dir": "s3://b/p"}) == (
        PREFIX + "proton_profiler_dir must be a local directory [type=value_error]")
    assert _prof("0.28.0", {"profiler": "proton", "proton_profiler_dir": "/p", "proton_data": "trace",
                            "proton_output_format": "hatchet"}) == (
        PREFIX + "hatchet output requires proton_data='tree' [type=value_error]")


def test_activities_from_0_31_0():
    cfg = {"profiler": "torch", "torch_profiler_dir": "/p", "torch_profiler_activities": ["CPU", "CPU"]}
    assert _prof("0.31.0", cfg) == PREFIX + "torch_profiler_activities must not contain duplicates [type=value_error]"
    assert _prof("0.31.0", {"profiler": "cuda", "torch_profiler_activities": ["CPU"]}) == (
        PREFIX + "torch_profiler_activities is only applicable when profiler is set to 'torch' [type=value_error]")


@pytest.mark.parametrize("version", ["0.20.0", "0.26.0"])
def test_ir_op_priority_items(version):
    assert _err(version, "--ir-op-priority", '{"rms_norm": "native, vllm_c"}') is None
    assert _err(version, "--ir-op-priority", '{"rms_norm": ["native", 2]}') == (
        "argument --ir-op-priority: 1 validation error for IrOpPriorityConfig\nrms_norm\n  Assertion failed,  "
        "[type=assertion_error]")
    assert _err(version, "--ir-op-priority", '{"rms_norm": 5}') == (
        "argument --ir-op-priority: invalid parse_dataclass value: '{\"rms_norm\": 5}'")


def test_reasoning_parser_registry_on_0_11_1_to_0_12_0():
    """0.11.1/0.11.2/0.12.0 config/structured_outputs.py:69-82 check reasoning_parser against
    ReasoningParserManager.list_registered() (the sorted _REASONING_PARSERS_TO_REGISTER names of
    vllm/reasoning/__init__.py); 0.11.0 (__post_init__) and 0.13.0+ validators do not."""
    so = ("--structured-outputs-config", '{"reasoning_parser": "bogus"}')
    msg = _err("0.11.1", *so)
    assert msg.startswith("argument --structured-outputs-config: 1 validation error for StructuredOutputsConfig\n"
                          "  Value error, invalid reasoning parser: bogus (chose from { deepseek_r1,deepseek_v3,")
    assert msg.endswith(",seed_oss,step3 }) [type=value_error]")
    assert _err("0.11.1", "--structured-outputs-config", '{"reasoning_parser": "minimax_m2_append_think"}') is None
    assert _err("0.11.0", *so) is None
    assert _err("0.13.0", *so) is None
