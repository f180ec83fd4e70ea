//! Case `smem_limited`: a kernel whose occupancy is limited by dynamic shared memory. Each
//! 256-thread block copies one chunk of the input into dynamic shared memory and writes it back
//! reversed within the chunk, so the whole dynamic allocation is really used.
//!
//! Usage: `smem_limited [DYNAMIC_SMEM_BYTES...]` (default 24576 40960 65536 102400). Sizes above
//! 48 KiB are enabled with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize); sizes
//! above the device's opt-in limit are skipped with a message. The input is 2^24 floats.
//!
//! Why shared memory is the limiter: 256 threads = 8 warps, so warps allow 8 blocks on a 64-warp SM
//! (6 on a 48-warp SM); registers are few. With S bytes per block (+1 KiB reserved on CC ≥ 8.0) an
//! SM with C bytes of shared memory fits floor(C / (S + reserve)) blocks: e.g. on CC 9.0 (C =
//! 233472) 24 KiB → 9 (warps bind at 8, a tie-free control), 40 KiB → 5, 64 KiB → 3, 100 KiB → 2.
//!
//! Known work per launch: FLOP 0; DRAM bytes 8·2^24 (read and write every element once); shared
//! memory 4·2^24 bytes stored and 4·2^24 bytes loaded.
#include "common.cuh"

constexpr const char* kUsage = "[DYNAMIC_SMEM_BYTES...]";
constexpr int kBlock = 256;
constexpr long long kElements = 1LL << 24;

__global__ void smem_reverse_kernel(const float* __restrict__ in, float* __restrict__ out,
                                    long long n, int chunk) {
    extern __shared__ float staged[];
    const long long base = static_cast<long long>(blockIdx.x) * chunk;
    const int valid = static_cast<int>(n - base < chunk ? n - base : chunk);
    for (int j = threadIdx.x; j < valid; j += blockDim.x) staged[j] = in[base + j];
    __syncthreads();
    for (int j = threadIdx.x; j < valid; j += blockDim.x) out[base + j] = staged[valid - 1 - j];
}

int main(int argc, char** argv) {
    const std::vector<long long> sizes =
        parse_sizes(argc, argv, kUsage, {24576, 40960, 65536, 102400});
    std::vector<float> in(kElements);
    fill_random(in, 10);
    DeviceBuffer<float> din(kElements);
    DeviceBuffer<float> dout(kElements);
    din.upload(in);
    const long long optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    for (long long bytes : sizes) {
        if (bytes % 4 != 0) {
            usage_error(argv[0], kUsage, "DYNAMIC_SMEM_BYTES must be a multiple of 4");
        }
        if (bytes > optin) {
            std::printf("skip: %lld bytes of dynamic shared memory exceed this device's opt-in limit "
                        "of %lld bytes per block\n",
                        bytes, optin);
            continue;
        }
        CUDA_CHECK(cudaFuncSetAttribute(smem_reverse_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
        const int chunk = static_cast<int>(bytes / 4);
        const dim3 block(kBlock);
        const dim3 grid(static_cast<unsigned>((kElements + chunk - 1) / chunk));
        dout.poison();
        EventTimer timer;
        smem_reverse_kernel<<<grid, block, bytes>>>(din.get(), dout.get(), kElements, chunk);
        const float ms = timer.stop_ms();
        check_launch("smem_reverse_kernel");
        report_launch("smem_limited", "smem_reverse_kernel", bytes, grid, block, bytes, ms);
        const std::vector<float> out = dout.download();
        Checker check("smem_reverse_kernel dynamic_smem=" + std::to_string(bytes));
        for (long long i = 0; i < kElements; ++i) {
            const long long base = (i / chunk) * chunk;
            const long long valid = kElements - base < chunk ? kElements - base : chunk;
            check.expect_close(i, out[i], in[base + (valid - 1 - (i - base))], 0.0);
        }
        check.finish();
    }
    return 0;
}
