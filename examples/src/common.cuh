// common.cuh - shared helpers for the toynum demo programs.
//
// Every CUDA runtime call in toynum goes through CUDA_CHECK so that a failing
// cudaMalloc or kernel launch is reported with file/line information instead
// of silently producing garbage.
#ifndef TOYNUM_COMMON_CUH
#define TOYNUM_COMMON_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Wrap a CUDA runtime call; abort with a readable message on failure.
#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__,     \
                    __LINE__, cudaGetErrorString(err_), #call);             \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

// Check for errors from the most recent kernel launch (launches are async,
// so cudaGetLastError only reports configuration problems here).
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace toynum {

// Integer ceiling division, usable from host and device code alike.
__host__ __device__ inline int div_up(int n, int d) { return (n + d - 1) / d; }

// Grid-stride helpers: global thread index and total number of threads.
__device__ inline int global_tid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline int grid_threads() { return gridDim.x * blockDim.x; }

// Fill a host buffer with a deterministic pattern.
template <typename T>
inline void fill_pattern(T* data, int n, T scale) {
    for (int i = 0; i < n; ++i) data[i] = scale * static_cast<T>((i % 17) - 8);
}

}  // namespace toynum

#endif  // TOYNUM_COMMON_CUH
