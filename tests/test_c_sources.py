"""C sources and asserts the port makes HIP: allocator results cast where C++ needs it, assert
conditions parenthesised for HIP's NVIDIA assert macro; what neither should touch stays."""
from __future__ import annotations

from hipport.engine.assert_parens import assert_paren_edits
from hipport.engine.c_allocations import allocation_cast_edits
from hipport.engine.edits import apply_edits


def cast(source: str) -> str:
    return apply_edits(source.encode(), allocation_cast_edits(source.encode())).decode()


def parens(source: str) -> str:
    return apply_edits(source.encode(), assert_paren_edits(source.encode())).decode()


def test_allocations_whose_type_is_written_get_the_cast():
    assert cast("int *p = malloc(4);") == "int *p = (int *)malloc(4);"
    assert cast("static const char* const *names = calloc(2, 8);") == (
        "static const char* const *names = (const char *const *)calloc(2, 8);"
    )
    assert cast("void f(float **out) {\n  *out = malloc(4);\n}") == "void f(float **out) {\n  *out = (float *)malloc(4);\n}"
    assert cast("unsigned char *a, *b;\nb = realloc(a, 2);") == "unsigned char *a, *b;\nb = (unsigned char *)realloc(a, 2);"


def test_allocations_without_a_written_type_or_already_cast_stay():
    for source in (
        "x.y = malloc(4);",  # a member: its type is not in the file's text here
        "q = malloc(4);",  # never declared
        "foo(malloc(4));",  # an argument
        "if (p == malloc(4)) {}",  # a comparison
        "char *p = (char *)malloc(4);",  # already cast
        "// char *p = malloc(4);",  # a comment
        'puts("p = malloc(4)");',  # a string
        "int n = 0; n = sizeof *p; n = malloc(4);",  # `sizeof *n` is no declaration; n is an int
    ):
        assert cast(source) == source, source


def test_assert_conditions_of_more_than_one_operand_are_parenthesised_once():
    assert parens("assert(NULL != p);") == "assert((NULL != p));"
    assert parens("assert(i < n && j);") == "assert((i < n && j));"
    assert parens("assert((a) < (b));") == "assert(((a) < (b)));"
    for source in ("assert(p);", "assert(!s.ok());", "assert(p->q[3]);", "assert((a < b));",
                   "static_assert(a == b, \"\");", "my_assert(a == b);", "// assert(a == b);",
                   "assert(a == b, \"a project's own two-argument assert\");"):
        assert parens(source) == source, source
    once = parens("assert(a == b);")
    assert parens(once) == once
