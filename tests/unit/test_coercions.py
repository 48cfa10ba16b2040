"""The value coercions ported from pydantic (`_bool`, `_int`) against pydantic itself.

vLLM validates `--compilation-config` with `TypeAdapter(CompilationConfig).validate_json`, so
a JSON value reaches a bool or int field through pydantic's lax JSON rules. pydantic is a
test dependency only (the `test` extra); the tool never imports it.
"""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from vllm_preflight.resolve.compilation.compilation_config import ConfigInvalid, _bool, _int

BOOL, INT = TypeAdapter(bool), TypeAdapter(int)

WORDS = ["0", "1", "true", "False", "TRUE", "yes", "No", "on", "OFF", "t", "F", "y", "n", " true", "off ",
         "0.0", "1.0", "", "2", "-1", "+1", "1.", "1.00", ".0", "1e3", "0001", "1_0", "1__0", "1_", "  1  ",
         "\t1\n", "-0.0", "1.01", "99999999999999999999", "99999999999999999999.0", " 1.0 ", "0b1",
         "1\u00a0", "\u20031", "\u0663", "\uff11", "0x10", "nan", "inf"]

json_values = st.one_of(
    st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WORDS), st.text(alphabet="0123456789 .+-_eEtruefalsyn\t\u00a0\u0663", max_size=8),
    st.sampled_from([None, [], {}, [1], {"a": 1}]),
)


def _pydantic(adapter, value):
    try:
        return adapter.validate_json(json.dumps(value))
    except ValidationError:
        return "refused"


def _ours(fn, value):
    try:
        return fn(json.loads(json.dumps(value)), "field")
    except ConfigInvalid:
        return "refused"


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_bool_matches_pydantic(value):
    assert _ours(_bool, value) == _pydantic(BOOL, value)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_int_matches_pydantic(value):
    assert _ours(_int, value) == _pydantic(INT, value)


def test_the_cases_the_issue_names():
    assert _bool(1.0, "f") is True and _int("1.0", "f") == 1
