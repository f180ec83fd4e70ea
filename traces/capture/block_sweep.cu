//! Case `block_sweep`: one streaming kernel (y = a·x + b, one element per thread, no grid-stride
//! loop) launched over the same 2^24 elements with every block size given on the command line, to
//! see how block size alone moves occupancy, waves and time.
//!
//! Usage: `block_sweep [BLOCK_THREADS...]` (default 32 33 64 96 128 192 256 512 768 1024). Odd
//! sizes such as 33 waste most of a second warp per block; 96 and 192 are not powers of two.
//!
//! Known work per launch: FLOP 2·2^24 (one FFMA per element); DRAM bytes 8·2^24 (read x, write y).
#include "common.cuh"

constexpr const char* kUsage = "[BLOCK_THREADS...]";
constexpr long long kElements = 1LL << 24;

__global__ void scale_add_kernel(const float* __restrict__ x, float* __restrict__ y, float a,
                                 float b, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fmaf(a, x[i], b);
    }
}

int main(int argc, char** argv) {
    const std::vector<long long> blocks =
        parse_sizes(argc, argv, kUsage, {32, 33, 64, 96, 128, 192, 256, 512, 768, 1024});
    const long long max_block = device_attribute(cudaDevAttrMaxThreadsPerBlock);
    std::vector<float> x(kElements);
    fill_random(x, 11);
    DeviceBuffer<float> dx(kElements);
    DeviceBuffer<float> dy(kElements);
    dx.upload(x);
    const float a = 0.75f;
    const float b = 0.125f;
    for (long long threads : blocks) {
        if (threads > max_block) {
            usage_error(argv[0], kUsage,
                        "block size " + std::to_string(threads) + " exceeds the device maximum " +
                            std::to_string(max_block));
        }
        const dim3 block(static_cast<unsigned>(threads));
        const dim3 grid(static_cast<unsigned>((kElements + threads - 1) / threads));
        dy.poison();
        EventTimer timer;
        scale_add_kernel<<<grid, block>>>(dx.get(), dy.get(), a, b, kElements);
        const float ms = timer.stop_ms();
        check_launch("scale_add_kernel");
        report_launch("block_sweep", "scale_add_kernel", threads, grid, block, 0, ms);
        const std::vector<float> y = dy.download();
        Checker check("scale_add_kernel block=" + std::to_string(threads));
        for (long long i = 0; i < kElements; ++i) {
            check.expect_close(i, y[i], std::fma(a, x[i], b), 0.0);
        }
        check.finish();
    }
    return 0;
}
