//! Pascal GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (A100 whitepaper Table 1, P100 datasheet);
//! - TRACE4: the `device__attribute_*` columns of
//!   `../shared/traces/gpucachesim__nsight_vectoradd_100_32_metrics_all.csv` (an ncu raw page
//!   recorded on a GTX 1080; the values are what the CUDA driver reported).

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// All Pascal devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        DeviceSpec {
            name: "Tesla P100-SXM2-16GB".into(),
            aliases: names(&[
                "Tesla P100 SXM2 16GB",
                "NVIDIA Tesla P100-SXM2-16GB",
                "P100 SXM2",
            ]),
            cc: ComputeCapability::new(6, 0),
            sm_count: 56,             // DEV
            sm_clock_hz: mhz(1480.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(732.0), // DEV (P100 datasheet; the A100 whitepaper says 720)
            l2_bytes: mib(4),                // DEV (4096 KB)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 482.0, // the 6.0 arch's latencies.dram (LAT §3, Arafa Pascal)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1480.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1328.0), // UNCERTAIN: P100 whitepaper Table 1, recalled
            peak: PeakFlops {
                fp32: tflops(10.6), // DEV
                fp64: tflops(5.3),  // DEV
                fp16: tflops(21.2), // DEV notes (non-tensor FP16)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "Tesla P100-PCIE-16GB".into(),
            aliases: names(&["Tesla P100 PCIe 16GB", "NVIDIA Tesla P100-PCIE-16GB"]),
            cc: ComputeCapability::new(6, 0),
            sm_count: 56,             // DEV notes (same GP100 configuration)
            sm_clock_hz: mhz(1303.0), // UNCERTAIN: DEV notes, from memory of the P100 datasheet
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(732.0), // UNCERTAIN: DEV notes, as above
            l2_bytes: mib(4),                // DEV (same GP100 configuration)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 482.0, // the 6.0 arch's latencies.dram (LAT §3, Arafa Pascal)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1303.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1126.0), // UNCERTAIN: P100 PCIe datasheet, recalled
            peak: PeakFlops {
                fp32: tflops(9.3), // UNCERTAIN: DEV notes, from memory
                fp64: tflops(4.7), // UNCERTAIN: DEV notes, from memory
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce GTX 1080".into(),
            aliases: names(&["GeForce GTX 1080", "GTX 1080"]),
            cc: ComputeCapability::new(6, 1),
            sm_count: 20,              // TRACE4 device__attribute_multiprocessor_count
            sm_clock_hz: mhz(1759.0),  // TRACE4 device__attribute_clock_rate (1,759,000 kHz)
            mem_clock_hz: mhz(5005.0), // TRACE4 device__attribute_memory_clock_rate (5,005,000 kHz)
            // Derived from TRACE4: 5.005 GHz × 2 (double data rate) × 256-bit bus / 8 = 320.3 GB/s.
            dram_bandwidth: 5.005e9 * 2.0 * 256.0 / 8.0,
            l2_bytes: 2_097_152, // TRACE4 device__attribute_l2_cache_size
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 415.3, // the 6.1 arch's latencies.dram (LAT §3, MT4G Quadro P6000)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1759.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1607.0), // UNCERTAIN: GTX 1080 (GP104) whitepaper, recalled
            peak: PeakFlops {
                // Derived: 20 SMs × 128 FP32 lanes (ARCHS 6.1) × 2 FLOP × 1.759 GHz = 9.0 TF.
                fp32: 20.0 * 128.0 * 2.0 * 1.759e9,
                // Derived: 20 SMs × 4 FP64 lanes (ARCHS 6.1) × 2 FLOP × 1.759 GHz.
                fp64: 20.0 * 4.0 * 2.0 * 1.759e9,
                ..UNKNOWN_PEAK
            },
        },
    ]
}
