"""Properties over random mixes of CUDA snippets, comments and strings."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hipport.options import Options
from hipport.engine.port import port_source

SNIPPETS = [
    "cudaMalloc(&d, n * sizeof(float));",
    "cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);",
    "cudaMemcpyToSymbol(coef, h, sizeof(coef));",
    "cudaStream_t s; cudaStreamCreate(&s);",
    "k<<<grid, block, 0, stream>>>(d, n);",
    "kt<float, 4><<<1, 64>>>(d);",
    "__global__ void k(float* x) { x[threadIdx.x] = __ldg(x); }",
    "#define CHECK(c) do { cudaError_t e = (c); if (e != cudaSuccess) abort(); } while (0)",
    "#include <cuda_runtime.h>",
    "#include <cublas_v2.h>",
    "#include <device_launch_parameters.h>",
    "#if CUDA_VERSION >= 11000",
    "#endif",
    "#ifdef __CUDACC__",
    "obj.cudaFree(p);",
    "Fake::cudaMalloc(p);",
    "cub::DeviceReduce::Sum(tmp, bytes, in, out, n);",
    "cudaFooBar(1);",
    "cuInit(0); CUdevice dev; cuDeviceGet(&dev, 0);",
    "cublasHandle_t h; cublasCreate(&h);",
    "__half x = __float2half(1.0f);",
    "cudaDeviceFlushGPUDirectRDMAWrites(t, s);",
    "void cudaLocal(int);",
    "v += __shfl_down_sync(0xffffffff, v, 16);",
    "for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(FULL, v, o);",
    "unsigned m = __ballot_sync(__activemask(), p); n = __popc(__ballot_sync(0xffffffffu, p)); __syncwarp();",
    "int lane = threadIdx.x & 31; int w = threadIdx.x >> 5;",
    "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));",
    "#ifdef __CUDA_ARCH__",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700",
    "{", "}", "(", ")", ";",
]
COMMENTS = ["// cudaMalloc here", "/* cudaFree(p) */", "/* unterminated cudaMalloc", "// \xe9t\xe9 latin"]
STRINGS = ['"cudaMalloc failed"', "'c'", 'R"(cudaFree)"', '"unterminated cudaMalloc']
PIECE = st.one_of(st.sampled_from(SNIPPETS), st.sampled_from(COMMENTS), st.sampled_from(STRINGS),
                  st.text(alphabet="abc _;{}()<>#\n\t\"'/*\\", max_size=8))
NEWLINE = st.sampled_from(["\n", "\r\n", " "])


@st.composite
def sources(draw) -> bytes:
    pieces = draw(st.lists(st.tuples(PIECE, NEWLINE), max_size=25))
    text = "".join(p + nl for p, nl in pieces)
    encoding = draw(st.sampled_from(["utf-8", "latin-1"]))
    return text.encode(encoding, "replace")


OPTIONS = st.builds(Options, launch_syntax=st.sampled_from(["keep", "hip"]), roc=st.booleans(),
                    hip_version=st.sampled_from([None, (5, 2, 0), (6, 2, 0), (7, 0, 0)]))

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(source=sources(), options=OPTIONS)
def test_port_never_raises_and_keeps_bytes_outside_edits(rules, source, options):
    result = port_source(source, rules, options)
    cursor = 0
    rebuilt = []
    for edit in result.edits:
        assert cursor <= edit.start <= edit.end <= len(source)
        rebuilt.append(source[cursor:edit.start])
        rebuilt.append(edit.text)
        cursor = edit.end
    rebuilt.append(source[cursor:])
    assert b"".join(rebuilt) == result.output
    # Bytes outside edits: every unedited gap appears verbatim, in order.
    position = 0
    cursor = 0
    for edit in result.edits:
        gap = source[cursor:edit.start]
        found = result.output.find(gap, position)
        assert found == position, "unedited bytes moved or changed"
        position = found + len(gap) + len(edit.text)
        cursor = edit.end
    assert result.output[position:] == source[cursor:]


@SETTINGS
@given(source=sources(), options=OPTIONS)
def test_second_run_makes_no_edits(rules, source, options):
    first = port_source(source, rules, options)
    second = port_source(first.output, rules, options)
    assert second.edits == [], (first.output, second.output)
