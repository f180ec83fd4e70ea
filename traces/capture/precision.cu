//! Case `precision`: the same compute-bound FMA chain in FP32, FP64 and FP16 (`__half2`, two lanes
//! per instruction), so the three roofline ceilings can be checked against one another.
//!
//! Each thread loads one float, runs kChains independent chains of `iterations` dependent FMAs
//! (acc = acc · m + c, which converges to c / (1 − m) for |m| < 1 and so never overflows), sums
//! the chains and stores one float. With m = 0.5 the start value is forgotten after a few dozen
//! iterations, so every output is 4 · c / (1 − m) = 2 (4 for the 8 FP16 lanes): the host check
//! catches unwritten or wrongly computed outputs, and since m and c are kernel arguments the
//! compiler cannot fold the chain away.
//!
//! Usage: `precision [THREADS...]` (default 4194304). Iterations per chain: 512.
//!
//! Known work per launch of T threads (I = 512 iterations, 4 chains):
//! - `fma_chain_fp32`: T·I·4 FFMA = 8·T·I FLOP;
//! - `fma_chain_fp64`: T·I·4 DFMA = 8·T·I FLOP;
//! - `fma_chain_fp16x2`: T·I·4 HFMA2 instructions, each 2 lanes = 16·T·I FLOP;
//! plus a handful of adds and conversions per thread. DRAM bytes 8·T for all three.
#include <cuda_fp16.h>

#include "common.cuh"

constexpr const char* kUsage = "[THREADS...]";
constexpr int kBlock = 256;
constexpr int kChains = 4;
constexpr int kIterations = 512;

__global__ void fma_chain_fp32(const float* __restrict__ in, float* __restrict__ out, float m,
                               float c, int iterations, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) acc[k] = in[i] + static_cast<float>(k);
#pragma unroll 8
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int k = 0; k < kChains; ++k) acc[k] = fmaf(acc[k], m, c);
    }
    out[i] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

__global__ void fma_chain_fp64(const float* __restrict__ in, float* __restrict__ out, double m,
                               double c, int iterations, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double acc[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) acc[k] = static_cast<double>(in[i]) + k;
#pragma unroll 8
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int k = 0; k < kChains; ++k) acc[k] = fma(acc[k], m, c);
    }
    out[i] = static_cast<float>((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

__global__ void fma_chain_fp16x2(const float* __restrict__ in, float* __restrict__ out, float m,
                                 float c, int iterations, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const __half2 m2 = __float2half2_rn(m);
    const __half2 c2 = __float2half2_rn(c);
    __half2 acc[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) acc[k] = __floats2half2_rn(in[i] + k, in[i] - k);
#pragma unroll 8
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int k = 0; k < kChains; ++k) acc[k] = __hfma2(acc[k], m2, c2);
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kChains; ++k) sum += __low2float(acc[k]) + __high2float(acc[k]);
    out[i] = sum;
}

/// The chain in double precision on the host: the exact value the three kernels approximate.
static double chain_reference(double start, double m, double c, int iterations) {
    double acc = start;
    for (int it = 0; it < iterations; ++it) acc = acc * m + c;
    return acc;
}

int main(int argc, char** argv) {
    const float m = 0.5f;
    const float c = 0.25f;
    for (long long n : parse_sizes(argc, argv, kUsage, {1LL << 22})) {
        std::vector<float> in(n);
        fill_random(in, 12);
        DeviceBuffer<float> din(n);
        DeviceBuffer<float> dout(n);
        din.upload(in);
        const dim3 block(kBlock);
        const dim3 grid(static_cast<unsigned>((n + kBlock - 1) / kBlock));
        for (int variant = 0; variant < 3; ++variant) {
            const char* name = variant == 0   ? "fma_chain_fp32"
                               : variant == 1 ? "fma_chain_fp64"
                                              : "fma_chain_fp16x2";
            dout.poison();
            EventTimer timer;
            if (variant == 0) {
                fma_chain_fp32<<<grid, block>>>(din.get(), dout.get(), m, c, kIterations, n);
            } else if (variant == 1) {
                fma_chain_fp64<<<grid, block>>>(din.get(), dout.get(), m, c, kIterations, n);
            } else {
                fma_chain_fp16x2<<<grid, block>>>(din.get(), dout.get(), m, c, kIterations, n);
            }
            const float ms = timer.stop_ms();
            check_launch(name);
            report_launch("precision", name, n, grid, block, 0, ms);
            const std::vector<float> out = dout.download();
            Checker check(std::string(name) + " n=" + std::to_string(n));
            // FP32/FP64 carry their rounding error far below 1e-4; FP16 keeps ~3 decimal digits
            // of each of the 8 lanes, whose sum is about 8 · c / (1 − m) = 4.
            const double tolerance = variant == 2 ? 0.05 : 1e-4;
            for (long long index : sample_indices(n, 4096)) {
                double want = 0.0;
                for (int k = 0; k < kChains; ++k) {
                    if (variant == 2) {
                        want += chain_reference(in[index] + k, m, c, kIterations) +
                                chain_reference(in[index] - k, m, c, kIterations);
                    } else {
                        want += chain_reference(static_cast<double>(in[index]) + k, m, c, kIterations);
                    }
                }
                check.expect_close(index, out[index], want, tolerance);
            }
            check.finish();
        }
    }
    return 0;
}
