//! Turing GPU products. Source, abbreviated DEV: `/work/shared/reference/DEVICES.csv` (T4
//! datasheet; SMs, clock and L2 from the Turing whitepaper as DEV notes).

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// All Turing devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![DeviceSpec {
        name: "Tesla T4".into(),
        aliases: names(&["NVIDIA T4", "T4", "NVIDIA Tesla T4"]),
        cc: ComputeCapability::new(7, 5),
        sm_count: 40,             // DEV (from memory there)
        sm_clock_hz: mhz(1590.0), // DEV (from memory there)
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(320.0), // DEV (T4 datasheet)
        l2_bytes: mib(4),                // DEV (TU104: 4 MB)
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of this product).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 424.0, // the 7.5 arch's latencies.dram (LAT §3)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices: 0,               // unknown
        tensor_clock_hz: mhz(1590.0), // the SM clock (the tensor rates were derived at it)
        peak: PeakFlops {
            fp32: tflops(8.1),         // DEV
            fp64: tflops(0.25),        // DEV (derived there: 40 × 2 × 2 × 1.59 GHz)
            fp16_tensor: tflops(65.0), // DEV (mixed precision, dense)
            ..UNKNOWN_PEAK
        },
    }]
}
