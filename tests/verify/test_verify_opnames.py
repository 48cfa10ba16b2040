from __future__ import annotations

import pytest

from vllm_preflight.capture.opnames import parse_qualified, short, toy_dotted


@pytest.mark.parametrize("written,expected", [
    ("vllm::moe_forward", ("vllm", "moe_forward", "default")),
    ("vllm::moe_forward.default", ("vllm", "moe_forward", "default")),
    ("aten::mm.out", ("aten", "mm", "out")),
])
def test_qualified_names_parse_like_lookup_op(written, expected):
    op = parse_qualified(written)
    assert (op.namespace, op.name, op.overload) == expected


@pytest.mark.parametrize("written", ["vllm.moe_forward", "moe_forward", "vllm::", "::x", "a::b::c", "vllm::a.b.c"])
def test_names_lookup_op_rejects(written):
    assert parse_qualified(written) is None


def test_dotted_names_map_onto_the_toy_namespace():
    assert toy_dotted("vllm.unified_attention") == "pfverify.unified_attention"
    assert toy_dotted("aten.mm") == "aten.mm"
    assert short("vllm::moe_forward_shared") == "moe_forward_shared" and short("vllm.moe_forward") == "moe_forward"


def test_the_toy_moe_ops_carry_vllms_schema_facts():
    """vLLM 0.12.0 `model_executor/layers/fused_moe/layer.py`: the `direct_register_custom_op`
    calls for `moe_forward` and `moe_forward_shared` pass `mutates_args=["hidden_states"]` and
    `tags=(torch.Tag.needs_fixed_stride_order,)`; the toy's ops say the same in their schema."""
    torch = pytest.importorskip("torch")
    from vllm_preflight.verify import ops

    ops.register()
    for name in ("moe_forward", "moe_forward_shared"):
        op = getattr(torch.ops.pfverify, name).default
        hidden = op._schema.arguments[0]
        assert hidden.name == "hidden_states" and hidden.alias_info is not None and hidden.alias_info.is_write
        assert torch.Tag.needs_fixed_stride_order in op.tags
