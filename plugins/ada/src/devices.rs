//! Ada GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (L4 and L40S datasheets, Ada whitepaper v2.1
//!   Appendix A). ncu and nsys print the RTX 4090 as "NVIDIA GeForce RTX 4090" (trace #20 of
//!   `../shared/traces`);
//! - ATTR: the `device__attribute_*` values (the driver's own numbers for the device) of
//!   `../shared/traces/ncu-other-gpus/COALDA__coalesced_chart.ncu-rep`, an RTX 4050 Laptop GPU
//!   (the name is its `device__attribute_display_name`). DRAM bandwidth = 2 × memory clock × bus
//!   width / 8 (GDDR6's `memory_clock_rate` is half the data rate);
//! - GeForce AD10x boards run FP16 HMMA with FP32 accumulate at 512 FLOP per clock per SM, half
//!   the data-centre rate: DEV RTX 4090 165.2 TF / (128 SMs × 2.52 GHz) = 512.

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
            base_clock_hz: mhz(2235.0), // UNCERTAIN: Ada whitepaper Appendix A (DEV's source), recalled
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
            base_clock_hz: mhz(795.0),  // UNCERTAIN: L4 specifications listing, recalled
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
            base_clock_hz: mhz(1110.0), // UNCERTAIN: L40S specifications listing, recalled
            peak: PeakFlops {
                fp32: tflops(91.6),         // DEV
                fp64: tflops(1.43),         // DEV (derived there)
                fp16_tensor: tflops(362.0), // DEV (dense)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 4050 Laptop GPU".into(),
            aliases: names(&[
                "GeForce RTX 4050 Laptop GPU",
                "RTX 4050 Laptop GPU",
                "RTX 4050 Laptop",
            ]),
            cc: ComputeCapability::new(8, 9),
            // A laptop part whose clocks vary by OEM: the driver's numbers (ATTR).
            sm_count: 20,              // ATTR multiprocessor_count 20
            sm_clock_hz: mhz(1605.0),  // ATTR clock_rate 1,605,000 kHz
            mem_clock_hz: mhz(8001.0), // ATTR memory_clock_rate 8,001,000 kHz (96-bit bus)
            // ATTR formula: 192.0 GB/s, NVIDIA's RTX 4050 Laptop figure (16 Gbps × 96 bit).
            dram_bandwidth: 2.0 * mhz(8001.0) * 96.0 / 8.0,
            l2_bytes: mib(24), // ATTR l2_cache_size 25,165,824
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 541.5, // the 8.9 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 16,              // ATTR l2s_count 16
            tensor_clock_hz: mhz(1605.0), // the SM clock
            base_clock_hz: f64::NAN,    // OEM-dependent
            peak: PeakFlops {
                // Derived: 20 SMs × 128 FP32 / 2 FP64 lanes (ARCHS 8.9) × 2 FLOP × 1.605 GHz.
                fp32: 20.0 * 128.0 * 2.0 * 1.605e9,
                fp64: 20.0 * 2.0 * 2.0 * 1.605e9,
                // Derived: GeForce FP32-accumulate rate 512 FLOP/clk/SM (module docs).
                fp16_tensor: 20.0 * 512.0 * 1.605e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 4080".into(),
            aliases: names(&["GeForce RTX 4080", "RTX 4080"]),
            cc: ComputeCapability::new(8, 9),
            // UNCERTAIN: the row is the Ada whitepaper's RTX 4080 (16 GB) column, recalled, not in
            // DEV: 76 SMs, 2505 MHz boost, 2205 MHz base, 716.8 GB/s (22.4 Gbps × 256 bit), 64 MB
            // L2, FP32 48.7 TF, FP16 tensor with FP32 accumulate 97.5 TF. Check: 76 × 128 × 2 ×
            // 2.505 GHz = 48.7 TF and 76 × 512 × 2.505 GHz = 97.5 TF (module docs).
            sm_count: 76,
            sm_clock_hz: mhz(2505.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(716.8),
            l2_bytes: mib(64),
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 541.5, // the 8.9 arch's latencies.dram (LAT §3)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(2505.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(2205.0), // UNCERTAIN: whitepaper, recalled (above)
            peak: PeakFlops {
                fp32: tflops(48.7),
                fp64: 76.0 * 2.0 * 2.0 * 2.505e9, // derived: 2 FP64 lanes per SM (ARCHS 8.9)
                fp16_tensor: tflops(97.5),
                ..UNKNOWN_PEAK
            },
        },
    ]
}
