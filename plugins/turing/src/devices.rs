//! Turing GPU products. Sources, abbreviated in the comments:
//! - DEV: `../shared/reference/DEVICES.csv` (T4 datasheet; SMs, clock and L2 from the Turing
//!   whitepaper as DEV notes);
//! - ATTR: the `device__attribute_*` values (the driver's own numbers for the device) of the
//!   reports in `../shared/traces/ncu-other-gpus/`: T4 `cuda-mlp-inference__report.ncu-rep`,
//!   GTX 1660 SUPER `CudaCode__dot_product.ncu-rep`, RTX 2060 SUPER
//!   `GPU_Power_Model__PS1_100_profile.ncu-rep`, MX450 `COALDA__rgb_correct.ncu-rep`; the names are
//!   their `device__attribute_display_name`. DRAM bandwidth = 2 × memory clock × bus width / 8:
//!   GDDR6's `memory_clock_rate` is already half the data rate, e.g. T4 2 × 5001 MHz × 256 bit / 8
//!   = 320.0 GB/s, its datasheet figure.

use warpsight_plugin::{
    ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, PeakFlops, UNKNOWN_PEAK,
    gb_per_s, mhz, mib, names, tflops,
};

/// A GeForce Turing board described by its ATTR values: SMs, clock (`clock_rate`), memory clock
/// (`memory_clock_rate`), bus width, L2 bytes and slices (`l2s_count`). The compute peaks are
/// derived from the 7.5 arch's per-SM rates at that clock: 64 FP32 and 2 FP64 lanes (ARCHS 7.5),
/// FP16 at twice FP32 (PG throughput table: 128 FP16 results per clock per SM). Tensor peaks are
/// unknown: GeForce boards run FP32-accumulate HMMA at a rate no reference file gives.
#[allow(clippy::too_many_arguments)]
fn geforce(
    name: &str,
    aliases: &[&str],
    sms: u32,
    clock_mhz: f64,
    mem_mhz: f64,
    bus_bits: f64,
    l2_bytes: u64,
    l2_slices: u32,
    base_clock_hz: f64,
) -> DeviceSpec {
    let clock = mhz(clock_mhz);
    let sms_f = f64::from(sms);
    DeviceSpec {
        name: name.into(),
        aliases: names(aliases),
        cc: ComputeCapability::new(7, 5),
        sm_count: sms,
        sm_clock_hz: clock,
        mem_clock_hz: mhz(mem_mhz),
        // 2 × memory clock × bus width / 8 (module docs).
        dram_bandwidth: 2.0 * mhz(mem_mhz) * bus_bits / 8.0,
        l2_bytes,
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of these products).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 424.0, // the 7.5 arch's latencies.dram (LAT §3)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices,
        tensor_clock_hz: clock, // the SM clock
        base_clock_hz,
        peak: PeakFlops {
            fp32: sms_f * 64.0 * 2.0 * clock,
            fp64: sms_f * 2.0 * 2.0 * clock,
            fp16: sms_f * 128.0 * 2.0 * clock,
            ..UNKNOWN_PEAK
        },
    }
}

/// All Turing devices.
pub fn devices() -> Vec<DeviceSpec> {
    let mut all = vec![DeviceSpec {
        name: "Tesla T4".into(),
        aliases: names(&["NVIDIA T4", "T4", "NVIDIA Tesla T4"]),
        cc: ComputeCapability::new(7, 5),
        sm_count: 40,                    // DEV; ATTR multiprocessor_count 40
        sm_clock_hz: mhz(1590.0),        // DEV; ATTR clock_rate 1,590,000 kHz
        mem_clock_hz: mhz(5001.0),       // ATTR memory_clock_rate 5,001,000 kHz (256-bit bus)
        dram_bandwidth: gb_per_s(320.0), // DEV (T4 datasheet); ATTR formula 320.0 GB/s
        l2_bytes: mib(4),                // DEV (TU104: 4 MB); ATTR l2_cache_size 4,194,304
        l2_bandwidth: f64::NAN,
        // Time-model constants: documented defaults (no measurement of this product).
        dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION, // UNCERTAIN: SPEC §2.2 default
        dram_latency_cycles: 424.0, // the 7.5 arch's latencies.dram (LAT §3)
        l2_achievable_bandwidth: f64::NAN, // unknown (SPEC §2.2: measure like LAT §5)
        l2_slices: 32,              // ATTR l2s_count 32
        tensor_clock_hz: mhz(1590.0), // the SM clock (the tensor rates were derived at it)
        // UNCERTAIN: T4 datasheet, recalled. The T4 reports (ATTR), made at ncu's default base clock,
        // read 530-575 MHz on launches of under 0.1 M cycles (short launches read low).
        base_clock_hz: mhz(585.0),
        peak: PeakFlops {
            fp32: tflops(8.1),         // DEV
            fp64: tflops(0.25),        // DEV (derived there: 40 × 2 × 2 × 1.59 GHz)
            fp16_tensor: tflops(65.0), // DEV (mixed precision, dense)
            ..UNKNOWN_PEAK
        },
    }];
    all.extend([
        // ATTR (CudaCode__dot_product): 22 SMs, 1815 MHz, 7001 MHz × 192 bit = 336 GB/s (the
        // datasheet's 336 GB/s), L2 1.5 MiB in 12 slices. TU116: no tensor cores. Base clock
        // 1530 MHz: NVIDIA product page (recalled), the SM frequency ncu ran the reports at.
        geforce(
            "NVIDIA GeForce GTX 1660 SUPER",
            &["GeForce GTX 1660 SUPER", "GTX 1660 SUPER"],
            22,
            1815.0,
            7001.0,
            192.0,
            1_572_864,
            12,
            mhz(1530.0),
        ),
        // ATTR (GPU_Power_Model__PS1_100_profile): 34 SMs, 1650 MHz, 7001 MHz × 256 bit =
        // 448 GB/s (the datasheet's 448 GB/s), L2 4 MiB in 32 slices. Base clock 1470 MHz: NVIDIA
        // product page (recalled), the SM frequency ncu ran the reports at.
        geforce(
            "NVIDIA GeForce RTX 2060 SUPER",
            &["GeForce RTX 2060 SUPER", "RTX 2060 SUPER"],
            34,
            1650.0,
            7001.0,
            256.0,
            4_194_304,
            32,
            mhz(1470.0),
        ),
        // ATTR (COALDA__rgb_correct): a laptop part whose clocks vary by OEM, so the driver's
        // numbers: 14 SMs, 1575 MHz, 5001 MHz × 64 bit = 80 GB/s, L2 512 KiB in 4 slices. TU117:
        // no tensor cores. Base clock: OEM-dependent, unknown.
        geforce(
            "NVIDIA GeForce MX450",
            &["GeForce MX450", "MX450"],
            14,
            1575.0,
            5001.0,
            64.0,
            524_288,
            4,
            f64::NAN,
        ),
    ]);
    all
}
