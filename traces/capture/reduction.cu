//! Case `reduction`: the sum of n floats in two launches of one kernel: a first pass where each
//! block of a one-wave grid sums a grid-stride slice (shared-memory tree down to one warp, then
//! warp shuffles) into one partial sum, and a second single-block pass over the partial sums.
//!
//! Usage: `reduction [ELEMENTS...]` (default 16777216 67108864).
//!
//! Known work: first pass FLOP ≈ n (n − blocks FADD in the grid-stride loop plus 255 per block in
//! the tree); DRAM bytes 4n read + 4·blocks written. Second pass: FLOP ≈ blocks, bytes ≈ 4·blocks.
#include "common.cuh"

constexpr const char* kUsage = "[ELEMENTS...]";
constexpr int kBlock = 256;

__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, long long n) {
    __shared__ float partial[kBlock];
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float sum = 0.0f;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        sum += in[i];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    // Shared-memory tree until one warp is left.
    for (int active = kBlock / 2; active >= 32; active /= 2) {
        if (threadIdx.x < active) {
            partial[threadIdx.x] += partial[threadIdx.x + active];
        }
        __syncthreads();
    }
    // The last 32 values are summed inside the first warp with shuffles.
    if (threadIdx.x < 32) {
        float value = partial[threadIdx.x];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) {
            value += __shfl_down_sync(0xffffffffu, value, offset);
        }
        if (threadIdx.x == 0) {
            out[blockIdx.x] = value;
        }
    }
}

static void run(long long n) {
    std::vector<float> values(n);
    fill_random(values, 8);
    DeviceBuffer<float> din(n);
    din.upload(values);
    const dim3 block(kBlock);
    const dim3 grid(one_wave_grid(reduce_sum, kBlock, 0, n));
    DeviceBuffer<float> dpartial(grid.x);
    DeviceBuffer<float> dtotal(1);
    dpartial.poison();
    dtotal.poison();

    EventTimer first_timer;
    reduce_sum<<<grid, block>>>(din.get(), dpartial.get(), n);
    const float first_ms = first_timer.stop_ms();
    check_launch("reduce_sum (first pass)");
    report_launch("reduction", "reduce_sum", n, grid, block, 0, first_ms);

    EventTimer second_timer;
    reduce_sum<<<1, block>>>(dpartial.get(), dtotal.get(), grid.x);
    const float second_ms = second_timer.stop_ms();
    check_launch("reduce_sum (second pass)");
    report_launch("reduction", "reduce_sum", grid.x, dim3(1), block, 0, second_ms);

    double want = 0.0;
    double magnitude = 0.0;
    for (float value : values) {
        want += value;
        magnitude += std::fabs(value);
    }
    const std::vector<float> total = dtotal.download();
    Checker check("reduce_sum n=" + std::to_string(n));
    // Float partial sums of up to n / threads terms each: 1e-5 of Σ|x| is far above their rounding
    // error and far below the error of a dropped or doubled element block.
    check.expect_close(0, total[0], want, 1e-5 * magnitude);
    check.finish();
}

int main(int argc, char** argv) {
    for (long long n : parse_sizes(argc, argv, kUsage, {1LL << 24, 1LL << 26})) {
        run(n);
    }
    return 0;
}
