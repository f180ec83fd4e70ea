//! Turing GPU products. Source, abbreviated DEV: `/work/shared/reference/DEVICES.csv` (T4
//! datasheet; SMs, clock and L2 from the Turing whitepaper as DEV notes).

use warpsight_plugin::{Cc, DeviceData, PeakDesc, UNKNOWN_PEAK, gb_per_s, mhz, mib, tflops};

/// All Turing devices.
pub fn devices() -> Vec<DeviceData> {
    vec![DeviceData {
        name: "Tesla T4",
        aliases: &["NVIDIA T4", "T4", "NVIDIA Tesla T4"],
        cc: Cc(7, 5),
        sm_count: 40,             // DEV (from memory there)
        sm_clock_hz: mhz(1590.0), // DEV (from memory there)
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(320.0), // DEV (T4 datasheet)
        l2_bytes: mib(4),                // DEV (TU104: 4 MB)
        l2_bandwidth: f64::NAN,
        peak: PeakDesc {
            fp32: tflops(8.1),         // DEV
            fp64: tflops(0.25),        // DEV (derived there: 40 × 2 × 2 × 1.59 GHz)
            fp16_tensor: tflops(65.0), // DEV (mixed precision, dense)
            ..UNKNOWN_PEAK
        },
    }]
}
