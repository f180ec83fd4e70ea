//! Case `sgemm`: C = A · B for n × n row-major float matrices, naive and with 32 × 32 shared-memory
//! tiles. Both use 32 × 32 = 1024-thread blocks, one output element per thread.
//!
//! Usage: `sgemm [N...]` (default 1024 2048).
//!
//! Known work per launch: FLOP 2n³ (n³ FFMA). Compulsory DRAM bytes 12n² (read A and B, write C).
//! Global loads issued: naive 2n³ floats (8n³ bytes through L1: each thread reads a row of A and a
//! column of B); tiled 2n³/32 floats (n³/4 bytes: each element loaded once per 32-wide tile), plus
//! 2n³ shared-memory reads. The tiled kernel uses 8192 bytes of static shared memory per block.
//!
//! The host checks 1024 spread elements (and the last one) against a double-precision dot product;
//! the tolerance is 4·n·FLT_EPSILON·Σ|a·b|, far below the error of a wrong index.
#include <cfloat>

#include "common.cuh"

constexpr const char* kUsage = "[N...]";
constexpr int kTile = 32;

__global__ void sgemm_naive(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int n) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) {
            sum = fmaf(a[static_cast<long long>(row) * n + k], b[static_cast<long long>(k) * n + col],
                       sum);
        }
        c[static_cast<long long>(row) * n + col] = sum;
    }
}

__global__ void sgemm_tiled(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int n) {
    __shared__ float tile_a[kTile][kTile];
    __shared__ float tile_b[kTile][kTile];
    const int col = blockIdx.x * kTile + threadIdx.x;
    const int row = blockIdx.y * kTile + threadIdx.y;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += kTile) {
        const int ak = k0 + threadIdx.x;
        const int bk = k0 + threadIdx.y;
        tile_a[threadIdx.y][threadIdx.x] =
            (row < n && ak < n) ? a[static_cast<long long>(row) * n + ak] : 0.0f;
        tile_b[threadIdx.y][threadIdx.x] =
            (bk < n && col < n) ? b[static_cast<long long>(bk) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kTile; ++k) {
            sum = fmaf(tile_a[threadIdx.y][k], tile_b[k][threadIdx.x], sum);
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[static_cast<long long>(row) * n + col] = sum;
    }
}

int main(int argc, char** argv) {
    for (long long size : parse_sizes(argc, argv, kUsage, {1024, 2048})) {
        if (size > 16384) {
            usage_error(argv[0], kUsage, "N must be at most 16384");
        }
        const int n = static_cast<int>(size);
        const std::size_t count = static_cast<std::size_t>(n) * n;
        std::vector<float> a(count);
        std::vector<float> b(count);
        fill_random(a, 6);
        fill_random(b, 7);
        DeviceBuffer<float> da(count);
        DeviceBuffer<float> db(count);
        DeviceBuffer<float> dc(count);
        da.upload(a);
        db.upload(b);
        const dim3 block(kTile, kTile);
        const dim3 grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
        struct Variant {
            const char* name;
            void (*kernel)(const float*, const float*, float*, int);
        };
        const Variant variants[] = {{"sgemm_naive", sgemm_naive}, {"sgemm_tiled", sgemm_tiled}};
        for (const Variant& variant : variants) {
            dc.poison();
            EventTimer timer;
            variant.kernel<<<grid, block>>>(da.get(), db.get(), dc.get(), n);
            const float ms = timer.stop_ms();
            check_launch(variant.name);
            report_launch("sgemm", variant.name, n, grid, block, 0, ms);
            const std::vector<float> c = dc.download();
            Checker check(std::string(variant.name) + " n=" + std::to_string(n));
            for (long long index : sample_indices(static_cast<long long>(count), 1024)) {
                const long long row = index / n;
                const long long col = index % n;
                double want = 0.0;
                double magnitude = 0.0;
                for (long long k = 0; k < n; ++k) {
                    const double term = static_cast<double>(a[row * n + k]) * b[k * n + col];
                    want += term;
                    magnitude += std::fabs(term);
                }
                check.expect_close(index, c[index], want, 4.0 * n * FLT_EPSILON * magnitude);
            }
            check.finish();
        }
    }
    return 0;
}
