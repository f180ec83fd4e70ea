//! Case `cublas_gemm`: GEMMs as the libraries run them, through cuBLAS (`cublasGemmEx`), so that
//! the time model meets the kernels cuBLAS and PyTorch use on the GPU at hand. On Hopper (sm_90)
//! these are warpgroup MMA kernels (`wgmma`, SASS `HGMMA`; ncu
//! `sm__inst_executed_pipe_tensor_op_gmma.sum` > 0) named `nvjet_*`, `sm90_xmma_gemm_*` or
//! `cutlass*`, which no hand-written case of the kit reaches. The case has no kernel of its own:
//! the program only calls the library (built with `-lcublas`, see build.sh), and the kit's filter
//! `regex:(nvjet|xmma|gemm|cutlass)` catches whatever GEMM kernel cuBLAS picks. With cuBLAS 13.1
//! (CUDA 13.0) on an H100 and an H200 every launch was one kernel of 132 blocks × 384 threads
//! (a persistent grid, 3 warpgroups): `nvjet_sm90_{hsh,tst}_*` for FP16/BF16 (SASS
//! `HGMMA.64x128x16.F32` / `HGMMA.64x64x16.F32[.BF16]`) and
//! `sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_*` for TF32 (`HGMMA.64x{128,256}x8.F32.TF32`); the
//! tile shape (and so the kernel name) differed between the two GPUs for FP16 4096³.
//!
//! Each size M N K makes three launches, in this order, all with FP32 accumulation, alpha = 1,
//! beta = 0 and the "TN" layout of `torch.nn.Linear` (cuBLAS column-major: C (M × N, ldc = M) =
//! Aᵀ · B with A stored K × M (lda = K) and B stored K × N (ldb = K): both operands K-contiguous):
//! - `gemm_fp16`: A, B, C FP16 (`CUDA_R_16F`, `CUBLAS_COMPUTE_32F`);
//! - `gemm_bf16`: A, B, C BF16 (`CUDA_R_16BF`, `CUBLAS_COMPUTE_32F`; compute capability ≥ 8.0);
//! - `gemm_tf32`: A, B, C FP32 on the TF32 tensor path (`CUBLAS_COMPUTE_32F_FAST_TF32`; compute
//!   capability ≥ 8.0).
//! On a GPU below compute capability 8.0 the BF16 and TF32 launches are skipped (a
//! `skipped=` line each), so the kit still runs there with fewer launches.
//!
//! Usage: `cublas_gemm [M N K]...` (triples; default 4096 4096 4096  8192 8192 8192  8192 8192 128:
//! 9 launches). M and N must be multiples of 128, K of 32, each at most 16384. With the defaults,
//! 4096³ and 8192³ are tensor-bound (tensor pipe 90–94 % busy on an H100/H200), and M = N = 8192,
//! K = 128 is limited by writing C to DRAM (17 GFLOP against 128 MiB of FP16 stores; tensor pipe
//! 31–39 % busy, DRAM 51–66 % of its peak).
//! Environment: `CUBLAS_GEMM_REPEAT=R` (default 1) runs every GEMM R times back to back and adds
//! `warm_ms=` (the median of the launches after the first) to its line; leave it unset when
//! profiling, so that ncu sees exactly one launch per GEMM.
//!
//! Known work per launch: FLOP 2·M·N·K (the kernel cuBLAS picks may issue more: ncu's
//! `sm__ops_path_tensor_src_*` count the padded tiles, e.g. 1.6 % more for 320-row tiles at M =
//! 8192; split-K would add a reduction kernel). Compulsory DRAM bytes s·(M·K + N·K) read (A and B) +
//! s·M·N written (C; beta = 0, so C is not read), s = 2 for FP16/BF16 and 4 for TF32 (FP32 data):
//! 4096³ FP16 96 MiB, 8192³ FP16 384 MiB, 8192 × 8192 × 128 FP16 132 MiB. On Hopper the wgmma
//! tensor peaks (ncu `sm__ops_path_tensor_op_hgmma_src_*_sparsity_off.avg.peak_sustained`) are 4096
//! dense FLOP per SM-cycle for FP16 and BF16 and 2048 for TF32.
//!
//! The host checks 1024 spread elements of C (and the last one) of every launch against a
//! double-precision dot product of the inputs as the tensor cores see them (FP16/BF16-rounded; for
//! TF32 the FP32 values, with the TF32 rounding of the inputs in the tolerance); the tolerance is
//! (2·r_in + 2·K·FLT_EPSILON)·Σ|a·b| + 2·r_out·|c|, r_in = 2^-10 for TF32 (else 0) and r_out the
//! output type's rounding (2^-11 FP16, 2^-8 BF16, FLT_EPSILON FP32).
#include <algorithm>
#include <cfloat>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.cuh"

constexpr const char* kUsage = "[M N K]...";

/// Aborts with the file, line, call and cuBLAS's message when a cuBLAS call fails.
#define CUBLAS_CHECK(call)                                                                       \
    do {                                                                                         \
        cublasStatus_t status_ = (call);                                                         \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            std::fprintf(stderr, "error: %s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__,       \
                         #call, cublasGetStatusString(status_), static_cast<int>(status_));      \
            std::exit(kExitCuda);                                                                \
        }                                                                                        \
    } while (0)

/// One data type of the case: storage type `T`, its cuBLAS names and its rounding.
struct HalfType {
    using T = __half;
    static constexpr const char* kernel = "gemm_fp16";
    static constexpr cudaDataType_t data = CUDA_R_16F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    static constexpr int min_cc = 0;
    static constexpr double r_in = 0.0;
    static constexpr double r_out = 1.0 / 2048.0;
    static T from_float(float x) { return __float2half_rn(x); }
    static float to_float(T x) { return __half2float(x); }
};
struct Bf16Type {
    using T = __nv_bfloat16;
    static constexpr const char* kernel = "gemm_bf16";
    static constexpr cudaDataType_t data = CUDA_R_16BF;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    static constexpr int min_cc = 80;
    static constexpr double r_in = 0.0;
    static constexpr double r_out = 1.0 / 256.0;
    static T from_float(float x) { return __float2bfloat16_rn(x); }
    static float to_float(T x) { return __bfloat162float(x); }
};
struct Tf32Type {
    using T = float;
    static constexpr const char* kernel = "gemm_tf32";
    static constexpr cudaDataType_t data = CUDA_R_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    static constexpr int min_cc = 80;
    static constexpr double r_in = 1.0 / 1024.0;
    static constexpr double r_out = FLT_EPSILON;
    static T from_float(float x) { return x; }
    static float to_float(T x) { return x; }
};

/// Runs the GEMM of type `Type` on the FP32 inputs `a` (K × M) and `b` (K × N), checks it.
template <typename Type>
void run_gemm(cublasHandle_t handle, int cc, int m, int n, int k, const std::vector<float>& a,
              const std::vector<float>& b, int repeat) {
    using T = typename Type::T;
    const double flop = 2.0 * m * n * k;
    const double bytes = static_cast<double>(sizeof(T)) *
                         (static_cast<double>(m) * k + static_cast<double>(n) * k +
                          static_cast<double>(m) * n);
    if (cc < Type::min_cc) {
        std::printf("case=cublas_gemm kernel=%s m=%d n=%d k=%d skipped=needs compute capability %d.%d\n",
                    Type::kernel, m, n, k, Type::min_cc / 10, Type::min_cc % 10);
        return;
    }
    // The inputs as stored, and as the tensor cores multiply them (rounded to T).
    std::vector<T> a_t(a.size());
    std::vector<T> b_t(b.size());
    std::vector<float> a_r(a.size());
    std::vector<float> b_r(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a_t[i] = Type::from_float(a[i]);
        a_r[i] = Type::to_float(a_t[i]);
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        b_t[i] = Type::from_float(b[i]);
        b_r[i] = Type::to_float(b_t[i]);
    }
    DeviceBuffer<T> da(a_t.size());
    DeviceBuffer<T> db(b_t.size());
    DeviceBuffer<T> dc(static_cast<std::size_t>(m) * n);
    da.upload(a_t);
    db.upload(b_t);
    dc.poison();
    const float alpha = 1.0f;
    const float beta = 0.0f;
    std::vector<float> times;
    for (int r = 0; r < repeat; ++r) {
        EventTimer timer;
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da.get(),
                                  Type::data, k, db.get(), Type::data, k, &beta, dc.get(),
                                  Type::data, m, Type::compute, CUBLAS_GEMM_DEFAULT));
        times.push_back(timer.stop_ms());
        check_launch(Type::kernel);
    }
    std::printf("case=cublas_gemm kernel=%s m=%d n=%d k=%d flop=%.6g bytes=%.6g ms=%.4f", Type::kernel,
                m, n, k, flop, bytes, times[0]);
    if (repeat > 1) {
        std::vector<float> warm(times.begin() + 1, times.end());
        std::sort(warm.begin(), warm.end());
        const float median = warm[warm.size() / 2];
        std::printf(" warm_ms=%.4f warm_tflops=%.1f", median, flop / (median * 1e-3) / 1e12);
    }
    std::printf("\n");

    const std::vector<T> c = dc.download();
    Checker check(std::string(Type::kernel) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                  " k=" + std::to_string(k));
    const long long total = static_cast<long long>(m) * n;
    for (long long index : sample_indices(total, 1024)) {
        // Column-major C: element (i, j) at i + j·M; A column i and B column j are K-contiguous.
        const long long i = index % m;
        const long long j = index / m;
        const float* a_col = &a_r[i * k];
        const float* b_col = &b_r[j * k];
        double want = 0.0;
        double magnitude = 0.0;
        for (long long kk = 0; kk < k; ++kk) {
            const double term = static_cast<double>(a_col[kk]) * b_col[kk];
            want += term;
            magnitude += std::fabs(term);
        }
        const double tolerance = (2.0 * Type::r_in + 2.0 * k * FLT_EPSILON) * magnitude +
                                 2.0 * Type::r_out * std::fabs(want) + 1e-6;
        check.expect_close(index, Type::to_float(c[index]), want, tolerance);
    }
    check.finish();
}

int main(int argc, char** argv) {
    const std::vector<long long> sizes =
        parse_sizes(argc, argv, kUsage, {4096, 4096, 4096, 8192, 8192, 8192, 8192, 8192, 128});
    if (sizes.size() % 3 != 0) {
        usage_error(argv[0], kUsage, "sizes come in triples M N K");
    }
    for (std::size_t t = 0; t < sizes.size(); t += 3) {
        if (sizes[t] > 16384 || sizes[t] % 128 != 0 || sizes[t + 1] > 16384 || sizes[t + 1] % 128 != 0) {
            usage_error(argv[0], kUsage, "M and N must be multiples of 128, at most 16384");
        }
        if (sizes[t + 2] > 16384 || sizes[t + 2] % 32 != 0) {
            usage_error(argv[0], kUsage, "K must be a multiple of 32, at most 16384");
        }
    }
    int repeat = 1;
    if (const char* text = std::getenv("CUBLAS_GEMM_REPEAT")) {
        repeat = std::atoi(text);
        if (repeat < 1 || repeat > 1000) {
            usage_error(argv[0], kUsage, "CUBLAS_GEMM_REPEAT must be 1 to 1000");
        }
    }
    const int cc = device_attribute(cudaDevAttrComputeCapabilityMajor) * 10 +
                   device_attribute(cudaDevAttrComputeCapabilityMinor);
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    for (std::size_t t = 0; t < sizes.size(); t += 3) {
        const int m = static_cast<int>(sizes[t]);
        const int n = static_cast<int>(sizes[t + 1]);
        const int k = static_cast<int>(sizes[t + 2]);
        std::vector<float> a(static_cast<std::size_t>(k) * m);
        std::vector<float> b(static_cast<std::size_t>(k) * n);
        fill_random(a, 21);
        fill_random(b, 22);
        run_gemm<HalfType>(handle, cc, m, n, k, a, b, repeat);
        run_gemm<Bf16Type>(handle, cc, m, n, k, a, b, repeat);
        run_gemm<Tf32Type>(handle, cc, m, n, k, a, b, repeat);
    }
    CUBLAS_CHECK(cublasDestroy(handle));
    return 0;
}
