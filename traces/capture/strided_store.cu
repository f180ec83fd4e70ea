//! Case `strided_store`: stores of one float with a stride of 32 floats (128 bytes), so each warp
//! store touches 32 different 128-byte lines: 32 L2 sectors and 32 L2 requests per instruction
//! for 128 useful bytes. It isolates the L2 request rate (the time model's fitted
//! `l2_requests_per_slice_clk`, otherwise identified by `transpose_naive` alone; docs/accuracy.md)
//! from DRAM: the stores cycle over a fixed set of 2^18 lines (a 32 MiB address range of which
//! only one 32-byte sector per line, 8 MiB, is touched), which stays resident in L2.
//!
//! Each thread makes kRepeats = 16 stores; store r of thread t goes to line (t + r·T) mod 2^18
//! (T threads), so the 32 lanes of a warp always hit 32 consecutive lines. Every writer of a line
//! stores the same value (line / 2 + 1), so the result is deterministic.
//!
//! Usage: `strided_store [N...]` (default 4194304 16777216 67108864): N stores per launch (a
//! multiple of 16·256), N / 16 threads in blocks of 256.
//!
//! Known work per launch: N / 32 warp-level `STG.E` (stores, no loads) with 32 sectors each: N L2
//! sectors and N L2 requests of 4 bytes; FLOP 2·N (one FMA per store for the value). DRAM bytes:
//! at most the 8 MiB of touched sectors.
//!
//! The host checks every line: its first float holds line / 2 + 1, its second is still zero.
#include "common.cuh"

constexpr const char* kUsage = "[N...]";
constexpr int kBlock = 256;
constexpr int kStride = 32;
constexpr int kRepeats = 16;
constexpr long long kLines = 1LL << 18;

__global__ void strided_store_kernel(float* __restrict__ out, long long threads) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
#pragma unroll
    for (int r = 0; r < kRepeats; ++r) {
        const unsigned line = static_cast<unsigned>((t + r * threads) & (kLines - 1));
        out[static_cast<std::size_t>(line) * kStride] = static_cast<float>(line) * 0.5f + 1.0f;
    }
}

int main(int argc, char** argv) {
    DeviceBuffer<float> out(static_cast<std::size_t>(kLines) * kStride);
    for (long long n : parse_sizes(argc, argv, kUsage, {4194304, 16777216, 67108864})) {
        if (n % (kRepeats * kBlock) != 0 || n > (1LL << 34)) {
            usage_error(argv[0], kUsage, "N must be a multiple of 4096, at most 2^34");
        }
        CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));
        const long long threads = n / kRepeats;
        const dim3 block(kBlock);
        const dim3 grid(static_cast<unsigned>(threads / kBlock));
        EventTimer timer;
        strided_store_kernel<<<grid, block>>>(out.get(), threads);
        const float ms = timer.stop_ms();
        check_launch("strided_store_kernel");
        report_launch("strided_store", "strided_store_kernel", n, grid, block, 0, ms);
        const std::vector<float> host = out.download();
        Checker check("strided_store_kernel n=" + std::to_string(n));
        // Lines that no store reached (only when N < 2^18) stay zero.
        const long long reached = threads * kRepeats < kLines ? threads * kRepeats : kLines;
        for (long long line = 0; line < kLines; ++line) {
            const double want = line < reached ? static_cast<double>(line) * 0.5 + 1.0 : 0.0;
            check.expect_close(line, host[line * kStride], want, 0.0);
            check.expect_close(line, host[line * kStride + 1], 0.0, 0.0);
        }
        check.finish();
    }
    return 0;
}
