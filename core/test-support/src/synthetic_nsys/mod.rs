//! Synthetic Nsight Systems exports for tests and benchmarks, written from the documented schema
//! (`docs/trace-schema.md`, `FORMATS.md` §3): a `cuda_gpu_trace` CSV, a SQLite export (old 2023
//! schema or new 2025 schema) and `parquetdir` / `arrowdir` exports, all for the same N launches.
//!
//! Every value is a pure function of the launch index ([`launch`], [`transfer`]), so a test can
//! compute what a reader must return for any row without reading the file back another way.
//! No real nsys Parquet/Arrow export exists in the corpus; these fixtures stand in for one.

use std::io::{BufWriter, Write};
use std::path::Path;

use polars::prelude::*;

/// Which nsys export schema to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// nsys ≈2023 (export schema 3.1.x): `EXPORT_META_DATA`, 27 kernel columns, no enum tables,
    /// no memset table; Arrow strings as `LargeUtf8` and 32-bit launch dimensions.
    Old,
    /// nsys 2025+ (export schema 3.24): `META_DATA_EXPORT`, 38 kernel columns (greenContextId,
    /// cluster columns), enum tables and a memset table; Arrow strings as `Utf8View`.
    New,
}

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct SyntheticConfig {
    /// Number of kernel launches.
    pub launches: usize,
    /// One memcpy after every `memcpy_every` launches (0: none); every other one of them a
    /// memset in the CSV and in the new schema.
    pub memcpy_every: usize,
    /// Export schema (SQLite, Parquet, Arrow).
    pub schema: Schema,
}

impl Default for SyntheticConfig {
    fn default() -> Self {
        SyntheticConfig {
            launches: 1000,
            memcpy_every: 10,
            schema: Schema::New,
        }
    }
}

/// A kernel the generator launches.
#[derive(Debug, Clone, Copy)]
pub struct SyntheticKernel {
    /// Demangled name as nsys prints it.
    pub demangled: &'static str,
    /// nsys `shortName`.
    pub short: &'static str,
    /// Mangled name.
    pub mangled: &'static str,
    /// Registers per thread.
    pub registers: i64,
    /// Block dimensions.
    pub block: [i64; 3],
    /// Static shared memory per block, bytes (a multiple of 1000 so that the CSV's decimal MB
    /// prints it exactly with three decimals).
    pub static_smem: i64,
    /// Dynamic shared memory per block, bytes (multiple of 1000 as above).
    pub dynamic_smem: i64,
    /// Typical duration, ns.
    pub base_duration_ns: i64,
}

/// The kernels launched, in turn; names in the shapes real exports have (templates with commas,
/// lambdas, plain C names).
pub const KERNELS: &[SyntheticKernel] = &[
    SyntheticKernel {
        demangled: "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(T1::Params)",
        short: "Kernel2",
        mangled: "_ZN7cutlass7Kernel2I56cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8EEvNT_6ParamsE",
        registers: 128,
        block: [128, 1, 1],
        static_smem: 0,
        dynamic_smem: 73_000,
        base_duration_ns: 7_900,
    },
    SyntheticKernel {
        demangled: "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, std::array<char *, (unsigned long)1>>(int, T2, T3)",
        short: "vectorized_elementwise_kernel",
        mangled: "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
        registers: 16,
        block: [128, 1, 1],
        static_smem: 0,
        dynamic_smem: 0,
        base_duration_ns: 1_900,
    },
    SyntheticKernel {
        demangled: "kernVectorAdd(const float *, const float *, float *, int)",
        short: "kernVectorAdd",
        mangled: "_Z13kernVectorAddPKfS0_Pfi",
        registers: 16,
        block: [256, 1, 1],
        static_smem: 0,
        dynamic_smem: 0,
        base_duration_ns: 38_900,
    },
    SyntheticKernel {
        demangled: "void flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)64, (int)64, (int)4, false, false, cutlass::half_t>, false, true>(Flash_fwd_params)",
        short: "flash_fwd_kernel",
        mangled: "_Z16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi64ELi64ELi4ELb0ELb0EN7cutlass6half_tEELb0ELb1EEv16Flash_fwd_params",
        registers: 255,
        block: [128, 1, 1],
        static_smem: 0,
        dynamic_smem: 49_000,
        base_duration_ns: 120_000,
    },
    SyntheticKernel {
        demangled: "scale",
        short: "scale",
        mangled: "scale",
        registers: 22,
        block: [1024, 1, 1],
        static_smem: 19_000,
        dynamic_smem: 0,
        base_duration_ns: 1_400,
    },
    SyntheticKernel {
        demangled: "void transpose<float, (int)32, (int)8>(float *, const float *, int, int)",
        short: "transpose",
        mangled: "_Z9transposeIfLi32ELi8EEvPfPKfii",
        registers: 30,
        block: [32, 8, 1],
        static_smem: 4_000,
        dynamic_smem: 0,
        base_duration_ns: 9_600,
    },
];

/// The GPU all launches run on.
#[derive(Debug, Clone, Copy)]
pub struct SyntheticGpu {
    /// Device name.
    pub name: &'static str,
    /// Device ordinal (`deviceId`).
    pub id: i64,
    /// SM count.
    pub sm_count: i64,
    /// SM clock, Hz.
    pub clock_hz: i64,
    /// Compute capability.
    pub cc: (i64, i64),
    /// `maxShmemPerSm`, bytes.
    pub max_shmem_per_sm: i64,
    /// `maxShmemPerBlockOptin`, bytes.
    pub max_shmem_per_block_optin: i64,
    /// `maxRegistersPerSm`.
    pub max_registers_per_sm: i64,
    /// `maxWarpsPerSm`.
    pub max_warps_per_sm: i64,
    /// `maxBlocksPerSm`.
    pub max_blocks_per_sm: i64,
    /// `memoryBandwidth`, bytes per second.
    pub memory_bandwidth: i64,
}

/// An H100 SXM5 (132 SMs, 1.98 GHz, CC 9.0, 228 KiB shared memory per SM).
pub const GPU: SyntheticGpu = SyntheticGpu {
    name: "NVIDIA H100 80GB HBM3",
    id: 0,
    sm_count: 132,
    clock_hz: 1_980_000_000,
    cc: (9, 0),
    max_shmem_per_sm: 233_472,
    max_shmem_per_block_optin: 232_448,
    max_registers_per_sm: 65_536,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    memory_bandwidth: 3_352_320_000_000,
};

/// The traced process: pid and name.
pub const PROCESS: (i64, &str) = (4242, "python3.12");

/// `globalPid` of [`PROCESS`] (nsys encodes the pid in bits 24..48).
pub fn global_pid() -> i64 {
    (1i64 << 48) + (PROCESS.0 << 24)
}

/// One launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticLaunch {
    /// Index into [`KERNELS`].
    pub kernel: usize,
    /// `correlationId` / `CorrId`.
    pub correlation_id: i64,
    /// Start, ns.
    pub start_ns: i64,
    /// Duration, ns.
    pub duration_ns: i64,
    /// Grid dimensions.
    pub grid: [i64; 3],
    /// Stream id.
    pub stream: i64,
    /// `sharedMemoryExecuted`, bytes.
    pub smem_executed: i64,
}

/// The grid widths launches cycle through (one wave of 132 SMs, a partial wave, many waves).
pub const GRID_WIDTHS: [i64; 3] = [132, 200, 4096];

/// Launch `i` (0-based).
pub fn launch(i: usize) -> SyntheticLaunch {
    let i64i = i as i64;
    let kernel = (i * 7 + i / 5) % KERNELS.len();
    let k = &KERNELS[kernel];
    SyntheticLaunch {
        kernel,
        correlation_id: 100 + 5 * i64i,
        start_ns: 1_000_000_000 + 50_000 * i64i,
        duration_ns: k.base_duration_ns + (i64i * 7919) % 997,
        // A training run repeats a few shapes per kernel: three grid widths and two heights.
        grid: [
            GRID_WIDTHS[(i / 11) % GRID_WIDTHS.len()],
            1 + (i64i / 13) % 2,
            1,
        ],
        stream: 7 + i64i % 3,
        smem_executed: if k.static_smem + k.dynamic_smem > 0 {
            233_472
        } else {
            8_192
        },
    }
}

/// One memcpy or memset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticTransfer {
    /// memset (true) or memcpy.
    pub is_memset: bool,
    /// `ENUM_CUDA_MEMCPY_OPER` id (1 HtoD, 2 DtoH) for a memcpy.
    pub copy_kind: i64,
    /// Bytes (a multiple of 1000 so that the CSV's decimal MB prints it exactly).
    pub bytes: i64,
    /// Start, ns (between two launches).
    pub start_ns: i64,
    /// Duration, ns.
    pub duration_ns: i64,
    /// `correlationId`.
    pub correlation_id: i64,
}

/// The transfers of a configuration, in start order: transfer `j` follows launch
/// `(j + 1) * memcpy_every - 1`.
pub fn transfers(config: &SyntheticConfig) -> Vec<SyntheticTransfer> {
    if config.memcpy_every == 0 {
        return Vec::new();
    }
    let count = config.launches / config.memcpy_every;
    (0..count).map(|j| transfer(config, j)).collect()
}

/// Transfer `j` of a configuration with `memcpy_every > 0`.
pub fn transfer(config: &SyntheticConfig, j: usize) -> SyntheticTransfer {
    let after = (j + 1) * config.memcpy_every.max(1) - 1;
    let launch = launch(after);
    let memsets = config.schema == Schema::New;
    SyntheticTransfer {
        is_memset: memsets && j % 2 == 1,
        copy_kind: if j % 4 == 2 { 2 } else { 1 },
        bytes: 131_000 * (1 + (j as i64) % 8),
        start_ns: launch.start_ns + 30_000,
        duration_ns: 5_000 + (j as i64 * 13) % 100,
        correlation_id: launch.correlation_id + 1,
    }
}

/// Why writing a fixture failed.
#[derive(Debug, thiserror::Error)]
pub enum SyntheticError {
    /// File system error.
    #[error("cannot write the synthetic export")]
    Io(#[from] std::io::Error),
    /// SQLite error.
    #[error("cannot write the synthetic SQLite export")]
    Sqlite(#[from] rusqlite::Error),
    /// polars error (Parquet / Arrow).
    #[error("cannot write the synthetic Parquet/Arrow export")]
    Polars(#[from] PolarsError),
}

/// Writes a `cuda_gpu_trace` CSV (2024.5+ header with `GreenCtx`), with an `nsys stats` preamble
/// before the header, kernel names quoted when they hold commas, and memcpy/memset rows between
/// the launches.
pub fn write_gpu_trace_csv(path: &Path, config: &SyntheticConfig) -> Result<(), SyntheticError> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(
        out,
        "Processing [report.sqlite] with [/opt/nvidia/nsight-systems/2025.5.2/host-linux-x64/reports/cuda_gpu_trace.py]... "
    )?;
    writeln!(
        out,
        "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name"
    )?;
    let names: Vec<String> = KERNELS.iter().map(|k| csv_quote(k.demangled)).collect();
    let device = format!("{} ({})", GPU.name, GPU.id);
    let every = config.memcpy_every;
    for i in 0..config.launches {
        let l = launch(i);
        let k = &KERNELS[l.kernel];
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},,,,,{device},1,,{},{}",
            l.start_ns,
            l.duration_ns,
            l.correlation_id,
            l.grid[0],
            l.grid[1],
            l.grid[2],
            k.block[0],
            k.block[1],
            k.block[2],
            k.registers,
            k.static_smem as f64 / 1e6,
            k.dynamic_smem as f64 / 1e6,
            l.stream,
            names[l.kernel],
        )?;
        if every > 0 && (i + 1) % every == 0 {
            let t = transfer(config, (i + 1) / every - 1);
            let throughput = t.bytes as f64 * 1e9 / t.duration_ns as f64 / 1e6;
            let (src, dst, name) = if t.is_memset {
                ("Device", "", "[CUDA memset]".to_string())
            } else if t.copy_kind == 2 {
                (
                    "Device",
                    "Pinned",
                    "[CUDA memcpy Device-to-Host]".to_string(),
                )
            } else {
                (
                    "Pinned",
                    "Device",
                    "[CUDA memcpy Host-to-Device]".to_string(),
                )
            };
            writeln!(
                out,
                "{},{},{},,,,,,,,,,{:.3},{:.3},{src},{dst},{device},1,,15,{name}",
                t.start_ns,
                t.duration_ns,
                t.correlation_id,
                t.bytes as f64 / 1e6,
                throughput,
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Quotes a CSV field when it needs it (nsys's minimal quoting).
fn csv_quote(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// String ids: kernel names get ids 1000 + 3k (demangled), +1 (short), +2 (mangled).
fn string_id(kernel: usize, which: i64) -> i64 {
    1000 + 3 * kernel as i64 + which
}

/// The kernel table's columns for a schema, in export order.
fn kernel_columns(schema: Schema) -> Vec<&'static str> {
    let mut columns = vec!["start", "end", "deviceId", "contextId"];
    if schema == Schema::New {
        columns.push("greenContextId");
    }
    columns.extend([
        "streamId",
        "correlationId",
        "globalPid",
        "demangledName",
        "shortName",
        "mangledName",
        "launchType",
        "cacheConfig",
        "registersPerThread",
        "gridX",
        "gridY",
        "gridZ",
        "blockX",
        "blockY",
        "blockZ",
        "staticSharedMemory",
        "dynamicSharedMemory",
        "localMemoryPerThread",
        "localMemoryTotal",
        "gridId",
        "sharedMemoryExecuted",
        "graphNodeId",
        "sharedMemoryLimitConfig",
    ]);
    if schema == Schema::New {
        columns.extend([
            "qmdBulkReleaseDone",
            "qmdPreexitDone",
            "qmdLastCtaDone",
            "graphId",
            "clusterX",
            "clusterY",
            "clusterZ",
            "clusterSchedulingPolicy",
            "maxPotentialClusterSize",
            "maxActiveClusters",
        ]);
    }
    columns
}

/// The value of kernel-table column `column` for launch `i` (`None` = NULL).
fn kernel_value(column: &str, i: usize) -> Option<i64> {
    let l = launch(i);
    let k = &KERNELS[l.kernel];
    Some(match column {
        "start" => l.start_ns,
        "end" => l.start_ns + l.duration_ns,
        "deviceId" => GPU.id,
        "contextId" => 1,
        "greenContextId" => 0,
        "streamId" => l.stream,
        "correlationId" => l.correlation_id,
        "globalPid" => global_pid(),
        "demangledName" => string_id(l.kernel, 0),
        "shortName" => string_id(l.kernel, 1),
        "mangledName" => string_id(l.kernel, 2),
        "launchType" => 1,
        "cacheConfig" => 0,
        "registersPerThread" => k.registers,
        "gridX" => l.grid[0],
        "gridY" => l.grid[1],
        "gridZ" => l.grid[2],
        "blockX" => k.block[0],
        "blockY" => k.block[1],
        "blockZ" => k.block[2],
        "staticSharedMemory" => k.static_smem,
        "dynamicSharedMemory" => k.dynamic_smem,
        "localMemoryPerThread" => 0,
        "localMemoryTotal" => 24_772_608,
        "gridId" => i as i64 + 1,
        "sharedMemoryExecuted" => l.smem_executed,
        "graphNodeId" | "qmdBulkReleaseDone" | "qmdPreexitDone" | "qmdLastCtaDone" | "graphId" => {
            return None;
        }
        "sharedMemoryLimitConfig" => 0,
        "clusterX" | "clusterY" | "clusterZ" => (l.kernel == 3) as i64 * 2,
        "clusterSchedulingPolicy" | "maxPotentialClusterSize" | "maxActiveClusters" => 0,
        _ => return None,
    })
}

/// `TARGET_INFO_GPU` columns and values (the old schema lacks `chipName`).
fn gpu_row(schema: Schema) -> Vec<(&'static str, Option<i64>, Option<&'static str>)> {
    let mut row = vec![
        ("id", Some(GPU.id), None),
        ("name", None, Some(GPU.name)),
        ("busLocation", None, Some("0000:18:00.0")),
        ("l2CacheSize", Some(52_428_800), None),
        ("totalMemory", Some(85_520_809_984), None),
        ("memoryBandwidth", Some(GPU.memory_bandwidth), None),
        ("clockRate", Some(GPU.clock_hz), None),
        ("smCount", Some(GPU.sm_count), None),
        ("maxRegistersPerBlock", Some(65_536), None),
        ("maxShmemPerBlock", Some(49_152), None),
        (
            "maxShmemPerBlockOptin",
            Some(GPU.max_shmem_per_block_optin),
            None,
        ),
        ("maxShmemPerSm", Some(GPU.max_shmem_per_sm), None),
        ("maxRegistersPerSm", Some(GPU.max_registers_per_sm), None),
        ("threadsPerWarp", Some(32), None),
        ("maxWarpsPerSm", Some(GPU.max_warps_per_sm), None),
        ("maxBlocksPerSm", Some(GPU.max_blocks_per_sm), None),
        ("maxThreadsPerBlock", Some(1024), None),
        ("computeMajor", Some(GPU.cc.0), None),
        ("computeMinor", Some(GPU.cc.1), None),
    ];
    if schema == Schema::New {
        row.push(("chipName", None, Some("GH100")));
    }
    row
}

const MEMCPY_COLUMNS: &[&str] = &[
    "start",
    "end",
    "deviceId",
    "contextId",
    "streamId",
    "correlationId",
    "globalPid",
    "bytes",
    "copyKind",
    "srcKind",
    "dstKind",
];
const MEMSET_COLUMNS: &[&str] = &[
    "start",
    "end",
    "deviceId",
    "contextId",
    "streamId",
    "correlationId",
    "globalPid",
    "value",
    "bytes",
    "memKind",
];

fn transfer_value(column: &str, t: &SyntheticTransfer) -> i64 {
    match column {
        "start" => t.start_ns,
        "end" => t.start_ns + t.duration_ns,
        "deviceId" => GPU.id,
        "contextId" => 1,
        "streamId" => 15,
        "correlationId" => t.correlation_id,
        "globalPid" => global_pid(),
        "bytes" => t.bytes,
        "copyKind" => t.copy_kind,
        // HtoD: Pinned -> Device; DtoH: Device -> Pinned (ENUM_CUDA_MEM_KIND 1 / 2).
        "srcKind" => {
            if t.copy_kind == 2 {
                2
            } else {
                1
            }
        }
        "dstKind" => {
            if t.copy_kind == 2 {
                1
            } else {
                2
            }
        }
        "memKind" => 2,
        _ => 0,
    }
}

/// `ENUM_CUDA_MEMCPY_OPER` and `ENUM_CUDA_MEM_KIND` rows written in the new schema.
const MEMCPY_OPER: &[(i64, &str, &str)] = &[
    (0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"),
    (1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
    (2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"),
    (8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"),
];
const MEM_KIND: &[(i64, &str, &str)] = &[
    (0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"),
    (1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
    (2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"),
];

mod export;
pub use export::*;
