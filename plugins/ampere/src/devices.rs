//! Ampere GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (NVIDIA A100 whitepaper Table 1, A100/A10 datasheets,
//!   GA102 whitepaper);
//! - TRACE22: the `TARGET_INFO_GPU` row of `../shared/traces/cuda-perf-sandbox__report1.sqlite`
//!   (an nsys export made on an RTX 3060; values are what the CUDA driver reported);
//! - ATTR: the `device__attribute_*` values (the driver's own numbers for the device) of the
//!   reports in `../shared/traces/ncu-other-gpus/`: A30 `benchmark_flash_attention__window-128.ncu-rep`,
//!   A10 `spyinfer__report.ncu-rep`, RTX 3060 Laptop GPU `CUDA_Learning__report.ncu-rep`; the
//!   names are their `device__attribute_display_name`. DRAM bandwidth = 2 × memory clock × bus
//!   width / 8 (A10: 2 × 6251 MHz × 384 bit / 8 = 600.2 GB/s, the datasheet's 600 GB/s; A30 HBM2:
//!   2 × 1215 MHz × 3072 bit / 8 = 933.1 GB/s, the datasheet's 933 GB/s);
//! - GeForce GA10x boards run FP16 HMMA with FP32 accumulate at half the data-centre rate:
//!   DEV RTX 3090 71 TF / (82 SMs × 1.695 GHz) = 511 → 512 FLOP per clock per SM.
//!
//! Names: the first is what ncu/nsys print (`NVIDIA <product>`), aliases cover other spellings.

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// A100 compute peaks (DEV A100 SXM4 rows; the PCIe variants have the same SMs and clock per the
/// DEV notes).
const A100_PEAK: PeakFlops = PeakFlops {
    fp32: tflops(19.5),         // DEV
    fp64: tflops(9.7),          // DEV
    fp64_tensor: tflops(19.5),  // DEV
    fp16_tensor: tflops(312.0), // DEV (dense)
    tf32_tensor: tflops(156.0), // UNCERTAIN: A100 whitepaper, not in DEV
    int8_tensor: tflops(624.0), // UNCERTAIN: A100 whitepaper, not in DEV
    ..UNKNOWN_PEAK
};

/// An A100 with the given bandwidth (the four A100 variants differ only there).
fn a100(name: &str, aliases: &[&str], dram_gb_s: f64) -> DeviceSpec {
    DeviceSpec {
        name: name.into(),
        aliases: names(aliases),
        cc: ComputeCapability::new(8, 0),
        sm_count: 108,            // DEV
        sm_clock_hz: mhz(1410.0), // DEV
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(dram_gb_s),
        l2_bytes: mib(40), // DEV (40960 KB)
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of this product).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 466.0, // the 8.0 arch's latencies.dram (LAT §3, Luo et al. 2024)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices: 0,               // unknown
        tensor_clock_hz: mhz(1410.0), // the SM clock (the tensor rates were derived at it)
        // UNCERTAIN: SXM4 boards 1095 MHz (A100 SXM4 datasheet listing, recalled); the PCIe boards'
        // base clocks differ (not known here).
        base_clock_hz: if name.contains("SXM4") {
            mhz(1095.0)
        } else {
            f64::NAN
        },
        peak: A100_PEAK,
    }
}

/// All Ampere devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        // DEV "A100 SXM4 40GB": 1555 GB/s.
        a100(
            "NVIDIA A100-SXM4-40GB",
            &["A100 SXM4 40GB", "NVIDIA A100 40GB", "A100"],
            1555.0,
        ),
        // DEV "A100 SXM4 80GB": 2039 GB/s.
        a100(
            "NVIDIA A100-SXM4-80GB",
            &["A100 SXM4 80GB", "NVIDIA A100 80GB"],
            2039.0,
        ),
        // DEV notes of the A100 40GB row: PCIe 40GB at 1555 GB/s.
        a100(
            "NVIDIA A100-PCIE-40GB",
            &["A100 PCIe 40GB", "NVIDIA A100 PCIe 40GB"],
            1555.0,
        ),
        // DEV notes of the A100 80GB row: PCIe 80GB at 1935 GB/s.
        a100(
            "NVIDIA A100 80GB PCIe",
            &["A100 PCIe 80GB", "NVIDIA A100-PCIE-80GB"],
            1935.0,
        ),
        DeviceSpec {
            name: "NVIDIA A10".into(),
            aliases: names(&["A10"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 72,                    // DEV; ATTR multiprocessor_count 72
            sm_clock_hz: mhz(1695.0),        // DEV; ATTR clock_rate 1,695,000 kHz
            mem_clock_hz: mhz(6251.0),       // ATTR memory_clock_rate 6,251,000 kHz (384-bit bus)
            dram_bandwidth: gb_per_s(600.0), // DEV; ATTR formula 600.2 GB/s
            l2_bytes: mib(6),                // DEV; ATTR l2_cache_size 6,291,456
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 48,              // ATTR l2s_count 48
            tensor_clock_hz: mhz(1695.0), // the SM clock (the tensor rates were derived at it)
            // UNCERTAIN: A10 datasheet, recalled; the A10 report `../shared/traces/ncu-other-gpus/
            // spyinfer__report.ncu-rep` (default base clock) reads 851-895 MHz on its 105 short launches.
            base_clock_hz: mhz(885.0),
            peak: PeakFlops {
                fp32: tflops(31.2),         // DEV
                fp64: tflops(0.49),         // DEV (derived there: 72 × 2 × 2 × 1.695 GHz)
                fp16_tensor: tflops(125.0), // DEV
                tf32_tensor: tflops(62.5),  // DEV source column (A10 datasheet)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3090".into(),
            aliases: names(&["GeForce RTX 3090", "RTX 3090"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 82,             // DEV
            sm_clock_hz: mhz(1695.0), // DEV
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(936.0), // DEV
            l2_bytes: mib(6),                // DEV (6144 KB)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1695.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1395.0), // UNCERTAIN: GA102 whitepaper spec table, recalled
            peak: PeakFlops {
                fp32: tflops(35.6),        // DEV
                fp64: tflops(0.56),        // DEV (1/64 of FP32)
                fp16_tensor: tflops(71.0), // DEV (FP32 accumulate)
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3060".into(),
            aliases: names(&["GeForce RTX 3060", "RTX 3060"]),
            cc: ComputeCapability::new(8, 6),
            sm_count: 28,             // TRACE22 smCount
            sm_clock_hz: mhz(1792.0), // TRACE22 clockRate 1792000000 Hz
            mem_clock_hz: f64::NAN,
            dram_bandwidth: 360_048_000_000.0, // TRACE22 memoryBandwidth, bytes/s
            l2_bytes: 2_359_296, // TRACE22 l2CacheSize (this board is a GA104 variant)
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1792.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1320.0), // UNCERTAIN: NVIDIA RTX 3060 specifications, recalled
            peak: PeakFlops {
                // Derived: 28 SMs × 128 FP32 lanes (ARCHS 8.6) × 2 FLOP × 1.792 GHz.
                fp32: 28.0 * 128.0 * 2.0 * 1.792e9,
                // Derived: 28 SMs × 2 FP64 lanes (ARCHS 8.6) × 2 FLOP × 1.792 GHz.
                fp64: 28.0 * 2.0 * 2.0 * 1.792e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA RTX A6000".into(),
            aliases: names(&["RTX A6000", "Quadro RTX A6000"]),
            cc: ComputeCapability::new(8, 6),
            // UNCERTAIN: the whole row is recalled from NVIDIA's RTX A6000 datasheet (10752 CUDA
            // cores = 84 SMs, 768 GB/s, 38.7 TF FP32; ~1800 MHz boost); not in DEV.
            sm_count: 84,
            sm_clock_hz: mhz(1800.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(768.0),
            l2_bytes: mib(6),
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1800.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: f64::NAN,    // unknown (no datasheet value at hand)
            peak: PeakFlops {
                fp32: tflops(38.7),
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA A30".into(),
            aliases: names(&["A30", "NVIDIA A30 24GB"]),
            cc: ComputeCapability::new(8, 0),
            sm_count: 56,              // ATTR multiprocessor_count 56
            sm_clock_hz: mhz(1440.0),  // ATTR clock_rate 1,440,000 kHz
            mem_clock_hz: mhz(1215.0), // ATTR memory_clock_rate 1,215,000 kHz (HBM2, 3072-bit bus)
            dram_bandwidth: 2.0 * mhz(1215.0) * 3072.0 / 8.0, // ATTR formula: 933.1 GB/s
            l2_bytes: mib(24),         // ATTR l2_cache_size 25,165,824
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 466.0, // the 8.0 arch's latencies.dram (LAT §3, Luo et al. 2024)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 48,              // ATTR l2s_count 48
            tensor_clock_hz: mhz(1440.0), // the SM clock (the tensor rates were derived at it)
            // UNCERTAIN: A30 datasheet (recalled), the SM frequency ncu ran the A30 reports at.
            base_clock_hz: mhz(930.0),
            // Derived from the 8.0 arch's per-SM rates × 56 SMs × 1.44 GHz; each agrees with the A30
            // datasheet (recalled: 10.3, 5.2, 10.3, 165, 82, 330 T).
            peak: PeakFlops {
                fp32: 56.0 * 64.0 * 2.0 * 1.44e9,
                fp64: 56.0 * 32.0 * 2.0 * 1.44e9,
                fp64_tensor: 56.0 * 128.0 * 1.44e9,
                fp16_tensor: 56.0 * 2048.0 * 1.44e9,
                tf32_tensor: 56.0 * 1024.0 * 1.44e9,
                int8_tensor: 56.0 * 4096.0 * 1.44e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3060 Laptop GPU".into(),
            aliases: names(&[
                "GeForce RTX 3060 Laptop GPU",
                "RTX 3060 Laptop GPU",
                "RTX 3060 Laptop",
            ]),
            cc: ComputeCapability::new(8, 6),
            // A laptop part whose clocks vary by OEM: the driver's numbers (ATTR).
            sm_count: 30,              // ATTR multiprocessor_count 30
            sm_clock_hz: mhz(1605.0),  // ATTR clock_rate 1,605,000 kHz
            mem_clock_hz: mhz(7001.0), // ATTR memory_clock_rate 7,001,000 kHz (192-bit bus)
            // ATTR formula: 336.0 GB/s, NVIDIA's RTX 3060 Laptop figure.
            dram_bandwidth: 2.0 * mhz(7001.0) * 192.0 / 8.0,
            l2_bytes: mib(3), // ATTR l2_cache_size 3,145,728
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 24,              // ATTR l2s_count 24
            tensor_clock_hz: mhz(1605.0), // the SM clock
            base_clock_hz: f64::NAN,    // OEM-dependent
            peak: PeakFlops {
                // Derived: 30 SMs × 128 FP32 / 2 FP64 lanes (ARCHS 8.6) × 2 FLOP × 1.605 GHz.
                fp32: 30.0 * 128.0 * 2.0 * 1.605e9,
                fp64: 30.0 * 2.0 * 2.0 * 1.605e9,
                // Derived: GeForce FP32-accumulate rate 512 FLOP/clk/SM (module docs).
                fp16_tensor: 30.0 * 512.0 * 1.605e9,
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA A40".into(),
            aliases: names(&["A40", "NVIDIA A40 48GB"]),
            cc: ComputeCapability::new(8, 6),
            // UNCERTAIN: the whole row is recalled from NVIDIA's A40 datasheet (10752 CUDA cores =
            // 84 SMs, 1740 MHz boost, 1305 MHz base, 696 GB/s GDDR6, 6 MB L2, FP32 37.4 TF, TF32
            // 74.8 TF, FP16/BF16 tensor 149.7 TF dense); not in DEV. The FP32 and tensor figures
            // agree with 84 × 128 × 2 × 1.74 GHz and 84 × 1024 × 1.74 GHz (the 8.6 arch's rates).
            sm_count: 84,
            sm_clock_hz: mhz(1740.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(696.0),
            l2_bytes: mib(6),
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1740.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1305.0), // UNCERTAIN: datasheet, recalled (above)
            peak: PeakFlops {
                fp32: tflops(37.4),
                fp16_tensor: tflops(149.7),
                tf32_tensor: tflops(74.8),
                ..UNKNOWN_PEAK
            },
        },
        DeviceSpec {
            name: "NVIDIA GeForce RTX 3080".into(),
            aliases: names(&["GeForce RTX 3080", "RTX 3080"]),
            cc: ComputeCapability::new(8, 6),
            // UNCERTAIN: the row is the GA102 whitepaper's RTX 3080 (10 GB) column, recalled, not in
            // DEV: 68 SMs, 1710 MHz boost, 1440 MHz base, 760 GB/s (19 Gbps × 320 bit), 5120 KB L2,
            // FP32 29.8 TF, FP16 tensor with FP32 accumulate 59.5 TF. Check: 68 × 128 × 2 × 1.71 GHz
            // = 29.8 TF and 68 × 512 × 1.71 GHz = 59.5 TF (module docs).
            sm_count: 68,
            sm_clock_hz: mhz(1710.0),
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(760.0),
            l2_bytes: 5 * 1024 * 1024,
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 515.0, // the 8.6 arch's latencies.dram (LAT §3, RTX 3060)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            tensor_clock_hz: mhz(1710.0), // the SM clock (the tensor rates were derived at it)
            base_clock_hz: mhz(1440.0), // UNCERTAIN: whitepaper, recalled (above)
            peak: PeakFlops {
                fp32: tflops(29.8),
                fp64: 68.0 * 2.0 * 2.0 * 1.71e9, // derived: 2 FP64 lanes per SM (ARCHS 8.6)
                fp16_tensor: tflops(59.5),
                ..UNKNOWN_PEAK
            },
        },
    ]
}
