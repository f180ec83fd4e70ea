//! Case `outer_product`: C = a bᵀ for vectors of length n (C is n × n, row-major), computed with one
//! element per thread and with four independent elements per thread (the instruction-level
//! parallelism example: fewer threads, each with four stores in flight).
//!
//! Usage: `outer_product [N...]` (default 4096 8192). Blocks of 256 threads; grid (columns / 256
//! or columns / 1024, n rows).
//!
//! Known work per launch: FLOP n² (one FMUL per element); DRAM bytes 4n² written plus 8n read (a and
//! b are read once from DRAM and then hit in cache). Both variants do exactly the same work; only
//! the number of threads (n² vs n²/4) and the independent stores per thread (1 vs 4) differ.
#include "common.cuh"

constexpr const char* kUsage = "[N...]";
constexpr int kBlock = 256;
constexpr int kIlp = 4;

// Row i of C is block row blockIdx.y; no integer division anywhere, so the kernels stay
// store-bound.
__global__ void outer_product_ilp1(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
    const int i = blockIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        c[static_cast<long long>(i) * n + j] = a[i] * b[j];
    }
}

__global__ void outer_product_ilp4(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
    // A block covers kIlp * blockDim.x consecutive columns of row blockIdx.y; thread t handles
    // columns t, t + blockDim.x, ... so each of its kIlp independent stores is still coalesced.
    const int i = blockIdx.y;
    const int base = blockIdx.x * blockDim.x * kIlp + threadIdx.x;
    const float ai = a[i];
    float value[kIlp];
#pragma unroll
    for (int r = 0; r < kIlp; ++r) {
        const int j = base + r * static_cast<int>(blockDim.x);
        value[r] = j < n ? ai * b[j] : 0.0f;
    }
    float* row = c + static_cast<long long>(i) * n;
#pragma unroll
    for (int r = 0; r < kIlp; ++r) {
        const int j = base + r * static_cast<int>(blockDim.x);
        if (j < n) {
            row[j] = value[r];
        }
    }
}

int main(int argc, char** argv) {
    for (long long size : parse_sizes(argc, argv, kUsage, {4096, 8192})) {
        if (size > 46340) {
            usage_error(argv[0], kUsage, "N must be at most 46340 (N² elements, grid.y = N)");
        }
        const int n = static_cast<int>(size);
        const long long total = static_cast<long long>(n) * n;
        std::vector<float> a(n);
        std::vector<float> b(n);
        fill_random(a, 4);
        fill_random(b, 5);
        DeviceBuffer<float> da(n);
        DeviceBuffer<float> db(n);
        DeviceBuffer<float> dc(total);
        da.upload(a);
        db.upload(b);
        const dim3 block(kBlock);
        struct Variant {
            const char* name;
            void (*kernel)(const float*, const float*, float*, int);
            int per_thread;
        };
        const Variant variants[] = {{"outer_product_ilp1", outer_product_ilp1, 1},
                                    {"outer_product_ilp4", outer_product_ilp4, kIlp}};
        for (const Variant& variant : variants) {
            const int per_block = kBlock * variant.per_thread;
            const dim3 grid(static_cast<unsigned>((n + per_block - 1) / per_block),
                            static_cast<unsigned>(n));
            dc.poison();
            EventTimer timer;
            variant.kernel<<<grid, block>>>(da.get(), db.get(), dc.get(), n);
            const float ms = timer.stop_ms();
            check_launch(variant.name);
            report_launch("outer_product", variant.name, n, grid, block, 0, ms);
            const std::vector<float> c = dc.download();
            Checker check(std::string(variant.name) + " n=" + std::to_string(n));
            for (long long i = 0; i < n; ++i) {
                for (long long j = 0; j < n; ++j) {
                    check.expect_close(i * n + j, c[i * n + j], a[i] * b[j], 0.0);
                }
            }
            check.finish();
        }
    }
    return 0;
}
