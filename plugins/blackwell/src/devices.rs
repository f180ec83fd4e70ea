//! Blackwell GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (its B200 row is marked uncertain there);
//! - OCC-TV12: `OCCUPANCY.md` §7 TV12, an ncu dump of an RTX 5090 reporting 170 SMs; ncu prints
//!   the name "NVIDIA GeForce RTX 5090" (traces #9–#11 of `../shared/traces`);
//! - ATTR: the `device__attribute_*` values (the driver's own numbers for the device) of the
//!   exports in `../shared/traces/ncu-other-gpus/`: B200 `Roofline-Analysis__*.ncu.csv` (raw
//!   pages), RTX 5060 Ti `GPU-DEMO__ncu_report_optimized.ncu-rep`; the names are their
//!   `device__attribute_display_name`. DRAM bandwidth = 2 × memory clock × bus width / 8 (B200
//!   HBM3e: 2 × 3996 MHz × 7680 bit / 8 = 7672 GB/s, DEV's 7.7 TB/s; RTX 5060 Ti GDDR7:
//!   2 × 14001 MHz × 128 bit / 8 = 448.0 GB/s, NVIDIA's figure).

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
            sm_count: 148, // DEV (deviceQuery "SM Count 148"); ATTR multiprocessor_count 148
            // ATTR clock_rate 1,965,000 kHz (the driver's; DEV "~1965" from TechPowerUp).
            sm_clock_hz: mhz(1965.0),
            mem_clock_hz: mhz(3996.0), // ATTR memory_clock_rate 3,996,000 kHz (7680-bit bus)
            // DEV (a vendor-blog figure; `core/cli/tests/plugins.rs` holds the plugins to DEV's
            // rows); the ATTR formula gives 7672 GB/s, 0.4 % less.
            dram_bandwidth: gb_per_s(7700.0),
            // DEV (cudaDeviceProp 129536 KiB); ATTR l2_cache_size 132,644,864, the same.
            l2_bytes: 129_536 * 1024,
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: f64::NAN, // unknown: the 10.0 arch has no DRAM latency (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 192,                // ATTR l2s_count 192
            tensor_clock_hz: mhz(1965.0),  // the SM clock (the tensor rates were derived at it)
            base_clock_hz: f64::NAN,       // unknown (no datasheet value at hand)
            peak: PeakFlops {
                // Derived: 148 SMs × 128 FP32 lanes (ARCHS 10.0) × 2 FLOP × 1.965 GHz (ATTR) =
                // 74.4 TF, as DEV.
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
            base_clock_hz: mhz(2017.0),    // UNCERTAIN: NVIDIA RTX 5090 specifications, recalled
            peak: PeakFlops {
                // Derived: 170 SMs × 128 FP32 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz = 104.8 TF.
                fp32: 170.0 * 128.0 * 2.0 * 2.407e9,
                // Derived: 170 SMs × 2 FP64 lanes (ARCHS 12.0) × 2 FLOP × 2.407 GHz.
                fp64: 170.0 * 2.0 * 2.0 * 2.407e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 5060 Ti".into(),
            aliases: names(&["GeForce RTX 5060 Ti", "RTX 5060 Ti"]),
            cc: ComputeCapability::new(12, 0),
            sm_count: 36,               // ATTR multiprocessor_count 36
            sm_clock_hz: mhz(2617.0),   // ATTR clock_rate 2,617,000 kHz
            mem_clock_hz: mhz(14001.0), // ATTR memory_clock_rate 14,001,000 kHz (128-bit bus)
            dram_bandwidth: 2.0 * mhz(14001.0) * 128.0 / 8.0, // ATTR formula: 448.0 GB/s
            l2_bytes: 32 * 1024 * 1024, // ATTR l2_cache_size 33,554,432
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: f64::NAN, // unknown: the 12.0 arch has no DRAM latency (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 16,                 // ATTR l2s_count 16
            tensor_clock_hz: mhz(2617.0),  // the SM clock
            // UNCERTAIN: NVIDIA's RTX 5060 Ti specification (recalled); ncu ran the reports at
            // 2.36–2.39 GHz.
            base_clock_hz: mhz(2407.0),
            peak: PeakFlops {
                // Derived: 36 SMs × 128 FP32 / 2 FP64 lanes (ARCHS 12.0) × 2 FLOP × 2.617 GHz.
                fp32: 36.0 * 128.0 * 2.0 * 2.617e9,
                fp64: 36.0 * 2.0 * 2.0 * 2.617e9,
                ..UNKNOWN_PEAK
            },
        },
    ]
}
