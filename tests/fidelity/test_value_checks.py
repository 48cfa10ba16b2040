"""Issue 24's per-release value tables, read back: the environment's accepted values (vLLM's
envs.py choice readers) and the compilation config's declared field types. Expected values are
the releases' own sources (vllm/envs.py, vllm/config/compilation.py) and pydantic's lax JSON
mode (checked against pydantic 2.14 in the 0.33.0 environment); end-to-end agreement with real
vLLM is in tests/golden/test_fidelity.py."""
from __future__ import annotations

import pytest

from vllm_preflight.releases import env_choices, get_release
from vllm_preflight.resolve.base.pydantic import ConfigInvalid
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.compilation.field_types import check_field, declared
from vllm_preflight.resolve.engine.env_choices import choice_error


def _state(version: str, env: dict) -> State:
    from vllm_preflight.gpus import GPUS

    return State(release=get_release(version), gpu=GPUS["H200"], env=env, model=None)


def test_choice_tables_follow_the_releases():
    assert "VLLM_ATTENTION_BACKEND" in env_choices("0.14.1") and "VLLM_ATTENTION_BACKEND" not in env_choices("0.15.0")
    assert env_choices("0.33.0")["VLLM_COMPILE_CACHE_SAVE_FORMAT"]["choices"] == ["binary", "unpacked"]
    assert "FLEX_ATTENTION" in env_choices("0.11.0")["VLLM_ATTENTION_BACKEND"]["choices"]
    assert env_choices("0.12.0")["VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS"]["kind"] == "set"


@pytest.mark.parametrize("version,name,value,bad", [
    ("0.33.0", "VLLM_COMPILE_CACHE_SAVE_FORMAT", "unpacked", None),
    ("0.33.0", "VLLM_COMPILE_CACHE_SAVE_FORMAT", "Binary", "Binary"),  # case-sensitive reader
    ("0.12.0", "VLLM_ATTENTION_BACKEND", "FLASHINFER", None),
    ("0.12.0", "VLLM_ATTENTION_BACKEND", "XFORMERS", "XFORMERS"),  # left the enum in 0.12.0
    ("0.11.0", "VLLM_ATTENTION_BACKEND", "XFORMERS", None),
    ("0.12.0", "VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS", "container, web_search_preview", None),
    ("0.12.0", "VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS", "container,browser", "browser"),
])
def test_choice_readers(version, name, value, bad):
    msg = choice_error(_state(version, {name: value}), name)
    if bad is None:
        assert msg is None
    else:
        assert msg is not None and f"Invalid value '{bad}'" in msg and "Valid options: [" in msg


def test_declared_types_per_release():
    assert declared("0.11.0", "CompilationConfig")["use_inductor_graph_partition"] == ("bool", False)
    assert declared("0.33.0", "CompilationConfig")["use_inductor_graph_partition"] == ("bool", True)  # skips None
    assert "fuse_norm_quant" in declared("0.33.0", "PassConfig") and "enable_fusion" in declared("0.11.0", "PassConfig")


@pytest.mark.parametrize("field,value,expected", [
    ("cudagraph_copy_inputs", "yes", True), ("cudagraph_copy_inputs", 1.0, True),
    ("cudagraph_num_of_warmups", "2", 2), ("cudagraph_num_of_warmups", 2.0, 2),
    ("compile_sizes", [1, "cudagraph_capture_sizes"], [1, "cudagraph_capture_sizes"]),
    ("debug_dump_path", None, None), ("compile_cache_save_format", "unpacked", "unpacked"),
])
def test_lax_coercions(field, value, expected):
    assert check_field("0.33.0", "CompilationConfig", field, value, field) == expected


@pytest.mark.parametrize("field,value,message", [
    ("cudagraph_copy_inputs", "maybe", "Input should be a valid boolean, unable to interpret input"),
    ("cudagraph_copy_inputs", [1], "Input should be a valid boolean"),
    ("cudagraph_num_of_warmups", 1.5, "Input should be a valid integer, got a number with a fractional part"),
    ("inductor_compile_config", 5, "Input should be an object"),
    ("compile_cache_save_format", "x", "Input should be 'binary' or 'unpacked'"),
    ("debug_dump_path", 5, "Input is not a valid path for <class 'pathlib.Path'>"),
])
def test_refusals_name_the_field(field, value, message):
    with pytest.raises(ConfigInvalid) as e:
        check_field("0.33.0", "CompilationConfig", field, value, field)
    assert str(e.value) == f"{field}: {message}"


def test_a_union_reports_each_member():
    with pytest.raises(ConfigInvalid) as e:
        check_field("0.33.0", "CompilationConfig", "compile_sizes", [1.5], "compile_sizes")
    assert [str(e.value)] + [str(o) for o in e.value.others] == [
        "compile_sizes.0.int: Input should be a valid integer, got a number with a fractional part",
        "compile_sizes.0.str: Input should be a valid string"]
