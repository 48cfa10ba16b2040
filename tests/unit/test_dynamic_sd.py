"""Dynamic speculative decoding per release (resolve/speculative/dynamic_sd.py, steps/cudagraph_mode.py).

0.24.0 and 0.33.0 are checked against real vLLM in tests/golden/test_dynamic_spec.py; the other releases'
rules below come from reading each release's vllm/config/vllm.py: the PIECEWISE override on any
runner (0.24.0), only on the V1 runner with a hint (0.25.0), off for DP > 1 (0.26.0), capture
sizes per schedule tier (0.29.0), off for V1-runner methods without support (0.33.0).
"""
from __future__ import annotations

import json
from pathlib import Path

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.speculative.dynamic_sd import decode_tiers, dense_lookup

MODEL = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "llama-dense")
TIERS = [[1, 16, 2], [17, 1024, 1]]
V1, V2 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}


def _resolve(version: str, env: dict, *extra: str, method: str = "ngram", schedule=TIERS):
    spec = {"method": method, "num_speculative_tokens": 3, "num_speculative_tokens_per_batch_size": schedule}
    # ngram needs no draft model; EAGLE is given the target's folder as its draft (not read)
    spec.update({"prompt_lookup_max": 4} if method.startswith("ngram") else {"model": MODEL})
    argv = ("vllm", "serve", MODEL, "--speculative-config", json.dumps(spec)) + extra
    return resolve(Deployment(argv=argv, env=tuple(env.items()), source="t"), version)


def _run(version: str, env: dict, *extra: str, method: str = "ngram", schedule=TIERS):
    res = _resolve(version, env, *extra, method=method, schedule=schedule)
    assert res.vllm_error is None, res.vllm_error
    return res, res.resolved["compilation_config"]


def _rules(res) -> set[str]:
    return {e.rule for e in res.events}


def test_dense_lookup_carries_through_gaps_and_tail_and_clamps():
    dense = dense_lookup([(32, 128, 2), (1, 16, 5)], 200, 3)
    assert dense is not None
    assert dense[1:17] == [3] * 16 and dense[17:32] == [3] * 15  # clamped to 3; the gap keeps it
    assert dense[32:129] == [2] * 97 and dense[129:] == [2] * 72  # the tail keeps the last k
    assert dense_lookup([(2, 16, 3)], 64, 3) is None  # must start at 1
    assert dense_lookup([(1, 16, 3), (8, 32, 2)], 64, 3) is None  # overlapping
    assert decode_tiers([(2, 16, 3)], 4, 64, 3) == [(4, 64)]  # invalid: the static tier
    assert decode_tiers([(1, 16, 0), (17, 64, 2)], 4, 64, 3) == [(1, 16), (3, 64)]


def test_0_24_overrides_full_graphs_on_any_runner():
    res, cc = _run("0.24.0", {})
    assert cc["cudagraph_mode"] == "PIECEWISE" and "dynamic_sd.piecewise" in _rules(res)
    assert not any("VLLM_USE_V2_MODEL_RUNNER=1" in e.reason for e in res.events)
    _, cc = _run("0.24.0", V1)
    assert cc["cudagraph_mode"] == "PIECEWISE"


def test_forced_v2_refuses_ngram_and_dynamic_sd_until_0_32():
    """VLLM_USE_V2_MODEL_RUNNER=1 runs `_validate_v2_model_runner` (0.24.0 config/vllm.py:1352-1353,
    message :2097-2101): V2 lacks ngram/ngram_gpu (0.24.0 :2028-2030, 0.29.0 :2564-2565; 0.30.0-0.31.0
    name it "speculative method 'ngram'") and, in 0.24.0 only, dynamic speculative decoding (:2034-2035;
    0.25.0 drops it). 0.32.0 takes ngram on V2. (This test used to expect V2 + ngram to start on
    0.24.0-0.29.0; real vLLM 0.30.0 and 0.33.0 refuse/accept as below: tests/golden/data/release_rules.)"""
    head = "1 validation error for VllmConfig\n  Value error, Model Runner V2 does not yet support: "
    assert _resolve("0.24.0", V2).vllm_error.message == \
        head + "ngram/ngram_gpu speculative decoding, dynamic speculative decoding"
    for v in ("0.25.0", "0.28.0", "0.29.0"):
        assert _resolve(v, V2).vllm_error.message == head + "ngram/ngram_gpu speculative decoding", v
    assert _resolve("0.31.0", V2).vllm_error.message == head + "speculative method 'ngram'"
    assert _resolve("0.32.0", V2).vllm_error is None
    assert _resolve("0.24.0", V2, method="eagle").vllm_error.message == head + "dynamic speculative decoding"
    assert _resolve("0.25.0", V2, method="eagle").vllm_error is None


def test_0_25_overrides_only_on_the_v1_runner():
    _, cc = _run("0.25.0", V2, method="eagle")  # (V2 takes no ngram before 0.32.0)
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    res, cc = _run("0.25.0", V1, "-dp", "2")  # DP does not switch it off before 0.26.0
    assert cc["cudagraph_mode"] == "PIECEWISE"
    assert any(e.reason.endswith("Use VLLM_USE_V2_MODEL_RUNNER=1 if you want to use full CUDA graphs.")
               for e in res.events)


def test_0_26_switches_it_off_for_data_parallel():
    res, cc = _run("0.26.0", V1, "-dp", "2")
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE" and "dynamic_sd.data_parallel" in _rules(res)


def test_capture_sizes_follow_the_tiers_from_0_29():
    _, before = _run("0.28.0", V2, method="eagle")
    _, after = _run("0.29.0", V2, method="eagle")
    # tier k=2 (query length 3) for batches 1-16: 3, 6, 12, 24, 48 are captured from 0.29.0
    assert 3 not in before["cudagraph_capture_sizes"]
    assert {3, 6, 12, 24} <= set(after["cudagraph_capture_sizes"])
    _, static = _run("0.29.0", V2, method="eagle", schedule=None)
    assert 3 not in static["cudagraph_capture_sizes"]


def test_0_33_switches_it_off_for_unsupported_v1_methods():
    _, cc = _run("0.32.0", V1, method="ngram_gpu")
    assert cc["cudagraph_mode"] == "PIECEWISE"
    res, cc = _run("0.33.0", V1, method="ngram_gpu")
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE" and "dynamic_sd.v1_method" in _rules(res)
    assert 3 not in cc["cudagraph_capture_sizes"]  # back to the static schedule


def test_before_0_24_the_field_is_unknown():
    """0.23.0's SpeculativeConfig has no such field and its config decorator forbids unknown keys
    (0.16.0+, config/utils.py), so pydantic refuses it (refusals.json, read from the sources)."""
    res = _resolve("0.23.0", V1)
    assert res.vllm_error is not None and res.vllm_error.message.startswith(
        "1 validation error for SpeculativeConfig\nnum_speculative_tokens_per_batch_size\n  Unexpected keyword argument")
    assert not {r for r in _rules(res) if r.startswith("dynamic_sd.")}
