"""The report's JSON text is exactly what json.dumps(indent=2) writes."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.emit.json_text import dumps_indented

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=12), st.sampled_from(["", "caf\xe9", "\u2603 \U0001f600", "a\"b\\c\n\t"]))
KEYS = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=40)


@given(VALUES)
@settings(max_examples=500, deadline=None)
def test_same_text_as_json_dumps_indent_2(value):
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_a_report_shaped_value():
    value = {"schema": 1, "files": [{"path": "a.cu", "changed": True, "edits": 2, "converted": {},
                                     "converted_names": {"cudaMalloc": 2, "cudaFree": 1},
                                     "findings": [{"code": "HP102", "fix": {"replacement": "x"}, "line": 3}]}],
             "summary": {"seconds": 1.5, "ratio": math.inf, "empty": [], "nested": [[], [1, [2, {}]]]}}
    assert dumps_indented(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize("value", [{"k": object()}, [object()], {(1, 2): 1}, {"k": {(1,): 1, "x": [1]}}])
def test_what_json_cannot_encode_raises_type_error(value):
    with pytest.raises(TypeError):
        json.dumps(value, indent=2)
    with pytest.raises(TypeError):
        dumps_indented(value)
