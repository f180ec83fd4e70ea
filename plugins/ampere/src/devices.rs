//! Ampere GPU products. Sources, abbreviated in the comments:
//! - DEV: `/work/shared/reference/DEVICES.csv` (NVIDIA A100 whitepaper Table 1, A100/A10 datasheets,
//!   GA102 whitepaper);
//! - TRACE22: the `TARGET_INFO_GPU` row of `/work/shared/traces/cuda-perf-sandbox__report1.sqlite`
//!   (an nsys export made on an RTX 3060; values are what the CUDA driver reported).
//!
//! Names: the first is what ncu/nsys print (`NVIDIA <product>`), aliases cover other spellings.

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// A100 compute peaks (DEV A100 SXM4 rows; the PCIe variants have the same SMs and clock per the
/// DEV notes).
const A100_PEAK: PeakFlops = PeakFlops {
    fp32: tflops(19.5),         // DEV
    fp64: tflops(9.7),          // DEV
    fp64_tensor: tflops(19.5),  // DEV
    fp16_tensor: tflops(312.0), // DEV (dense)
    tf32_tensor: tflops(156.0), // UNCERTAIN: A100 whitepaper, not in DEV
    int8_tensor: tflops(624.0), // UNCERTAIN: A100 whitepaper, not in DEV
    ..UNKNOWN_PEAK
};

/// An A100 with the given bandwidth (the four A100 variants differ only there).
fn a100(name: &str, aliases: &[&str], dram_gb_s: f64) -> DeviceSpec {
    DeviceSpec {
        name: name.into(),
        aliases: names(aliases),
        cc: ComputeCapability::new(8, 0),
        sm_count: 108,            // DEV
        sm_clock_hz: mhz(1410.0), // DEV
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(dram_gb_s),
        l2_bytes: mib(40), // DEV (40960 KB)
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of this product).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 466.0, // the 8.0 arch's latencies.dram (LAT §3, Luo et al. 2024)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices: 0,               // unknown
        tensor_clock_hz: mhz(1410.0), // the SM clock (the tensor rates were derived at it)
        peak: A100_PEAK,
    }
}

/// All Ampere devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        // DEV "A100 SXM4 40GB": 1555 GB/s.
        a100(
            "NVIDIA A100-SXM4-40GB",
            &["A100 SXM4 40GB", "NVIDIA A100 40GB", "A100"],
            1555.0,
        ),
        // DEV "A100 SXM4 80GB": 2039 GB/s.
        a100(
            "NVIDIA A100-SXM4-80GB",
            &["A100 SXM4 80GB", "NVIDIA A100 80GB"],
            2039.0,
        ),
        // DEV notes of the A100 40GB row: PCIe 40GB at 1555 GB/s.
        a100(
            "NVIDIA A100-PCIE-40GB",
            &["A100 PCIe 40GB", "NVIDIA A100 PCIe 40GB"],
            1555.0,
        ),
        // DEV notes of the A100 80GB row: PCIe 80GB at 1935 GB/s.
        a100(
            "NVIDIA A100 80GB PCIe",
            &["A100 PCIe 80GB", "NVIDIA A100-PCIE-80GB"],
            1935.0,
        ),
        DeviceSpec {
            name: "NVIDIA A10".into(),
            aliases: names(&["A10"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 72,             // DEV
            sm_clock_hz: mhz(1695.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(600.0), // DEV
            l2_bytes: mib(6),                // DEV
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1695.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(31.2),         // DEV
                fp64: tflops(0.49),         // DEV (derived there: 72 × 2 × 2 × 1.695 GHz)
                fp16_tensor: tflops(125.0), // DEV
                tf32_tensor: tflops(62.5),  // DEV source column (A10 datasheet)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3090".into(),
            aliases: names(&["GeForce RTX 3090", "RTX 3090"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 82,             // DEV
            sm_clock_hz: mhz(1695.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(936.0), // DEV
            l2_bytes: mib(6),                // DEV (6144 KB)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1695.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(35.6),        // DEV
                fp64: tflops(0.56),        // DEV (1/64 of FP32)
                fp16_tensor: tflops(71.0), // DEV (FP32 accumulate)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3060".into(),
            aliases: names(&["GeForce RTX 3060", "RTX 3060"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 28,             // TRACE22 smCount
            sm_clock_hz: mhz(1792.0), // TRACE22 clockRate 1792000000 Hz
            mem_clock_hz: f64::NAN,
            dram_bandwidth: 360_048_000_000.0, // TRACE22 memoryBandwidth, bytes/s
            l2_bytes: 2_359_296, // TRACE22 l2CacheSize (this board is a GA104 variant)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1792.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                // Derived: 28 SMs × 128 FP32 lanes (ARCHS 8.6) × 2 FLOP × 1.792 GHz.
                fp32: 28.0 * 128.0 * 2.0 * 1.792e9,
                // Derived: 28 SMs × 2 FP64 lanes (ARCHS 8.6) × 2 FLOP × 1.792 GHz.
                fp64: 28.0 * 2.0 * 2.0 * 1.792e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA RTX A6000".into(),
            aliases: names(&["RTX A6000", "Quadro RTX A6000"]),
            cc: ComputeCapability::new(8, 6),
            // UNCERTAIN: the whole row is recalled from NVIDIA's RTX A6000 datasheet (10752 CUDA
            // cores = 84 SMs, 768 GB/s, 38.7 TF FP32; ~1800 MHz boost); not in DEV.
            sm_count: 84,
            sm_clock_hz: mhz(1800.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(768.0),
            l2_bytes: mib(6),
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1800.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(38.7),
                ..UNKNOWN_PEAK
            },
        },
    ]
}
