//! Hopper GPU products. Sources, abbreviated in the comments:
//! - DEV: `/work/shared/reference/DEVICES.csv` (H100/H200 datasheets, H100 whitepaper, MT4G
//!   deviceProp dump);
//! - TRACE13: the `device__attribute_*` columns of
//!   `/work/shared/traces/moeresearch__R_short_decode_ncu_raw_full.csv` (an ncu raw page recorded on
//!   an H200; 132 SMs, clock 1980 MHz, as DEV).
//!
//! Names: the first is what ncu/nsys print (`NVIDIA <product>`), aliases cover other spellings.

use warpsight_plugin::{Cc, DeviceData, PeakDesc, UNKNOWN_PEAK, gb_per_s, mhz, mib, tflops};

/// SXM compute peaks (DEV H100 SXM5 and H200 rows, which agree).
const SXM_PEAK: PeakDesc = PeakDesc {
    fp32: tflops(66.9),         // DEV
    fp64: tflops(33.5),         // DEV
    fp64_tensor: tflops(66.9),  // DEV
    fp16_tensor: tflops(989.4), // DEV (dense)
    // UNCERTAIN: H100 datasheet FP8 3958 TF sparse = 1979 dense; not in DEV.
    fp8_tensor: tflops(1979.0),
    ..UNKNOWN_PEAK
};

/// A GH100 SXM board with the given bandwidth.
const fn sxm(name: &'static str, aliases: &'static [&'static str], dram_gb_s: f64) -> DeviceData {
    DeviceData {
        name,
        aliases,
        cc: Cc(9, 0),
        sm_count: 132,            // DEV
        sm_clock_hz: mhz(1980.0), // DEV (max boost, cudaDeviceProp.clockRate)
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gb_per_s(dram_gb_s),
        l2_bytes: mib(50), // DEV
        l2_bandwidth: f64::NAN,
        peak: SXM_PEAK,
    }
}

/// All Hopper devices.
pub fn devices() -> Vec<DeviceData> {
    vec![
        // DEV "H100 SXM5 80GB": 3350 GB/s. CUDA names it "NVIDIA H100 80GB HBM3" (MT4G dump).
        sxm(
            "NVIDIA H100 80GB HBM3",
            &["H100 SXM5 80GB", "NVIDIA H100 SXM5 80GB", "NVIDIA H100 SXM", "H100"],
            3350.0,
        ),
        // DEV "H200 SXM 141GB": 4800 GB/s; ncu prints "NVIDIA H200" (traces #13, #14).
        DeviceData {
            // TRACE13 device__attribute_l2_cache_size is 62914560 B (60 MiB); DEV's 50 MB is a
            // secondary "same as H100" assumption, so the driver's value is used.
            l2_bytes: 62_914_560,
            // TRACE13 device__attribute_memory_clock_rate 3,201,000 kHz.
            mem_clock_hz: mhz(3201.0),
            ..sxm(
                "NVIDIA H200",
                &["H200 SXM 141GB", "NVIDIA H200 SXM 141GB", "H200"],
                4800.0,
            )
        },
        DeviceData {
            name: "NVIDIA H100 PCIe",
            aliases: &["H100 PCIe 80GB", "NVIDIA H100 PCIe 80GB"],
            cc: Cc(9, 0),
            sm_count: 114,            // DEV
            sm_clock_hz: mhz(1755.0), // DEV (secondary listing)
            mem_clock_hz: f64::NAN,
            dram_bandwidth: gb_per_s(2000.0), // DEV
            l2_bytes: mib(50),                // DEV
            l2_bandwidth: f64::NAN,
            peak: PeakDesc {
                fp32: tflops(51.2),         // DEV
                fp64: tflops(25.6),         // DEV
                fp64_tensor: tflops(51.2),  // DEV
                fp16_tensor: tflops(756.5), // DEV
                ..UNKNOWN_PEAK
            },
        },
    ]
}
