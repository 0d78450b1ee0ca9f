"""A deterministic synthetic CUDA code base for the benchmark.

The same (files, seed) always gives the same bytes. The pieces are written for
this benchmark and shaped like a real mixed CUDA project: templated kernels and
their <<<>>> launches, runtime, driver, cuBLAS, cuRAND and cuFFT host code,
CUDA_CHECK-style macros, comments and strings that mention CUDA names, module
headers included from several files, plain C++ files with no CUDA at all,
build files that are copied untouched, a few CRLF and latin-1 files, and some
generated files of 5,000+ lines.

    python bench/corpus.py OUT --files 1000 --seed 1
    python bench/corpus.py big.cu --big-mb 50
"""
from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

MODULES = ("solver", "imaging", "particles", "sparse", "spectral", "stats", "mesh", "nn", "io", "geom",
           "fluid", "optics", "graph", "signal", "render", "finance")
WORDS = ("accumulate", "scale", "blend", "reduce", "scatter", "gather", "smooth", "project", "normalize",
         "integrate", "advect", "filter", "sample", "resize", "transpose", "pack", "unpack", "clamp",
         "threshold", "histogram", "prefix", "merge", "split", "update", "relax", "restrict", "prolong")
# Weights of each kind of file; the large generated files are placed separately.
KINDS = (("kernels", 30), ("runtime", 14), ("cublas", 6), ("curand", 5), ("cufft", 5), ("driver", 3),
         ("mixed_host", 7), ("plain_cpp", 18), ("plain_header", 5), ("other", 7))
CRLF_SHARE = 0.03
LATIN1_SHARE = 0.02
LARGE_EVERY = 100  # one 5,000+ line file per this many files (at least one)


@dataclass
class Corpus:
    root: Path
    files: list[Path] = field(default_factory=list)
    bytes: int = 0
    crlf: list[Path] = field(default_factory=list)
    latin1: list[Path] = field(default_factory=list)
    large: list[Path] = field(default_factory=list)

    def sources(self) -> list[Path]:
        return [p for p in self.files if p.suffix in SOURCE_SUFFIXES]

    def summary(self) -> dict:
        return {"files": len(self.files), "sources": len(self.sources()), "bytes": self.bytes,
                "crlf": len(self.crlf), "latin1": len(self.latin1), "large": len(self.large)}


SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".h", ".hpp"}


class _Names:
    """Fresh, readable identifiers; every draw goes through the one seeded rng."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: dict[str, int] = {}

    def fresh(self, stem: str) -> str:
        n = self.used.get(stem, 0)
        self.used[stem] = n + 1
        return stem if n == 0 else f"{stem}{n}"

    def verb(self) -> str:
        return self.rng.choice(WORDS)

    def kernel(self) -> str:
        noun = self.rng.choice(("rows", "cols", "tiles", "points", "cells", "pairs", "bins"))
        return self.fresh(f"{self.verb()}_{noun}")


# -- blocks of code ------------------------------------------------------------
# Each returns text with \n line endings; files are assembled from them.


NOTES = (
    "Launches are asynchronous: errors from a kernel show up at the next cudaDeviceSynchronize()\n"
    "or cudaStreamSynchronize(), not at the <<<...>>> line itself.",
    "Device buffers come from cudaMalloc and are released with cudaFree by the owner; nothing in\n"
    "this file calls cudaDeviceReset, which would invalidate every handle in the process.",
    "The cuBLAS handle is created once per thread (cublasCreate is slow) and bound to the\n"
    "caller's stream with cublasSetStream before each call.",
    "Shared memory per block is limited (48 KiB unless cudaFuncSetAttribute raises it), so the\n"
    "tile sizes below stay small.",
    "TODO: move to cudaMallocAsync/cudaFreeAsync everywhere once the minimum driver allows it.",
    "Timing uses cudaEvent_t pairs recorded on the same stream as the work.",
    "Pinned host memory (cudaMallocHost) is required for cudaMemcpyAsync to overlap with compute.",
)
# Host-only files say nothing about the GPU: they are the ones that need no parse at all.
PLAIN_NOTES = (
    "Pure host code: no allocation here outlives the call that made it.",
    "Keep this file free of third-party dependencies; it is shared with the command-line tools.",
    "Numbers are parsed with the C locale whatever the user's settings.",
)


def license_header(rng: random.Random, path: str, module: str, notes_from: tuple[str, ...] = NOTES) -> str:
    year = rng.randint(2014, 2024)
    notes = "".join("//\n" + "".join(f"// {line}\n" for line in note.split("\n"))
                    for note in rng.sample(notes_from, rng.randint(1, 3)))
    return (f"// {path}\n"
            f"// Part of the {module} module of the synthetic benchmark project.\n"
            f"// Copyright (c) {year} The Benchmark Authors. Written for hipport's benchmark.\n"
            + notes + "\n")


def check_macros_header(guard: str) -> str:
    return f"""#ifndef {guard}
#define {guard}

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>
#include <cufft.h>

// Every call into a CUDA library goes through one of these so that a failure
// names the file and line. Do not call cudaDeviceReset() in here: the caller
// may still own streams.
#define CUDA_CHECK(call)                                                      \\
    do {{                                                                      \\
        cudaError_t status_ = (call);                                         \\
        if (status_ != cudaSuccess) {{                                         \\
            std::fprintf(stderr, "%s:%d: CUDA error %d (%s): %s\\n",           \\
                         __FILE__, __LINE__, static_cast<int>(status_),       \\
                         cudaGetErrorName(status_), cudaGetErrorString(status_)); \\
            std::exit(EXIT_FAILURE);                                          \\
        }}                                                                     \\
    }} while (0)

#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                    \\
    do {{                                                                      \\
        cublasStatus_t status_ = (call);                                      \\
        if (status_ != CUBLAS_STATUS_SUCCESS) {{                               \\
            std::fprintf(stderr, "%s:%d: cuBLAS error %d\\n", __FILE__,        \\
                         __LINE__, static_cast<int>(status_));                \\
            std::exit(EXIT_FAILURE);                                          \\
        }}                                                                     \\
    }} while (0)

#define CURAND_CHECK(call)                                                    \\
    do {{                                                                      \\
        curandStatus_t status_ = (call);                                      \\
        if (status_ != CURAND_STATUS_SUCCESS) {{                               \\
            std::fprintf(stderr, "%s:%d: cuRAND error %d\\n", __FILE__,        \\
                         __LINE__, static_cast<int>(status_));                \\
            std::exit(EXIT_FAILURE);                                          \\
        }}                                                                     \\
    }} while (0)

#define CUFFT_CHECK(call)                                                     \\
    do {{                                                                      \\
        cufftResult status_ = (call);                                         \\
        if (status_ != CUFFT_SUCCESS) {{                                       \\
            std::fprintf(stderr, "%s:%d: cuFFT error %d\\n", __FILE__,         \\
                         __LINE__, static_cast<int>(status_));                \\
            std::exit(EXIT_FAILURE);                                          \\
        }}                                                                     \\
    }} while (0)

#endif  // {guard}
"""


def device_utils_header(guard: str, ns: str) -> str:
    return f"""#ifndef {guard}
#define {guard}

#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace {ns} {{

struct half_t {{
    __half value;
    __host__ __device__ half_t() : value(__float2half(0.0f)) {{}}
    __host__ __device__ explicit half_t(float f) : value(__float2half(f)) {{}}
    __host__ __device__ operator float() const {{ return __half2float(value); }}
}};

__host__ __device__ inline int div_up(int n, int d) {{ return (n + d - 1) / d; }}

__device__ __forceinline__ int global_index() {{ return blockIdx.x * blockDim.x + threadIdx.x; }}
__device__ __forceinline__ int global_stride() {{ return gridDim.x * blockDim.x; }}

// Sum over a warp with shuffles; every lane gets the total.
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}}

template <typename T>
__device__ __forceinline__ T warp_max(T v) {{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {{
        T other = __shfl_down_sync(0xffffffffu, v, offset);
        v = other > v ? other : v;
    }}
    return __shfl_sync(0xffffffffu, v, 0);
}}

// Block-wide sum: one warp_sum per warp, then the first warp reduces the partials.
template <typename T, int BLOCK>
__device__ T block_sum(T v) {{
    __shared__ T partial[BLOCK / 32];
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? partial[lane] : T(0);
    if (warp == 0) v = warp_sum(v);
    return v;
}}

}}  // namespace {ns}

#endif  // {guard}
"""


def module_header(rng: random.Random, names: _Names, guard: str, ns: str, module: str) -> tuple[str, list[str]]:
    functions = [f"{names.verb()}_{module}_{i}" for i in range(rng.randint(3, 8))]
    decls = "\n".join(
        f"void {fn}(const float* d_in, float* d_out, int n, cudaStream_t stream = 0);" for fn in functions)
    text = f"""#ifndef {guard}
#define {guard}

#include <cstddef>
#include <cuda_runtime.h>
#include "../common/cuda_check.cuh"
#include "../common/device_utils.cuh"

// Public entry points of the {module} module. Every function enqueues work on
// the given stream and returns at once; call cudaStreamSynchronize(stream)
// before reading the results on the host.
namespace {ns} {{
namespace {module} {{

struct Config {{
    int block_size = {rng.choice((128, 256, 512))};
    int iterations = {rng.randint(1, 64)};
    float tolerance = {rng.choice(('1e-6f', '1e-5f', '1e-4f'))};
    bool use_managed_memory = {rng.choice(('false', 'true'))};
    cudaStream_t stream = nullptr;
}};

{decls}

inline size_t bytes_for(int n) {{ return static_cast<size_t>(n) * sizeof(float); }}

}}  // namespace {module}
}}  // namespace {ns}

#endif  // {guard}
"""
    return text, functions


def kernel_block(rng: random.Random, names: _Names, ns: str) -> str:
    flavour = rng.randrange(8)
    k = names.kernel()
    t = rng.choice(("float", "double", "float", "int"))
    block = rng.choice((128, 256, 512))
    if flavour == 0:
        return f"""
// y = a * x + y over a grid-stride loop.
template <typename T>
__global__ void {k}(int n, T a, const T* __restrict__ x, T* __restrict__ y) {{
    for (int i = {ns}::global_index(); i < n; i += {ns}::global_stride())
        y[i] = a * x[i] + y[i];
}}

void launch_{k}(int n, {t} a, const {t}* x, {t}* y, cudaStream_t stream) {{
    const int block = {block};
    const int grid = {ns}::div_up(n, block);
    {k}<{t}><<<grid, block, 0, stream>>>(n, a, x, y);
    CUDA_CHECK(cudaGetLastError());
}}
"""
    if flavour == 1:
        return f"""
// Block-level reduction with static shared memory; one partial per block.
template <typename T, int BLOCK>
__global__ void {k}(const T* __restrict__ in, T* __restrict__ partial, int n) {{
    __shared__ T tile[BLOCK];
    T acc = T(0);
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        acc += in[i];
    tile[threadIdx.x] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {{
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }}
    if (threadIdx.x == 0) partial[blockIdx.x] = tile[0];
}}

{t} run_{k}(const {t}* d_in, int n, cudaStream_t stream) {{
    const int blocks = {rng.choice((64, 128, 256))};
    {t}* d_partial = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_partial, blocks * sizeof({t}), stream));
    {k}<{t}, {block}><<<blocks, {block}, 0, stream>>>(d_in, d_partial, n);
    CUDA_CHECK(cudaGetLastError());
    {t} h_partial[{rng.choice((64, 128, 256))}];
    CUDA_CHECK(cudaMemcpyAsync(h_partial, d_partial, blocks * sizeof({t}), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaFreeAsync(d_partial, stream));
    {t} total = {t}(0);
    for (int b = 0; b < blocks; ++b) total += h_partial[b];
    return total;
}}
"""
    if flavour == 2:
        tile = rng.choice((16, 32))
        return f"""
// Tiled transpose through shared memory; the +1 column avoids bank conflicts.
constexpr int {k.upper()}_TILE = {tile};

__global__ void {k}(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {{
    __shared__ float tile[{k.upper()}_TILE][{k.upper()}_TILE + 1];
    int x = blockIdx.x * {k.upper()}_TILE + threadIdx.x;
    int y = blockIdx.y * {k.upper()}_TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * {k.upper()}_TILE + threadIdx.x;
    y = blockIdx.x * {k.upper()}_TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}}

void launch_{k}(const float* in, float* out, int rows, int cols, cudaStream_t stream) {{
    dim3 block({k.upper()}_TILE, {k.upper()}_TILE);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    {k}<<<grid, block, 0, stream>>>(in, out, rows, cols);
    CUDA_CHECK_LAST();
}}
"""
    if flavour == 3:
        bins = rng.choice((64, 256, 1024))
        return f"""
// Histogram with shared-memory privatisation and global atomics.
__global__ void {k}(const unsigned char* __restrict__ data, int n, unsigned int* __restrict__ bins) {{
    __shared__ unsigned int local[{bins}];
    for (int b = threadIdx.x; b < {bins}; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] % {bins}], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < {bins}; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}}

void launch_{k}(const unsigned char* data, int n, unsigned int* bins, cudaStream_t stream) {{
    CUDA_CHECK(cudaMemsetAsync(bins, 0, {bins} * sizeof(unsigned int), stream));
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    {k}<<<sms * 4, {block}, 0, stream>>>(data, n, bins);
    CUDA_CHECK(cudaGetLastError());
}}
"""
    if flavour == 4:
        return f"""
// Row-wise softmax: one warp per row, shuffles for the max and the sum.
__global__ void {k}(const float* __restrict__ logits, float* __restrict__ probs, int rows, int cols) {{
    const int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
    const int lane = threadIdx.x % warpSize;
    if (row >= rows) return;
    const float* in = logits + row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += warpSize) m = fmaxf(m, in[c]);
    m = {ns}::warp_max(m);
    float s = 0.0f;
    for (int c = lane; c < cols; c += warpSize) s += __expf(in[c] - m);
    s = {ns}::warp_sum(s);
    for (int c = lane; c < cols; c += warpSize) probs[row * cols + c] = __expf(in[c] - m) / s;
}}

void launch_{k}(const float* logits, float* probs, int rows, int cols, cudaStream_t stream) {{
    const int warps_per_block = {block} / 32;
    {k}<<<{ns}::div_up(rows, warps_per_block), {block}, 0, stream>>>(logits, probs, rows, cols);
    CUDA_CHECK(cudaPeekAtLastError());
}}
"""
    if flavour == 5:
        return f"""
// 5-point Jacobi sweep on a 2D grid, double buffered by the caller.
__global__ void {k}(const {t}* __restrict__ u, {t}* __restrict__ u_new, const {t}* __restrict__ f,
                    int nx, int ny, {t} h2) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || j <= 0 || i >= nx - 1 || j >= ny - 1) return;
    const int idx = j * nx + i;
    u_new[idx] = ({t})0.25 * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] - h2 * f[idx]);
}}

void iterate_{k}({t}* d_u, {t}* d_tmp, const {t}* d_f, int nx, int ny, int sweeps, cudaStream_t stream) {{
    dim3 block(16, {rng.choice((8, 16))});
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int s = 0; s < sweeps; ++s) {{
        {k}<<<grid, block, 0, stream>>>(d_u, d_tmp, d_f, nx, ny, ({t})1.0 / (nx * nx));
        std::swap(d_u, d_tmp);
    }}
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("{k}: %d sweeps in %.3f ms\\n", sweeps, ms);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}}
"""
    if flavour == 6:
        return f"""
// Coefficients live in constant memory; upload them once with cudaMemcpyToSymbol.
__constant__ float {k}_taps[{rng.choice((9, 15, 31))}];

__global__ void {k}(const float* __restrict__ in, float* __restrict__ out, int n, int taps) {{
    extern __shared__ float window[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    window[threadIdx.x] = i < n ? __ldg(&in[i]) : 0.0f;
    __syncthreads();
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll 4
    for (int t = 0; t < taps; ++t) {{
        const int j = threadIdx.x - t;
        acc += (j >= 0 ? window[j] : 0.0f) * {k}_taps[t];
    }}
    out[i] = acc;
}}

void setup_{k}(const float* host_taps, int taps) {{
    CUDA_CHECK(cudaMemcpyToSymbol({k}_taps, host_taps, taps * sizeof(float)));
}}

void launch_{k}(const float* in, float* out, int n, int taps, cudaStream_t stream) {{
    const size_t shared = {block} * sizeof(float);
    {k}<<<(n + {block} - 1) / {block}, {block}, shared, stream>>>(in, out, n, taps);
    CUDA_CHECK(cudaGetLastError());
}}
"""
    return f"""
// Elementwise functor kernel; the functor is a template parameter so that
// nvcc inlines it.
struct {k.title().replace('_', '')}Op {{
    float alpha;
    __device__ float operator()(float v) const {{ return v > 0.0f ? v : alpha * v; }}
}};

template <typename Op>
__global__ void {k}(const float* __restrict__ in, float* __restrict__ out, int n, Op op) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}}

void launch_{k}(const float* in, float* out, int n, float alpha, cudaStream_t stream) {{
    {k.title().replace('_', '')}Op op{{alpha}};
    {k}<<<dim3((n + {block} - 1) / {block}), dim3({block}), 0, stream>>>(in, out, n, op);
    CUDA_CHECK(cudaGetLastError());
}}
"""


def runtime_block(rng: random.Random, names: _Names, ns: str) -> str:
    flavour = rng.randrange(5)
    fn = names.fresh(f"{names.verb()}_on_device")
    if flavour == 0:
        return f"""
// Copy in, run, copy out. Pinned host memory makes the async copies real.
void {fn}(const std::vector<float>& host_in, std::vector<float>& host_out) {{
    const size_t n = host_in.size();
    float* h_pinned = nullptr;
    float* d_buf = nullptr;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost(&h_pinned, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_buf, n * sizeof(float)));
    std::copy(host_in.begin(), host_in.end(), h_pinned);
    CUDA_CHECK(cudaMemcpyAsync(d_buf, h_pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(d_buf, 0, 16, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_pinned, d_buf, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    host_out.assign(h_pinned, h_pinned + n);
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFreeHost(h_pinned));
    CUDA_CHECK(cudaStreamDestroy(stream));
}}
"""
    if flavour == 1:
        return f"""
// Pick the device with the most multiprocessors and print what it is.
int {fn}() {{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {{
        std::fprintf(stderr, "no CUDA device found (cudaGetDeviceCount returned 0)\\n");
        return -1;
    }}
    int best = 0, best_sms = 0;
    for (int d = 0; d < count; ++d) {{
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
        if (prop.multiProcessorCount > best_sms) {{
            best = d;
            best_sms = prop.multiProcessorCount;
        }}
        std::printf("device %d: %s, cc %d.%d, %zu MiB, warpSize %d\\n", d, prop.name, prop.major, prop.minor,
                    prop.totalGlobalMem >> 20, prop.warpSize);
    }}
    CUDA_CHECK(cudaSetDevice(best));
    return best;
}}
"""
    if flavour == 2:
        return f"""
// Managed memory: prefetch to the device, run, prefetch back for the host.
float {fn}(int n) {{
    float* data = nullptr;
    CUDA_CHECK(cudaMallocManaged(&data, n * sizeof(float)));
    for (int i = 0; i < n; ++i) data[i] = 1.0f / (1 + i);
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaMemPrefetchAsync(data, n * sizeof(float), device, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemPrefetchAsync(data, n * sizeof(float), cudaCpuDeviceId, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += data[i];
    CUDA_CHECK(cudaFree(data));
    return sum;
}}
"""
    if flavour == 3:
        return f"""
// Two streams ping-pong over chunks; events order the copies after the kernels.
void {fn}(float* d_a, float* d_b, const float* h_src, float* h_dst, int chunks, int chunk) {{
    cudaStream_t streams[2];
    cudaEvent_t done[2];
    for (int s = 0; s < 2; ++s) {{
        CUDA_CHECK(cudaStreamCreate(&streams[s]));
        CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }}
    for (int c = 0; c < chunks; ++c) {{
        cudaStream_t s = streams[c % 2];
        float* dev = (c % 2) ? d_b : d_a;
        CUDA_CHECK(cudaMemcpyAsync(dev, h_src + c * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(h_dst + c * chunk, dev, chunk * sizeof(float), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaEventRecord(done[c % 2], s));
        CUDA_CHECK(cudaStreamWaitEvent(streams[(c + 1) % 2], done[c % 2], 0));
    }}
    for (int s = 0; s < 2; ++s) {{
        CUDA_CHECK(cudaStreamSynchronize(streams[s]));
        CUDA_CHECK(cudaEventDestroy(done[s]));
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    }}
}}
"""
    return f"""
// Pitched 2D allocation; rows are padded to what the hardware likes.
void {fn}(const float* host, int width, int height, float** d_out, size_t* pitch) {{
    CUDA_CHECK(cudaMallocPitch(reinterpret_cast<void**>(d_out), pitch, width * sizeof(float), height));
    CUDA_CHECK(cudaMemcpy2D(*d_out, *pitch, host, width * sizeof(float), width * sizeof(float), height,
                            cudaMemcpyHostToDevice));
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {{
        // cudaMemcpy2D reports a bad pitch here, not at the allocation
        throw std::runtime_error(std::string("cudaMemcpy2D failed: ") + cudaGetErrorString(err));
    }}
}}
"""


def cublas_block(rng: random.Random, names: _Names) -> str:
    fn = names.fresh(f"{names.verb()}_gemm")
    prec, t = rng.choice((("S", "float"), ("D", "double")))
    op_a, op_b = rng.choice(("CUBLAS_OP_N", "CUBLAS_OP_T")), rng.choice(("CUBLAS_OP_N", "CUBLAS_OP_T"))
    return f"""
// C = alpha * op(A) * op(B) + beta * C, column-major as cuBLAS expects.
void {fn}(cublasHandle_t handle, cudaStream_t stream, int m, int n, int k,
          const {t}* d_a, const {t}* d_b, {t}* d_c) {{
    const {t} alpha = 1, beta = 0;
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublas{prec}gemm(handle, {op_a}, {op_b}, m, n, k, &alpha, d_a, m, d_b, k, &beta, d_c, m));
    {t} norm = 0;
    CUBLAS_CHECK(cublas{prec}nrm2(handle, m * n, d_c, 1, &norm));
    if (norm != norm) std::fprintf(stderr, "{fn}: cublas{prec}gemm produced NaN\\n");
}}

void {fn}_batched(cublasHandle_t handle, int m, int n, int k, int batch,
          const {t}* d_a, const {t}* d_b, {t}* d_c) {{
    const {t} alpha = 1, beta = 1;
    CUBLAS_CHECK(cublas{prec}gemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha,
                                           d_a, m, (long long)m * k, d_b, k, (long long)k * n,
                                           &beta, d_c, m, (long long)m * n, batch));
    {t} dot = 0;
    CUBLAS_CHECK(cublas{prec}dot(handle, m, d_a, 1, d_b, 1, &dot));
    CUBLAS_CHECK(cublas{prec}axpy(handle, m, &alpha, d_a, 1, d_c, 1));
}}
"""


def cublas_session(rng: random.Random, names: _Names) -> str:
    fn = names.fresh("with_cublas")
    return f"""
// One handle per thread: cublasCreate is expensive, so callers keep it.
template <typename F>
void {fn}(F&& body) {{
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    body(handle);
    CUBLAS_CHECK(cublasDestroy(handle));
}}
"""


def curand_block(rng: random.Random, names: _Names, ns: str) -> str:
    k = names.kernel()
    return f"""
// Device-side generator: one curandState per thread, seeded once.
__global__ void {k}_init(curandState* states, unsigned long long seed, int n) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) curand_init(seed, i, 0, &states[i]);
}}

__global__ void {k}(curandState* states, float* out, int n, int per_thread) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState local = states[i];
    float acc = 0.0f;
    for (int s = 0; s < per_thread; ++s) {{
        const float x = curand_uniform(&local);
        const float y = curand_normal(&local);
        acc += x * x + y * y <= 1.0f ? 1.0f : 0.0f;
    }}
    states[i] = local;
    out[i] = acc / per_thread;
}}

void {k}_host(float* d_out, int n, unsigned long long seed, cudaStream_t stream) {{
    // Host API for the bulk numbers, device API above for the per-thread ones.
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_{rng.choice(('DEFAULT', 'PHILOX4_32_10', 'MRG32K3A'))}));
    CURAND_CHECK(curandSetStream(gen, stream));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));
    CURAND_CHECK(curandGenerateUniform(gen, d_out, n));
    CURAND_CHECK(curandGenerateNormal(gen, d_out, n & ~1, 0.0f, 1.0f));
    CURAND_CHECK(curandDestroyGenerator(gen));
    curandState* states = nullptr;
    CUDA_CHECK(cudaMalloc(&states, n * sizeof(curandState)));
    {k}_init<<<{ns}::div_up(n, 256), 256, 0, stream>>>(states, seed, n);
    {k}<<<{ns}::div_up(n, 256), 256, 0, stream>>>(states, d_out, n, {rng.choice((16, 64, 256))});
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFree(states));
}}
"""


def cufft_block(rng: random.Random, names: _Names) -> str:
    fn = names.fresh(f"{names.verb()}_spectrum")
    return f"""
// Forward transform, scale in frequency space, inverse transform.
void {fn}(cufftComplex* d_signal, int n, int batch, cudaStream_t stream) {{
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, n, CUFFT_C2C, batch));
    CUFFT_CHECK(cufftSetStream(plan, stream));
    CUFFT_CHECK(cufftExecC2C(plan, d_signal, d_signal, CUFFT_FORWARD));
    CUFFT_CHECK(cufftExecC2C(plan, d_signal, d_signal, CUFFT_INVERSE));
    CUFFT_CHECK(cufftDestroy(plan));
}}

void {fn}_2d(const float* d_real, cufftComplex* d_freq, int nx, int ny) {{
    cufftHandle plan;
    size_t work = 0;
    CUFFT_CHECK(cufftCreate(&plan));
    CUFFT_CHECK(cufftMakePlan2d(plan, nx, ny, CUFFT_R2C, &work));
    std::printf("{fn}: cuFFT workspace %zu bytes\\n", work);
    CUFFT_CHECK(cufftExecR2C(plan, const_cast<cufftReal*>(d_real), d_freq));
    CUFFT_CHECK(cufftDestroy(plan));
}}
"""


def driver_block(rng: random.Random, names: _Names) -> str:
    fn = names.fresh(f"{names.verb()}_with_module")
    return f"""
#define CU_CHECK(call)                                                          \\
    do {{                                                                        \\
        CUresult result_ = (call);                                              \\
        if (result_ != CUDA_SUCCESS) {{                                          \\
            const char* text_ = nullptr;                                        \\
            cuGetErrorString(result_, &text_);                                  \\
            std::fprintf(stderr, "%s:%d: %s\\n", __FILE__, __LINE__, text_);     \\
            std::exit(1);                                                       \\
        }}                                                                       \\
    }} while (0)

// Load a precompiled module and launch one of its kernels through the driver API.
void {fn}(const char* image_path, const char* kernel_name, CUdeviceptr arg, int n) {{
    CU_CHECK(cuInit(0));
    CUdevice device;
    CU_CHECK(cuDeviceGet(&device, 0));
    char name[256];
    CU_CHECK(cuDeviceGetName(name, sizeof(name), device));
    CUcontext context;
    CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CU_CHECK(cuCtxSetCurrent(context));
    CUmodule module;
    CU_CHECK(cuModuleLoad(&module, image_path));
    CUfunction function;
    CU_CHECK(cuModuleGetFunction(&function, module, kernel_name));
    void* params[] = {{&arg, &n}};
    CU_CHECK(cuLaunchKernel(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    CU_CHECK(cuCtxSynchronize());
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuDevicePrimaryCtxRelease(device));
    std::printf("ran %s on %s\\n", kernel_name, name);
}}
"""


def plain_cpp_block(rng: random.Random, names: _Names) -> str:
    flavour = rng.randrange(4)
    fn = names.fresh(f"{names.verb()}_{rng.choice(('table', 'records', 'options', 'buffer', 'series'))}")
    if flavour == 0:
        return f"""
// Parse "key=value" lines; blank lines and '#' comments are skipped.
std::map<std::string, std::string> {fn}(std::istream& in) {{
    std::map<std::string, std::string> out;
    std::string line;
    while (std::getline(in, line)) {{
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        out[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }}
    return out;
}}
"""
    if flavour == 1:
        return f"""
// Running mean and variance (Welford); stable for long series.
struct {fn.title().replace('_', '')} {{
    long long count = 0;
    double mean = 0.0, m2 = 0.0;
    void add(double x) {{
        ++count;
        const double delta = x - mean;
        mean += delta / count;
        m2 += delta * (x - mean);
    }}
    double variance() const {{ return count > 1 ? m2 / (count - 1) : 0.0; }}
}};
"""
    if flavour == 2:
        return f"""
template <typename T>
class {fn.title().replace('_', '')} {{
  public:
    explicit {fn.title().replace('_', '')}(std::size_t capacity) : data_(capacity), head_(0), size_(0) {{}}
    void push(const T& value) {{
        data_[(head_ + size_) % data_.size()] = value;
        if (size_ < data_.size()) ++size_; else head_ = (head_ + 1) % data_.size();
    }}
    const T& operator[](std::size_t i) const {{ return data_[(head_ + i) % data_.size()]; }}
    std::size_t size() const {{ return size_; }}

  private:
    std::vector<T> data_;
    std::size_t head_, size_;
}};
"""
    return f"""
// Format a byte count for people: 1536 -> "1.5 KiB".
std::string {fn}(unsigned long long bytes) {{
    static const char* units[] = {{"B", "KiB", "MiB", "GiB", "TiB"}};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {{
        value /= 1024.0;
        ++unit;
    }}
    char text[32];
    std::snprintf(text, sizeof(text), unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
    return text;
}}
"""


# -- files -------------------------------------------------------------------


def _file(rng, names, kind: str, rel: str, module: str, ns: str, module_functions: list[str]) -> str:
    head = license_header(rng, rel, module, PLAIN_NOTES if kind.startswith("plain") else NOTES)
    module_include = f'#include "{module}.cuh"\n'
    if kind == "kernels":
        body = "".join(kernel_block(rng, names, ns) for _ in range(rng.randint(3, 12)))
        if module_functions:  # each module entry point is defined in one file
            fn = module_functions.pop()
            body += f"""
// Entry point declared in {module}.cuh. cudaMemcpyAsync would also do; the
// kernel keeps the copy on the stream's compute queue.
static __global__ void {fn}_copy(const float* __restrict__ in, float* __restrict__ out, int n) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}}

void {fn}(const float* d_in, float* d_out, int n, cudaStream_t stream) {{
    {fn}_copy<<<{ns}::div_up(n, 256), 256, 0, stream>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
}}
"""
        return (head + "#include <cstdio>\n#include <utility>\n#include <cuda_runtime.h>\n" + module_include +
                f"\nnamespace {ns} {{\nnamespace {module} {{\n" + body +
                f"\n}}  // namespace {module}\n}}  // namespace {ns}\n")
    if kind == "runtime":
        body = "".join(runtime_block(rng, names, ns) for _ in range(rng.randint(3, 9)))
        return (head + "#include <algorithm>\n#include <cstdio>\n#include <stdexcept>\n#include <string>\n"
                "#include <vector>\n#include <cuda_runtime_api.h>\n" + module_include +
                f"\nnamespace {ns} {{\n" + body + f"\n}}  // namespace {ns}\n")
    if kind == "cublas":
        body = cublas_session(rng, names) + "".join(cublas_block(rng, names) for _ in range(rng.randint(2, 8)))
        return (head + "#include <cstdio>\n#include <cublas_v2.h>\n" + module_include +
                f"\nnamespace {ns} {{\n" + body + f"\n}}  // namespace {ns}\n")
    if kind == "curand":
        body = "".join(curand_block(rng, names, ns) for _ in range(rng.randint(1, 5)))
        return (head + "#include <curand.h>\n#include <curand_kernel.h>\n" + module_include +
                f"\nnamespace {ns} {{\n" + body + f"\n}}  // namespace {ns}\n")
    if kind == "cufft":
        body = "".join(cufft_block(rng, names) for _ in range(rng.randint(2, 6)))
        return (head + "#include <cstdio>\n#include <cufft.h>\n" + module_include +
                f"\nnamespace {ns} {{\n" + body + f"\n}}  // namespace {ns}\n")
    if kind == "driver":
        return (head + "#include <cstdio>\n#include <cstdlib>\n#include <cuda.h>\n\n" +
                driver_block(rng, names))
    if kind == "mixed_host":
        blocks = [runtime_block, kernel_block, lambda r, n, _ns: plain_cpp_block(r, n)]
        body = "".join(rng.choice(blocks)(rng, names, ns) for _ in range(rng.randint(3, 10)))
        return (head + "#include <map>\n#include <string>\n#include <vector>\n#include <istream>\n" +
                module_include + f"\nnamespace {ns} {{\nstd::string trim(const std::string& s);\n" + body +
                f"\n}}  // namespace {ns}\n")
    if kind == "plain_cpp":
        body = "".join(plain_cpp_block(rng, names) for _ in range(rng.randint(3, 12)))
        return (head + "#include <cstdio>\n#include <istream>\n#include <map>\n#include <string>\n#include <vector>\n"
                f"\nnamespace {ns} {{\nstd::string trim(const std::string& s);\n" + body +
                f"\n}}  // namespace {ns}\n")
    if kind == "plain_header":
        guard = rel.upper().replace("/", "_").replace(".", "_")
        body = "".join(plain_cpp_block(rng, names) for _ in range(rng.randint(1, 3)))
        return (head + f"#ifndef {guard}\n#define {guard}\n\n"
                "#include <cstddef>\n#include <cstdio>\n#include <istream>\n#include <map>\n#include <string>\n"
                f"#include <vector>\n\nnamespace {ns} {{\n" + body + f"\n}}  // namespace {ns}\n\n#endif\n")
    raise ValueError(kind)


def _other_file(rng, rel: str, module: str, sources: list[str]) -> str:
    if rel.endswith("CMakeLists.txt"):
        listed = "\n".join(f"    {Path(s).name}" for s in sources[:40])
        return (f"add_library({module} STATIC\n{listed}\n)\n"
                f"target_link_libraries({module} PUBLIC CUDA::cudart CUDA::cublas CUDA::curand CUDA::cufft)\n"
                f"set_target_properties({module} PROPERTIES CUDA_ARCHITECTURES \"70;80;90\")\n")
    if rel.endswith(".md"):
        return (f"# {module}\n\nThe {module} module. Build with CMake; it needs the CUDA toolkit "
                "(cudart, cuBLAS, cuRAND, cuFFT).\n\nAll device memory is owned by the caller; functions "
                "only enqueue work on the stream they are given.\n")
    return ("#!/usr/bin/env python3\n\"\"\"Plot the timings the benchmarks print.\"\"\"\nimport sys\n\n"
            "for line in sys.stdin:\n    name, ms = line.rsplit(' ', 1)\n    print(f'{name:40} {float(ms):8.3f}')\n")


def large_file(rng: random.Random, names: _Names, rel: str, ns: str, min_lines: int) -> str:
    """A generated file of many instantiated kernels, as code generators write them."""
    parts = [license_header(rng, rel, "generated"),
             "// GENERATED FILE: one specialisation per configuration. Edit the generator, not this file.\n",
             "#include <cstdio>\n#include <utility>\n#include <cuda_runtime.h>\n",
             '#include "../common/cuda_check.cuh"\n#include "../common/device_utils.cuh"\n\n',
             f"namespace {ns} {{\nnamespace generated {{\n"]
    lines = sum(p.count("\n") for p in parts)
    while lines < min_lines:
        block = kernel_block(rng, names, ns) if rng.random() < 0.8 else runtime_block(rng, names, ns)
        parts.append(block)
        lines += block.count("\n")
    parts.append(f"}}  // namespace generated\n}}  // namespace {ns}\n")
    return "".join(parts)


def _latin1(rng: random.Random, text: str) -> bytes:
    note = rng.choice(("// Auteur : Frédéric Noël — révision numérique du schéma\n",
                       "// Größe der Kachel: 32 × 32, siehe Müller (2019)\n",
                       "// Señal de entrada en µs; año de referencia 2020\n"))
    note = note.replace("—", "-").replace("×", "x")  # keep it representable in latin-1
    lines = text.split("\n")
    at = min(len(lines) - 1, 4)
    return "\n".join(lines[:at] + [note.rstrip("\n")] + lines[at:]).encode("latin-1")


def generate(root: Path, files: int, seed: int = 1, large_lines: int = 5200) -> Corpus:
    """Write a corpus of exactly `files` files under root (which must be empty or absent)."""
    if files < 8:
        raise ValueError("the corpus needs at least 8 files")
    rng = random.Random(seed)
    names = _Names(rng)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    corpus = Corpus(root)
    project = rng.choice(("vortex", "lumen", "quark", "helix", "tensorcore_lab"))
    ns = project

    plan: list[tuple[str, str, str]] = []  # (rel, kind, module)
    plan.append(("common/cuda_check.cuh", "check_macros", "common"))
    plan.append(("common/device_utils.cuh", "device_utils", "common"))
    n_modules = max(1, min(len(MODULES), files // 60 + 1))
    modules = list(MODULES[:n_modules])
    for m in modules:
        plan.append((f"{m}/{m}.cuh", "module_header", m))
    large = max(1, files // LARGE_EVERY)
    for i in range(large):
        plan.append((f"generated/instances_{i:03d}.cu", "large", "generated"))
    kinds, weights = zip(*KINDS)
    suffix = {"kernels": ".cu", "runtime": ".cu", "cublas": ".cu", "curand": ".cu", "cufft": ".cu",
              "driver": ".cpp", "mixed_host": ".cu", "plain_cpp": ".cpp", "plain_header": ".h"}
    counter = 0
    while len(plan) < files:
        kind = rng.choices(kinds, weights)[0]
        module = rng.choice(modules)
        counter += 1
        if kind == "other":
            rel = f"{module}/{rng.choice(('CMakeLists.txt', 'README.md', 'plot_timings.py'))}"
            if any(p[0] == rel for p in plan):
                rel = f"{module}/docs/notes_{counter}.md"
        else:
            rel = f"{module}/{names.verb()}_{kind}_{counter}{suffix[kind]}"
        plan.append((rel, kind, module))
    plan = plan[:files]

    fixed: set[Path] = set()  # shared headers and non-sources: always UTF-8 with LF
    module_functions: dict[str, list[str]] = {}
    sources_by_module: dict[str, list[str]] = {}
    for rel, kind, module in plan:
        sources_by_module.setdefault(module, []).append(rel)
    for rel, kind, module in plan:
        if kind == "check_macros":
            text = license_header(rng, rel, "common") + check_macros_header(f"{ns.upper()}_CUDA_CHECK_CUH")
        elif kind == "device_utils":
            text = license_header(rng, rel, "common") + device_utils_header(f"{ns.upper()}_DEVICE_UTILS_CUH", ns)
        elif kind == "module_header":
            body, module_functions[module] = module_header(rng, names, f"{ns.upper()}_{module.upper()}_CUH", ns, module)
            text = license_header(rng, rel, module) + body
        elif kind == "large":
            text = large_file(rng, names, rel, ns, large_lines)
        elif kind == "other":
            text = _other_file(rng, rel, module, sources_by_module[module])
        else:
            text = _file(rng, names, kind, rel, module, ns, module_functions.setdefault(module, []))
        data: bytes
        path = root / rel
        roll = rng.random()
        if kind in ("check_macros", "device_utils", "module_header", "other"):
            data = text.encode("utf-8")
            fixed.add(path)
        elif roll < LATIN1_SHARE:
            data = _latin1(rng, text)
            corpus.latin1.append(path)
        elif roll < LATIN1_SHARE + CRLF_SHARE:
            data = text.replace("\n", "\r\n").encode("utf-8")
            corpus.crlf.append(path)
        else:
            data = text.encode("utf-8")
        if kind == "large":
            corpus.large.append(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        corpus.files.append(path)
        corpus.bytes += len(data)
    _at_least_one_of_each(rng, corpus, fixed)
    return corpus


def _at_least_one_of_each(rng: random.Random, corpus: Corpus, fixed: set[Path]) -> None:
    """A small corpus may draw no latin-1 or no CRLF file: convert the first plain UTF-8 sources.

    Done after everything else so that corpora that drew both keep exactly the bytes they had.
    """
    plain = [p for p in corpus.files if p not in fixed and p not in corpus.latin1 and p not in corpus.crlf]
    if not corpus.latin1 and plain:
        path = plain.pop(0)
        text = path.read_text("utf-8")
        data = _latin1(rng, text)
        corpus.bytes += len(data) - len(text.encode("utf-8"))
        path.write_bytes(data)
        corpus.latin1.append(path)
    if not corpus.crlf and plain:
        path = plain.pop(0)
        data = path.read_bytes()
        corpus.bytes += data.count(b"\n")
        path.write_bytes(data.replace(b"\n", b"\r\n"))
        corpus.crlf.append(path)


def big_file(path: Path, megabytes: float, seed: int = 1) -> int:
    """One source file of about `megabytes` MB, for the file-size rows. Returns its size."""
    rng = random.Random(seed)
    names = _Names(rng)
    target = int(megabytes * 1_000_000)
    parts = ["// One very large generated translation unit, for the file-size benchmark.\n",
             "#include <cstdio>\n#include <utility>\n#include <vector>\n#include <stdexcept>\n"
             "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include \"cuda_check.cuh\"\n\n"
             "namespace big {\n"]
    size = sum(len(p) for p in parts)
    while size < target:
        roll = rng.random()
        if roll < 0.6:
            block = kernel_block(rng, names, "big")
        elif roll < 0.85:
            block = runtime_block(rng, names, "big")
        elif roll < 0.95:
            block = cublas_block(rng, names)
        else:
            block = plain_cpp_block(rng, names)
        parts.append(block)
        size += len(block)
    parts.append("}  // namespace big\n")
    data = "".join(parts).encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write (or the file, with --big-mb)")
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big-mb", type=float, help="write one source file of about this many MB instead")
    args = parser.parse_args(argv)
    if args.big_mb:
        size = big_file(args.out, args.big_mb, args.seed)
        print(f"{args.out}: {size / 1e6:.1f} MB")
        return 0
    if args.out.exists() and any(args.out.iterdir()):
        print(f"corpus: {args.out} is not empty", file=sys.stderr)
        return 2
    corpus = generate(args.out, args.files, args.seed)
    print(f"{args.out}: {corpus.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
