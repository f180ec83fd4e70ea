//! Case `tensor_gemm`: C = A · B on the tensor cores through the WMMA API (`mma.sync`, SASS
//! `HMMA.16816.F32`): A (n × k) and B (k × n) row-major FP16, C (n × n) row-major FP32, FP32
//! accumulation, 16 × 16 × 16 fragments. Two kernels per size:
//! - `wmma_gemm_naive`: no shared memory; each warp computes one 16 × 16 tile of C and loads its A
//!   and B fragments straight from global memory (the reuse is left to L1 and L2). Blocks of
//!   32 × 4 threads (4 warps, a 64 × 16 strip of C).
//! - `wmma_gemm_tiled`: 128 × 128 block tiles of C, A and B staged through shared memory 32 deep
//!   in k (16-byte loads, rows padded by 8 halves; the next k-slab is loaded into registers while
//!   the current one is multiplied). 256 threads = 8 warps per block, each owning a 64 × 32
//!   sub-tile (4 × 2 fragments, 8 accumulators). Static shared memory 10,240 + 8,704 bytes.
//!
//! Usage: `tensor_gemm [N K]...` (pairs; default 1024 1024 4096 4096 8192 64). N must be a
//! multiple of 128 and K of 32. With the defaults the launches span the regimes: n = k = 1024 is
//! under one wave for the tiled kernel (64 blocks on 132 SMs), n = k = 4096 is tensor-bound for
//! the tiled kernel and L1-bound for the naive one, and n = 8192, k = 64 is bound by writing C
//! (256 MiB of FP32) to DRAM.
//!
//! Known work per launch: FLOP 2·n²·k, as n²·k / 2048 `HMMA.16816.F32` warp instructions (one
//! 16 × 16 × 16 `mma_sync` is two of them, 4096 FLOP each; ncu
//! `sm__inst_executed_pipe_tensor_op_hmma`).
//! Compulsory DRAM bytes 4·n·k (A and B, FP16) + 4·n² (C, FP32). Fragment loads: naive n²·k/4
//! bytes from global memory (every warp reads a 16 × k strip of A and a k × 16 strip of B);
//! tiled n²·k/32 bytes from global memory (each element once per 128-wide tile) and n²·k·3/32
//! bytes of fragment reads from shared memory.
//!
//! The host checks 1024 spread elements (and the last one) against a double-precision dot product
//! of the FP16-rounded inputs; the tolerance is 4·k·FLT_EPSILON·Σ|a·b|, far below the error of a
//! wrong index.
#include <cfloat>

#include <cuda_fp16.h>
#include <mma.h>

#include "common.cuh"

using namespace nvcuda;

constexpr const char* kUsage = "[N K]...";
/// WMMA fragment edge (m = n = k = 16).
constexpr int kFrag = 16;
/// Warps per block of the naive kernel (stacked in the row direction).
constexpr int kNaiveWarps = 4;
/// Block tile of the tiled kernel: rows, columns, k depth.
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 32;
/// Padding of the shared-memory rows, halves (keeps 32-byte fragment alignment, spreads banks).
constexpr int kPad = 8;
constexpr int kTiledThreads = 256;
/// Warp layout of the tiled kernel: 2 × 4 warps, each 64 × 32 (4 × 2 fragments).
constexpr int kWarpRows = 64;
constexpr int kWarpCols = 32;
constexpr int kFragRows = kWarpRows / kFrag;
constexpr int kFragCols = kWarpCols / kFrag;

__global__ void wmma_gemm_naive(const __half* __restrict__ a, const __half* __restrict__ b,
                                float* __restrict__ c, int n, int k) {
    const int tile_row = blockIdx.y * blockDim.y + threadIdx.y;
    const int tile_col = blockIdx.x;
    if (tile_row * kFrag >= n) return;
    wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    const __half* a_strip = a + static_cast<long long>(tile_row) * kFrag * k;
    const __half* b_strip = b + static_cast<long long>(tile_col) * kFrag;
    for (int kk = 0; kk < k; kk += kFrag) {
        wmma::load_matrix_sync(fa, a_strip + kk, k);
        wmma::load_matrix_sync(fb, b_strip + static_cast<long long>(kk) * n, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    float* c_tile = c + static_cast<long long>(tile_row) * kFrag * n + tile_col * kFrag;
    wmma::store_matrix_sync(c_tile, acc, n, wmma::mem_row_major);
}

__global__ void __launch_bounds__(kTiledThreads)
    wmma_gemm_tiled(const __half* __restrict__ a, const __half* __restrict__ b,
                    float* __restrict__ c, int n, int k) {
    __shared__ __align__(128) __half tile_a[kBlockM][kBlockK + kPad];
    __shared__ __align__(128) __half tile_b[kBlockK][kBlockN + kPad];
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int warp_row = (warp / (kBlockN / kWarpCols)) * kWarpRows;
    const int warp_col = (warp % (kBlockN / kWarpCols)) * kWarpCols;
    const int block_row = blockIdx.y * kBlockM;
    const int block_col = blockIdx.x * kBlockN;

    // Each thread moves two 16-byte chunks (8 halves) of each slab: A is 128 × 32 (4 chunks per
    // row), B is 32 × 128 (16 chunks per row).
    constexpr int kChunks = 2;
    int a_row[kChunks], a_col[kChunks], b_row[kChunks], b_col[kChunks];
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
        const int chunk = tid + i * kTiledThreads;
        a_row[i] = chunk / (kBlockK / 8);
        a_col[i] = (chunk % (kBlockK / 8)) * 8;
        b_row[i] = chunk / (kBlockN / 8);
        b_col[i] = (chunk % (kBlockN / 8)) * 8;
    }
    uint4 next_a[kChunks], next_b[kChunks];
    auto load_slab = [&](int k0) {
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            next_a[i] = *reinterpret_cast<const uint4*>(
                a + static_cast<long long>(block_row + a_row[i]) * k + k0 + a_col[i]);
            next_b[i] = *reinterpret_cast<const uint4*>(
                b + static_cast<long long>(k0 + b_row[i]) * n + block_col + b_col[i]);
        }
    };

    wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> acc[kFragRows][kFragCols];
#pragma unroll
    for (int i = 0; i < kFragRows; ++i) {
#pragma unroll
        for (int j = 0; j < kFragCols; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    }
    wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major> fa[kFragRows];
    wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major> fb[kFragCols];

    load_slab(0);
    for (int k0 = 0; k0 < k; k0 += kBlockK) {
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            *reinterpret_cast<uint4*>(&tile_a[a_row[i]][a_col[i]]) = next_a[i];
            *reinterpret_cast<uint4*>(&tile_b[b_row[i]][b_col[i]]) = next_b[i];
        }
        __syncthreads();
        if (k0 + kBlockK < k) load_slab(k0 + kBlockK);
#pragma unroll
        for (int kk = 0; kk < kBlockK; kk += kFrag) {
#pragma unroll
            for (int i = 0; i < kFragRows; ++i) {
                wmma::load_matrix_sync(fa[i], &tile_a[warp_row + i * kFrag][kk], kBlockK + kPad);
            }
#pragma unroll
            for (int j = 0; j < kFragCols; ++j) {
                wmma::load_matrix_sync(fb[j], &tile_b[kk][warp_col + j * kFrag], kBlockN + kPad);
            }
#pragma unroll
            for (int i = 0; i < kFragRows; ++i) {
#pragma unroll
                for (int j = 0; j < kFragCols; ++j) {
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kFragRows; ++i) {
#pragma unroll
        for (int j = 0; j < kFragCols; ++j) {
            const long long row = block_row + warp_row + i * kFrag;
            const int col = block_col + warp_col + j * kFrag;
            wmma::store_matrix_sync(c + row * n + col, acc[i][j], n, wmma::mem_row_major);
        }
    }
}

/// FP16 copies of deterministic random values in [-1, 1), and the same values back as floats.
static void random_halves(std::size_t count, std::uint64_t seed, std::vector<__half>& halves,
                          std::vector<float>& rounded) {
    std::vector<float> values(count);
    fill_random(values, seed);
    halves.resize(count);
    rounded.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        halves[i] = __float2half_rn(values[i]);
        rounded[i] = __half2float(halves[i]);
    }
}

int main(int argc, char** argv) {
    const std::vector<long long> sizes =
        parse_sizes(argc, argv, kUsage, {1024, 1024, 4096, 4096, 8192, 64});
    if (sizes.size() % 2 != 0) {
        usage_error(argv[0], kUsage, "sizes come in pairs N K");
    }
    for (std::size_t pair = 0; pair < sizes.size(); pair += 2) {
        if (sizes[pair] > 16384 || sizes[pair] % kBlockM != 0) {
            usage_error(argv[0], kUsage, "N must be a multiple of 128, at most 16384");
        }
        if (sizes[pair + 1] > 16384 || sizes[pair + 1] % kBlockK != 0) {
            usage_error(argv[0], kUsage, "K must be a multiple of 32, at most 16384");
        }
        const int n = static_cast<int>(sizes[pair]);
        const int k = static_cast<int>(sizes[pair + 1]);
        std::vector<__half> a_half;
        std::vector<__half> b_half;
        std::vector<float> a;
        std::vector<float> b;
        random_halves(static_cast<std::size_t>(n) * k, 11, a_half, a);
        random_halves(static_cast<std::size_t>(k) * n, 12, b_half, b);
        DeviceBuffer<__half> da(a_half.size());
        DeviceBuffer<__half> db(b_half.size());
        DeviceBuffer<float> dc(static_cast<std::size_t>(n) * n);
        da.upload(a_half);
        db.upload(b_half);
        struct Variant {
            const char* name;
            void (*kernel)(const __half*, const __half*, float*, int, int);
            dim3 grid;
            dim3 block;
        };
        const Variant variants[] = {
            {"wmma_gemm_naive", wmma_gemm_naive,
             dim3(n / kFrag, (n / kFrag + kNaiveWarps - 1) / kNaiveWarps), dim3(32, kNaiveWarps)},
            {"wmma_gemm_tiled", wmma_gemm_tiled, dim3(n / kBlockN, n / kBlockM),
             dim3(kTiledThreads)},
        };
        for (const Variant& variant : variants) {
            dc.poison();
            EventTimer timer;
            variant.kernel<<<variant.grid, variant.block>>>(da.get(), db.get(), dc.get(), n, k);
            const float ms = timer.stop_ms();
            check_launch(variant.name);
            report_launch("tensor_gemm", variant.name, n, variant.grid, variant.block, 0, ms);
            const std::vector<float> c = dc.download();
            Checker check(std::string(variant.name) + " n=" + std::to_string(n) +
                          " k=" + std::to_string(k));
            const long long total = static_cast<long long>(n) * n;
            for (long long index : sample_indices(total, 1024)) {
                const long long row = index / n;
                const long long col = index % n;
                double want = 0.0;
                double magnitude = 0.0;
                for (long long kk = 0; kk < k; ++kk) {
                    const double term = static_cast<double>(a[row * k + kk]) * b[kk * n + col];
                    want += term;
                    magnitude += std::fabs(term);
                }
                check.expect_close(index, c[index], want, 4.0 * k * FLT_EPSILON * magnitude);
            }
            check.finish();
        }
    }
    return 0;
}
