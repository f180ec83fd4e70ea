//! Case `copy_saxpy`: a streaming copy and SAXPY, both grid-stride loops launched as exactly one
//! full wave (resident blocks per SM × SMs), at the sizes given on the command line.
//!
//! Usage: `copy_saxpy [ELEMENTS...]` (default 1048576 16777216 67108864).
//!
//! Known work per launch of `n` float elements:
//! - `copy_kernel`:  y[i] = x[i].          FLOP 0;            DRAM bytes 8n (read 4n, write 4n).
//! - `saxpy_kernel`: y[i] = a * x[i] + y[i]. FLOP 2n (n FFMA); DRAM bytes 12n (read 8n, write 4n).
#include "common.cuh"

constexpr const char* kUsage = "[ELEMENTS...]";
constexpr int kBlock = 256;

__global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        y[i] = x[i];
    }
}

__global__ void saxpy_kernel(float a, const float* __restrict__ x, float* __restrict__ y,
                             long long n) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        y[i] = fmaf(a, x[i], y[i]);
    }
}

static void run(long long n) {
    std::vector<float> x(n);
    std::vector<float> y0(n);
    fill_random(x, 1);
    fill_random(y0, 2);
    DeviceBuffer<float> dx(n);
    DeviceBuffer<float> dy(n);
    dx.upload(x);
    const dim3 block(kBlock);

    dy.poison();
    const dim3 copy_grid(one_wave_grid(copy_kernel, kBlock, 0, n));
    EventTimer copy_timer;
    copy_kernel<<<copy_grid, block>>>(dx.get(), dy.get(), n);
    const float copy_ms = copy_timer.stop_ms();
    check_launch("copy_kernel");
    report_launch("copy_saxpy", "copy_kernel", n, copy_grid, block, 0, copy_ms);
    const std::vector<float> copied = dy.download();
    Checker copy_check("copy_kernel n=" + std::to_string(n));
    for (long long i = 0; i < n; ++i) copy_check.expect_close(i, copied[i], x[i], 0.0);
    copy_check.finish();

    const float a = 1.5f;
    dy.upload(y0);
    const dim3 saxpy_grid(one_wave_grid(saxpy_kernel, kBlock, 0, n));
    EventTimer saxpy_timer;
    saxpy_kernel<<<saxpy_grid, block>>>(a, dx.get(), dy.get(), n);
    const float saxpy_ms = saxpy_timer.stop_ms();
    check_launch("saxpy_kernel");
    report_launch("copy_saxpy", "saxpy_kernel", n, saxpy_grid, block, 0, saxpy_ms);
    const std::vector<float> result = dy.download();
    Checker saxpy_check("saxpy_kernel n=" + std::to_string(n));
    for (long long i = 0; i < n; ++i) {
        // The device computes one correctly rounded FFMA, exactly what std::fma gives here.
        saxpy_check.expect_close(i, result[i], std::fma(a, x[i], y0[i]), 0.0);
    }
    saxpy_check.finish();
}

int main(int argc, char** argv) {
    for (long long n : parse_sizes(argc, argv, kUsage, {1LL << 20, 1LL << 24, 1LL << 26})) {
        run(n);
    }
    return 0;
}
