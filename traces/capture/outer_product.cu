//! Case `outer_product`: C = a bᵀ for vectors of length n (C is n × n, row-major), computed with one
//! element per thread and with four independent elements per thread (the instruction-level
//! parallelism example: fewer threads, each with four stores in flight).
//!
//! Usage: `outer_product [N...]` (default 4096 8192).
//!
//! Known work per launch: FLOP n² (one FMUL per element); DRAM bytes 4n² written plus 8n read (a and
//! b are read once from DRAM and then hit in cache). Both variants do exactly the same work; only
//! the number of threads (n² vs n²/4) and the independent stores per thread (1 vs 4) differ.
#include "common.cuh"

constexpr const char* kUsage = "[N...]";
constexpr int kBlock = 256;
constexpr int kIlp = 4;

__global__ void outer_product_ilp1(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long total = static_cast<long long>(n) * n;
    if (k < total) {
        c[k] = a[k / n] * b[k % n];
    }
}

__global__ void outer_product_ilp4(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
    // Block i covers the kIlp * blockDim.x consecutive elements starting at i * kIlp * blockDim.x;
    // thread t handles t, t + blockDim.x, ... so each of its kIlp stores is still coalesced.
    const long long base = static_cast<long long>(blockIdx.x) * blockDim.x * kIlp + threadIdx.x;
    const long long total = static_cast<long long>(n) * n;
    float value[kIlp];
#pragma unroll
    for (int r = 0; r < kIlp; ++r) {
        const long long k = base + static_cast<long long>(r) * blockDim.x;
        value[r] = k < total ? a[k / n] * b[k % n] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < kIlp; ++r) {
        const long long k = base + static_cast<long long>(r) * blockDim.x;
        if (k < total) {
            c[k] = value[r];
        }
    }
}

int main(int argc, char** argv) {
    for (long long size : parse_sizes(argc, argv, kUsage, {4096, 8192})) {
        if (size > 46340) {
            usage_error(argv[0], kUsage, "N must be at most 46340");
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
            const long long per_block = static_cast<long long>(kBlock) * variant.per_thread;
            const dim3 grid(static_cast<unsigned>((total + per_block - 1) / per_block));
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
