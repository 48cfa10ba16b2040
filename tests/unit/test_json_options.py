"""The JSON config options pydantic validates as vLLM parses them (resolve/parser/json_options.py).

The field validator is checked against pydantic itself (a test dependency): each recorded
class is rebuilt as a pydantic dataclass from releases/data/json_options.json and both are
given the same JSON values. The refusals around the options (ParallelConfig's redundant
experts, --hf-overrides text, a non-object value) are pinned on what real vLLM printed for
the goldens in tests/golden/data/model_families/json_options/.
"""
from __future__ import annotations

import json
import re
from typing import Any, Literal, Optional, Union

import pytest
from compare import MODELS
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass as pyd_dataclass

from vllm_preflight.model import Deployment
from vllm_preflight.releases import get_release
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.parser.json_options import _data, class_of, problem


def _py_type(t: Any, built: dict) -> Any:
    if t in ("int", "float", "bool", "str"):
        return {"int": int, "float": float, "bool": bool, "str": str}[t]
    if t == "any":
        return Any
    if "opt" in t:
        return Optional[_py_type(t["opt"], built)]  # noqa: UP045 -- built at run time
    if "lit" in t:
        return Literal[tuple(t["lit"])]
    if "union" in t:
        return Union[tuple(Literal[tuple(m["lit"])] for m in t["union"])]  # noqa: UP007
    if "list" in t:
        return list[_py_type(t["list"], built)]
    if "dict" in t:
        return dict[str, _py_type(t["dict"], built)]
    return _pydantic_class(t["cls"], built)


def _pydantic_class(key: str, built: dict) -> type:
    """A pydantic dataclass with the recorded fields, bounds and extra-key policy (no validators)."""
    if key in built:
        return built[key]
    cls = _data()["classes"][key]
    annotations, namespace = {}, {}
    for name, typ, bounds, _custom in cls["fields"]:
        annotations[name] = _py_type(typ, built)
        namespace[name] = Field(default=None, validate_default=False, **bounds)
    namespace["__annotations__"] = annotations
    out = pyd_dataclass(type(cls["name"], (), namespace), config=ConfigDict(extra=cls["extra"]))
    built[key] = out
    return out


def _state(version: str) -> State:
    return State(release=get_release(version), gpu=None, env={}, model=None)  # type: ignore[arg-type]


def _strip(text: str) -> str:
    """Messages without pydantic's details after each error (what the goldens compare)."""
    return "\n".join(line for line in (re.sub(r"\s*\[type=.*", "", ln) for ln in text.splitlines())
                     if line.strip() and not line.strip().startswith("For further information"))


CHECKED = [("0.33.0", "eplb_config"), ("0.12.0", "eplb_config"), ("0.33.0", "kv_events_config"),
           ("0.33.0", "pooler_config"), ("0.33.0", "profiler_config"), ("0.16.0", "ec_transfer_config"),
           ("0.33.0", "kernel_config"), ("0.33.0", "aux_output_config")]

json_values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, 2.0, 1.0, -1.5]),
    st.sampled_from(["", "x", "yes", "0", "12", "1.5", "LAST", "zmq", "default", "nixl", "torch", "ALL"]),
    st.sampled_from([[], [1], ["a"], {}, {"a": 1}]),
)


@pytest.mark.parametrize("version,dest", CHECKED)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_field_errors_agree_with_pydantic(version, dest, data):
    cls = class_of(dest, version)
    key = _data()["releases"][version][dest]
    names = [f[0] for f in cls["fields"] if not f[3]]  # fields with their own validator are not checked
    keys = data.draw(st.lists(st.sampled_from(names + ["zz_unknown"]), max_size=3, unique=True))
    value = {k: data.draw(json_values) for k in keys}
    try:
        TypeAdapter(_pydantic_class(key, {})).validate_json(json.dumps(value))
        want = None
    except ValidationError as e:
        want = _strip(repr(e))
    got = problem(dest, value, _state(version))
    if got is not None and "Value error" in got:
        got = None  # a model validator's refusal: the rebuilt class has none
    assert (None if got is None else _strip(got)) == want


def _error(words: list[str], target: str, model: str = "mixtral-moe"):
    argv = ("vllm", "serve", str(MODELS / model)) + tuple(words)
    return resolve(Deployment(argv=argv, env=(), source="t"), target).vllm_error


def test_redundant_experts_need_eplb():
    err = _error(["--eplb-config", '{"num_redundant_experts": 2}'], "0.33.0")
    assert err.type == "ValidationError"
    assert err.message.startswith("1 validation error for ParallelConfig\n  Value error, num_redundant_experts is "
                                  "set to 2 but EPLB is not enabled.")
    assert _error(["--eplb-config", '{"num_redundant_experts": 2}', "--enable-eplb", "-ep", "-tp", "2"],
                  "0.33.0") is None


def test_bounds_and_unknown_keys_by_release():
    # 0.33.0: window_size is a gt=0 field and unknown keys are refused; 0.12.0 has neither
    err = _error(["--eplb-config", '{"window_size": 0, "zz": 1}'], "0.33.0")
    assert err.type == "ArgumentError"
    assert _strip(err.message) == ("argument --eplb-config: 2 validation errors for EPLBConfig\nwindow_size\n"
                                   "  Input should be greater than 0\nzz\n  Unexpected keyword argument")
    assert _error(["--eplb-config", '{"window_size": 0, "zz": 1}'], "0.12.0") is None


def test_async_eplb_communicator_from_its_release():
    words = ["--eplb-config", '{"use_async": true, "communicator": "pynccl"}']
    assert "pynccl communicator is incompatible with async EPLB" in _error(words, "0.33.0").message
    assert _error(words, "0.12.0") is None  # no communicator field: an ignored key


def test_a_config_option_must_be_an_object():
    err = _error(["--eplb-config", "[1]"], "0.12.0")
    assert _strip(err.message) == "argument --eplb-config: 1 validation error for EPLBConfig\n  Input should be an object"


def test_hf_overrides_text_is_refused_by_model_config():
    err = _error(["--hf-overrides", "[1, 2]"], "0.33.0", "llama-dense")
    assert err.type == "ValidationError"
    assert _strip(err.message).startswith("2 validation errors for ModelConfig\nhf_overrides.dict[str,any]\n"
                                          "  Input should be a valid dictionary")
    assert _error(["--hf-overrides", '{"max_position_embeddings": 4096}'], "0.33.0", "llama-dense") is None


def test_literal_unions_report_each_member():
    got = problem("pooler_config", {"pooling_type": "x"}, _state("0.33.0"))
    assert _strip(got).splitlines()[:2] == ["2 validation errors for PoolerConfig",
                                            "pooling_type.literal['CLS','LAST','MEAN']"]


def test_recorded_classes_follow_the_sources():
    """Facts read from the releases' sources (tools/extract_json_options.py)."""
    eplb_33 = {f[0]: f for f in class_of("eplb_config", "0.33.0")["fields"]}
    assert eplb_33["window_size"][2] == {"gt": 0} and eplb_33["num_redundant_experts"][2] == {"ge": 0}
    assert class_of("eplb_config", "0.33.0")["extra"] == "forbid"
    assert class_of("eplb_config", "0.15.1")["extra"] == "ignore"  # @config forbids extra keys from 0.16.0
    assert class_of("eplb_config", "0.16.0")["extra"] == "forbid"
    assert class_of("attention_config", "0.12.0") is None  # --attention-config from 0.13.0


def test_kernel_backends_are_normalized_before_the_literal():
    # KernelConfig's `before` validators lower-case and turn dashes into underscores (0.33.0)
    assert problem("kernel_config", {"moe_backend": "TRITON", "linear_backend": "AUTO"}, _state("0.33.0")) is None
    got = _strip(problem("kernel_config", {"moe_backend": "no-such"}, _state("0.33.0")))
    assert got.startswith("1 validation error for KernelConfig\nmoe_backend\n  Input should be 'auto', 'triton'")
    # a wrap validator lets None through where the field is a plain bool
    assert problem("kernel_config", {"enable_jit_warmup": None}, _state("0.33.0")) is None
    assert problem("kernel_config", {"monokernel": None}, _state("0.33.0")) is not None


def test_attention_backends_are_enum_names():
    got = _strip(problem("attention_config", {"backend": "nope"}, _state("0.33.0")))
    assert got.startswith("1 validation error for AttentionConfig\nbackend\n  Value error, Unknown attention backend: "
                          "'NOPE'. Valid options are: FLASH_ATTN, ")
    assert problem("attention_config", {"backend": "flash_attn"}, _state("0.33.0")) is None
    # "auto" means automatic selection in 0.33.0's validator; 0.13.0 looks it up as a name
    assert problem("attention_config", {"backend": "auto"}, _state("0.33.0")) is None
    assert "Unknown attention backend: 'AUTO'" in problem("attention_config", {"backend": "auto"}, _state("0.13.0"))
    # not a string: pydantic's enum check by value (the backend class paths)
    assert "Input should be 'vllm.v1.attention.backends" in problem("attention_config", {"backend": 5},
                                                                     _state("0.33.0"))


def test_kv_transfer_field_types_come_before_its_post_init():
    # pydantic checks the fields first: a number for kv_connector, not the missing kv_role (real 0.12.0/0.33.0)
    for target in ("0.12.0", "0.33.0"):
        err = _error(["--kv-transfer-config", '{"kv_connector": 5}'], target, "llama-dense")
        assert _strip(err.message) == ("argument --kv-transfer-config: 1 validation error for KVTransferConfig\n"
                                       "kv_connector\n  Input should be a valid string")


def test_structured_outputs_backend_options():
    got = problem("structured_outputs_config", {"disable_any_whitespace": True}, _state("0.33.0"))
    assert "Value error, disable_any_whitespace is only supported for xgrammar and guidance backends." in got
    assert problem("structured_outputs_config", {"disable_any_whitespace": True, "backend": "guidance"},
                   _state("0.33.0")) is None
    got = problem("structured_outputs_config", {"disable_additional_properties": "yes", "backend": "xgrammar"},
                  _state("0.12.0"))
    assert "Value error, disable_additional_properties is only supported for the guidance backend." in got


def test_ec_connector_needs_a_role():
    got = problem("ec_transfer_config", {"ec_connector": "x"}, _state("0.33.0"))
    assert "Value error, Please specify ec_role when ec_connector is set, supported roles are ('ec_producer', " \
           "'ec_both', 'ec_consumer')" in got
    assert problem("ec_transfer_config", {"ec_connector": "x", "ec_role": "ec_both"}, _state("0.33.0")) is None
