"""QuantizationArgs / SparsityCompressionConfig validation as the compressed-tensors library
each vLLM release pins does it (resolve/quantization/compressed_tensors.py). The expected texts are
what the real library printed for these inputs (compressed-tensors 0.11.0, 0.12.2, 0.13.0,
0.14.0.1, 0.15.0.1 and 0.17.0 under pydantic 2.14; the "for QuantizationArgs" header reads "for
VllmConfig" as vLLM reports it), compared up to pydantic's `[type=...]` suffix."""
from __future__ import annotations

import re

import pytest

from vllm_preflight.resolve.base.state import Refusal
from vllm_preflight.resolve.quantization.compressed_tensors import library_version, quantization_args, sparsity_targets

# a vLLM release pinning each library version
V11, V12, V13, V14, V15, V17 = (0, 11, 0), (0, 12, 0), (0, 16, 0), (0, 19, 0), (0, 20, 0), (0, 33, 0)


def _text(raw, v) -> tuple[str, str] | None:
    try:
        quantization_args(raw, v)
    except Refusal as e:
        return e.type, re.sub(r" \[type=[^\n]*", "", e.message)
    return None


def test_library_pins_by_release():
    assert library_version((0, 11, 0)) == (0, 11, 0)
    assert library_version((0, 12, 0)) == (0, 12, 2)
    assert library_version((0, 14, 0)) == (0, 13, 0)
    assert library_version((0, 19, 0)) == (0, 14, 0, 1)
    assert library_version((0, 22, 1)) == (0, 15, 0, 1)
    assert library_version((0, 23, 0)) == (0, 17, 0)


@pytest.mark.parametrize("raw, v, want", [
    ({"num_bits": "x", "strategy": 5, "foo": 1}, V12, (
        "ValidationError", "3 validation errors for VllmConfig\nnum_bits\n  Input should be a valid integer, unable to "
        "parse string as an integer\nstrategy\n  Input should be 'tensor', 'channel', 'group', 'block', 'token' or "
        "'tensor_group'\nfoo\n  Extra inputs are not permitted")),
    ({"strategy": 5}, V17, ("ValidationError", "1 validation error for VllmConfig\nstrategy\n  Input should be "
                                               "'tensor', 'channel', 'group', 'block', 'token', 'tensor_group' or "
                                               "'attn_head'")),
    ({"group_size": "a"}, V17, ("TypeError", "'<' not supported between instances of 'str' and 'int'")),
    (None, V17, ("ValidationError", "1 validation error for VllmConfig\n  Input should be a valid dictionary or "
                                    "instance of QuantizationArgs")),
    ({"dynamic": 2}, V12, (
        "ValidationError", "2 validation errors for VllmConfig\ndynamic.`function-after[operator.attrgetter('value')(), "
        "str-enum[DynamicType]]`\n  Input should be 'local'\ndynamic.bool\n  Input should be a valid boolean, unable "
        "to interpret input")),
    ({"scale_dtype": "torch.foo"}, V12, ("ValidationError", "1 validation error for VllmConfig\nscale_dtype\n  "
                                                            "Extra inputs are not permitted")),
    ({"scale_dtype": "torch.foo"}, V13, (
        "ValidationError", "2 validation errors for VllmConfig\nscale_dtype.is-instance[dtype]\n  Input should be an "
        "instance of dtype\nscale_dtype.chain[str,function-plain[validate_from_str()]]\n  Value error, No such torch "
        "dtype `torch.foo`")),
    ({"group_size": 0}, V17, ("ValidationError", "1 validation error for VllmConfig\n  Value error, Invalid group "
                                                 "size 0. Use group_size > 0 for strategy='group' and group_size = -1 "
                                                 "for 'channel'")),
    ({"block_structure": [1, 2, 3]}, V11, ("ValidationError", "1 validation error for VllmConfig\nblock_structure\n"
                                                              "  Value error, Invalid block_structure '[1, 2, 3]'. "
                                                              "Must be a list of two ints [rows, cols].")),
    ({"strategy": "Token"}, V12, None),
    ({"strategy": "Token"}, V13, ("ValidationError", "1 validation error for VllmConfig\n  Value error, Cannot "
                                                     "perform static token quantization, please use `dynamic=True`")),
    ({"type": "FLOAT", "num_bits": 16}, V12, None),
    ({"type": "FLOAT", "num_bits": 16}, V13, ("NotImplementedError", "Only num_bits in (8) are supported")),
    ({"strategy": "block"}, V13, (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, Block strategy requires block structure\n"
        "num_bits=8 type=<QuantizationType.INT: 'int'> symmetric=True group_size=None strategy='block' "
        "block_structure=None dynamic=False actorder=None scale_dtype=None zp_dtype=None observer=None "
        "observer_kwargs={}")),
    ({"actorder": "weight", "strategy": "channel"}, V13, (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, Must use group quantization strategy in "
        "order to apply activation ordering")),
    ({"actorder": "weight", "strategy": "channel"}, V15, (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, Must use group or tensor_group "
        "quantization strategy in order to apply activation ordering")),
    ({"actorder": "weight", "strategy": "channel"}, V17, None),
    ({"actorder": "dynamic", "strategy": "channel"}, V17, (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, Must use group or tensor_group "
        "quantization strategy in order to apply group activation ordering")),
    ({"dynamic": True, "strategy": "channel"}, V11, (
        "ValidationError", "1 validation error for VllmConfig\n  Value error, One of (<QuantizationStrategy.TOKEN: "
        "'token'>, <QuantizationStrategy.TENSOR: 'tensor'>, <QuantizationStrategy.TENSOR_GROUP: 'tensor_group'>, "
        "<QuantizationStrategy.GROUP: 'group'>) must be used for dynamic quantization")),
    ({"dynamic": "LOCAL"}, V14, ("ValidationError", "1 validation error for VllmConfig\n  Value error, local is only "
                                                    "supported for strategy tensor_group")),
    ({"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "dynamic": "local"}, V17, None),
])
def test_quantization_args(raw, v, want):
    assert _text(raw, v) == want


def test_validated_values_read_as_vllm_reads_them():
    got = quantization_args({"num_bits": "4", "type": "INT", "group_size": 128.0, "actorder": True}, V12)
    assert (got["num_bits"], got["type"], got["strategy"], got["actorder"]) == (4, "int", "group", "group")


def test_sparsity_config():
    assert sparsity_targets({"format": "sparse-24-bitmask", "targets": ["Linear"]}) == ["Linear"]
    with pytest.raises(Refusal) as e:
        sparsity_targets({"targets": ["Linear"]})
    assert e.value.message.startswith("1 validation error for VllmConfig\nformat\n  Field required")
    with pytest.raises(Refusal) as e:
        sparsity_targets({"format": "dense", "targets": "Linear"})
    assert e.value.message.startswith("1 validation error for VllmConfig\ntargets\n  Input should be a valid list")
