//! Case `tensor_peak`: the tensor pipe's rate per input type and instruction shape (`mma.sync`
//! through WMMA and through inline PTX), with nothing but tensor instructions in the loop, so the
//! `tensor_hmma`, `tensor_imma` and `tensor_dmma` rates of the time model can be checked one by
//! one (as `precision` checks the FP32, FP64 and FP16 ceilings).
//!
//! Each warp loads one A and one B fragment (A and B filled with one constant), then runs kChains
//! independent accumulators through `iterations` dependent `mma_sync` each, sums the accumulators
//! and stores one accumulator tile. Every chain starts at its own value (so the compiler cannot
//! merge the chains), and the inputs are powers of two, so every output is exact:
//! kChains · iterations · kdepth · a · b + (0 + 1 + 2 + 3) for every element; the host checks all
//! of them.
//!
//! Usage: `tensor_peak [THREADS...]` (default 270336 = 1056 blocks of 256, 8 per SM on 132 SMs).
//! Iterations per chain: 1024, chains: 4. THREADS must be a multiple of 256. Nine launches per
//! size, in the order listed below.
//!
//! Known work per launch of T threads (W = T / 32 warps, I = 1024, 4 chains, so 4·I·W mma_sync):
//! - `wmma_chain_fp16`: FP16 in, FP32 accumulate, m16n16k16 = 8192 FLOP per mma_sync, compiled to
//!   2 `HMMA.16816.F32` (4096 FLOP each): 8·I·W HMMA, 32768·I·W FLOP;
//! - `wmma_chain_bf16`: BF16 in, FP32 accumulate, m16n16k16: the same counts
//!   (`HMMA.16816.F32.BF16`);
//! - `wmma_chain_tf32`: TF32 in, FP32 accumulate, m16n16k8 = 4096 FLOP per mma_sync, compiled to
//!   4 `HMMA.1684.F32.TF32` (1024 FLOP each): 16·I·W instructions, 16384·I·W FLOP;
//! - `wmma_chain_int8`: INT8 in, INT32 accumulate, m16n16k16 = 8192 OP per mma_sync, compiled to
//!   2 `IMMA.16816.S8.S8` (4096 OP each): 8·I·W instructions;
//! - `wmma_chain_fp64`: FP64, m8n8k4 = 512 FLOP per mma_sync, one `DMMA.884`: 2048·I·W FLOP.
//!
//! WMMA emits only some of the `mma.sync` shapes, and on Hopper the tensor pipe's rate per
//! instruction depends on the shape, so four more kernels issue the other shapes through inline
//! PTX (`mma.sync.aligned.m16n8kK.row.col`, one instruction per chain step, A and B held in
//! registers as constants passed in as kernel arguments):
//! - `mma_chain_fp16_k8`: m16n8k8 FP16 → FP32 (`HMMA.1688.F32`, 2048 FLOP): 4·I·W instructions;
//! - `mma_chain_tf32_k8`: m16n8k8 TF32 → FP32 (`HMMA.1688.F32.TF32`, 2048 FLOP): 4·I·W;
//! - `mma_chain_int8_k32`: m16n8k32 INT8 → INT32 (`IMMA.16832.S8.S8`, 8192 OP): 4·I·W;
//! - `mma_chain_fp64_k16`: m16n8k16 FP64 (sm_90 only, `DMMA.16x8x16`, 4096 FLOP): 4·I·W.
//! Their outputs are the 4 accumulator values of every thread (16 bytes per thread, 32 for FP64).
//! DRAM bytes: the inputs (a few KB) and W tiles of output (1 KB each; 512 B for FP64).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "common.cuh"

using namespace nvcuda;

constexpr const char* kUsage = "[THREADS...]";
constexpr int kBlock = 256;
constexpr int kChains = 4;
constexpr int kIterations = 1024;

// The device pass for an older GPU compiles the kernels that need a newer one as empty bodies, and
// the host skips them there (see `main`): BF16, TF32 and FP64 WMMA and m16n8k32 INT8 need compute
// capability 8.0, m16n8k16 FP64 needs 9.0.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KIT_HAS_SM80 0
#else
#define KIT_HAS_SM80 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define KIT_HAS_SM90 0
#else
#define KIT_HAS_SM90 1
#endif

/// The chain for one fragment shape. `Element` is the WMMA input type, `Storage` what A and B are
/// stored as, `Acc` the accumulator type; A is M × K and B is K × N, both row-major; `out` gets one
/// M × N accumulator tile per warp.
template <int M, int N, int K, typename Element, typename Storage, typename Acc>
__device__ __forceinline__ void mma_chain(const Storage* __restrict__ a,
                                          const Storage* __restrict__ b, Acc* __restrict__ out,
                                          int iterations) {
    wmma::fragment<wmma::matrix_a, M, N, K, Element, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, Element, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> acc[kChains];
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, N);
#pragma unroll
    for (int c = 0; c < kChains; ++c) wmma::fill_fragment(acc[c], static_cast<Acc>(c));
#pragma unroll 4
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int c = 0; c < kChains; ++c) wmma::mma_sync(acc[c], fa, fb, acc[c]);
    }
#pragma unroll
    for (int c = 1; c < kChains; ++c) {
#pragma unroll
        for (int e = 0; e < acc[0].num_elements; ++e) acc[0].x[e] += acc[c].x[e];
    }
    const long long warp =
        (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    wmma::store_matrix_sync(out + warp * M * N, acc[0], N, wmma::mem_row_major);
}

__global__ void wmma_chain_fp16(const __half* __restrict__ a, const __half* __restrict__ b,
                                float* __restrict__ out, int iterations) {
    mma_chain<16, 16, 16, __half, __half, float>(a, b, out, iterations);
}

__global__ void wmma_chain_bf16(const __nv_bfloat16* __restrict__ a,
                                const __nv_bfloat16* __restrict__ b, float* __restrict__ out,
                                int iterations) {
#if KIT_HAS_SM80
    mma_chain<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>(a, b, out, iterations);
#endif
}

__global__ void wmma_chain_tf32(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ out, int iterations) {
#if KIT_HAS_SM80
    mma_chain<16, 16, 8, wmma::precision::tf32, float, float>(a, b, out, iterations);
#endif
}

__global__ void wmma_chain_int8(const signed char* __restrict__ a,
                                const signed char* __restrict__ b, int* __restrict__ out,
                                int iterations) {
    mma_chain<16, 16, 16, signed char, signed char, int>(a, b, out, iterations);
}

__global__ void wmma_chain_fp64(const double* __restrict__ a, const double* __restrict__ b,
                                double* __restrict__ out, int iterations) {
#if KIT_HAS_SM80
    mma_chain<8, 8, 4, double, double, double>(a, b, out, iterations);
#endif
}

/// Defines an inline-PTX chain kernel: each step issues `kChains` independent `mma.sync` (the
/// instruction `asm_text`, inputs `...`) with the same A and B registers, each accumulating into
/// its own 4-register C/D; then every thread stores the sum of its chains (4 values).
#define MMA_CHAIN_KERNEL(name, Acc, Ab, acc_constraint, asm_text, ...)                            \
    __global__ void name(Ab a, Ab b, Acc* __restrict__ out, int iterations) {                    \
        Acc d[kChains][4];                                                                       \
        _Pragma("unroll") for (int c = 0; c < kChains; ++c) {                                    \
            _Pragma("unroll") for (int j = 0; j < 4; ++j) d[c][j] = static_cast<Acc>(c);          \
        }                                                                                        \
        _Pragma("unroll 4") for (int it = 0; it < iterations; ++it) {                            \
            _Pragma("unroll") for (int c = 0; c < kChains; ++c) {                                 \
                asm volatile(asm_text                                                            \
                             : acc_constraint(d[c][0]), acc_constraint(d[c][1]),                 \
                               acc_constraint(d[c][2]), acc_constraint(d[c][3])                  \
                             : __VA_ARGS__);                                                     \
            }                                                                                    \
        }                                                                                        \
        const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;  \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) {                                          \
            Acc sum = d[0][j];                                                                   \
            _Pragma("unroll") for (int c = 1; c < kChains; ++c) sum += d[c][j];                  \
            out[thread * 4 + j] = sum;                                                           \
        }                                                                                        \
    }

// A and B of FP16 come as two halves packed in one 32-bit word.
MMA_CHAIN_KERNEL(mma_chain_fp16_k8, float, unsigned, "+f",
                 "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%0,%1,%2,%3};",
                 "r"(a), "r"(a), "r"(b))
// The instructions that need a newer GPU than the device pass's become empty asm statements.
#if KIT_HAS_SM80
#define KIT_MMA_TF32_K8                                                                         \
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, " \
    "{%0,%1,%2,%3};"
#define KIT_MMA_INT8_K32                                                                       \
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, " \
    "{%0,%1,%2,%3};"
#else
#define KIT_MMA_TF32_K8 ""
#define KIT_MMA_INT8_K32 ""
#endif
#if KIT_HAS_SM90
#define KIT_MMA_FP64_K16                                                                  \
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "                  \
    "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
#else
#define KIT_MMA_FP64_K16 ""
#endif
// TF32 operands are FP32 bit patterns (the low mantissa bits are ignored).
MMA_CHAIN_KERNEL(mma_chain_tf32_k8, float, unsigned, "+f", KIT_MMA_TF32_K8, "r"(a), "r"(a), "r"(a),
                 "r"(a), "r"(b), "r"(b))
// INT8 operands: four signed bytes per 32-bit word.
MMA_CHAIN_KERNEL(mma_chain_int8_k32, int, unsigned, "+r", KIT_MMA_INT8_K32, "r"(a), "r"(a), "r"(a),
                 "r"(a), "r"(b), "r"(b))
MMA_CHAIN_KERNEL(mma_chain_fp64_k16, double, double, "+d", KIT_MMA_FP64_K16,
                 "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(b), "d"(b),
                 "d"(b), "d"(b))

/// Runs one inline-PTX chain kernel (k = `depth`) with every A and B element equal to `value`
/// (given as the packed register `packed`), then checks all 4 outputs of every thread against
/// kChains · iterations · depth · value² + 0 + 1 + 2 + 3.
template <typename Ab, typename Acc>
static void run_ptx_chain(const char* name, void (*kernel)(Ab, Ab, Acc*, int), long long threads,
                          int depth, Ab packed, double value) {
    DeviceBuffer<Acc> out(static_cast<std::size_t>(threads) * 4);
    out.poison();
    const dim3 block(kBlock);
    const dim3 grid(static_cast<unsigned>(threads / kBlock));
    EventTimer timer;
    kernel<<<grid, block>>>(packed, packed, out.get(), kIterations);
    const float ms = timer.stop_ms();
    check_launch(name);
    report_launch("tensor_peak", name, threads, grid, block, 0, ms);
    const std::vector<Acc> got = out.download();
    const double want = static_cast<double>(kChains) * kIterations * depth * value * value +
                        (kChains * (kChains - 1)) / 2;
    Checker check(std::string(name) + " threads=" + std::to_string(threads));
    for (std::size_t i = 0; i < got.size(); ++i) {
        check.expect_close(static_cast<long long>(i), static_cast<double>(got[i]), want, 0.0);
    }
    check.finish();
}

/// Runs one chain kernel over `threads` threads with A and B (M × K, K × N) filled with `value`,
/// then checks every output against kChains · iterations · K · value² + 0 + 1 + 2 + 3.
template <int M, int N, int K, typename Storage, typename Acc>
static void run_chain(const char* name,
                      void (*kernel)(const Storage*, const Storage*, Acc*, int), long long threads,
                      Storage value, double value_as_double) {
    const std::vector<Storage> a_host(static_cast<std::size_t>(M) * K, value);
    const std::vector<Storage> b_host(static_cast<std::size_t>(K) * N, value);
    DeviceBuffer<Storage> a(a_host.size());
    DeviceBuffer<Storage> b(b_host.size());
    a.upload(a_host);
    b.upload(b_host);
    const long long warps = threads / 32;
    DeviceBuffer<Acc> out(static_cast<std::size_t>(warps) * M * N);
    out.poison();
    const dim3 block(kBlock);
    const dim3 grid(static_cast<unsigned>(threads / kBlock));
    EventTimer timer;
    kernel<<<grid, block>>>(a.get(), b.get(), out.get(), kIterations);
    const float ms = timer.stop_ms();
    check_launch(name);
    report_launch("tensor_peak", name, threads, grid, block, 0, ms);
    const std::vector<Acc> got = out.download();
    const double want =
        static_cast<double>(kChains) * kIterations * K * value_as_double * value_as_double +
        (kChains * (kChains - 1)) / 2;
    Checker check(std::string(name) + " threads=" + std::to_string(threads));
    for (std::size_t i = 0; i < got.size(); ++i) {
        check.expect_close(static_cast<long long>(i), static_cast<double>(got[i]), want, 0.0);
    }
    check.finish();
}

int main(int argc, char** argv) {
    const int cc = 10 * device_attribute(cudaDevAttrComputeCapabilityMajor) +
                   device_attribute(cudaDevAttrComputeCapabilityMinor);
    // Prints why a kernel is skipped on this GPU; true when it can run.
    auto runs_here = [cc](const char* name, int needed) {
        if (cc >= needed) return true;
        std::printf("skip=%s needs compute capability %d.%d (this GPU: %d.%d)\n", name,
                    needed / 10, needed % 10, cc / 10, cc % 10);
        return false;
    };
    for (long long threads : parse_sizes(argc, argv, kUsage, {270336})) {
        if (threads % kBlock != 0 || threads / kBlock > 2147483647LL) {
            usage_error(argv[0], kUsage, "THREADS must be a multiple of 256");
        }
        // 1/16 and 1 are exact in every input type, and every partial sum is exact in the
        // accumulator, so the expected outputs are exact.
        run_chain<16, 16, 16, __half, float>("wmma_chain_fp16", wmma_chain_fp16, threads,
                                             __float2half_rn(0.0625f), 0.0625);
        if (runs_here("wmma_chain_bf16", 80)) {
            run_chain<16, 16, 16, __nv_bfloat16, float>("wmma_chain_bf16", wmma_chain_bf16,
                                                        threads, __float2bfloat16_rn(0.0625f),
                                                        0.0625);
        }
        if (runs_here("wmma_chain_tf32", 80)) {
            run_chain<16, 16, 8, float, float>("wmma_chain_tf32", wmma_chain_tf32, threads,
                                               0.0625f, 0.0625);
        }
        run_chain<16, 16, 16, signed char, int>("wmma_chain_int8", wmma_chain_int8, threads,
                                                static_cast<signed char>(1), 1.0);
        if (runs_here("wmma_chain_fp64", 80)) {
            run_chain<8, 8, 4, double, double>("wmma_chain_fp64", wmma_chain_fp64, threads,
                                               0.0625, 0.0625);
        }
        // 0x2C00 is FP16 0.0625; 0x3D800000 is FP32 (TF32) 0.0625; 0x01010101 is four INT8 ones.
        run_ptx_chain<unsigned, float>("mma_chain_fp16_k8", mma_chain_fp16_k8, threads, 8,
                                       0x2C002C00u, 0.0625);
        if (runs_here("mma_chain_tf32_k8", 80)) {
            run_ptx_chain<unsigned, float>("mma_chain_tf32_k8", mma_chain_tf32_k8, threads, 8,
                                           0x3D800000u, 0.0625);
        }
        if (runs_here("mma_chain_int8_k32", 80)) {
            run_ptx_chain<unsigned, int>("mma_chain_int8_k32", mma_chain_int8_k32, threads, 32,
                                         0x01010101u, 1.0);
        }
        if (runs_here("mma_chain_fp64_k16", 90)) {
            run_ptx_chain<double, double>("mma_chain_fp64_k16", mma_chain_fp64_k16, threads, 16,
                                          0.0625, 0.0625);
        }
    }
    return 0;
}
