"""The repr reader: vLLM's config reprs read as data, nothing evaluated, limits held."""
from __future__ import annotations

import math

import pytest

from vllm_preflight.confirm.literal import (
    Call,
    EnumMember,
    LiteralProblem,
    Opaque,
    literal,
    parse,
    plain,
)


def test_vllm_compilation_config_repr():
    text = ("{'level': None, 'mode': <CompilationMode.VLLM_COMPILE: 3>, 'backend': 'inductor', "
            "'custom_ops': ['none', '+quant_fp8'], 'splitting_ops': ['vllm::unified_attention'], "
            "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [512, 256, 1], "
            "'pass_config': PassConfig(fuse_norm_quant=False, eliminate_noops=True, fi_allreduce_fusion_max_size_mb=None), "
            "'compile_sizes': [], 'inductor_compile_config': {'enable_auto_functionalized_v2': False}, "
            "'max_cudagraph_capture_size': 512, 'local_cache_dir': None, 'static_forward_context': {}}")
    v = literal(text)
    assert v["mode"] == EnumMember("CompilationMode", "VLLM_COMPILE", 3)
    assert v["cudagraph_mode"] == EnumMember("CUDAGraphMode", "FULL_AND_PIECEWISE", (2, 1))
    assert isinstance(v["pass_config"], Call) and v["pass_config"].kwargs["eliminate_noops"] is True
    p = plain(v)
    assert p["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert p["pass_config"] == {"fuse_norm_quant": False, "eliminate_noops": True,
                                "fi_allreduce_fusion_max_size_mb": None}
    assert p["cudagraph_capture_sizes"] == [512, 256, 1]


def test_json_of_older_releases():
    v = literal('{"level": 3, "use_cudagraph": true, "cudagraph_mode": [2, 1], "x": null, "f": 1.5e-3}')
    assert v == {"level": 3, "use_cudagraph": True, "cudagraph_mode": [2, 1], "x": None, "f": 0.0015}


def test_strings_escapes_and_numbers():
    assert literal(r"'it\'s \x41\u00e9\n'") == "it's Aé\n"
    assert literal('"a\\"b"') == 'a"b'
    assert literal("(1,)") == (1,)
    assert literal("(1)") == 1
    assert literal("{1, 2}") == {1, 2}
    assert literal("-inf") == -math.inf
    assert literal("[0x10, -3, 2.5]") == [16, -3, 2.5]


def test_non_literals_are_kept_as_text_never_run():
    v = literal("{'f': <function f at 0x7f00>, 'dtype': torch.bfloat16, 'x': __import__('os')}")
    assert v["f"] == Opaque("<function f at 0x7f00>")
    assert v["dtype"] == Opaque("torch.bfloat16")
    # a call repr is data: its name and arguments, nothing imported or called
    assert v["x"] == Call("__import__", ["os"], {})


def test_an_expression_is_no_literal():
    with pytest.raises(LiteralProblem):
        literal("__import__('os').system('true')")
    with pytest.raises(LiteralProblem):
        literal("{'a': open('/etc/passwd').read()}")


def test_depth_limit_is_a_problem_not_a_recursion_error():
    with pytest.raises(LiteralProblem) as e:
        literal("{'a': " * 10_000 + "1" + "}" * 10_000)
    assert "deep" in e.value.message


def test_item_limit():
    with pytest.raises(LiteralProblem):
        parse("[" + "1, " * 300_000 + "]", max_items=200_000)


def test_truncated_keeps_what_came_before_the_cut():
    got = parse("{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.FULL: 2>, "
                "'cudagraph_capture_sizes': [1, 2, 4, 8, 1", allow_truncated=True)
    assert got.truncated
    assert plain(got.value) == {"mode": "VLLM_COMPILE", "cudagraph_mode": "FULL"}
    with pytest.raises(LiteralProblem):
        parse("{'a': [1, 2", allow_truncated=False)


@pytest.mark.parametrize("bad", ["{'a' 1}", "[1 2]", "{'a': }", "'unclosed\n'", "@", "{[1]: 2}"])
def test_malformed(bad):
    with pytest.raises(LiteralProblem):
        literal(bad)
