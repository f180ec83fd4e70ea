//! Pascal GPU products. Sources, abbreviated in the comments:
//! - DEV: `/work/shared/reference/DEVICES.csv` (A100 whitepaper Table 1, P100 datasheet);
//! - TRACE4: the `device__attribute_*` columns of
//!   `/work/shared/traces/gpucachesim__nsight_vectoradd_100_32_metrics_all.csv` (an ncu raw page
//!   recorded on a GTX 1080; the values are what the CUDA driver reported).

use warpsight_plugin::{Cc, DeviceData, PeakDesc, UNKNOWN_PEAK, gb_per_s, mhz, mib, tflops};

/// All Pascal devices.
pub fn devices() -> Vec<DeviceData> {
    vec![
        DeviceData {
            name: "Tesla P100-SXM2-16GB",
            aliases: &["Tesla P100 SXM2 16GB", "NVIDIA Tesla P100-SXM2-16GB", "P100 SXM2"],
            cc: Cc(6, 0),
            sm_count: 56,             // DEV
            sm_clock_hz: mhz(1480.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(732.0), // DEV (P100 datasheet; the A100 whitepaper says 720)
            l2_bytes: mib(4),                // DEV (4096 KB)
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                fp32: tflops(10.6), // DEV
                fp64: tflops(5.3),  // DEV
                fp16: tflops(21.2), // DEV notes (non-tensor FP16)
                ..UNKNOWN_PEAK
            },
        },
        DeviceData {
            name: "Tesla P100-PCIE-16GB",
            aliases: &["Tesla P100 PCIe 16GB", "NVIDIA Tesla P100-PCIE-16GB"],
            cc: Cc(6, 0),
            sm_count: 56,             // DEV notes (same GP100 configuration)
            sm_clock_hz: mhz(1303.0), // UNCERTAIN: DEV notes, from memory of the P100 datasheet
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(732.0), // UNCERTAIN: DEV notes, as above
            l2_bytes: mib(4),                // DEV (same GP100 configuration)
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                fp32: tflops(9.3), // UNCERTAIN: DEV notes, from memory
                fp64: tflops(4.7), // UNCERTAIN: DEV notes, from memory
                ..UNKNOWN_PEAK
            },
        },
        DeviceData {
            name: "NVIDIA GeForce GTX 1080",
            aliases: &["GeForce GTX 1080", "GTX 1080"],
            cc: Cc(6, 1),
            sm_count: 20,              // TRACE4 device__attribute_multiprocessor_count
            sm_clock_hz: mhz(1759.0),  // TRACE4 device__attribute_clock_rate (1,759,000 kHz)
            mem_clock_hz: mhz(5005.0), // TRACE4 device__attribute_memory_clock_rate (5,005,000 kHz)
            // Derived from TRACE4: 5.005 GHz × 2 (double data rate) × 256-bit bus / 8 = 320.3 GB/s.
            dram_bandwidth: 5.005e9 * 2.0 * 256.0 / 8.0,
            l2_bytes: 2_097_152, // TRACE4 device__attribute_l2_cache_size
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                // Derived: 20 SMs × 128 FP32 lanes (ARCHS 6.1) × 2 FLOP × 1.759 GHz = 9.0 TF.
                fp32: 20.0 * 128.0 * 2.0 * 1.759e9,
                // Derived: 20 SMs × 4 FP64 lanes (ARCHS 6.1) × 2 FLOP × 1.759 GHz.
                fp64: 20.0 * 4.0 * 2.0 * 1.759e9,
                ..UNKNOWN_PEAK
            },
        },
    ]
}
