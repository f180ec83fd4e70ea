//! Case `regs_64_65`: the Programming Guide's "64 vs 65 registers at 512 threads" example, made
//! real: two kernels with the same body, one compiled to exactly 64 registers per thread and one to
//! exactly 65, both launched with 512-thread blocks.
//!
//! Expected occupancy on every CC with 65536 registers per SM, 256-register allocation units and
//! 4 sub-partitions: 64 regs → 64·32 = 2048 regs per warp → 16384 / 2048 = 8 warps per
//! sub-partition → 32 warps → 2 blocks of 16 warps. 65 regs → 65·32 = 2080, rounded up to 2304 →
//! 16384 / 2304 = 7 warps per sub-partition → 28 warps → 1 block.
//!
//! How the counts are forced (build.sh checks them with cuobjdump/ptxas and fails if they differ):
//! - `regs64_kernel` has `__launch_bounds__(512, 2)`: 65536 / (2 · 512) = 64 registers at most;
//! - `regs65_kernel` has `__maxnreg__(65)` (CUDA ≥ 12.4); build.sh also compiles this file with
//!   `-maxrregcount=65`, which caps kernels without launch bounds on older toolkits.
//! Both caps only bind because the body keeps kRegValues (58) floats live across a loop, which
//! needs more than 65 registers unconstrained (72 with nvcc 13.5 on sm_75…sm_120). With nvcc 13.5
//! the 65-register kernel does not spill on sm_75…sm_90 and the 64-register one spills 4 bytes.
//! If another compiler allocates differently, rebuild with -DREG_PRESSURE_VALUES=N.
//!
//! Usage: `regs_64_65 [THREADS...]` (default 2097152: several waves at 1 or 2 blocks per SM).
//!
//! Known work per thread: 58 loads (4 bytes each, from a window shared with neighbouring threads,
//! so DRAM bytes ≈ 4·threads read), 16·58 FFMA (FLOP 1856), 57 FADD (FLOP 57), one 4-byte store.
#include "common.cuh"

constexpr const char* kUsage = "[THREADS...]";
constexpr int kBlock = 512;
constexpr int kRounds = 16;
constexpr int kStride = 977;
#ifdef REG_PRESSURE_VALUES
constexpr int kRegValues = REG_PRESSURE_VALUES;
#else
constexpr int kRegValues = 58;
#endif

#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define WS_MAXNREG_65 __maxnreg__(65)
#else
#define WS_MAXNREG_65
#endif

/// The shared body: kRegValues values stay live across kRounds rounds because every update reads
/// the next value (a rotation), so the compiler cannot retire any of them early.
__host__ __device__ inline float pressure_body(const float* in, float scale, int tid, int n) {
    float v[kRegValues];
#pragma unroll
    for (int i = 0; i < kRegValues; ++i) v[i] = in[(tid + i * kStride) % n];
#pragma unroll 1
    for (int round = 0; round < kRounds; ++round) {
#pragma unroll
        for (int i = 0; i < kRegValues; ++i) v[i] = fmaf(v[i], scale, v[(i + 1) % kRegValues]);
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kRegValues; ++i) sum += v[i];
    return sum;
}

__global__ void __launch_bounds__(kBlock, 2)
    regs64_kernel(const float* __restrict__ in, float* __restrict__ out, float scale, int n) {
    const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (tid < n) out[tid] = pressure_body(in, scale, tid, n);
}

__global__ void WS_MAXNREG_65
    regs65_kernel(const float* __restrict__ in, float* __restrict__ out, float scale, int n) {
    const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (tid < n) out[tid] = pressure_body(in, scale, tid, n);
}

int main(int argc, char** argv) {
    for (long long threads : parse_sizes(argc, argv, kUsage, {1LL << 21})) {
        // 32-bit indices keep the register demand of the body predictable.
        if (threads > (1LL << 30)) {
            usage_error(argv[0], kUsage, "THREADS must be at most 2^30");
        }
        const int n = static_cast<int>(threads);
        std::vector<float> in(n);
        fill_random(in, 9);
        DeviceBuffer<float> din(n);
        DeviceBuffer<float> dout(n);
        din.upload(in);
        const float scale = 0.5f;
        const dim3 block(kBlock);
        const dim3 grid(static_cast<unsigned>((n + kBlock - 1) / kBlock));
        struct Variant {
            const char* name;
            void (*kernel)(const float*, float*, float, int);
        };
        const Variant variants[] = {{"regs64_kernel", regs64_kernel}, {"regs65_kernel", regs65_kernel}};
        for (const Variant& variant : variants) {
            cudaFuncAttributes attributes{};
            CUDA_CHECK(cudaFuncGetAttributes(&attributes, variant.kernel));
            std::printf("kernel=%s registers=%d local_bytes=%zu\n", variant.name, attributes.numRegs,
                        attributes.localSizeBytes);
            dout.poison();
            EventTimer timer;
            variant.kernel<<<grid, block>>>(din.get(), dout.get(), scale, n);
            const float ms = timer.stop_ms();
            check_launch(variant.name);
            report_launch("regs_64_65", variant.name, n, grid, block, 0, ms);
            const std::vector<float> out = dout.download();
            Checker check(std::string(variant.name) + " n=" + std::to_string(n));
            for (long long index : sample_indices(n, 4096)) {
                // Same operations in the same order (fmaf is one correctly rounded FFMA on both
                // sides, nvcc does not reassociate the final sum), so the results agree closely.
                const float want = pressure_body(in.data(), scale, static_cast<int>(index), n);
                check.expect_close(index, out[index], want, 1e-5 * (std::fabs(want) + 1.0));
            }
            check.finish();
        }
    }
    return 0;
}
