// saxpy_cublas.cu - SAXPY and a small SGEMM through cuBLAS.
//
// cuBLAS uses column-major storage; all matrices here are column-major.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cublas_v2.h>
#include "common.cuh"

// Like CUDA_CHECK, but for cublasStatus_t return codes.
#define CUBLAS_CHECK(call)                                                  \
    do {                                                                    \
        cublasStatus_t st_ = (call);                                        \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                 \
            fprintf(stderr, "cuBLAS error %d at %s:%d (%s)\n", (int)st_,    \
                    __FILE__, __LINE__, #call);                             \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

int main() {
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    // ---- SAXPY: y = alpha * x + y ----
    const int n = 1 << 16;
    const float alpha = 2.0f;
    std::vector<float> hx(n, 1.0f), hy(n, 3.0f);
    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1));
    CUDA_CHECK(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("cublasSaxpy: y[0] = %.1f (expected 5.0)\n", hy[0]);

    // ---- SGEMM: C(m x n) = A(m x k) * B(k x n) ----
    const int m = 64, k = 32, nn = 48;
    std::vector<float> hA(m * k), hB(k * nn), hC(m * nn, 0.0f);
    toynum::fill_pattern(hA.data(), m * k, 0.25f);
    toynum::fill_pattern(hB.data(), k * nn, 0.5f);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, nn, k, &one,
                             dA, m, dB, k, &zero, dC, m));
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));

    // Verify one entry against a host dot product.
    const int r = 5, c = 7;
    float ref = 0.0f;
    for (int p = 0; p < k; ++p) ref += hA[p * m + r] * hB[c * k + p];
    printf("cublasSgemm: C(%d,%d) = %.3f, host reference = %.3f\n", r, c,
           hC[c * m + r], ref);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUBLAS_CHECK(cublasDestroy(handle));
    const bool ok = hy[0] == 5.0f && std::fabs(hC[c * m + r] - ref) < 1e-3f;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
