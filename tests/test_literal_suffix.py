"""A string literal written against a macro name gets a blank (hipport.engine.literal_suffix)."""
from __future__ import annotations

import pytest

from conftest import with_edits
from hipport.engine.literal_suffix import literal_suffix_edits


def fixed(text: str) -> str:
    return with_edits(literal_suffix_edits, text)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('printf("%"PRIu64"\\n", v);', 'printf("%" PRIu64"\\n", v);'),
        ('puts("("FMT")");', 'puts("(" FMT")");'),
        ('#define MSG "at "WHERE\n', '#define MSG "at " WHERE\n'),
    ],
)
def test_a_macro_against_a_literal_gets_a_blank(before, after):
    assert fixed(before) == after


@pytest.mark.parametrize(
    "kept",
    [
        'auto s = "items"s;',  # the standard library's suffixes are suffixes
        'auto d = "x"_km;',  # a user-defined literal begins with _
        'puts("a" B "c");',
        "char c = 'a'; int x = c+1;",
        '// "quoted"WORD in a comment\n',
        'const char *q = "it\\"s"; ',
        'auto r = R"(a"B)"; puts("x"Y);',  # a raw string anywhere: the file stays as written
    ],
)
def test_what_is_not_a_macro_against_a_literal_stays(kept):
    assert fixed(kept) == kept
