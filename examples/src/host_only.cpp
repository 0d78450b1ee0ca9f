// host_only.cpp - plain C++ (no kernels) that talks to the CUDA runtime API.
//
// Compiled by the host compiler, not nvcc, so it includes cuda_runtime_api.h
// rather than cuda_runtime.h and cannot use the CUDA_CHECK header.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>

static void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

int main() {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "No CUDA devices found (cudaGetDeviceCount: %s)\n",
                cudaGetErrorString(err));
        return 1;
    }
    printf("Found %d CUDA device(s)\n", count);

    for (int dev = 0; dev < count; ++dev) {
        check(cudaSetDevice(dev), "cudaSetDevice");

        // Free/total memory are per current device.
        size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");

        int runtime_version = 0, sm_count = 0;
        check(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");
        check(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev),
              "cudaDeviceGetAttribute");

        printf("  device %d: %d SMs, %.1f / %.1f GiB free, runtime %d\n", dev, sm_count,
               free_bytes / 1073741824.0, total_bytes / 1073741824.0, runtime_version);
    }

    // Leave device 0 current for whatever runs next.
    check(cudaSetDevice(0), "cudaSetDevice");
    return 0;
}
