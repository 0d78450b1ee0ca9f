// warp_reduce.cu - sum reduction with warp shuffles, written the way most CUDA
// code does it: 32-lane warps, full 32-bit masks, per-warp partials in shared memory.
#include <cstdio>
#include <vector>
#include "common.cuh"

__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void sum_kernel(const float* in, float* out, int n) {
    __shared__ float warp_partials[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;

    float v = 0.0f;
    for (int i = toynum::global_tid(); i < n; i += toynum::grid_threads())
        v += in[i];
    v = warp_sum(v);
    if (lane == 0) warp_partials[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = (threadIdx.x < blockDim.x / 32) ? warp_partials[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// How many lanes of the first warp see a positive value.
__global__ void count_positive(const float* in, int* count) {
    unsigned mask = __ballot_sync(0xffffffff, in[threadIdx.x] > 0.0f);
    if (threadIdx.x == 0) *count = __popc(mask);
}

int main() {
    const int n = 1 << 20;
    std::vector<float> host(n, 1.0f);
    float *d_in = nullptr, *d_out = nullptr;
    int* d_count = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, sizeof(float)));

    sum_kernel<<<256, 256>>>(d_in, d_out, n);
    count_positive<<<1, 32>>>(d_in, d_count);
    CUDA_CHECK(cudaGetLastError());

    float sum = 0.0f;
    int positive = 0;
    CUDA_CHECK(cudaMemcpy(&sum, d_out, sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&positive, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("sum = %.0f (expected %d), positive lanes = %d\n", sum, n, positive);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_count));
    const bool ok = sum == static_cast<float>(n) && positive == 32;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
