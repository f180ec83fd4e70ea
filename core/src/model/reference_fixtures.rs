//! Hand-built architecture and device specs for tests, transcribed from the project's reference
//! tables (`ARCHS.csv`, `DEVICES.csv`, OCCUPANCY.md §2, LATENCIES.md) so that model tests do not
//! depend on the plugins being built. Not part of the public API.

use crate::arch::{
    ArchSpec, ComputeCapability, DeviceSpec, Latencies, PeakFlops, RegisterAllocation, Registry,
    Throughput,
};

/// (cc, max warps, max blocks, regs per block, sub-partitions, smem per SM, opt-in per block,
/// smem unit, reserved, carveouts in KiB, barrier multiplier, schedulers, issue per scheduler,
/// FP32 latency, DRAM latency)
type Row = (
    (u32, u32),
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    &'static [u32],
    u32,
    u32,
    u32,
    f64,
    f64,
);

const ROWS: &[Row] = &[
    ((3, 5), 64, 16, 65536, 4, 49152, 49152, 256, 0, &[16, 32, 48], 0, 4, 2, 9.0, 331.0),
    ((3, 7), 64, 16, 65536, 4, 114688, 49152, 256, 0, &[80, 96, 112], 0, 4, 2, 9.0, 331.0),
    ((5, 2), 64, 32, 65536, 4, 98304, 49152, 256, 0, &[96], 0, 4, 1, 6.0, 379.0),
    ((5, 3), 64, 32, 32768, 4, 65536, 49152, 256, 0, &[64], 0, 4, 1, 6.0, 379.0),
    ((6, 0), 64, 32, 65536, 2, 65536, 49152, 256, 0, &[64], 0, 2, 1, 6.0, 482.0),
    ((6, 1), 64, 32, 65536, 4, 98304, 49152, 256, 0, &[96], 0, 4, 1, 6.0, 482.0),
    ((6, 2), 64, 32, 32768, 4, 65536, 49152, 256, 0, &[64], 0, 4, 1, 6.0, 482.0),
    ((7, 0), 64, 32, 65536, 4, 98304, 98304, 256, 0, &[0, 8, 16, 32, 64, 96], 0, 4, 1, 4.0, 362.0),
    ((7, 5), 32, 16, 65536, 4, 65536, 65536, 256, 0, &[32, 64], 0, 4, 1, 4.0, 424.0),
    ((8, 0), 64, 32, 65536, 4, 167936, 166912, 128, 1024, &[0, 8, 16, 32, 64, 100, 132, 164], 0, 4, 1, 4.0, 290.0),
    ((8, 6), 48, 16, 65536, 4, 102400, 101376, 128, 1024, &[0, 8, 16, 32, 64, 100], 0, 4, 1, 4.0, 515.0),
    ((8, 9), 48, 24, 65536, 4, 102400, 101376, 128, 1024, &[0, 8, 16, 32, 64, 100], 0, 4, 1, 4.0, 541.5),
    ((9, 0), 64, 32, 65536, 4, 233472, 232448, 128, 1024, &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228], 2, 4, 1, 4.0, 478.8),
    ((10, 0), 64, 32, 65536, 4, 233472, 232448, 128, 1024, &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228], 2, 4, 1, 4.0, f64::NAN),
    ((12, 0), 48, 24, 65536, 4, 102400, 101376, 128, 1024, &[0, 8, 16, 32, 64, 100], 1, 4, 1, 4.0, f64::NAN),
];

fn arch_from_row(row: &Row) -> ArchSpec {
    let &((major, minor), max_warps, max_blocks, regs_per_block, parts, smem, optin, unit, reserved, carveouts_kib, k, scheds, issue, lat_fp32, lat_dram) = row;
    ArchSpec {
        cc: ComputeCapability::new(major, minor),
        name: format!("reference {major}.{minor}"),
        threads_per_warp: 32,
        max_warps_per_sm: max_warps,
        max_threads_per_sm: max_warps * 32,
        max_blocks_per_sm: max_blocks,
        max_threads_per_block: 1024,
        regs_per_sm: if (major, minor) == (3, 7) { 131072 } else { 65536 },
        max_regs_per_block: regs_per_block,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        reg_alloc_granularity: RegisterAllocation::Warp,
        sub_partitions: parts,
        smem_per_sm: smem,
        smem_per_block_default: 49152,
        smem_per_block_optin: optin,
        smem_alloc_unit: unit,
        smem_reserved_per_block: reserved,
        carveouts: carveouts_kib.iter().map(|k| k * 1024).collect(),
        barrier_multiplier: k,
        virtual_resources_per_sm: 0,
        partitioned_gc_supported: false,
        warp_schedulers_per_sm: scheds,
        issue_per_scheduler_per_clk: issue,
        latencies: Latencies {
            fp32: lat_fp32,
            int32: lat_fp32,
            fp64: f64::NAN,
            sfu: f64::NAN,
            tensor: f64::NAN,
            shared: f64::NAN,
            l1_hit: f64::NAN,
            l2_hit: f64::NAN,
            dram: lat_dram,
        },
        throughput: Throughput {
            fp32: f64::NAN,
            fp64: f64::NAN,
            fp16: f64::NAN,
            int32: f64::NAN,
            sfu: f64::NAN,
            tensor_fp16_flop: f64::NAN,
            tensor_bf16_flop: f64::NAN,
            tensor_tf32_flop: f64::NAN,
            tensor_fp8_flop: f64::NAN,
            tensor_int8_op: f64::NAN,
            tensor_fp64_flop: f64::NAN,
            flop_per_tensor_inst: 512.0,
            l1_bytes_per_clk: 128.0,
        },
    }
}

/// The reference architecture for a compute capability, if transcribed.
pub fn arch(major: u32, minor: u32) -> Option<ArchSpec> {
    ROWS.iter().find(|r| r.0 == (major, minor)).map(arch_from_row)
}

fn device(name: &str, aliases: &[&str], cc: (u32, u32), sms: u32, mhz: f64, gbs: f64, tflops: (f64, f64, f64)) -> DeviceSpec {
    DeviceSpec {
        name: name.to_string(),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
        cc: ComputeCapability::new(cc.0, cc.1),
        sm_count: sms,
        sm_clock_hz: mhz * 1e6,
        mem_clock_hz: f64::NAN,
        dram_bandwidth: gbs * 1e9,
        l2_bytes: 0,
        l2_bandwidth: f64::NAN,
        peak: PeakFlops {
            fp64: tflops.0 * 1e12,
            fp32: tflops.1 * 1e12,
            fp16: tflops.1 * 2e12,
            fp64_tensor: f64::NAN,
            tf32_tensor: f64::NAN,
            fp16_tensor: tflops.2 * 1e12,
            fp8_tensor: f64::NAN,
            int8_tensor: f64::NAN,
        },
    }
}

/// Reference devices from DEVICES.csv (peaks: FP64 vector, FP32, FP16/BF16 tensor dense).
pub fn devices() -> Vec<DeviceSpec> {
    vec![
        device("Tesla V100-SXM2-16GB", &["Tesla V100 SXM2"], (7, 0), 80, 1530.0, 900.0, (7.8, 15.7, 125.0)),
        device("NVIDIA A100-SXM4-40GB", &["A100 SXM4 40GB"], (8, 0), 108, 1410.0, 1555.0, (9.7, 19.5, 312.0)),
        device("NVIDIA GeForce RTX 4090", &[], (8, 9), 128, 2520.0, 1008.0, (1.29, 82.6, 165.2)),
        device("NVIDIA H100 80GB HBM3", &["H100 SXM5 80GB"], (9, 0), 132, 1980.0, 3350.0, (33.5, 66.9, 989.4)),
        device("NVIDIA H200", &["H200 SXM 141GB"], (9, 0), 132, 1980.0, 4800.0, (33.5, 66.9, 989.4)),
    ]
}

/// A registry holding every reference architecture and device.
pub fn registry() -> Registry {
    let provenance = crate::arch::Provenance {
        plugin: "reference-fixtures".to_string(),
        file: std::path::PathBuf::from("core/src/model/reference_fixtures.rs"),
    };
    Registry {
        archs: ROWS.iter().map(|r| (arch_from_row(r), provenance.clone())).collect(),
        devices: devices().into_iter().map(|d| (d, provenance.clone())).collect(),
    }
}
