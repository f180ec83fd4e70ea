//! Case `transpose`: out-of-place transpose of an n × n float matrix, three ways: naive, through a
//! shared-memory tile, and through a padded tile that removes the shared-memory bank conflicts.
//!
//! Usage: `transpose [N...]` (default 2048 4096). Blocks are 32 × 8 threads; each thread moves
//! 4 elements of a 32 × 32 tile (the classic layout).
//!
//! Known work per launch: FLOP 0; DRAM bytes 8n² (read 4n², write 4n²) for every variant. What
//! differs is how the bytes move: `transpose_naive` writes with a stride of n floats (32 sectors per
//! warp store instead of 4); `transpose_tiled` reads its 32 × 32 tile column-wise (32-way bank
//! conflicts on every shared load); `transpose_tiled_padded` uses a 32 × 33 tile (no conflicts).
#include "common.cuh"

constexpr const char* kUsage = "[N...]";
constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
    const int x = blockIdx.x * kTile + threadIdx.x;
    const int y0 = blockIdx.y * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows) {
        const int y = y0 + j;
        if (x < n && y < n) {
            out[static_cast<long long>(x) * n + y] = in[static_cast<long long>(y) * n + x];
        }
    }
}

template <int Pad>
__device__ __forceinline__ void transpose_through_tile(const float* __restrict__ in,
                                                       float* __restrict__ out, int n) {
    __shared__ float tile[kTile][kTile + Pad];
    int x = blockIdx.x * kTile + threadIdx.x;
    int y = blockIdx.y * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows) {
        if (x < n && y + j < n) {
            tile[threadIdx.y + j][threadIdx.x] = in[static_cast<long long>(y + j) * n + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * kTile + threadIdx.x;
    y = blockIdx.x * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows) {
        if (x < n && y + j < n) {
            out[static_cast<long long>(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
    transpose_through_tile<0>(in, out, n);
}

__global__ void transpose_tiled_padded(const float* __restrict__ in, float* __restrict__ out,
                                       int n) {
    transpose_through_tile<1>(in, out, n);
}

using TransposeKernel = void (*)(const float*, float*, int);

static void run_one(const char* name, TransposeKernel kernel, const std::vector<float>& in,
             const DeviceBuffer<float>& din, DeviceBuffer<float>& dout, int n) {
    const dim3 block(kTile, kRows);
    const dim3 grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
    dout.poison();
    EventTimer timer;
    kernel<<<grid, block>>>(din.get(), dout.get(), n);
    const float ms = timer.stop_ms();
    check_launch(name);
    report_launch("transpose", name, n, grid, block, 0, ms);
    const std::vector<float> out = dout.download();
    Checker check(std::string(name) + " n=" + std::to_string(n));
    for (long long r = 0; r < n; ++r) {
        for (long long c = 0; c < n; ++c) {
            check.expect_close(r * n + c, out[r * n + c], in[c * n + r], 0.0);
        }
    }
    check.finish();
}

int main(int argc, char** argv) {
    for (long long size : parse_sizes(argc, argv, kUsage, {2048, 4096})) {
        if (size > 46340) {
            usage_error(argv[0], kUsage, "N must be at most 46340 (N² must fit the int indexing)");
        }
        const int n = static_cast<int>(size);
        std::vector<float> in(static_cast<std::size_t>(n) * n);
        fill_random(in, 3);
        DeviceBuffer<float> din(in.size());
        DeviceBuffer<float> dout(in.size());
        din.upload(in);
        run_one("transpose_naive", transpose_naive, in, din, dout, n);
        run_one("transpose_tiled", transpose_tiled, in, din, dout, n);
        run_one("transpose_tiled_padded", transpose_tiled_padded, in, din, dout, n);
    }
    return 0;
}
