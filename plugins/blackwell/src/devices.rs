//! Blackwell GPU products. Sources, abbreviated in the comments:
//! - DEV: `/work/shared/reference/DEVICES.csv` (its B200 row is marked uncertain there);
//! - OCC-TV12: `OCCUPANCY.md` §7 TV12, an ncu dump of an RTX 5090 reporting 170 SMs; ncu prints
//!   the name "NVIDIA GeForce RTX 5090" (traces #9–#11 of `/work/shared/traces`).

use warpsight_plugin::{Cc, DeviceData, PeakDesc, UNKNOWN_PEAK, gb_per_s, mhz, tflops};

/// All Blackwell devices.
pub fn devices() -> Vec<DeviceData> {
    vec![
        DeviceData {
            name: "NVIDIA B200",
            aliases: &["B200", "HGX B200", "NVIDIA B200 (HGX B200, 1000 W)"],
            cc: Cc(10, 0),
            sm_count: 148,            // DEV (deviceQuery "SM Count 148")
            sm_clock_hz: mhz(1965.0), // UNCERTAIN: DEV "~1965", TechPowerUp via XLA comment
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(7700.0), // DEV
            l2_bytes: 129_536 * 1024,         // DEV (cudaDeviceProp 129536 KiB)
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                // UNCERTAIN: DEV derives 148 × 128 × 2 × 1.965 GHz = 74.4 TF.
                fp32: 148.0 * 128.0 * 2.0 * 1.965e9,
                fp64: tflops(37.0),          // DEV
                fp64_tensor: tflops(37.0),   // DEV
                fp16_tensor: tflops(2250.0), // DEV (BF16 dense, half of 4.5 PF sparse; from memory there)
                ..UNKNOWN_PEAK
            },
        },
        DeviceData {
            name: "NVIDIA GeForce RTX 5090",
            aliases: &["GeForce RTX 5090", "RTX 5090"],
            cc: Cc(12, 0),
            sm_count: 170, // OCC-TV12 (ncu dump)
            // UNCERTAIN: boost clock 2407 MHz, 1792 GB/s (512-bit × 28 Gbps) and 96 MB L2 are
            // recalled from NVIDIA's RTX 5090 specifications; none is in the reference files.
            sm_clock_hz: mhz(2407.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(1792.0),
            l2_bytes: 96 * 1024 * 1024,
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                // Derived: 170 SMs × 128 FP32 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz = 104.8 TF.
                fp32: 170.0 * 128.0 * 2.0 * 2.407e9,
                // Derived: 170 SMs × 2 FP64 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz.
                fp64: 170.0 * 2.0 * 2.0 * 2.407e9,
                ..UNKNOWN_PEAK
            },
        },
    ]
}
