"""Hand-picked hostile inputs: deep nesting, unterminated constructs, odd bytes and encodings.

Every input goes through the fuzz oracle (check_port) with a Python stack
only ~150 frames deeper than the caller's, so code that recursed once per
nesting level would fail with RecursionError on the 10,000-deep inputs.
The 100 MB inputs are marked slow: HIPPORT_SLOW_TESTS=1 (make fuzz) runs them.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import pytest
from click.testing import CliRunner

from fuzz_invariants import check_port
from fuzz_strategies import fuzz_rules
from hipport.cli import main
from hipport.options import Options

DEEP = 10_000
STACK_MARGIN = 150  # frames the port may use below its caller, whatever the input

slow = pytest.mark.skipif(not os.environ.get("HIPPORT_SLOW_TESTS"), reason="slow: set HIPPORT_SLOW_TESTS=1")


@contextmanager
def shallow_stack(margin: int = STACK_MARGIN):
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + margin)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


NESTED = {
    "parens": b"void f() { x = " + b"(" * DEEP + b"cudaMalloc(p, 4)" + b")" * DEEP + b"; }\n",
    "braces": b"void f() " + b"{ " * DEEP + b"cudaFree(p); " + b"}" * DEEP + b"\n",
    "brackets": b"int x = a" + b"[" * DEEP + b"cudaSuccess" + b"]" * DEEP + b";\n",
    "templates": b"A<" * DEEP + b"cudaStream_t" + b">" * DEEP + b" x;\n",
    "calls": b"void f() { " + b"g(" * DEEP + b"cudaFree(p)" + b")" * DEEP + b"; }\n",
    "if-directives": b"#if A\n" * DEEP + b"cudaFree(p);\n" + b"#endif\n" * DEEP,
    "ifdef-else": b"#ifdef A\n#else\n" * DEEP + b"#include <cuda_runtime.h>\n" + b"#endif\n" * DEEP,
    "binary-expression": b"int f() { return cudaSuccess" + b" + x" * DEEP + b"; }\n",
    "macro-chain": b"".join(b"#define M%d M%d(cudaFree(p))\n" % (i + 1, i) for i in range(DEEP)),
    "macro-body-calls": b"#define M(x) " + b"cudaMalloc(" * DEEP + b"x" + b")" * DEEP + b"\n",
    "macro-continuations": b"#define M(x) \\\n" + b"  cudaFree(x); \\\n" * DEEP + b"\n",
    "unbalanced-opens": b"void f() { cudaMalloc" + b"(" * DEEP + b"{" * DEEP,
    "unbalanced-closes": b")" * DEEP + b"}" * DEEP + b"cudaFree(p);\n",
    "launch-chevrons": b"void f() { " + b"k<<<" * 2_000 + b"1, 1>>>();\n",
    "nested-launch-config": b"void f() { k<<<" + b"(" * DEEP + b"g" + b")" * DEEP + b", b>>>(cudaFree(p)); }\n",
}

ODD = {
    "empty": b"",
    "utf8-bom-only": b"\xef\xbb\xbf",
    "lone-cr": b"\r",
    "lone-backslash": b"\\",
    "lone-hash": b"#",
    "lone-chevrons": b"<<<>>>",
    "unterminated-comment": b"cudaFree(p); /* cudaMalloc(q)",
    "unterminated-string": b'cudaFree(p); "cudaMalloc(q)',
    "unterminated-raw-string": b'cudaFree(p); R"x( cudaMalloc(q) )y"',
    "unterminated-char": b"cudaFree(p); 'c",
    "unterminated-include": b"#include <cuda_runtime.h",
    "define-ends-in-backslash": b"#define M cudaFree(p) \\",
    "raw-string-with-fake-delimiter": b'auto s = R"a)b(cudaMalloc)a)b"; cudaFree(p);\n',
    "nul-bytes": b"cudaFree(p);\0\0cudaMalloc(q);\0#include <cuda_runtime.h>\0\n",
    "only-nuls": b"\0" * 4096,
    "invalid-utf8": b"// \xff\xfe\xc3\n cudaFree(p); /* \xe9t\xe9 */\n\xc0\xaf cudaMalloc(q);\n",
    "utf8-surrogates": b"int \xed\xa0\x80 = 0; cudaFree(p);\n",
    "truncated-multibyte-at-eof": b"cudaFree(p); // \xe2\x82",
    "latin1-comment": b"// \xe9quipe \xe0 Z\xfcrich\n#include <cuda_runtime.h>\nvoid f() { cudaFree(p); }\n",
    "utf16-le-bom": "\ufeff#include <cuda_runtime.h>\nvoid f() { cudaFree(p); }\n".encode("utf-16-le"),
    "utf16-be-bom": "\ufeff#include <cuda_runtime.h>\nvoid f() { cudaFree(p); }\n".encode("utf-16-be"),
    "utf32-le-bom": "\ufeff#include <cuda_runtime.h>\nvoid f() { cudaFree(p); }\n".encode("utf-32-le"),
    "utf16-no-bom": "#include <cuda_runtime.h>\nvoid f() { cudaFree(p); }\n".encode("utf-16-le"),
    "utf8-bom-dropped-include": b"\xef\xbb\xbf#include <device_launch_parameters.h>\n__global__ void k() {}\n",
    "crlf": b"#include <cuda_runtime.h>\r\n__global__ void k() {}\r\nvoid f() { k<<<1, 1>>>(); cudaFree(p); }\r\n",
    "cr-only": b"#include <device_launch_parameters.h>\r__global__ void k() {}\rvoid f() { k<<<1, 1>>>(); }\r",
    "mixed-line-endings": b"#include <cuda.h>\r\nvoid f() {\r cudaFree(p);\n}\r\n",
    "one-megabyte-line": b"cudaFree(p); int x = y + z; " * (1 << 20 >> 5),
}


@pytest.mark.parametrize("name", NESTED)
def test_deep_nesting_neither_recurses_nor_breaks_a_guarantee(name):
    with shallow_stack():
        check_port(NESTED[name], fuzz_rules(), Options(launch_syntax="hip"))


@pytest.mark.parametrize("name", ODD)
def test_odd_input_keeps_every_guarantee(name):
    with shallow_stack():
        check_port(ODD[name], fuzz_rules(), Options(launch_syntax="hip"))


@pytest.mark.parametrize("name", ["utf16-le-bom", "utf16-be-bom", "utf32-le-bom", "utf16-no-bom"])
def test_wide_encodings_are_left_alone_with_a_finding(name):
    result = check_port(ODD[name], fuzz_rules())
    assert [f.code for f in result.findings] == ["HP904"]
    assert result.output == ODD[name] and not result.edits


def test_cr_only_file_loses_only_the_dropped_include_line():
    result = check_port(ODD["cr-only"], fuzz_rules(), Options(launch_syntax="hip"))
    assert result.output.startswith(b"#include <hip/hip_runtime.h>\r__global__ void k() {}\r")
    assert b"device_launch_parameters" not in result.output


def test_cr_only_file_ports_every_include_not_just_the_first():
    source = b'#include <cuda_runtime.h>\r#include <cublas_v2.h>\r#include <curand.h>\rcublasHandle_t h;\r'
    output = check_port(source, fuzz_rules()).output
    assert output.split(b"\r")[:3] == [b"#include <hip/hip_runtime.h>", b"#include <hipblas/hipblas.h>",
                                       b"#include <hiprand/hiprand.h>"]


def test_stack_guard_catches_recursion():
    def nest(n):
        return 0 if n == 0 else 1 + nest(n - 1)

    with pytest.raises(RecursionError), shallow_stack():
        nest(DEEP)


@pytest.mark.parametrize("name", ["nul-bytes", "invalid-utf8", "utf16-le-bom", "unterminated-raw-string", "cr-only"])
def test_cli_converts_odd_files_without_a_traceback(tmp_path, name):
    src = tmp_path / "odd.cu"
    src.write_bytes(ODD[name])
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(tmp_path / "out.hip")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.hip").exists()


HUNDRED_MB = 100 << 20


@slow
@pytest.mark.parametrize("unit", [
    b"int x = y + z; ",  # nothing to port: the scanner alone
    b"float a = b * c; " * 7 + b"cudaFree(p); ",  # a name to port every ~130 bytes
    b"/* cudaMalloc */ int x; ",  # a comment holding a name every 24 bytes
], ids=["no-names", "a-name-every-130-bytes", "a-comment-every-24-bytes"])
def test_hundred_megabyte_single_line(unit):
    source = unit * (HUNDRED_MB // len(unit))
    check_port(source, fuzz_rules(), idempotent=False)
