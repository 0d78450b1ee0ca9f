// hipStreamWaitEvent on an event another stream records. Run with a timeout: it hangs.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void add_one(float* d) { d[threadIdx.x] += 1.0f; }

int main() {
    float* d;
    hipMalloc(&d, 64 * sizeof(float));
    hipMemset(d, 0, 64 * sizeof(float));
    hipStream_t first, second;
    hipStreamCreate(&first);
    hipStreamCreate(&second);
    hipEvent_t done;
    hipEventCreate(&done);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(64), 0, first, d);
    hipEventRecord(done, first);
    hipStreamWaitEvent(second, done, 0);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(64), 0, second, d);
    hipStreamSynchronize(second);
    float h[64];
    hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
    std::printf("d[0] = %g (HIP: 2)\n", h[0]);
    return h[0] == 2.0f ? 0 : 1;
}
