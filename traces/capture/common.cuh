//! Shared host-side helpers for the capture suite: error checking, argument parsing, deterministic
//! input data, device buffers, launch sizing and result checks.
//!
//! Every case program includes this header and nothing outside the CUDA toolkit and the C++17
//! standard library. Conventions all cases follow:
//! - sizes come from argv (positive integers); with no arguments a case uses its documented
//!   defaults;
//! - each kernel launch prints one line `case=... kernel=... size=... ms=...` on stdout (the time is
//!   from CUDA events and is only informative: the profilers measure the real durations);
//! - results are checked on the host; a mismatch prints what differed and exits with status 1;
//! - a CUDA error or bad argument exits with status 2 (CUDA) or 64 (usage).
#pragma once

#include <cuda_runtime.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

/// Exit status for a result that does not match the host reference.
constexpr int kExitMismatch = 1;
/// Exit status for a failed CUDA call.
constexpr int kExitCuda = 2;
/// Exit status for bad command-line arguments (sysexits EX_USAGE).
constexpr int kExitUsage = 64;

/// Aborts with the file, line, call and CUDA's message when a CUDA runtime call fails.
#define CUDA_CHECK(call)                                                                         \
    do {                                                                                         \
        cudaError_t status_ = (call);                                                            \
        if (status_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "error: %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,       \
                         #call, cudaGetErrorString(status_), cudaGetErrorName(status_));         \
            std::exit(kExitCuda);                                                                \
        }                                                                                        \
    } while (0)

/// Checks the launch that was just made (configuration errors) and waits for it (execution errors).
inline void check_launch(const char* kernel) {
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess) {
        std::fprintf(stderr, "error: launching %s failed: %s\n", kernel, cudaGetErrorString(launch));
        std::exit(kExitCuda);
    }
    cudaError_t run = cudaDeviceSynchronize();
    if (run != cudaSuccess) {
        std::fprintf(stderr, "error: %s failed while running: %s\n", kernel, cudaGetErrorString(run));
        std::exit(kExitCuda);
    }
}

/// Prints the usage line and exits with the usage status.
[[noreturn]] inline void usage_error(const char* program, const char* usage, const std::string& why) {
    std::fprintf(stderr, "error: %s\nusage: %s %s\n", why.c_str(), program, usage);
    std::exit(kExitUsage);
}

/// Parses every argument as a positive integer; returns `defaults` when there is no argument.
inline std::vector<long long> parse_sizes(int argc, char** argv, const char* usage,
                                          const std::vector<long long>& defaults) {
    if (argc <= 1) {
        return defaults;
    }
    std::vector<long long> sizes;
    for (int i = 1; i < argc; ++i) {
        const std::string text = argv[i];
        if (text == "-h" || text == "--help") {
            std::printf("usage: %s %s\n", argv[0], usage);
            std::exit(0);
        }
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (errno != 0 || end == text.c_str() || *end != '\0' || value <= 0) {
            usage_error(argv[0], usage,
                        "argument " + std::to_string(i) + " (`" + text +
                            "`): expected a positive integer");
        }
        sizes.push_back(value);
    }
    return sizes;
}

/// Deterministic pseudo-random floats in [-1, 1): a 64-bit LCG, so every run sees the same data
/// (the profiles stay comparable) without ever testing on zeros.
inline void fill_random(std::vector<float>& values, std::uint64_t seed) {
    std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    for (float& value : values) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::uint32_t bits = static_cast<std::uint32_t>(state >> 40);  // 24 random bits.
        value = static_cast<float>(bits) / 8388608.0f - 1.0f;
    }
}

/// A device allocation of `count` elements of `T`, freed when it goes out of scope.
template <typename T>
class DeviceBuffer {
  public:
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { cudaFree(data_); }

    T* get() const { return data_; }
    std::size_t count() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& host) {
        CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const {
        std::vector<T> host(count_);
        CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
        return host;
    }
    /// Fills every byte with 0xFF (a NaN pattern for floats) so unwritten outputs are caught.
    void poison() { CUDA_CHECK(cudaMemset(data_, 0xFF, bytes())); }

  private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

/// Times one launch with CUDA events. Construct, launch, then call `stop_ms`.
class EventTimer {
  public:
    EventTimer() {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
        CUDA_CHECK(cudaEventRecord(start_));
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    /// Records the stop event, waits for it and returns the elapsed milliseconds.
    float stop_ms() {
        CUDA_CHECK(cudaEventRecord(stop_));
        CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

  private:
    cudaEvent_t start_{};
    cudaEvent_t stop_{};
};

/// Prints the one-line record of a launch.
inline void report_launch(const char* case_name, const char* kernel, long long size, dim3 grid,
                          dim3 block, std::size_t dynamic_smem, float ms) {
    std::printf("case=%s kernel=%s size=%lld grid=%ux%ux%u block=%ux%ux%u dynamic_smem=%zu ms=%.4f\n",
                case_name, kernel, size, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                dynamic_smem, ms);
}

/// The multiprocessor count of the current device.
inline int sm_count() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int count = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
}

/// The device attribute `attribute` of the current device.
inline int device_attribute(cudaDeviceAttr attribute) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}

/// Blocks for a grid-stride kernel: exactly one full wave (resident blocks per SM × SMs, from the
/// occupancy API), but never more blocks than there are `work_items / block_threads`.
template <typename Kernel>
inline unsigned one_wave_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem,
                              long long work_items) {
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads,
                                                             dynamic_smem));
    const long long wave = static_cast<long long>(per_sm > 0 ? per_sm : 1) * sm_count();
    const long long needed = (work_items + block_threads - 1) / block_threads;
    return static_cast<unsigned>(needed < wave ? (needed > 0 ? needed : 1) : wave);
}

/// Counts mismatches and remembers the first few, then decides the exit status.
class Checker {
  public:
    explicit Checker(std::string what) : what_(std::move(what)) {}

    /// Records `got` against `want`; they match when |got - want| <= tolerance (NaN never matches).
    void expect_close(long long index, double got, double want, double tolerance) {
        const bool ok = std::isfinite(got) && std::fabs(got - want) <= tolerance;
        if (!ok) {
            if (mismatches_ < 5) {
                std::fprintf(stderr, "mismatch in %s at %lld: got %.9g, expected %.9g (tolerance %.3g)\n",
                             what_.c_str(), index, got, want, tolerance);
            }
            ++mismatches_;
        }
        ++checked_;
    }

    /// Exits with status 1 when anything mismatched; prints a one-line summary either way.
    void finish() const {
        if (mismatches_ > 0) {
            std::fprintf(stderr, "error: %s: %lld of %lld checked values are wrong\n", what_.c_str(),
                         mismatches_, checked_);
            std::exit(kExitMismatch);
        }
        std::printf("check=%s ok values=%lld\n", what_.c_str(), checked_);
    }

  private:
    std::string what_;
    long long mismatches_ = 0;
    long long checked_ = 0;
};

/// Indices to verify when checking every element would be too slow on the host: the first and
/// last elements plus `count` evenly spread ones.
inline std::vector<long long> sample_indices(long long total, long long count) {
    std::vector<long long> indices;
    if (total <= 0) {
        return indices;
    }
    if (total <= count) {
        for (long long i = 0; i < total; ++i) indices.push_back(i);
        return indices;
    }
    const long long step = total / count;
    for (long long i = 0; i < count; ++i) indices.push_back(i * step + (i * 7919) % step);
    indices.push_back(total - 1);
    return indices;
}
