"""Hypothesis strategies that assemble CUDA-looking files, odd and broken ones included.

The grammar is deliberately loose: kernels, launches, macros with
continuations, #if nests, includes, raw strings, char literals and comments
are glued together with random whitespace, then some documents are truncated,
spliced with noise, re-encoded or given other line endings. Names come from
the real rule set, so the engine's rewrites, wraps and lints all fire.
"""
from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

from hipport.options import Options
from hipport.ruleset.loader import load_rules


HIP_VERSIONS = (None, (5, 2, 0), (6, 0, 0), (6, 2, 0))


@lru_cache(maxsize=1)
def fuzz_rules():
    """The built-in rules, loaded once (a pytest fixture would be printed with every failure)."""
    return load_rules(use_cache=False)


@lru_cache(maxsize=1)
def _vocabulary() -> dict[str, list[str]]:
    rules = fuzz_rules()
    names = sorted(rules.names)
    return {
        # every 37th name keeps the sample small but spread over every library
        "api": names[::37] + sorted(rules.wraps) + sorted(rules.rewrites),
        "headers": sorted(rules.headers),
        "markers": sorted(rules.markers),
        "namespaces": sorted(rules.namespaces),
    }


@lru_cache(maxsize=None)
def api_names() -> st.SearchStrategy[str]:
    names = _vocabulary()["api"]
    # An index, not sampled_from(names): that strategy's repr would list all the names.
    return st.integers(0, len(names) - 1).map(names.__getitem__) | st.sampled_from(
        ["cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemcpyToSymbol", "cudaStream_t", "cudaSuccess",
         "cudaFooBar", "cuInit", "CUdevice", "cublasCreate", "__shfl_sync", "__ldg", "threadIdx", "warpSize"])


USER_NAMES = st.sampled_from(["k", "x", "p", "n", "kt", "Fake", "obj", "CHECK", "T", "grid", "block", "s",
                              "cudaLocal", "my_cuda", "A1"])
SPACE = st.sampled_from([" ", "", "  ", "\t", "\n", " /* c */ ", " // cudaFree\n", "\\\n", "\n\n"])
PUNCT = st.sampled_from(list("(){}[]<>;,.:*&+-=!?#'\"\\/%^|~") + ["::", "->", "<<<", ">>>", "##", "...", "<<", ">>"])
NUMBER = st.sampled_from(["0", "1", "32", "0x1F", "1'000", "3.5f", "1e-3", "64u", "'a'", "'\\''", "'\\n'"])
NOISE_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)


@lru_cache(maxsize=None)
def _atom() -> st.SearchStrategy[str]:
    return st.one_of(api_names(), USER_NAMES, NUMBER, PUNCT, st.sampled_from(_vocabulary()["markers"]),
                     st.builds(lambda ns, n: f"{ns}::{n}", st.sampled_from(_vocabulary()["namespaces"] + ["Fake"]),
                               api_names()))


def _joined(parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[str]:
    return st.builds(lambda ps, gaps: "".join(p + gaps[i % len(gaps)] for i, p in enumerate(ps)),
                     parts, st.lists(SPACE, min_size=1, max_size=4))


@lru_cache(maxsize=None)
def expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        _atom(),
        lambda inner: st.one_of(
            st.builds(lambda f, args: f"{f}({', '.join(args)})", api_names() | USER_NAMES, st.lists(inner, max_size=4)),
            st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from(["+", "%", "==", "&&", "<", ">"]), inner),
            st.builds(lambda a: f"({a})", inner),
            st.builds(lambda o, m: f"{o}.{m}", USER_NAMES, api_names()),
            st.builds(lambda t, a: f"{t}<{a}>", USER_NAMES, inner),
        ),
        max_leaves=12,
    )


@lru_cache(maxsize=None)
def launches() -> st.SearchStrategy[str]:
    config = st.lists(expressions(), min_size=0, max_size=5)
    return st.builds(
        lambda k, tmpl, cfg, gaps, args: f"{k}{tmpl}<<<{gaps[0]}{(',' + gaps[1]).join(cfg)}{gaps[2]}>>>({', '.join(args)});",
        USER_NAMES, st.sampled_from(["", "<float>", "<float, 4>"]), config,
        st.lists(SPACE, min_size=3, max_size=3), st.lists(expressions(), max_size=3),
    )


@lru_cache(maxsize=None)
def raw_strings() -> st.SearchStrategy[str]:
    return st.builds(lambda d, body, close: f'R"{d}({body}' + (f'){d}"' if close else ""),
                     st.sampled_from(["", "x", "delim", "a)b"]), _joined(st.lists(_atom(), max_size=5)), st.booleans())


@lru_cache(maxsize=None)
def literals() -> st.SearchStrategy[str]:
    return st.one_of(
        raw_strings(),
        st.builds(lambda body, close: f'"{body}' + ('"' if close else ""),
                  _joined(st.lists(_atom(), max_size=4)), st.booleans()),
        st.builds(lambda body, close: f"/* {body}" + (" */" if close else ""),
                  _joined(st.lists(_atom(), max_size=4)), st.booleans()),
        st.builds(lambda body: f"// {body}", _joined(st.lists(_atom(), max_size=4))),
    )


@lru_cache(maxsize=None)
def statements() -> st.SearchStrategy[str]:
    simple = st.one_of(
        st.builds(lambda e: f"{e};", expressions()),
        launches(),
        literals(),
        st.builds(lambda t, v, e: f"{t} {v} = {e};", api_names() | USER_NAMES, USER_NAMES, expressions()),
    )
    return st.recursive(
        simple,
        lambda inner: st.one_of(
            st.builds(lambda body: "{ " + " ".join(body) + " }", st.lists(inner, max_size=4)),
            st.builds(lambda c, body: f"if ({c}) {body}", expressions(), inner),
            st.builds(lambda body: f"for (int i = 0; i < n; ++i) {body}", inner),
            st.builds(lambda body: f"[&]() {{ {body} }}();", inner),
        ),
        max_leaves=8,
    )


@lru_cache(maxsize=None)
def directives() -> st.SearchStrategy[str]:
    header = st.sampled_from(_vocabulary()["headers"]) | st.sampled_from(["my.h", "a b.h", "cuda"])
    continued = st.builds(lambda parts: " \\\n    ".join(parts), st.lists(expressions(), min_size=1, max_size=4))
    return st.one_of(
        st.builds(lambda d, h, q: f"#{d}include {'<' if q else chr(34)}{h}{'>' if q else chr(34)}",
                  st.sampled_from(["", " ", "  "]), header, st.booleans()),
        st.builds(lambda n, params, body: f"#define {n}{params} {body}", USER_NAMES | api_names(),
                  st.sampled_from(["", "(x)", "(a, b)", "(...)"]), continued),
        st.builds(lambda c: f"#if {c}", expressions()),
        st.sampled_from(["#else", "#endif", "#ifdef __CUDACC__", "#ifndef GUARD_H", "#define GUARD_H",
                         "#elif CUDA_VERSION >= 11000", "#pragma unroll", "#pragma once", "#error cudaMalloc",
                         "#if CUDART_VERSION < 12000", "#undef cudaMalloc", "#", "#include"]),
    )


@lru_cache(maxsize=None)
def top_level() -> st.SearchStrategy[str]:
    return st.one_of(
        directives(),
        statements(),
        st.builds(lambda m, k, params, body: f"{m} void {k}({params}) {body}",
                  st.sampled_from(["__global__", "__device__", "__host__ __device__", "template <typename T> __global__", ""]),
                  USER_NAMES, st.sampled_from(["", "float* x", "int n, T* out", "cudaStream_t s"]),
                  statements()),
        st.builds(lambda n, body: f"namespace {n} {{ {body} }}", USER_NAMES, statements()),
        st.builds(lambda n, f: f"struct {n} {{ int {f}; void {f}(int); }};", USER_NAMES, api_names()),
    )


@lru_cache(maxsize=None)
def clean_statements() -> st.SearchStrategy[str]:
    """Statements that parse: no stray punctuation, every literal and comment closed."""
    atom = st.one_of(api_names(), USER_NAMES, st.sampled_from(["0", "1", "32", "0x1F", "3.5f", "'a'", '"text"']))
    expression = st.recursive(atom, lambda inner: st.one_of(
        st.builds(lambda f, args: f"{f}({', '.join(args)})", api_names() | USER_NAMES, st.lists(inner, max_size=3)),
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from(["+", "%", "==", "&&", "<"]), inner),
        st.builds(lambda o, m: f"{o}.{m}", USER_NAMES, api_names()),
    ), max_leaves=8)
    launch = st.builds(lambda k, cfg, args: f"{k}<<<{', '.join(cfg)}>>>({', '.join(args)});",
                       USER_NAMES, st.lists(expression, min_size=2, max_size=4), st.lists(expression, max_size=3))
    simple = st.one_of(st.builds(lambda e: f"{e};", expression), launch,
                       st.builds(lambda t, v, e: f"{t} {v} = {e};", api_names(), USER_NAMES, expression),
                       st.sampled_from(["// cudaFree(p) here", "/* cudaMalloc */", 'puts("cudaMalloc failed");']))
    return st.recursive(simple, lambda inner: st.one_of(
        st.builds(lambda body: "{ " + " ".join(body) + " }", st.lists(inner, max_size=3)),
        st.builds(lambda c, body: f"if ({c}) {body}", expression, inner),
    ), max_leaves=6)


@lru_cache(maxsize=None)
def well_formed_items() -> st.SearchStrategy[str]:
    """Top-level items that parse: statements stay in function bodies, #if blocks are closed."""
    header = st.sampled_from(_vocabulary()["headers"])
    body = st.lists(clean_statements(), max_size=4).map(lambda ss: "{\n  " + "\n  ".join(ss) + "\n}")
    function = st.builds(lambda m, k, params, b: f"{m} void {k}({params}) {b}",
                         st.sampled_from(["__global__", "__device__", "__host__ __device__", "static", ""]),
                         USER_NAMES, st.sampled_from(["", "float* x", "int n, float* out", "cudaStream_t s"]), body)
    simple = st.one_of(
        function,
        st.builds(lambda h: f"#include <{h}>", header),
        st.builds(lambda n, e: f"#define {n}(x) {e}", USER_NAMES, clean_statements()),
        st.builds(lambda t, v: f"{t} {v};", api_names(), USER_NAMES),
    )
    return st.recursive(simple, lambda inner: st.one_of(
        st.builds(lambda c, items: f"#if {c}\n" + "\n".join(items) + "\n#endif", api_names(), st.lists(inner, max_size=3)),
        st.builds(lambda n, items: f"namespace {n} {{\n" + "\n".join(items) + "\n}", USER_NAMES, st.lists(inner, max_size=3)),
    ), max_leaves=6)


@st.composite
def cuda_programs(draw) -> bytes:
    """Mostly well-formed CUDA files, so the idempotence check (skipped after HP9xx) gets exercised."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = "\n".join(draw(st.lists(well_formed_items(), min_size=1, max_size=8))) + "\n"
    return text.replace("\n", newline).encode("utf-8")


NEWLINES = st.sampled_from(["\n", "\r\n", "\r", "mixed"])
ENCODINGS = st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16", "utf-16-be-bom"])


@st.composite
def cuda_sources(draw) -> bytes:
    """A CUDA-ish document, then maybe re-lined, re-encoded, truncated or spliced with noise."""
    lines = draw(st.lists(top_level(), max_size=12))
    newline = draw(NEWLINES)
    if newline == "mixed":
        text = "".join(line + draw(st.sampled_from(["\n", "\r\n", "\r"])) for line in lines)
    else:
        text = newline.join(lines).replace("\n", newline) if newline != "\n" else "\n".join(lines)
        if lines and draw(st.booleans()):
            text += newline
    if draw(st.integers(0, 9)) == 0:
        text += draw(NOISE_TEXT)
    data = _encode(text, draw(ENCODINGS))
    mutation = draw(st.integers(0, 11))
    if mutation == 0 and data:
        data = data[: draw(st.integers(0, len(data)))]
    elif mutation == 1:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=16)) + data[at:]
    elif mutation == 2:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\0" + data[at:]
    return data


def _encode(text: str, encoding: str) -> bytes:
    if encoding == "utf-16-be-bom":
        return b"\xfe\xff" + text.encode("utf-16-be", "replace")
    if encoding == "latin-1":
        return text.encode("latin-1", "replace")
    return text.encode(encoding, "surrogatepass")


@lru_cache(maxsize=None)
def random_bytes() -> st.SearchStrategy[bytes]:
    """Unstructured input, biased towards bytes that matter to a C lexer."""
    lexer_bytes = st.sampled_from([b"(", b")", b"{", b"}", b"<<<", b">>>", b"#", b"include", b"\\\n", b"/*", b"*/",
                                   b"//", b'"', b"'", b'R"(', b"\n", b"\r", b"\0", b"\xff", b"\xef\xbb\xbf",
                                   b"cudaMalloc", b"cudaFree(p)", b" "])
    return st.one_of(st.binary(max_size=200), st.lists(lexer_bytes, max_size=60).map(b"".join))


@lru_cache(maxsize=None)
def port_options() -> st.SearchStrategy[Options]:
    return st.builds(
        Options,
        launch_syntax=st.sampled_from(["keep", "hip"]),
        roc=st.booleans(),
        hip_version=st.sampled_from(HIP_VERSIONS),
        mode=st.sampled_from(["port", "port", "shim"]),
    )



def options_from_byte(byte: int) -> Options:
    """The options a fuzz input's first byte selects (atheris inputs and regression fixtures)."""
    return Options(
        launch_syntax="hip" if byte & 1 else "keep",
        roc=bool(byte & 2),
        hip_version=HIP_VERSIONS[(byte >> 2) & 3],
        mode="shim" if byte & 16 else "port",
    )
