// reduction.cu - block-level sum reduction in shared memory.
//
// Each block reduces a grid-stride slice of the input into one partial sum;
// the host adds the partials. Timing uses cudaEvent_t pairs.
#include <cmath>
#include <cstdio>
#include <vector>
#include "common.cuh"

using toynum::div_up;

// Dynamic shared memory: the launch passes blockDim.x * sizeof(float).
__global__ void block_sum(const float* in, float* partial, int n) {
    extern __shared__ float sdata[];
    float acc = 0.0f;
    for (int i = toynum::global_tid(); i < n; i += toynum::grid_threads())
        acc += in[i];
    sdata[threadIdx.x] = acc;
    __syncthreads();

    // Tree reduction; blockDim.x must be a power of two.
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

// Same algorithm with a compile-time block size and static __shared__ storage.
template <typename T, int BLOCK>
__global__ void block_sum_t(const T* __restrict__ in, T* __restrict__ partial, int n) {
    __shared__ T sdata[BLOCK];
    T acc = T(0);
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        acc += in[i];
    sdata[threadIdx.x] = acc;
    __syncthreads();
#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

int main() {
    const int n = 1 << 22;
    const int block = 256;
    const int grid = div_up(n, block * 8);   // 8 elements per thread
    const size_t shmem = block * sizeof(float);

    std::vector<float> h_in(n);
    toynum::fill_pattern(h_in.data(), n, 0.5f);

    float *d_in = nullptr, *d_partial = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partial, grid * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    CUDA_CHECK(cudaEventRecord(start));
    block_sum<<<grid, block, shmem>>>(d_in, d_partial, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    std::vector<float> h_partial(grid);
    CUDA_CHECK(cudaMemcpy(h_partial.data(), d_partial, grid * sizeof(float),
                          cudaMemcpyDeviceToHost));
    double gpu_sum = 0.0;
    for (float p : h_partial) gpu_sum += p;

    // Templated variant: static shared memory, so no third launch parameter.
    block_sum_t<float, 256><<<grid, 256>>>(d_in, d_partial, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h_partial.data(), d_partial, grid * sizeof(float),
                          cudaMemcpyDeviceToHost));
    double gpu_sum_t = 0.0;
    for (float p : h_partial) gpu_sum_t += p;

    double cpu_sum = 0.0;
    for (float v : h_in) cpu_sum += v;

    printf("block_sum:   %.1f (%.3f ms, cudaEventElapsedTime)\n", gpu_sum, ms);
    printf("block_sum_t: %.1f\n", gpu_sum_t);
    printf("cpu:         %.1f\n", cpu_sum);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_partial));
    CUDA_CHECK(cudaFree(d_in));
    const bool ok = std::fabs(gpu_sum - cpu_sum) < 1e-3 && std::fabs(gpu_sum_t - cpu_sum) < 1e-3;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
