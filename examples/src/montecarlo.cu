// montecarlo.cu - estimate pi by throwing random darts with the cuRAND device API.
//
// Each thread owns a curandState, draws points in the unit square and counts
// hits inside the quarter circle; block totals go to a managed counter with
// atomicAdd. The counter lives in cudaMallocManaged memory, so the host can
// read it directly after cudaDeviceSynchronize.
#include <cstdio>
#include <curand_kernel.h>
#include "common.cuh"

// One-time RNG setup: same seed, different subsequence per thread.
__global__ void init_rng(curandState* states, unsigned long long seed, int n) {
    int tid = toynum::global_tid();
    if (tid < n) curand_init(seed, tid, 0, &states[tid]);
}

__global__ void throw_darts(curandState* states, int n, int samples_per_thread,
                            unsigned long long* hits) {
    __shared__ unsigned int block_hits;
    if (threadIdx.x == 0) block_hits = 0;
    __syncthreads();

    int tid = toynum::global_tid();
    if (tid < n) {
        curandState local = states[tid];  // work on a register copy
        unsigned int mine = 0;
        for (int s = 0; s < samples_per_thread; ++s) {
            float x = curand_uniform(&local);
            float y = curand_uniform(&local);
            if (x * x + y * y <= 1.0f) ++mine;
        }
        states[tid] = local;
        atomicAdd(&block_hits, mine);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(hits, (unsigned long long)block_hits);
}

int main() {
    int device = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    printf("Device %d: %s, %d SMs, compute capability %d.%d\n", device, prop.name,
           prop.multiProcessorCount, prop.major, prop.minor);

    const int block = 256;
    const int grid = prop.multiProcessorCount * 4;
    const int n = grid * block;
    const int samples_per_thread = 4096;

    curandState* d_states = nullptr;
    CUDA_CHECK(cudaMalloc(&d_states, n * sizeof(curandState)));

    // Managed memory: visible to host and device without explicit cudaMemcpy.
    unsigned long long* hits = nullptr;
    CUDA_CHECK(cudaMallocManaged(&hits, sizeof(unsigned long long)));
    *hits = 0;

    init_rng<<<grid, block>>>(d_states, 1234ULL, n);
    CUDA_CHECK(cudaGetLastError());
    throw_darts<<<grid, block>>>(d_states, n, samples_per_thread, hits);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    const double total = double(n) * samples_per_thread;
    const double pi = 4.0 * double(*hits) / total;
    printf("pi ~= %.6f from %.0f samples (curand_uniform, XORWOW)\n", pi, total);

    CUDA_CHECK(cudaFree(hits));
    CUDA_CHECK(cudaFree(d_states));
    return (pi > 3.1 && pi < 3.2) ? 0 : 1;
}
