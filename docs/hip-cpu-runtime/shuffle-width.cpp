// __shfl_down with a width of 32 in the upper half of a 64-lane wavefront.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void width_shuffle(int* out) {
    out[threadIdx.x] = __shfl_down(static_cast<int>(threadIdx.x), 1, 32);
}

int main() {
    int* d;
    int h[64];
    hipMalloc(&d, sizeof h);
    hipLaunchKernelGGL(width_shuffle, dim3(1), dim3(64), 0, 0, d);
    hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
    std::printf("lane 0 -> %d (HIP: 1), lane 32 -> %d (HIP: 33)\n", h[0], h[32]);
    return h[0] == 1 && h[32] == 33 ? 0 : 1;
}
