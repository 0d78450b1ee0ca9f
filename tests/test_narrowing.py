"""A floating literal in an integer's brace initialiser gets the cast nvcc's conversion made
(hipport.engine.narrowing)."""
from __future__ import annotations

import pytest

from conftest import with_edits
from hipport.engine.narrowing import narrowing_edits


def fixed(text: str) -> str:
    return with_edits(narrowing_edits, text)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("int a[2] = {0.0, 1.5};", "int a[2] = {(int)0.0, (int)1.5};"),
        ("unsigned  long long b{ 1e3 };", "unsigned  long long b{ (unsigned long long)1e3 };"),
        ("size_t n = {2.f};", "size_t n = {(size_t)2.f};"),
        ("short s[] = {1, .5, -2.5e1};", "short s[] = {1, (short).5, (short)-2.5e1};"),
    ],
)
def test_a_floating_literal_gets_the_integer_cast(before, after):
    assert fixed(before) == after


@pytest.mark.parametrize(
    "kept",
    [
        "float f[2] = {0.5, 1.5};",
        "my_int m[1] = {0.5};",  # not a type known to be an integer
        "int x = {f(0.5)};",  # part of an expression: its type is not known here
        "int k[2] = {1, 2};",
        "// int c[1] = {0.5}; in a comment\n",
        'const char *s = "int d[1] = {0.5};";',
        "double d{0.5}; int i = 2.5;",  # no braces: not narrowing in C++
    ],
)
def test_what_is_not_a_floating_literal_in_integer_braces_stays(kept):
    assert fixed(kept) == kept
