//! Blackwell GPU products. Sources, abbreviated in the comments:
//! - DEV: `/work/shared/reference/DEVICES.csv` (its B200 row is marked uncertain there);
//! - OCC-TV12: `OCCUPANCY.md` §7 TV12, an ncu dump of an RTX 5090 reporting 170 SMs; ncu prints
//!   the name "NVIDIA GeForce RTX 5090" (traces #9–#11 of `/work/shared/traces`).

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, names, tflops,
};

/// All Blackwell devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        DeviceSpec {
            name: "NVIDIA B200".into(),
            aliases: names(&["B200", "HGX B200", "NVIDIA B200 (HGX B200, 1000 W)"]),
            cc: ComputeCapability::new(10, 0),
            sm_count: 148,            // DEV (deviceQuery "SM Count 148")
            sm_clock_hz: mhz(1965.0), // UNCERTAIN: DEV "~1965", TechPowerUp via XLA comment
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(7700.0), // DEV
            l2_bytes: 129_536 * 1024,         // DEV (cudaDeviceProp 129536 KiB)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: f64::NAN, // unknown: the 10.0 arch has no DRAM latency (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,                  // unknown
            tensor_clock_hz: mhz(1965.0),  // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                // UNCERTAIN: DEV derives 148 × 128 × 2 × 1.965 GHz = 74.4 TF.
                fp32: 148.0 * 128.0 * 2.0 * 1.965e9,
                fp64: tflops(37.0),          // DEV
                fp64_tensor: tflops(37.0),   // DEV
                fp16_tensor: tflops(2250.0), // DEV (BF16 dense, half of 4.5 PF sparse; from memory there)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 5090".into(),
            aliases: names(&["GeForce RTX 5090", "RTX 5090"]),
            cc: ComputeCapability::new(12, 0),
            sm_count: 170, // OCC-TV12 (ncu dump)
            // UNCERTAIN: boost clock 2407 MHz, 1792 GB/s (512-bit × 28 Gbps) and 96 MB L2 are
            // recalled from NVIDIA's RTX 5090 specifications; none is in the reference files.
            sm_clock_hz: mhz(2407.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(1792.0),
            l2_bytes: 96 * 1024 * 1024,
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: f64::NAN, // unknown: the 12.0 arch has no DRAM latency (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,                  // unknown
            tensor_clock_hz: mhz(2407.0),  // the SM clock (the tensor rates were derived at it)
            peak: PeakFlops {
                // Derived: 170 SMs × 128 FP32 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz = 104.8 TF.
                fp32: 170.0 * 128.0 * 2.0 * 2.407e9,
                // Derived: 170 SMs × 2 FP64 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz.
                fp64: 170.0 * 2.0 * 2.0 * 2.407e9,
                ..UNKNOWN_PEAK
            },
        },
    ]
}
