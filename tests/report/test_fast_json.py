"""report/fast_json.dumps_indent2 writes exactly json.dumps(doc, indent=2)."""
from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from vllm_preflight.report.fast_json import dumps_indent2

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
docs = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
                    | st.dictionaries(keys, inner, max_size=5), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(docs)
def test_same_text_as_the_stdlib(doc):
    assert dumps_indent2(doc) == json.dumps(doc, indent=2)


def test_edge_values():
    doc = {"a": [], "b": {}, "c": [1, [2, {"x": [True, None, 1.5, math.inf, -math.inf]}]], "é": "ü\n\"",
           1: (1, 2), None: {"k": [[]]}, "nan": math.nan}
    assert dumps_indent2(doc) == json.dumps(doc, indent=2)


def test_what_the_stdlib_refuses_it_refuses_alike():
    class Odd:
        pass

    for doc in ({"a": Odd()}, {(1, 2): 1}, [Odd()], {"x": {"y": [1, Odd()]}}):
        try:
            json.dumps(doc, indent=2)
        except TypeError as e:
            expected = str(e)
        else:
            raise AssertionError("the stdlib accepted it")
        try:
            dumps_indent2(doc)
        except TypeError as e:
            assert str(e) == expected
        else:
            raise AssertionError("accepted what the stdlib refuses")
