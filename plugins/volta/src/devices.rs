//! Volta GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (A100 whitepaper Table 1, Volta whitepaper Table 1;
//!   V100 PCIe values from its notes). ncu prints the V100 as "Tesla V100-SXM2-16GB" (trace #1 of
//!   `../shared/traces`) and "Tesla V100-SXM2-32GB" (MW below);
//! - ATTR: the `device__attribute_*` values (the driver's own) of
//!   `../shared/traces/ncu-other-gpus/GPU_workshop__MW_Baseline.ncu-rep`, a Tesla V100-SXM2-32GB.
//!   DRAM bandwidth = 2 × memory clock × bus width / 8 (HBM2: 2 × 877 MHz × 4096 bit / 8 = 898 GB/s,
//!   the datasheet's 900 GB/s).

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// V100 SXM2 peaks (DEV).
const V100_SXM2_PEAK: PeakFlops = PeakFlops {
    fp32: tflops(15.7),         // DEV
    fp64: tflops(7.8),          // DEV
    fp16_tensor: tflops(125.0), // DEV (FP16 inputs, dense)
    ..UNKNOWN_PEAK
};

/// A V100 SXM2 board (the 16 GB and 32 GB versions differ only in memory size).
fn v100_sxm2(name: &str, aliases: &[&str]) -> DeviceSpec {
    DeviceSpec {
        name: name.into(),
        aliases: names(aliases),
        cc: ComputeCapability::new(7, 0),
        sm_count: 80,                    // DEV; ATTR multiprocessor_count 80
        sm_clock_hz: mhz(1530.0),        // DEV; ATTR clock_rate 1,530,000 kHz
        mem_clock_hz: mhz(877.0),        // ATTR memory_clock_rate 877,000 kHz (HBM2, 4096-bit bus)
        dram_bandwidth: gb_per_s(900.0), // DEV; ATTR formula 898 GB/s (module docs)
        l2_bytes: mib(6),                // DEV; ATTR l2_cache_size 6,291,456
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of this product).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 407.9, // the 7.0 arch's latencies.dram (LAT §3)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices: 64,              // ATTR l2s_count 64 (the 16 GB board has the same GV100 L2)
        tensor_clock_hz: mhz(1530.0), // the SM clock (the tensor rates were derived at it)
        // Measured: ncu's "SM Frequency" (`sm__cycles_elapsed.avg.per_second`) of MW's 6 launches
        // longer than 0.1 M cycles is 1,276-1,295 MHz (median 1,291) under ncu's default
        // `--clock-control base`; MW is the 32 GB board, the 16 GB one is the same GV100 SKU.
        base_clock_hz: mhz(1290.0),
        peak: V100_SXM2_PEAK,
    }
}

/// All Volta devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        v100_sxm2(
            "Tesla V100-SXM2-16GB",
            &["V100 SXM2 16GB", "Tesla V100 SXM2", "V100", "Tesla V100"],
        ),
        v100_sxm2("Tesla V100-SXM2-32GB", &["V100 SXM2 32GB"]),
        DeviceSpec {
            name: "Tesla V100-PCIE-16GB".into(),
            aliases: names(&["V100 PCIe 16GB", "Tesla V100-PCIE-32GB", "V100 PCIe"]),
            cc: ComputeCapability::new(7, 0),
            sm_count: 80,             // DEV notes (MT4G V100-PCIE dump)
            sm_clock_hz: mhz(1380.0), // DEV notes (MT4G dump clockRate 1380000 kHz)
            mem_clock_hz: f64::NAN,
            // UNCERTAIN: 900 GB/s as the SXM2 board (V100 datasheet, recalled; not in DEV).
            dram_bandwidth: gb_per_s(900.0),
            l2_bytes: mib(6), // DEV (same GV100 configuration)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 407.9, // the 7.0 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1380.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: f64::NAN,    // unknown (no datasheet value or base-clock export at hand)
            peak: PeakFlops {
                fp32: tflops(14.0),         // DEV notes (from memory there)
                fp64: tflops(7.0),          // DEV notes
                fp16_tensor: tflops(112.0), // DEV notes
                ..UNKNOWN_PEAK
            },
        },
    ]
}
