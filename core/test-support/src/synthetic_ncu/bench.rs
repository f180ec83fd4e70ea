//! Large synthetic Nsight Compute exports for the ingest benchmark: the details and raw pages of
//! many launches of a few kernels with a realistic metric set.

use std::io::{self, Write};

use super::*;

/// Long templated kernel names with commas, like real PyTorch / CUTLASS launches.
const BENCH_KERNELS: &[&str] = &[
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>>(int, T2, T3)",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_bf16_128x128_32x4_tn_align8, cutlass::gemm::GemmUniversalMode, 3>(T1::Params)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(T3)",
    "enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 0, 1, 1, 0, 7, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, float>>(T13)",
];

/// Formats a number with thousands separators and two decimals, like older ncu details output.
pub(crate) fn thousands(value: f64) -> String {
    let text = format!("{value:.2}");
    let (int, frac) = text.split_once('.').unwrap_or((&text, "00"));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}.{frac}")
}

/// The metrics of a synthetic benchmark launch: (section, name, unit).
fn bench_metrics() -> Vec<(&'static str, String, &'static str)> {
    let mut m: Vec<(&'static str, String, &'static str)> = vec![
        (
            "GPU Speed Of Light Throughput",
            "DRAM Frequency".into(),
            "Ghz",
        ),
        (
            "GPU Speed Of Light Throughput",
            "SM Frequency".into(),
            "Ghz",
        ),
        (
            "GPU Speed Of Light Throughput",
            "Elapsed Cycles".into(),
            "cycle",
        ),
        (
            "GPU Speed Of Light Throughput",
            "Memory Throughput".into(),
            "%",
        ),
        (
            "GPU Speed Of Light Throughput",
            "DRAM Throughput".into(),
            "%",
        ),
        ("GPU Speed Of Light Throughput", "Duration".into(), "us"),
        (
            "GPU Speed Of Light Throughput",
            "L1/TEX Cache Throughput".into(),
            "%",
        ),
        (
            "GPU Speed Of Light Throughput",
            "L2 Cache Throughput".into(),
            "%",
        ),
        (
            "GPU Speed Of Light Throughput",
            "SM Active Cycles".into(),
            "cycle",
        ),
        (
            "GPU Speed Of Light Throughput",
            "Compute (SM) Throughput".into(),
            "%",
        ),
        ("Launch Statistics", "Block Size".into(), ""),
        ("Launch Statistics", "Grid Size".into(), ""),
        (
            "Launch Statistics",
            "Registers Per Thread".into(),
            "register/thread",
        ),
        (
            "Launch Statistics",
            "Shared Memory Configuration Size".into(),
            "Kbyte",
        ),
        (
            "Launch Statistics",
            "Driver Shared Memory Per Block".into(),
            "Kbyte/block",
        ),
        (
            "Launch Statistics",
            "Dynamic Shared Memory Per Block".into(),
            "byte/block",
        ),
        (
            "Launch Statistics",
            "Static Shared Memory Per Block".into(),
            "byte/block",
        ),
        ("Launch Statistics", "# SMs".into(), "SM"),
        ("Launch Statistics", "Threads".into(), "thread"),
        ("Launch Statistics", "Waves Per SM".into(), ""),
        ("Occupancy", "Block Limit SM".into(), "block"),
        ("Occupancy", "Block Limit Registers".into(), "block"),
        ("Occupancy", "Block Limit Shared Mem".into(), "block"),
        ("Occupancy", "Block Limit Warps".into(), "block"),
        (
            "Occupancy",
            "Theoretical Active Warps per SM".into(),
            "warp",
        ),
        ("Occupancy", "Theoretical Occupancy".into(), "%"),
        ("Occupancy", "Achieved Occupancy".into(), "%"),
        ("Occupancy", "Achieved Active Warps Per SM".into(), "warp"),
        (
            "Memory Workload Analysis",
            "Memory Throughput".into(),
            "Gbyte/s",
        ),
        ("Memory Workload Analysis", "L1/TEX Hit Rate".into(), "%"),
        ("Memory Workload Analysis", "L2 Hit Rate".into(), "%"),
        ("Memory Workload Analysis", "Mem Busy".into(), "%"),
        ("Scheduler Statistics", "One or More Eligible".into(), "%"),
        (
            "Scheduler Statistics",
            "Issued Warp Per Scheduler".into(),
            "",
        ),
        (
            "Warp State Statistics",
            "Warp Cycles Per Issued Instruction".into(),
            "cycle",
        ),
    ];
    for op in [
        "fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma",
    ] {
        m.push((
            "Command line profiler metrics",
            format!("sm__sass_thread_inst_executed_op_{op}_pred_on.sum"),
            "inst",
        ));
    }
    for name in [
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "lts__t_bytes.sum",
        "l1tex__t_bytes.sum",
    ] {
        m.push(("Command line profiler metrics", name.into(), "Mbyte"));
    }
    m.push((
        "Command line profiler metrics",
        "sm__inst_executed_pipe_tensor.sum".into(),
        "inst",
    ));
    m.push((
        "Command line profiler metrics",
        "gpu__time_duration.sum".into(),
        "us",
    ));
    m.push((
        "Command line profiler metrics",
        "sm__cycles_elapsed.avg".into(),
        "cycle",
    ));
    m.push((
        "Command line profiler metrics",
        "sm__cycles_elapsed.avg.per_second".into(),
        "Ghz",
    ));
    m
}

/// How the launch configurations of a synthetic export vary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchShapes {
    /// As in a training step: each kernel has its own block, registers and shared memory, and
    /// four grid sizes (a few dozen configurations in all).
    PerKernel,
    /// The worst case for per-configuration work: grid, registers and shared memory drawn at
    /// random for every launch.
    EveryLaunch,
}

/// The fixed launch configuration of kernel `k` under [`LaunchShapes::PerKernel`]: registers,
/// static and dynamic shared memory (bytes).
fn kernel_shape(k: usize) -> (u64, u64, u64) {
    const SHAPES: [(u64, u64, u64); 4] = [
        (32, 0, 0),
        (168, 16_384, 32_768),
        (40, 4_096, 0),
        (96, 0, 8_192),
    ];
    SHAPES[k % SHAPES.len()]
}

/// Writes a synthetic details export of at least `target_bytes`; returns (bytes, launches).
pub fn write_bench_details(
    out: &mut impl Write,
    target_bytes: u64,
    seed: u64,
    shapes: LaunchShapes,
) -> io::Result<(u64, u64)> {
    let mut rng = SplitMix::new(seed);
    let metrics = bench_metrics();
    let mut written = 0u64;
    let mut id = 0u64;
    let mut line = String::with_capacity(1 << 16);
    line.push_str("==PROF== Connected to process 4242 (/usr/bin/python3.12)\n");
    line.push_str(DETAILS_HEADER);
    while written < target_bytes {
        let k = (rng.next_u64() % BENCH_KERNELS.len() as u64) as usize;
        let kernel = BENCH_KERNELS[k];
        let grid = match shapes {
            LaunchShapes::PerKernel => [132, 528, 1_024, 4_096][(rng.next_u64() % 4) as usize],
            LaunchShapes::EveryLaunch => 1 + rng.next_u64() % 8192,
        };
        let (registers, static_smem, dynamic_smem) = kernel_shape(k);
        let prefix = format!(
            "\"{id}\",\"4242\",\"python3.12\",\"127.0.0.1\",{},\"1\",\"7\",\"(256, 1, 1)\",\"({grid}, 1, 1)\",\"0\",\"9.0\"",
            quote(kernel),
        );
        for (section, name, unit) in &metrics {
            // Launch-configuration values stay within what ingest accepts (a real GPU's
            // limits); counters and times are free.
            let value = match (name.as_str(), *unit) {
                ("Block Size", _) => "256".to_string(),
                ("Grid Size", _) => format!("{}", grid * 256),
                ("# SMs", _) => "132".to_string(),
                ("Shared Memory Configuration Size", _) => "233.47".to_string(),
                ("Driver Shared Memory Per Block", _) => "1.02".to_string(),
                ("Registers Per Thread", _) if shapes == LaunchShapes::PerKernel => {
                    registers.to_string()
                }
                ("Static Shared Memory Per Block", _) if shapes == LaunchShapes::PerKernel => {
                    static_smem.to_string()
                }
                ("Dynamic Shared Memory Per Block", _) if shapes == LaunchShapes::PerKernel => {
                    dynamic_smem.to_string()
                }
                (_, "byte/block") => format!("{}", 256 * (rng.next_u64() % 192)),
                (_, unit) => match unit {
                    "%" => format!("{:.2}", rng.unit() * 100.0),
                    "register/thread" | "block" | "SM" | "warp" => {
                        format!("{}", 1 + rng.next_u64() % 128)
                    }
                    _ => thousands(rng.unit() * 1e7),
                },
            };
            line.push_str(&format!(
                "{prefix},{},{},{},{},\n",
                quote(section),
                quote(name),
                quote(unit),
                quote(&value)
            ));
        }
        line.push_str(&format!(
            "{prefix},\"SpeedOfLight\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\",\"This kernel exhibits low compute throughput and memory bandwidth utilization relative to the peak performance of this device.\nLook at the \"\"Launch Statistics\"\" section, then the \"\"Occupancy\"\" section.\",\"global\",\"{:.2}\"\n",
            rng.unit() * 100.0
        ));
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        line.clear();
        id += 1;
    }
    Ok((written, id))
}

/// Writes a synthetic raw-page export of at least `target_bytes` with `columns` metric columns;
/// returns (bytes, launches).
pub fn write_bench_raw(
    out: &mut impl Write,
    target_bytes: u64,
    columns: usize,
    seed: u64,
) -> io::Result<(u64, u64)> {
    let mut rng = SplitMix::new(seed);
    let mut names: Vec<String> = vec![
        "device__attribute_display_name".into(),
        "device__attribute_multiprocessor_count".into(),
        "dram__bytes_read.sum".into(),
        "dram__bytes_write.sum".into(),
        "gpu__time_duration.sum".into(),
        "launch__block_size".into(),
        "launch__grid_size".into(),
        "launch__registers_per_thread".into(),
        "launch__shared_mem_config_size".into(),
        "sm__cycles_elapsed.avg".into(),
        "sm__cycles_elapsed.avg.per_second".into(),
        "sm__maximum_warps_per_active_cycle_pct".into(),
    ];
    let mut k = 0;
    while names.len() < columns {
        names.push(format!(
            "smsp__pcsamp_warps_issue_stalled_{k}.sum.pct_of_peak_sustained_active"
        ));
        k += 1;
    }
    names.sort();
    let mut header = String::from(
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\"",
    );
    let mut units = String::from("\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"");
    for name in &names {
        header.push_str(&format!(",{}", quote(name)));
        let unit = match name.as_str() {
            "dram__bytes_read.sum" | "dram__bytes_write.sum" | "launch__shared_mem_config_size" => {
                "Kbyte"
            }
            "gpu__time_duration.sum" => "usecond",
            "sm__cycles_elapsed.avg.per_second" => "cycle/nsecond",
            "sm__cycles_elapsed.avg" => "cycle",
            n if n.contains("pct") => "%",
            _ => "",
        };
        units.push_str(&format!(",{}", quote(unit)));
    }
    let mut line = format!("{header}\n{units}\n");
    let mut written = 0u64;
    let mut id = 0u64;
    while written < target_bytes {
        let kernel = BENCH_KERNELS[(rng.next_u64() % BENCH_KERNELS.len() as u64) as usize];
        line.push_str(&format!(
            "\"{id}\",\"4242\",\"python3.12\",\"127.0.0.1\",{},\"2020-Apr-09 15:38:19\",\"1\",\"7\"",
            quote(kernel)
        ));
        for name in &names {
            let value = match name.as_str() {
                "device__attribute_display_name" => "NVIDIA H100 80GB HBM3".to_string(),
                n if n.ends_with("_0.sum.pct_of_peak_sustained_active") => {
                    "32.00; 32.00; 0.00; 16.00".to_string()
                }
                _ => thousands(rng.unit() * 1e5),
            };
            line.push_str(&format!(",{}", quote(&value)));
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        line.clear();
        id += 1;
    }
    Ok((written, id))
}

/// The records of CSV `text` in order, each without its line terminator: a `\n` ends a record
/// only after an even number of `"` since the record's start (a quoted field may hold newlines,
/// as ncu's rule texts do). A final record without a terminator is kept.
fn csv_records(text: &str) -> Vec<&str> {
    let mut records = Vec::new();
    let mut start = 0usize;
    let mut quoted = false;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => {
                records.push(text[start..i].strip_suffix('\r').unwrap_or(&text[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < text.len() {
        records.push(&text[start..]);
    }
    records
}

/// The launch id of a details record (`"<digits>",...`) and the record after the id's field.
fn split_launch_id(record: &str) -> Option<(u64, &str)> {
    let rest = record.strip_prefix('"')?;
    let end = rest.find('"')?;
    let id = rest[..end].parse().ok()?;
    Some((id, &rest[end + 1..]))
}

/// Amplifies a real details page (`source`, the file's text) to at least `target_bytes`: its
/// header once, then its launch records again and again, each copy's launch ids shifted past the
/// previous copy's, so that every launch keeps its own id and its records stay one block. Noise
/// lines (application output, `==PROF==` lines) are dropped. Returns (bytes, launches), or an
/// `InvalidData` error when `source` has no details header or no launch record.
pub fn amplify_details(
    out: &mut impl Write,
    source: &str,
    target_bytes: u64,
) -> io::Result<(u64, u64)> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    let records = csv_records(source);
    let header_at = records
        .iter()
        .position(|r| r.starts_with("\"ID\",\"Process ID\""))
        .ok_or_else(|| invalid("no Nsight Compute details header"))?;
    let body: Vec<(u64, &str)> = records[header_at + 1..]
        .iter()
        .filter_map(|r| split_launch_id(r))
        .collect();
    let stride = body
        .iter()
        .map(|(id, _)| id + 1)
        .max()
        .ok_or_else(|| invalid("no launch record after the header"))?;
    let per_copy = body
        .iter()
        .map(|(id, _)| *id)
        .collect::<std::collections::BTreeSet<u64>>()
        .len() as u64;
    let mut copy_text = String::new();
    let header = format!("{}\n", records[header_at]);
    out.write_all(header.as_bytes())?;
    let mut written = header.len() as u64;
    let mut copies = 0u64;
    while written < target_bytes {
        copy_text.clear();
        for (id, rest) in &body {
            copy_text.push_str(&format!("\"{}\"{rest}\n", id + copies * stride));
        }
        out.write_all(copy_text.as_bytes())?;
        written += copy_text.len() as u64;
        copies += 1;
    }
    Ok((written, copies * per_copy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amplified_pages_shift_each_copys_ids_and_keep_rule_texts() -> io::Result<()> {
        let page = concat!(
            "==PROF== Connected\n",
            "\"ID\",\"Process ID\",\"Section Name\",\"Rule Description\"\r\n",
            "\"0\",\"1\",\"S\",\"\"\n",
            "\"2\",\"1\",\"S\",\"see \"\"Occupancy\"\",\nthen tune\"\n",
            "==PROF== Disconnected\n",
        );
        let mut out = Vec::new();
        let (bytes, launches) = amplify_details(&mut out, page, 250)?;
        let text = String::from_utf8(out).map_err(|e| invalid_data(&e.to_string()))?;
        assert_eq!(bytes, text.len() as u64);
        let records = csv_records(&text);
        assert_eq!(
            records[0],
            "\"ID\",\"Process ID\",\"Section Name\",\"Rule Description\""
        );
        let ids: Vec<u64> = records[1..]
            .iter()
            .filter_map(|r| split_launch_id(r).map(|(id, _)| id))
            .collect();
        assert_eq!(ids.len(), records.len() - 1);
        assert_eq!(&ids[..4], [0, 2, 3, 5]);
        assert_eq!(launches, ids.len() as u64);
        assert!(text.contains("\"5\",\"1\",\"S\",\"see \"\"Occupancy\"\",\nthen tune\"\n"));
        assert!(amplify_details(&mut Vec::new(), "no header\n", 10).is_err());
        Ok(())
    }

    fn invalid_data(what: &str) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, what.to_string())
    }
}
