//! Hopper GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (H100/H200 datasheets, H100 whitepaper, MT4G
//!   deviceProp dump);
//! - LAT: `LATENCIES.md` §5 (measured on the project's own H100 80GB HBM3 and H200); ATTR: the
//!   `device__attribute_*` columns of `traces/{h100-80gb-hbm3,h200}/*.ncu-raw.csv`; SPEC:
//!   `docs/model-v2/SPEC.md` §2.2 (defaults) and §2.3 (the H100/H200 time-model constants);
//! - TRACE13: the `device__attribute_*` columns of
//!   `../shared/traces/moeresearch__R_short_decode_ncu_raw_full.csv` (an ncu raw page recorded on
//!   an H200; 132 SMs, clock 1980 MHz, as DEV).
//!
//! Names: the first is what ncu/nsys print (`NVIDIA <product>`), aliases cover other spellings.

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// SXM compute peaks (DEV H100 SXM5 and H200 rows, which agree).
const SXM_PEAK: PeakFlops = PeakFlops {
    fp32: tflops(66.9),         // DEV
    fp64: tflops(33.5),         // DEV
    fp64_tensor: tflops(66.9),  // DEV
    fp16_tensor: tflops(989.4), // DEV (dense)
    // UNCERTAIN: H100 datasheet FP8 3958 TF sparse = 1979 dense; not in DEV.
    fp8_tensor: tflops(1979.0),
    ..UNKNOWN_PEAK
};

/// A GH100 SXM board with the given bandwidth.
fn sxm(name: &str, aliases: &[&str], dram_gb_s: f64) -> DeviceSpec {
    DeviceSpec {
        name: name.into(),
        aliases: names(aliases),
        cc: ComputeCapability::new(9, 0),
        sm_count: 132,            // DEV
        sm_clock_hz: mhz(1980.0), // DEV (max boost, cudaDeviceProp.clockRate)
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(dram_gb_s),
        l2_bytes: mib(50), // DEV
        l2_bandwidth: f64::NAN,
        // Time-model constants of the H100 SXM (SPEC §2.3; H200 overrides below).
        dram_achievable_fraction: 0.85, // LAT §5: copy 2832 GB/s of 3350 (H100 80GB HBM3)
        dram_latency_cycles: 690.0,     // LAT §5: cold DRAM load, H100 80GB HBM3
        l2_achievable_bandwidth: 6.6e12, // LAT §5: L2 read, 8 MiB footprint, H100 80GB HBM3
        l2_slices: 80,                  // ATTR device__attribute_l2s_count of the H100 captures
        // DEV notes: the datasheet tensor peaks (989.4 TF = 4096 FLOP/clk/SM × 132) are at ~1830 MHz.
        tensor_clock_hz: mhz(1830.0),
        // H100 SXM5 1590 MHz (spec listing), confirmed by `traces/ncu-rep/copy_basic.ncu-rep`:
        // made with ncu's default clock control, its 3 launches record ExecutedLocked and read
        // 1590–1599 MHz. The H200's is not known here.
        base_clock_hz: if name.contains("H100") {
            mhz(1590.0)
        } else {
            f64::NAN
        },
        peak: SXM_PEAK,
    }
}

/// All Hopper devices.
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        // DEV "H100 SXM5 80GB": 3350 GB/s. CUDA names it "NVIDIA H100 80GB HBM3" (MT4G dump).
        DeviceSpec {
            // traces/h100-80gb-hbm3: device__attribute_memory_clock_rate 2,619,000 kHz.
            mem_clock_hz: mhz(2619.0),
            ..sxm(
                "NVIDIA H100 80GB HBM3",
                &[
                    "H100 SXM5 80GB",
                    "NVIDIA H100 SXM5 80GB",
                    "NVIDIA H100 SXM",
                    "H100",
                ],
                3350.0,
            )
        },
        // DEV "H200 SXM 141GB": 4800 GB/s; ncu prints "NVIDIA H200" (traces #13, #14).
        DeviceSpec {
            // TRACE13 device__attribute_l2_cache_size is 62914560 B (60 MiB); DEV's 50 MB is a
            // secondary "same as H100" assumption, so the driver's value is used.
            l2_bytes: 62_914_560,
            // TRACE13 device__attribute_memory_clock_rate 3,201,000 kHz.
            mem_clock_hz: mhz(3201.0),
            // Time-model constants of the H200 (SPEC §2.3); the tensor clock is the SXM one.
            dram_achievable_fraction: 0.82, // LAT §5: copy 3956 GB/s of 4800
            dram_latency_cycles: 666.0,     // LAT §5: cold DRAM load
            l2_achievable_bandwidth: 7.0e12, // LAT §5: L2 read, 8 MiB footprint
            l2_slices: 96,                  // ATTR device__attribute_l2s_count of the H200 captures
            ..sxm(
                "NVIDIA H200",
                &["H200 SXM 141GB", "NVIDIA H200 SXM 141GB", "H200"],
                4800.0,
            )
        },
        DeviceSpec {
            name: "NVIDIA H100 PCIe".into(),
            aliases: names(&["H100 PCIe 80GB", "NVIDIA H100 PCIe 80GB"]),
            cc: ComputeCapability::new(9, 0),
            sm_count: 114,            // DEV
            sm_clock_hz: mhz(1755.0), // DEV (secondary listing)
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(2000.0), // DEV
            l2_bytes: mib(50),                // DEV
            l2_bandwidth: f64::NAN,
            // Time-model constants: documented defaults (no measurement of this product).
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
            dram_latency_cycles: 478.8, // the 9.0 arch's latencies.dram (LAT §3, H800 PCIe, Luo et al. 2024)
            l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
            l2_slices: 0,               // unknown
            // UNCERTAIN: derived, DEV 756.5 TF / (114 SMs × 4096 FLOP/clk/SM) = 1620 MHz, as the SXM
            // boards' ~1830 MHz is derived from their peaks.
            tensor_clock_hz: mhz(1620.0),
            base_clock_hz: mhz(1125.0), // UNCERTAIN: H100 PCIe spec listing, recalled
            peak: PeakFlops {
                fp32: tflops(51.2),         // DEV
                fp64: tflops(25.6),         // DEV
                fp64_tensor: tflops(51.2),  // DEV
                fp16_tensor: tflops(756.5), // DEV
                ..UNKNOWN_PEAK
            },
        },
    ]
}
