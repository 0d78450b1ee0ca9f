// A two-level block scan whose second level shuffles inside `if (warp == 0)`.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void scan(int* out) {
    __shared__ int totals[16];
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    int v = 1;
    for (int o = 1; o < warpSize; o *= 2) { int t = __shfl_up(v, o); if (lane >= o) v += t; }
    if (lane == warpSize - 1) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = lane < static_cast<int>(blockDim.x / warpSize) ? totals[lane] : 0;
        for (int o = 1; o < warpSize; o *= 2) { int u = __shfl_up(t, o); if (lane >= o) t += u; }
        if (lane < static_cast<int>(blockDim.x / warpSize)) totals[lane] = t;
    }
    __syncthreads();
    out[threadIdx.x] = v + (warp > 0 ? totals[warp - 1] : 0);
}

int main() {
    int* d;
    int h[256];
    hipMalloc(&d, sizeof h);
    hipLaunchKernelGGL(scan, dim3(1), dim3(256), 0, 0, d);
    hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < 256; ++i) wrong += h[i] != i + 1;
    std::printf("%d of 256 prefix sums wrong; out[128] = %d (HIP: 129)\n", wrong, h[128]);
    return wrong == 0 ? 0 : 1;
}
