// stencil.cu - 1D and 2D stencils with coefficients in __constant__ memory.
//
// Coefficients are uploaded once with cudaMemcpyToSymbol; the 2D pass runs on
// a non-default cudaStream_t with cudaMemcpyAsync transfers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include "common.cuh"

#define RADIUS 2

// Stencil weights, shared by both kernels (read-only, cached).
__constant__ float c_weights[2 * RADIUS + 1];

// 1D stencil: out[i] = sum_k w[k] * in[i + k - RADIUS], clamped at the edges.
__global__ void stencil_1d(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = min(max(i + k, 0), n - 1);
        acc += c_weights[k + RADIUS] * in[j];
    }
    out[i] = acc;
}

// 2D cross-shaped stencil (horizontal + vertical arms) on a row-major width x height grid.
__global__ void stencil_2d(const float* in, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int xx = min(max(x + k, 0), width - 1);
        int yy = min(max(y + k, 0), height - 1);
        acc += c_weights[k + RADIUS] * (in[y * width + xx] + in[yy * width + x]);
    }
    out[y * width + x] = 0.5f * acc;
}

int main() {
    const float h_weights[2 * RADIUS + 1] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
    CUDA_CHECK(cudaMemcpyToSymbol(c_weights, h_weights, sizeof(h_weights)));

    // ---- 1D pass on the default stream ----
    const int n = 1 << 20;
    std::vector<float> h1(n, 1.0f);
    float *d_in1, *d_out1;
    CUDA_CHECK(cudaMalloc(&d_in1, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out1, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in1, h1.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    stencil_1d<<<toynum::div_up(n, 256), 256>>>(d_in1, d_out1, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h1.data(), d_out1, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("stencil_1d: out[0]=%.3f out[n/2]=%.3f\n", h1[0], h1[n / 2]);
    // The weights sum to 1, so a constant input comes out unchanged.
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += std::fabs(h1[i] - 1.0f) > 1e-5f;

    // ---- 2D pass on its own stream ----
    const int width = 1024, height = 768;
    const size_t bytes = size_t(width) * height * sizeof(float);
    float *h_in2, *h_out2;  // pinned host memory so cudaMemcpyAsync is truly async
    CUDA_CHECK(cudaMallocHost(&h_in2, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out2, bytes));
    for (int i = 0; i < width * height; ++i) h_in2[i] = float(i % width) / width;

    float *d_in2, *d_out2;
    CUDA_CHECK(cudaMalloc(&d_in2, bytes));
    CUDA_CHECK(cudaMalloc(&d_out2, bytes));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    dim3 block(16, 16);
    dim3 grid(toynum::div_up(width, block.x), toynum::div_up(height, block.y));

    CUDA_CHECK(cudaMemcpyAsync(d_in2, h_in2, bytes, cudaMemcpyHostToDevice, stream));
    stencil_2d<<<grid, block, 0, stream>>>(d_in2, d_out2, width, height);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out2, d_out2, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaDeviceSynchronize());

    printf("stencil_2d: out[center]=%.4f (grid %ux%u, launched on cudaStream_t)\n",
           h_out2[(height / 2) * width + width / 2], grid.x, grid.y);
    // Host reference for every point of the 2D pass.
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int k = -RADIUS; k <= RADIUS; ++k) {
                int xx = std::min(std::max(x + k, 0), width - 1);
                int yy = std::min(std::max(y + k, 0), height - 1);
                acc += h_weights[k + RADIUS] * (h_in2[y * width + xx] + h_in2[yy * width + x]);
            }
            wrong += std::fabs(h_out2[y * width + x] - 0.5f * acc) > 1e-5f;
        }

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_in2));
    CUDA_CHECK(cudaFree(d_out2));
    CUDA_CHECK(cudaFreeHost(h_in2));
    CUDA_CHECK(cudaFreeHost(h_out2));
    CUDA_CHECK(cudaFree(d_in1));
    CUDA_CHECK(cudaFree(d_out1));
    printf("%s (%d points differ from the host reference)\n", wrong ? "FAILED" : "PASSED", wrong);
    return wrong ? 1 : 0;
}
