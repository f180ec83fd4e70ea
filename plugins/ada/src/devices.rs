//! Ada GPU products. Source, abbreviated DEV: `/work/shared/reference/DEVICES.csv` (L4 and L40S
//! datasheets, Ada whitepaper v2.1 Appendix A). ncu and nsys print the RTX 4090 as
//! "NVIDIA GeForce RTX 4090" (trace #20 of `/work/shared/traces`).

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// All Ada devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        DeviceSpec {
            name: "NVIDIA GeForce RTX 4090".into(),
            aliases: names(&["GeForce RTX 4090", "RTX 4090"]),
            cc: ComputeCapability::new(8, 9),
            sm_count: 128,            // DEV
            sm_clock_hz: mhz(2520.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(1008.0), // DEV
            l2_bytes: mib(72),                // DEV (73728 KB)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 541.5, // the 8.9 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(2520.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(82.6),         // DEV
                fp64: tflops(1.29),         // DEV (1/64 of FP32)
                fp16_tensor: tflops(165.2), // DEV (FP32 accumulate, dense)
                fp8_tensor: tflops(330.3),  // DEV notes (FP8, FP32 accumulate)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA L4".into(),
            aliases: names(&["L4"]),
            cc: ComputeCapability::new(8, 9),
            sm_count: 58,             // DEV
            sm_clock_hz: mhz(2040.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(300.0), // DEV
            l2_bytes: mib(48),               // UNCERTAIN: DEV marks the 48 MB L2 unverified
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 541.5, // the 8.9 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(2040.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(30.3),         // DEV
                fp64: tflops(0.47),         // DEV (derived there)
                fp16_tensor: tflops(121.0), // DEV (242 sparse → 121 dense)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA L40S".into(),
            aliases: names(&["L40S"]),
            cc: ComputeCapability::new(8, 9),
            sm_count: 142,            // DEV
            sm_clock_hz: mhz(2520.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(864.0), // DEV
            l2_bytes: mib(96),               // UNCERTAIN: DEV marks the 96 MB L2 unverified
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 541.5, // the 8.9 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(2520.0), // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                fp32: tflops(91.6),         // DEV
                fp64: tflops(1.43),         // DEV (derived there)
                fp16_tensor: tflops(362.0), // DEV (dense)
                ..UNKNOWN_PEAK
            },
        },
    ]
}
