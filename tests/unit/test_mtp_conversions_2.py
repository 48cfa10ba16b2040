"""The last MTP conversions of SpeculativeConfig.hf_config_override (resolve/speculative/mtp_conversions.py
`_last`), at the first release of each (read from vLLM's config/speculative.py), where the goldens
(tests/golden/data/model_families/mtp_conversions_2/) do not reach: the release before converts
nothing ("Unsupported speculative method"), the first release converts. Dots3-Note and InternS2 are
covered here only (the oracle cannot inspect Dots3NoteForCausalLM on a CPU box; its Transformers has
no InternS2 config)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_model_fixes import UNSUPPORTED, _err


def _mtp(k: int) -> tuple[str, str]:
    return "--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": k})


def _indivisible(k: int, n: int) -> str:
    return f"1 validation error for SpeculativeConfig\n  Value error, num_speculative_tokens:{k} must be divisible by n_predict={n}"


@pytest.mark.parametrize("model,before,first", [
    ("mtp2-mimo-v2-flash", "0.20.2", "0.21.0"),         # MiMoV2FlashForCausalLM (0.21.0 speculative.py:363)
    ("mtp2-mimo-v2-pro", "0.20.2", "0.21.0"),           # MiMoV2ForCausalLM (0.21.0 speculative.py:338)
    ("mtp2-interns2-preview-moe", "0.21.0", "0.22.0"),  # intern_s2_preview (0.22.0 speculative.py:470)
    ("mtp2-inkling-text-mtp2", "0.25.1", "0.26.0"),     # inkling_model (0.26.0 speculative.py:557)
    ("mtp2-inkling-mm-mtp1", "0.25.1", "0.26.0"),       # inkling_mm_model
    ("mtp2-dots3-note-mtp2", "0.27.1", "0.28.0"),       # dots3_note
    ("mtp2-interns2-mobius", "0.27.1", "0.28.0"),       # interns2_mobius
    ("mtp2-qwen4exp-text-mtp1", "0.28.0", "0.29.0"),    # qwen4_exp_text
    ("mtp2-qwen4exp-mm-mtp2", "0.28.0", "0.29.0"),      # qwen4_exp
])
def test_conversion_starts_at_its_first_release(model, before, first):
    assert _err(before, model, *_mtp(1)) == UNSUPPORTED
    assert _err(first, model, *_mtp(1)) is None
    assert _err("0.33.0", model, *_mtp(1)) is None


@pytest.mark.parametrize("version", ["0.21.0", "0.33.0"])
def test_mimo_v2_serves_one_layer_whatever_the_checkpoint_says(version):
    # n_predict is _MIMO_V2_*_NUM_MTP_LAYERS = 1, not the config's 3: any token count divides
    assert _err(version, "mtp2-mimo-v2-flash", *_mtp(2)) is None


@pytest.mark.parametrize("version", ["0.26.0", "0.33.0"])
def test_inkling_needs_mtp_layers_in_its_mtp_config(version):
    refused = "1 validation error for SpeculativeConfig\n  Value error, The Inkling checkpoint does not contain MTP weights"
    assert _err(version, "mtp2-inkling-text-nomtp", *_mtp(1)) == refused  # top-level count is not read
    assert _err(version, "mtp2-inkling-text-mtp0", *_mtp(1)) == refused
    assert _err(version, "mtp2-inkling-text-mtp2", *_mtp(3)) == _indivisible(3, 2)


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_dots3_note_mtp_layer_types(version):
    assert _err(version, "mtp2-dots3-note", *_mtp(3)) is None  # Dots3NoteConfig's default: 1 layer
    assert _err(version, "mtp2-dots3-note-mtp2", *_mtp(3)) == _indivisible(3, 2)
    assert _err(version, "mtp2-dots3-note-mismatch", *_mtp(1)) == (
        "1 validation error for SpeculativeConfig\n  Value error, mtp_layer_types must have one entry per MTP "
        "layer: got 1 for 2 layers")
    assert _err(version, "mtp2-dots3-note-nolayertypes", *_mtp(1)) == \
        "'Dots3NoteConfig' object has no attribute 'layer_types'"


@pytest.mark.parametrize("version", ["0.28.0", "0.33.0"])
def test_interns2_count_and_mobius_text_config(version):
    assert _err(version, "mtp2-interns2-preview-moe", *_mtp(3)) == _indivisible(3, 2)
    assert _err(version, "mtp2-interns2-mobius-notext", *_mtp(1)) == \
        "1 validation error for SpeculativeConfig\n  Assertion failed, "


def test_qwen4_exp_count_from_mtp_num_hidden_layers_else_nextn():
    assert _err("0.29.0", "mtp2-qwen4exp-text-nextn2", *_mtp(3)) == _indivisible(3, 2)
    assert _err("0.29.0", "mtp2-qwen4exp-text-none", *_mtp(3)) is None  # n_predict None: nothing to divide
