//! Synthetic Nsight Compute exports, made by the project itself (no GPU involved):
//!
//! - [`sample_details_csv`]: the small H100 sample in `traces/synthetic/` (16 launches of six
//!   classic kernels). Its launch configurations are fixed and its `Block Limit *` /
//!   `Theoretical Occupancy` rows were computed by hand with the CUDA occupancy algorithm
//!   (`cuda_occupancy.h`, restated in the project's OCCUPANCY.md reference) for CC 9.0: 65536
//!   registers per SM in 4 sub-partitions, 256-register allocation per warp, 64 warps and 32 blocks
//!   per SM, 128-byte shared-memory unit, 1 KiB reserved per block, and ncu's `Shared Memory
//!   Configuration Size` as the SM shared capacity. The counters (bytes, instructions, durations)
//!   are plausible values derived from each kernel's problem size with a seeded jitter; they are
//!   not measurements.
//! - [`write_bench_details`] / [`write_bench_raw`]: large files shaped like real exports (variant
//!   D header, ragged metric rows, long templated kernel names with commas, thousands separators,
//!   52 metrics per launch, rule rows with embedded newlines; a raw page with a units row and `;`
//!   instance lists) for the ingest benchmark.

/// A small deterministic random generator (SplitMix64), so that outputs depend only on the seed.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `value` multiplied by a factor uniform in [1 - spread, 1 + spread].
    pub fn jitter(&mut self, value: f64, spread: f64) -> f64 {
        value * (1.0 + spread * (2.0 * self.unit() - 1.0))
    }
}

/// One kernel configuration of the sample, with its hand-computed occupancy.
struct SampleKernel {
    name: &'static str,
    block: [u32; 3],
    grid: [u32; 3],
    registers: u32,
    static_smem: u32,
    dynamic_smem: u32,
    /// ncu's `Shared Memory Configuration Size`, bytes (a CC 9.0 carveout).
    smem_config: u32,
    /// Block limits: registers, shared memory, warps, SM (hand-computed, see below).
    limits: [u32; 4],
    /// Theoretical active warps per SM = min(limits) × warps per block.
    theoretical_warps: u32,
    launches: u32,
    /// Per launch: (fadd, fmul, ffma, dadd, dmul, dfma, hadd, hmul, hfma, tensor) instructions.
    inst: [f64; 10],
    dram_read: f64,
    dram_write: f64,
    l2_bytes: f64,
    l1_bytes: f64,
    duration_ns: f64,
}

// Hand computation for CC 9.0 (warpsPB = ceil(threads / 32); perWarp = roundUp(regs * 32, 256);
// blocksByRegs = floor(floor(16384 / perWarp) * 4 / warpsPB); blocksByWarps = floor(64 / warpsPB);
// blocksBySmem = floor(config / roundUp(static + 1024 + dynamic, 128)); blocksBySM = 32):
// - vectorAdd: 256 thr, 16 regs: warpsPB 8, perWarp 512, 32 warps/sub-partition -> regs 128/8 = 16;
//   warps 64/8 = 8; smem 32768/1024 = 32; SM 32 -> 8 blocks, 64 warps, 100 %.
// - sgemm_tiled: 256 thr, 64 regs, 8192 B static: perWarp 2048, 8 warps/sub-partition -> regs 32/8 = 4;
//   warps 8; smem roundUp(9216) = 9216 -> 65536/9216 = 7; SM 32 -> 4 blocks, 32 warps, 50 %.
// - reduce_sum: 512 thr, 32 regs, 2048 B static: warpsPB 16, perWarp 1024, 16 warps/sub-partition ->
//   regs 64/16 = 4; warps 64/16 = 4; smem 32768/3072 = 10; SM 32 -> 4 blocks, 64 warps, 100 %.
// - transpose_tiled: 1024 thr, 24 regs, 4224 B static: warpsPB 32, perWarp 768, 21 warps/sub-partition
//   -> regs 84/32 = 2; warps 64/32 = 2; smem 32768/5248 = 6; SM 32 -> 2 blocks, 64 warps, 100 %.
// - flash_fwd: 128 thr, 128 regs, 49152 B dynamic: warpsPB 4, perWarp 4096, 4 warps/sub-partition ->
//   regs 16/4 = 4; warps 16; smem 102400/50176 = 2; SM 32 -> 2 blocks, 8 warps, 12.5 %.
// - daxpy: 128 thr, 18 regs: perWarp roundUp(576, 256) = 768, 21 warps/sub-partition -> regs 84/4 = 21;
//   warps 16; smem 16384/1024 = 16; SM 32 -> 16 blocks, 64 warps, 100 %.
const SAMPLE_KERNELS: &[SampleKernel] = &[
    SampleKernel {
        name: "vectorAdd(const float *, const float *, float *, int)",
        block: [256, 1, 1],
        grid: [65536, 1, 1],
        registers: 16,
        static_smem: 0,
        dynamic_smem: 0,
        smem_config: 32768,
        limits: [16, 32, 8, 32],
        theoretical_warps: 64,
        launches: 3,
        inst: [16_777_216.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        dram_read: 134_217_728.0,
        dram_write: 67_108_864.0,
        l2_bytes: 201_326_592.0,
        l1_bytes: 201_326_592.0,
        duration_ns: 72_000.0,
    },
    SampleKernel {
        name: "void sgemm_tiled<32, 32>(int, int, int, float, const float *, const float *, float, float *)",
        block: [16, 16, 1],
        grid: [128, 128, 1],
        registers: 64,
        static_smem: 8192,
        dynamic_smem: 0,
        smem_config: 65536,
        limits: [4, 7, 8, 32],
        theoretical_warps: 32,
        launches: 3,
        inst: [
            0.0,
            16_777_216.0,
            68_719_476_736.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
        dram_read: 402_653_184.0,
        dram_write: 67_108_864.0,
        l2_bytes: 8_589_934_592.0,
        l1_bytes: 34_359_738_368.0,
        duration_ns: 5_900_000.0,
    },
    SampleKernel {
        name: "void reduce_sum<512>(const float *, float *, unsigned int)",
        block: [512, 1, 1],
        grid: [65536, 1, 1],
        registers: 32,
        static_smem: 2048,
        dynamic_smem: 0,
        smem_config: 32768,
        limits: [4, 10, 4, 32],
        theoretical_warps: 64,
        launches: 3,
        inst: [67_108_864.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        dram_read: 268_435_456.0,
        dram_write: 262_144.0,
        l2_bytes: 268_959_744.0,
        l1_bytes: 268_959_744.0,
        duration_ns: 98_000.0,
    },
    SampleKernel {
        name: "transpose_tiled(float *, const float *, int, int)",
        block: [32, 32, 1],
        grid: [256, 256, 1],
        registers: 24,
        static_smem: 4224,
        dynamic_smem: 0,
        smem_config: 32768,
        limits: [2, 6, 2, 32],
        theoretical_warps: 64,
        launches: 2,
        inst: [0.0; 10],
        dram_read: 268_435_456.0,
        dram_write: 268_435_456.0,
        l2_bytes: 536_870_912.0,
        l1_bytes: 536_870_912.0,
        duration_ns: 205_000.0,
    },
    SampleKernel {
        name: "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t>, false, true>(Flash_fwd_params)",
        block: [128, 1, 1],
        grid: [1024, 1, 1],
        registers: 128,
        static_smem: 0,
        dynamic_smem: 49152,
        smem_config: 102_400,
        limits: [4, 2, 16, 32],
        theoretical_warps: 8,
        launches: 3,
        inst: [
            25_165_824.0,
            50_331_648.0,
            16_777_216.0,
            0.0,
            0.0,
            0.0,
            8_388_608.0,
            4_194_304.0,
            2_097_152.0,
            33_554_432.0,
        ],
        dram_read: 50_331_648.0,
        dram_write: 16_777_216.0,
        l2_bytes: 402_653_184.0,
        l1_bytes: 805_306_368.0,
        duration_ns: 610_000.0,
    },
    SampleKernel {
        name: "daxpy(int, double, const double *, double *)",
        block: [128, 1, 1],
        grid: [131072, 1, 1],
        registers: 18,
        static_smem: 0,
        dynamic_smem: 0,
        smem_config: 16384,
        limits: [21, 16, 16, 32],
        theoretical_warps: 64,
        launches: 2,
        inst: [0.0, 0.0, 0.0, 0.0, 0.0, 16_777_216.0, 0.0, 0.0, 0.0, 0.0],
        dram_read: 268_435_456.0,
        dram_write: 134_217_728.0,
        l2_bytes: 402_653_184.0,
        l1_bytes: 402_653_184.0,
        duration_ns: 140_000.0,
    },
];

/// H100 SXM5 numbers the sample uses (number of SMs from the H100 whitepaper; the clocks are the
/// values the synthetic "profiler" claims to have locked).
const SM_COUNT: u32 = 132;
/// The name ncu prints for an H100 SXM5 80GB (`device__attribute_display_name`).
const DEVICE_NAME: &str = "NVIDIA H100 80GB HBM3";
const SM_CLOCK_HZ: f64 = 1.755e9;
const DRAM_CLOCK_HZ: f64 = 2.619e9;
const DRAM_PEAK_BYTES_PER_S: f64 = 3.35e12;

const DETAILS_HEADER: &str = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n";

/// CSV-quotes a field (doubling inner quotes).
fn quote(field: &str) -> String {
    format!("\"{}\"", field.replace('"', "\"\""))
}

/// The small synthetic H100 details export (variant D, base units) for `traces/synthetic/`.
pub fn sample_details_csv(seed: u64) -> String {
    let mut rng = SplitMix::new(seed);
    let mut out = String::from(DETAILS_HEADER);
    let mut id = 0u32;
    for kernel in SAMPLE_KERNELS {
        for _ in 0..kernel.launches {
            let prefix = [
                id.to_string(),
                "4242".into(),
                "bench".into(),
                "127.0.0.1".into(),
                kernel.name.into(),
                "1".into(),
                "7".into(),
                format!(
                    "({}, {}, {})",
                    kernel.block[0], kernel.block[1], kernel.block[2]
                ),
                format!(
                    "({}, {}, {})",
                    kernel.grid[0], kernel.grid[1], kernel.grid[2]
                ),
                "0".into(),
                "9.0".into(),
            ]
            .iter()
            .map(|f| quote(f))
            .collect::<Vec<_>>()
            .join(",");
            let mut metric = |section: &str, name: &str, unit: &str, value: String| {
                out.push_str(&format!(
                    "{prefix},{},{},{},{},\n",
                    quote(section),
                    quote(name),
                    quote(unit),
                    quote(&value)
                ));
            };
            let duration = rng.jitter(kernel.duration_ns, 0.03);
            let cycles = duration * 1e-9 * SM_CLOCK_HZ;
            let dram = kernel.dram_read + kernel.dram_write;
            let dram_pct = 100.0 * dram / (duration * 1e-9) / DRAM_PEAK_BYTES_PER_S;
            let threads_per_block = kernel.block.iter().product::<u32>();
            let blocks = kernel.grid.iter().product::<u32>();
            let active_blocks = kernel.limits.iter().copied().min().unwrap_or(1).max(1);
            let theoretical = 100.0 * f64::from(kernel.theoretical_warps) / 64.0;
            let achieved = rng.jitter(theoretical * 0.9, 0.04).min(theoretical);
            let sol = "GPU Speed Of Light Throughput";
            metric(
                sol,
                "DRAM Frequency",
                "hz",
                format!("{:.2}", rng.jitter(DRAM_CLOCK_HZ, 0.001)),
            );
            metric(sol, "SM Frequency", "hz", format!("{SM_CLOCK_HZ:.2}"));
            metric(
                sol,
                "Elapsed Cycles",
                "cycle",
                format!("{}", cycles.round()),
            );
            metric(
                sol,
                "Memory Throughput",
                "%",
                format!("{:.2}", dram_pct.min(100.0)),
            );
            metric(
                sol,
                "DRAM Throughput",
                "%",
                format!("{:.2}", dram_pct.min(100.0)),
            );
            metric(sol, "Duration", "ns", format!("{}", duration.round()));
            metric(
                sol,
                "SM Active Cycles",
                "cycle",
                format!("{:.2}", cycles * 0.97),
            );
            let ls = "Launch Statistics";
            metric(ls, "Block Size", "", threads_per_block.to_string());
            metric(
                ls,
                "Function Cache Configuration",
                "",
                "CachePreferNone".into(),
            );
            metric(ls, "Grid Size", "", blocks.to_string());
            metric(
                ls,
                "Registers Per Thread",
                "register/thread",
                kernel.registers.to_string(),
            );
            metric(
                ls,
                "Shared Memory Configuration Size",
                "byte",
                kernel.smem_config.to_string(),
            );
            metric(
                ls,
                "Driver Shared Memory Per Block",
                "byte/block",
                "1024".into(),
            );
            metric(
                ls,
                "Dynamic Shared Memory Per Block",
                "byte/block",
                kernel.dynamic_smem.to_string(),
            );
            metric(
                ls,
                "Static Shared Memory Per Block",
                "byte/block",
                kernel.static_smem.to_string(),
            );
            metric(ls, "# SMs", "SM", SM_COUNT.to_string());
            metric(
                ls,
                "Threads",
                "thread",
                (u64::from(threads_per_block) * u64::from(blocks)).to_string(),
            );
            metric(
                ls,
                "Waves Per SM",
                "",
                format!(
                    "{:.2}",
                    f64::from(blocks) / f64::from(active_blocks * SM_COUNT)
                ),
            );
            let occ = "Occupancy";
            metric(occ, "Block Limit SM", "block", kernel.limits[3].to_string());
            metric(
                occ,
                "Block Limit Registers",
                "block",
                kernel.limits[0].to_string(),
            );
            metric(
                occ,
                "Block Limit Shared Mem",
                "block",
                kernel.limits[1].to_string(),
            );
            metric(
                occ,
                "Block Limit Warps",
                "block",
                kernel.limits[2].to_string(),
            );
            metric(
                occ,
                "Theoretical Active Warps per SM",
                "warp",
                kernel.theoretical_warps.to_string(),
            );
            metric(
                occ,
                "Theoretical Occupancy",
                "%",
                format!("{theoretical:.2}"),
            );
            metric(occ, "Achieved Occupancy", "%", format!("{achieved:.2}"));
            metric(
                occ,
                "Achieved Active Warps Per SM",
                "warp",
                format!("{:.2}", achieved * 0.64),
            );
            let cl = "Command line profiler metrics";
            metric(cl, "device__attribute_display_name", "", DEVICE_NAME.into());
            metric(
                cl,
                "dram__bytes_read.sum",
                "byte",
                format!("{}", rng.jitter(kernel.dram_read, 0.01).round()),
            );
            metric(
                cl,
                "dram__bytes_write.sum",
                "byte",
                format!("{}", rng.jitter(kernel.dram_write, 0.01).round()),
            );
            metric(
                cl,
                "gpu__time_duration.sum",
                "ns",
                format!("{}", duration.round()),
            );
            metric(
                cl,
                "l1tex__t_bytes.sum",
                "byte",
                format!("{}", kernel.l1_bytes.round()),
            );
            metric(
                cl,
                "lts__t_bytes.sum",
                "byte",
                format!("{}", rng.jitter(kernel.l2_bytes, 0.01).round()),
            );
            metric(
                cl,
                "sm__cycles_elapsed.avg",
                "cycle",
                format!("{:.2}", cycles),
            );
            metric(
                cl,
                "sm__cycles_elapsed.avg.per_second",
                "hz",
                format!("{SM_CLOCK_HZ:.2}"),
            );
            metric(
                cl,
                "sm__inst_executed_pipe_tensor.sum",
                "inst",
                format!("{}", kernel.inst[9]),
            );
            for (k, op) in [
                "fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma",
            ]
            .iter()
            .enumerate()
            {
                metric(
                    cl,
                    &format!("sm__sass_thread_inst_executed_op_{op}_pred_on.sum"),
                    "inst",
                    format!("{}", kernel.inst[k]),
                );
            }
            if kernel.theoretical_warps < 64 {
                let limiter = if kernel.limits[0] <= kernel.limits[1] {
                    "registers"
                } else {
                    "shared memory"
                };
                out.push_str(&format!(
                    "{prefix},\"Occupancy\",\"\",\"\",\"\",\"TheoreticalOccupancy\",\"OPT\",{},\"local\",\"{:.2}\"\n",
                    quote(&format!(
                        "The {theoretical:.2}% theoretical occupancy is limited by the kernel's {limiter}.\nSynthetic rule text (see \"traces/synthetic/README.md\")."
                    )),
                    100.0 - theoretical
                ));
            }
            id += 1;
        }
    }
    out
}

mod bench;
pub use bench::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_limits_match_the_occupancy_algorithm() {
        // Re-derive each kernel's limits with the CC 9.0 rules (independent of the table above).
        for k in SAMPLE_KERNELS {
            let threads = k.block.iter().product::<u32>();
            let warps = threads.div_ceil(32);
            let per_warp = (k.registers * 32).div_ceil(256) * 256;
            let by_regs = (16_384 / per_warp) * 4 / warps;
            let alloc = (k.static_smem + 1024 + k.dynamic_smem).div_ceil(128) * 128;
            let by_smem = k.smem_config / alloc;
            let by_warps = 64 / warps;
            assert_eq!(k.limits, [by_regs, by_smem, by_warps, 32], "{}", k.name);
            let active = by_regs.min(by_smem).min(by_warps).min(32);
            assert_eq!(k.theoretical_warps, active * warps, "{}", k.name);
        }
    }

    #[test]
    fn thousands_separators_are_grouped_by_three() {
        assert_eq!(bench::thousands(1234567.891), "1,234,567.89");
        assert_eq!(bench::thousands(12.0), "12.00");
        assert_eq!(bench::thousands(-1000.0), "-1,000.00");
    }

    #[test]
    fn the_sample_reads_back_with_its_configuration() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("sample.csv");
        std::fs::write(&path, sample_details_csv(7))?;
        let trace = warpsight_ingest::read_path(
            &path,
            &warpsight_ingest::ReadConfig {
                strict: true,
                format: None,
            },
        )?;
        let expected: u32 = SAMPLE_KERNELS.iter().map(|k| k.launches).sum();
        assert_eq!(trace.launch_count(), expected as usize);
        assert!(trace.side.rules.height() > 0);
        Ok(())
    }
}
