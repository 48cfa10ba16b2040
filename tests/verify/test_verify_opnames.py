from __future__ import annotations

import pytest

from vllm_preflight.verify.opnames import parse_qualified, short, toy_dotted


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
