"""The quant_schemes_2 checks (resolve/model/quantization.py and resolve/quantization/ `_modelopt_class`, `_inc_checks`,
`_removed_classes`; resolve/vllm_config/steps/level_defaults.py `_nvfp4_quantized`) at the release
boundaries the goldens (0.12.0, pr29558, 0.33.0: tests/golden/data/model_families/quant_schemes_2/)
do not reach. Expected texts are the recorded ones where a golden has them, else read from the
release's sources (cited)."""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
ONLY = "ModelOpt currently only supports: {} quantizations in vLLM. Please check the `hf_quant_config.json` " \
       "file for your model's quant configuration."


def _error(model: str, *words: str, target: str) -> tuple[str, str] | None:
    res = resolve(Deployment(argv=("vllm", "serve", str(MODELS / model)) + words, env=(), source="t"), target)
    return None if res.vllm_error is None else (res.vllm_error.type, res.vllm_error.message)


def _value_error(text: str) -> tuple[str, str]:
    return "ValidationError", f"1 validation error for VllmConfig\n  Value error, {text}"


@pytest.mark.parametrize("target, algos", [
    # modelopt.py QUANT_ALGOS per release (0.14.0:60, 0.16.0, 0.17.0, 0.21.0; 0.30.0+ LINEAR_ALGOS)
    ("0.14.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4']"),
    ("0.16.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'MXFP8']"),
    ("0.20.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'MXFP8', 'MIXED_PRECISION']"),
    ("0.29.0", "['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4', 'W4A16_NVFP4', 'MXFP8', "
               "'MIXED_PRECISION']"),
])
def test_modelopt_algo_list_by_release(target, algos):
    assert _error("qs2-modelopt-w4a8-awq", target=target) == _value_error(ONLY.format(algos))


def test_modelopt_algo_list_before_0_14_is_the_two_algos():
    assert _error("qs2-modelopt-w4a8-awq", target="0.13.0") == _value_error(ONLY.format("['FP8', 'NVFP4']"))


def test_nvfp4_class_checks_its_algo_from_0_21():
    # 0.21.0 modelopt.py:1037-1045; before it ModelOptNvFp4Config took any listed algo
    want = _value_error("Unsupported ModelOpt NVFP4 quant_algo: FP8_PB_WO. Supported: NVFP4 / W4A16_NVFP4.")
    assert _error("qs2-modelopt-fp4-method-fp8-pb-wo", target="0.21.0") == want
    assert _error("qs2-modelopt-fp4-method-fp8-pb-wo", target="0.20.0") is None


def test_w4a16_nvfp4_is_listed_from_0_21():
    assert _error("qs2-modelopt-w4a16-nvfp4", target="0.21.0") is None
    got = _error("qs2-modelopt-w4a16-nvfp4", target="0.20.0")
    assert got is not None and "ModelOpt currently only supports" in got[1]


def test_mxfp8_class_from_0_16_and_minimax_layout_from_0_24():
    dynamic = _value_error("MXFP8 quantization requires a serialized checkpoint. Dynamic quantization is not "
                           "supported.")
    assert _error("qs2-modelopt-mxfp8-method-fp8-pb-wo", target="0.16.0") == dynamic
    assert _error("qs2-modelopt-mxfp8-minimax", target="0.24.0") is None  # modelopt.py:1245-1259 (0.33.0)
    assert _error("qs2-modelopt-mxfp8-minimax", target="0.23.0") == _value_error(
        "Missing 'quant_algo' in quantization config")


def test_mixed_precision_block_sizes_from_0_30():
    two = _value_error("MIXED_PRECISION currently requires all block-FP8 MoE layers to use one group_size, got "
                       "[64, 128].")
    assert _error("qs2-modelopt-mixed-two-block-sizes", target="0.30.0") == two
    assert _error("qs2-modelopt-mixed-two-block-sizes", target="0.29.0") is None
    empty = _value_error("MIXED_PRECISION quant_algo requires a non-empty 'quantized_layers' mapping in the "
                         "quantization config.")
    assert _error("qs2-modelopt-mixed-empty-layers", target="0.17.0") == empty


def test_nvfp4_format_read_through_act_fusion_from_0_17():
    want = ("AttributeError", "'NoneType' object has no attribute 'lower'")
    assert _error("qs2-ct-nvfp4-format-null", target="0.17.0") == want
    assert _error("qs2-ct-nvfp4-format-null", target="0.16.0") is None
    # custom silu_and_mul enables act fusion before the format is read (vllm.py:174-176, 0.33.0)
    assert _error("qs2-ct-nvfp4-format-null", "-cc", '{"custom_ops": ["+silu_and_mul"]}', target="0.33.0") is None


def test_inc_scheme_checks_from_0_29():
    want = ("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, INC MXFP only supports "
                               "group_size=32, but found group_size=64.")
    assert _error("qs2-inc-mxfp8-group-64", target="0.29.0") == want
    assert _error("qs2-inc-mxfp8-quanted-input", target="0.29.0") is None  # no longer read


def test_inc_mxfp8_checks_0_27_to_0_28():
    # 0.28.0 inc/inc.py:126-166 (0.27.0 the same)
    def assertion(text: str) -> tuple[str, str]:
        return "ValidationError", f"1 validation error for VllmConfig\n  Assertion failed, {text}"

    assert _error("qs2-inc-mxfp8-group-64", target="0.27.0") == assertion(
        "INC MXFP8 only supports group_size=32, but found group_size=64.")
    assert _error("qs2-inc-mxfp8-quanted-input", target="0.28.0") == assertion(
        "INC MXFP8 only supports enable_quanted_input=False, but found enable_quanted_input=True.")
    assert _error("qs2-inc-int-llmc-format", target="0.28.0") == _value_error(
        "packing_format='auto_round:llm_compressor' requires an 'mx_fp' data_type.")
    assert _error("qs2-inc-fp8-block-4bit", target="0.28.0") is None or "data_type" in _error(
        "qs2-inc-fp8-block-4bit", target="0.28.0")[1]  # "fp" is not a 0.28.0 data type (set in hash order)
    assert _error("qs2-inc-mxfp8-group-64", target="0.26.0") is not None  # mx_fp is no 0.26.0 data type


def test_removed_methods_constructors():
    # rtn.py:62-66, deepspeedfp.py:37-42 (0.12.0; gone in 0.15.0), gptq_marlin_24.py:58-63 (0.12.0; gone in
    # 0.16.0), the texts recorded on real 0.12.0; deprecated from 0.14.0, so allowed explicitly
    ok = "--allow-deprecated-quantization"
    assert _error("qs2-rtn-3bit", ok, target="0.14.1") == _value_error(
        "Currently, only 4-bit or 8-bit weight quantization is supported for RTN, but got 3 bits.")
    assert _error("qs2-deepspeedfp-4bit", ok, target="0.14.1") == _value_error(
        "Currently, only 6-bit or 8-bit weight quantization are supported for DeepSpeed FP quantizaiton, but got "
        "4 bits.")
    assert _error("qs2-gptq-marlin24-group64", ok, target="0.15.1") == _value_error(
        "Marlin_24 does not support group_size = 64. Only group_sizes = [-1, 128] are supported.")
    assert _error("qs2-gptq-marlin24-group64", ok, target="0.16.0") is None  # read as plain GPTQ
