"""The value facts of every release (releases/data/refusals.json; the 24 releases without an
installed venv read from their sources by tools/extract_refusal_facts_static.py), and the
pydantic field validation of --speculative-config built on them (resolve/speculative/field_errors.py).
Expected values: the goldens of tests/golden/data/model_families/spec_values/ (real vLLM 0.12.0,
pr29558, 0.16.0, 0.28.0, 0.32.0, 0.33.0) and each release's speculative.py / config/utils.py."""
from __future__ import annotations

import json

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import SUPPORTED
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.base.value_facts import _all_facts

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _err(version: str, spec: dict) -> str | None:
    res = resolve(Deployment(argv=("vllm", "serve", LLAMA, "--speculative-config", json.dumps(spec)), env=()),
                  version)
    return None if res.vllm_error is None else res.vllm_error.message


@pytest.mark.parametrize("version", [v for v in SUPPORTED if v != "pr29558"])
def test_every_release_has_value_facts(version):
    rec = _all_facts()[version]
    assert "ngram" in rec["spec_methods"] and rec["kv_roles"] == ["kv_producer", "kv_both", "kv_consumer"]
    assert "auto" in rec["structured_outputs_backends"] and rec["kv_connectors"]


def test_unknown_speculative_keys_refused_from_0_16_0():
    """config/utils.py's decorator forbids extra keys from 0.16.0 (0.15.1: a plain pydantic dataclass)."""
    spec = {"method": "ngram", "num_speculative_tokens": 2, "bogus_key": 1}
    assert _err("0.15.1", spec) is None
    assert "Unexpected keyword argument" in (_err("0.16.0", spec) or "")
    assert (_err("0.16.0", {**spec, "other_key": 2}) or "").startswith("2 validation errors for SpeculativeConfig")


def test_rejection_sample_method_fly_from_0_33_0():
    """0.32.0 (a release without an installed record before) refuses "fly"; 0.33.0 adds it."""
    spec = {"method": "ngram", "num_speculative_tokens": 2, "rejection_sample_method": "fly"}
    assert "Input should be 'standard', 'synthetic' or 'block'" in (_err("0.32.0", spec) or "")
    assert "rejection_sample_method" not in (_err("0.33.0", spec) or "")


def test_every_failing_field_is_counted_first_in_declaration_order():
    """pydantic reports a bad method and an unknown key together (real 0.32.0/0.33.0 goldens), and
    num_speculative_tokens is declared before method."""
    msg = _err("0.31.0", {"method": "bogus", "num_speculative_tokens": 2, "bogus_key": 1}) or ""
    assert msg.startswith("2 validation errors for SpeculativeConfig\nmethod\n")
    msg = _err("0.31.0", {"method": "bogus", "num_speculative_tokens": 0}) or ""
    assert msg.startswith("2 validation errors for SpeculativeConfig\nnum_speculative_tokens\n")


def test_0_11_0_renames_only_its_mtp_types():
    """0.11.0 has no MTPModelTypes literal: its MTP_MODEL_TYPES tuple, without "mtp"."""
    rec = _all_facts()["0.11.0"]
    assert "mtp" not in rec["mtp_methods"] and "deepseek_mtp" in rec["mtp_methods"]
    assert "eagle_methods" not in rec and rec["spec_bounds"] == {}


def test_0_11_0_checks_the_values_itself():
    """0.11.0 declares no Field bounds: __post_init__ / _verify_args refuse with their own words
    (real 0.11.0 spec_values goldens); 0.11.1 has the pydantic bounds instead."""
    assert (_err("0.11.0", {"method": "ngram", "num_speculative_tokens": 0}) or "").endswith(
        "Expected num_speculative_tokens to be greater than zero (0).")
    assert (_err("0.11.0", {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0}) or "").endswith(
        "prompt_lookup_min=0 must be > 0")  # the missing min takes the max first
    assert (_err("0.11.0", {"method": "ngram", "num_speculative_tokens": 2, "disable_by_batch_size": 1}) or "").endswith(
        "but got self.disable_by_batch_size=1")
    assert "Input should be greater than or equal to 1" in (
        _err("0.11.1", {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0}) or "")
