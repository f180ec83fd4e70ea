//! Tests over the exports that the real-GPU capture kit (`traces/capture/capture.sh`) writes into
//! `traces/<gpu-slug>/`.
//!
//! A folder of `traces/` counts as a capture when its `README.md` starts with the kit's marker line
//! ([`KIT_MARKER`]); `traces/capture/` (the kit itself) and `traces/synthetic/` (a hand-made sample)
//! never do. Each case of the kit gives a pair `<case>.ncu-details.csv` / `<case>.ncu-raw.csv`
//! printed from one `.ncu-rep`, so both pages describe the same launches.
//!
//! With no capture present (no GPU session has run the kit yet) every capture test prints why it
//! is skipped and passes. The harness itself is still exercised: folder detection on a temporary
//! tree, and the details-vs-raw comparison on the real H200 pair in `../shared/traces/` (#13/#14 of
//! its MANIFEST.md, the same 30 launches printed both ways).
//!
//! What the captures are checked for:
//! - (c) the details and raw pages give the same launches (ids, names, launch configuration,
//!   resources, ncu's occupancy numbers, durations to display rounding);
//! - (b) the `regs_64_65` case: ncu allocated 64 and 65 registers, and the register block limit
//!   is what the CUDA rule gives with the Programming Guide's register-file numbers (2 and 1
//!   blocks of 512 threads per SM wherever an SM has 64 K registers in 4 sub-partitions);
//! - (a) warpsight's theoretical occupancy equals ncu's on every launch, and each block limit
//!   agrees with ncu's (a limit warpsight calls unlimited must not bind in ncu's numbers either);
//! - (d) predicted vs measured duration per kernel (median and worst absolute % error) is printed
//!   and written to `target/accuracy-report.md`, for a GPU session to put into `docs/accuracy.md`.

use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::arch::Registry;
use warpsight_model::{ModelConfig, columns, evaluate};

type TestResult = Result<(), Box<dyn Error>>;

/// The first line of a README.md written by the capture kit.
const KIT_MARKER: &str = "<!-- warpsight-capture-kit v1 -->";

/// Folders of `traces/` that are never captures, whatever they contain.
const NOT_CAPTURES: &[&str] = &["capture", "synthetic"];

/// Where the capture folders are: `$WARPSIGHT_CAPTURES_DIR` when set (for exports written with
/// `capture.sh --out DIR`), else the repository's `traces/`.
fn traces_root() -> PathBuf {
    std::env::var_os("WARPSIGHT_CAPTURES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(warpsight_test_support::paths::traces_dir)
}

/// The shared real-export corpus (absent on a fresh clone: `None`, reported at exit).
fn shared_traces() -> Option<PathBuf> {
    warpsight_test_support::paths::shared_traces()
}

/// The two CSV pages of one case of one capture.
#[derive(Debug, Clone)]
struct CaseFiles {
    /// Case name, e.g. `regs_64_65`.
    name: String,
    /// `<case>.ncu-details.csv`.
    details: PathBuf,
    /// `<case>.ncu-raw.csv`, when it exists.
    raw: Option<PathBuf>,
}

/// One folder written by the capture kit.
#[derive(Debug, Clone)]
struct Capture {
    /// The folder, `traces/<gpu-slug>/`.
    dir: PathBuf,
    /// The cases found in it, sorted by name.
    cases: Vec<CaseFiles>,
}

impl Capture {
    fn case(&self, name: &str) -> Option<&CaseFiles> {
        self.cases.iter().find(|c| c.name == name)
    }
}

/// Every capture folder under `root`, sorted by folder name.
fn find_captures(root: &Path) -> std::io::Result<Vec<Capture>> {
    let mut captures = Vec::new();
    if !root.is_dir() {
        return Ok(captures);
    }
    for entry in fs::read_dir(root)? {
        let dir = entry?.path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if !dir.is_dir() || NOT_CAPTURES.contains(&name.as_str()) {
            continue;
        }
        let Ok(readme) = fs::read_to_string(dir.join("README.md")) else {
            continue;
        };
        if readme.lines().next().map(str::trim) != Some(KIT_MARKER) {
            continue;
        }
        let mut cases = Vec::new();
        for file in fs::read_dir(&dir)? {
            let path = file?.path();
            let file_name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if let Some(case) = file_name.strip_suffix(".ncu-details.csv") {
                let raw = dir.join(format!("{case}.ncu-raw.csv"));
                cases.push(CaseFiles {
                    name: case.to_owned(),
                    details: path.clone(),
                    raw: raw.is_file().then_some(raw),
                });
            }
        }
        cases.sort_by(|a, b| a.name.cmp(&b.name));
        captures.push(Capture { dir, cases });
    }
    captures.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(captures)
}

/// The captures in `traces/`, or `None` after printing why the calling test is skipped.
fn captures_or_skip(test: &str) -> Result<Option<Vec<Capture>>, Box<dyn Error>> {
    let root = traces_root();
    let captures = find_captures(&root)?;
    if captures.is_empty() {
        println!(
            "skipping {test}: no capture-kit exports in {} (a folder whose README.md starts with \
             `{KIT_MARKER}`); run traces/capture/capture.sh on a machine with an NVIDIA GPU to make one",
            root.display()
        );
        return Ok(None);
    }
    Ok(Some(captures))
}

/// What the comparisons need from one launch, read from the launch table.
#[derive(Debug, Clone, PartialEq)]
struct Launch {
    kernel: Option<String>,
    cc: (Option<i64>, Option<i64>),
    grid: [Option<i64>; 3],
    block: [Option<i64>; 3],
    registers: Option<i64>,
    static_smem: Option<i64>,
    dynamic_smem: Option<i64>,
    /// ncu's Block Limit Registers, Shared Mem, Warps, SM.
    ncu_limits: [Option<i64>; 4],
    ncu_theoretical_occupancy: Option<f64>,
    ncu_theoretical_warps: Option<f64>,
    duration_ns: Option<f64>,
}

/// The launches of one export keyed by launch id. Fails on a duplicate or missing id.
fn launches_by_id(path: &Path) -> Result<(String, BTreeMap<i64, Launch>), Box<dyn Error>> {
    let trace = read_path(path, &ReadConfig::default())?;
    if !trace.rejected.is_empty() {
        println!(
            "{}: {} rejected row(s), first: {:?}",
            path.display(),
            trace.rejected.len(),
            trace.rejected[0]
        );
    }
    let frame = &trace.launches;
    let ids = ints_of(frame, lt::LAUNCH_ID)?;
    let kernels = strings_of(frame, lt::KERNEL_SHORT_NAME)?;
    let ints = |name: &str| ints_of(frame, name);
    let (cc_major, cc_minor) = (ints(lt::CC_MAJOR)?, ints(lt::CC_MINOR)?);
    let grid = [ints(lt::GRID_X)?, ints(lt::GRID_Y)?, ints(lt::GRID_Z)?];
    let block = [ints(lt::BLOCK_X)?, ints(lt::BLOCK_Y)?, ints(lt::BLOCK_Z)?];
    let registers = ints(lt::REGISTERS_PER_THREAD)?;
    let static_smem = ints(lt::STATIC_SMEM_BYTES)?;
    let dynamic_smem = ints(lt::DYNAMIC_SMEM_BYTES)?;
    let limits = [
        ints(lt::NCU_BLOCK_LIMIT_REGISTERS)?,
        ints(lt::NCU_BLOCK_LIMIT_SHARED_MEM)?,
        ints(lt::NCU_BLOCK_LIMIT_WARPS)?,
        ints(lt::NCU_BLOCK_LIMIT_SM)?,
    ];
    let occupancy = floats_of(frame, lt::NCU_THEORETICAL_OCCUPANCY)?;
    let warps = floats_of(frame, lt::NCU_THEORETICAL_WARPS)?;
    let durations = floats_of(frame, lt::DURATION_NS)?;
    let mut launches = BTreeMap::new();
    for row in 0..frame.height() {
        let id =
            ids[row].ok_or_else(|| format!("{}: row {row} has no launch id", path.display()))?;
        let launch = Launch {
            kernel: kernels[row].clone(),
            cc: (cc_major[row], cc_minor[row]),
            grid: [grid[0][row], grid[1][row], grid[2][row]],
            block: [block[0][row], block[1][row], block[2][row]],
            registers: registers[row],
            static_smem: static_smem[row],
            dynamic_smem: dynamic_smem[row],
            ncu_limits: [
                limits[0][row],
                limits[1][row],
                limits[2][row],
                limits[3][row],
            ],
            ncu_theoretical_occupancy: occupancy[row],
            ncu_theoretical_warps: warps[row],
            duration_ns: durations[row],
        };
        if launches.insert(id, launch).is_some() {
            return Err(format!("{}: launch id {id} appears twice", path.display()).into());
        }
    }
    Ok((trace.format.name().to_string(), launches))
}

/// True when two optional measurements agree within `relative` of the larger plus `absolute`.
fn close(a: Option<f64>, b: Option<f64>, relative: f64, absolute: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= relative * a.abs().max(b.abs()) + absolute,
        (None, None) => true,
        _ => false,
    }
}

/// How strictly two pages of the same launches must agree.
#[derive(Debug, Clone, Copy)]
struct PageComparison {
    /// Both pages were printed with `--print-units base`, so byte sizes are exact. Otherwise the
    /// details page may show auto-scaled sizes rounded for display (`7.70 Kbyte` for 7696 bytes),
    /// and sizes may differ by 0.1 % + 5 bytes.
    base_units: bool,
    /// Both pages must have the launch configuration, registers, ncu's block limits and
    /// occupancy, and a duration (true for the kit's `--set full` exports).
    require_complete: bool,
}

/// Compares the details and raw pages of the same launches; returns one line per disagreement.
///
/// Details values are rounded for display (FORMATS.md §1.5: 2 decimals), so durations may differ
/// by 0.5 % + 1 ns and ncu's theoretical occupancy by 1e-4; shared-memory sizes as `config`
/// says; everything else must be equal.
fn compare_pages(
    details: &Path,
    raw: &Path,
    config: &PageComparison,
) -> Result<Vec<String>, Box<dyn Error>> {
    let (details_format, details_launches) = launches_by_id(details)?;
    let (raw_format, raw_launches) = launches_by_id(raw)?;
    let mut problems = Vec::new();
    if details_format != "ncu-details" {
        problems.push(format!(
            "{} was read as {details_format}, expected ncu-details",
            details.display()
        ));
    }
    if raw_format != "ncu-raw" {
        problems.push(format!(
            "{} was read as {raw_format}, expected ncu-raw",
            raw.display()
        ));
    }
    if details_launches.is_empty() {
        problems.push(format!("{} has no launches", details.display()));
    }
    let details_ids: Vec<i64> = details_launches.keys().copied().collect();
    let raw_ids: Vec<i64> = raw_launches.keys().copied().collect();
    if details_ids != raw_ids {
        problems.push(format!(
            "launch ids differ: details {details_ids:?}, raw {raw_ids:?}"
        ));
    }
    for (id, d) in &details_launches {
        let Some(r) = raw_launches.get(id) else {
            continue;
        };
        let mut differ = |what: &str, a: String, b: String| {
            problems.push(format!("launch {id}: {what} differs: details {a}, raw {b}"));
        };
        if d.kernel != r.kernel {
            differ(
                "kernel",
                format!("{:?}", d.kernel),
                format!("{:?}", r.kernel),
            );
        }
        let exact = [
            ("cc", format!("{:?}", d.cc), format!("{:?}", r.cc)),
            ("grid", format!("{:?}", d.grid), format!("{:?}", r.grid)),
            ("block", format!("{:?}", d.block), format!("{:?}", r.block)),
            (
                "registers per thread",
                format!("{:?}", d.registers),
                format!("{:?}", r.registers),
            ),
            (
                "ncu block limits (regs, smem, warps, SM)",
                format!("{:?}", d.ncu_limits),
                format!("{:?}", r.ncu_limits),
            ),
        ];
        for (what, a, b) in exact {
            if a != b {
                differ(what, a, b);
            }
        }
        let (size_relative, size_absolute) = if config.base_units {
            (0.0, 0.0)
        } else {
            (1e-3, 5.0)
        };
        let sizes = [
            ("static shared memory", d.static_smem, r.static_smem),
            ("dynamic shared memory", d.dynamic_smem, r.dynamic_smem),
        ];
        for (what, a, b) in sizes {
            let as_f64 = |v: Option<i64>| v.map(|v| v as f64);
            if !close(as_f64(a), as_f64(b), size_relative, size_absolute) {
                differ(what, format!("{a:?}"), format!("{b:?}"));
            }
        }
        if !close(d.duration_ns, r.duration_ns, 5e-3, 1.0) {
            differ(
                "duration (ns)",
                format!("{:?}", d.duration_ns),
                format!("{:?}", r.duration_ns),
            );
        }
        if !close(
            d.ncu_theoretical_occupancy,
            r.ncu_theoretical_occupancy,
            0.0,
            1e-4,
        ) {
            differ(
                "ncu theoretical occupancy",
                format!("{:?}", d.ncu_theoretical_occupancy),
                format!("{:?}", r.ncu_theoretical_occupancy),
            );
        }
        if config.require_complete {
            let missing: Vec<&str> = [
                ("grid", d.grid.iter().all(Option::is_some)),
                ("block", d.block.iter().all(Option::is_some)),
                ("registers", d.registers.is_some()),
                ("ncu block limits", d.ncu_limits.iter().all(Option::is_some)),
                (
                    "ncu theoretical occupancy",
                    d.ncu_theoretical_occupancy.is_some(),
                ),
                ("duration", d.duration_ns.is_some()),
            ]
            .into_iter()
            .filter(|(_, present)| !present)
            .map(|(what, _)| what)
            .collect();
            if !missing.is_empty() {
                problems.push(format!(
                    "launch {id}: the details page lacks {}",
                    missing.join(", ")
                ));
            }
        }
    }
    Ok(problems)
}

/// The register-file facts the CUDA register rule needs.
#[derive(Debug, Clone, Copy)]
struct RegisterFile {
    /// 32-bit registers per SM.
    regs_per_sm: i64,
    /// Registers per block at most.
    regs_per_block: i64,
    /// Registers are allocated to a warp in units of this many.
    alloc_unit: i64,
    /// Sub-partitions per SM (a warp's registers come from one of them).
    sub_partitions: i64,
    /// Threads per warp.
    warp_size: i64,
}

/// The register file of a compute capability, from the CUDA C++ Programming Guide's
/// compute-capability table (64 K 32-bit registers per SM and per block for every CC from 5.0
/// to 12.x except 5.3 and 6.2, which allow 32 K per block) and OCCUPANCY.md §2 (256-register
/// allocation unit per warp; 4 sub-partitions, 2 on CC 6.0). `None` outside that range.
fn register_file(cc_major: i64, cc_minor: i64) -> Option<RegisterFile> {
    if !(5..=12).contains(&cc_major) {
        return None;
    }
    let regs_per_block = if (cc_major, cc_minor) == (5, 3) || (cc_major, cc_minor) == (6, 2) {
        32_768
    } else {
        65_536
    };
    let sub_partitions = if (cc_major, cc_minor) == (6, 0) { 2 } else { 4 };
    Some(RegisterFile {
        regs_per_sm: 65_536,
        regs_per_block,
        alloc_unit: 256,
        sub_partitions,
        warp_size: 32,
    })
}

/// `a / b` rounded up, for positive `b` and non-negative `a`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// Blocks per SM allowed by registers, as `cuda_occupancy.h` computes it (OCCUPANCY.md §3.1):
/// registers go to whole warps in allocation units, and a warp's registers come from one
/// sub-partition, so the SM holds floor(regs_per_sm / P / per_warp) · P warps.
fn blocks_by_registers(rf: RegisterFile, registers_per_thread: i64, threads_per_block: i64) -> i64 {
    let warps_per_block = ceil_div(threads_per_block, rf.warp_size);
    let per_warp = ceil_div(registers_per_thread * rf.warp_size, rf.alloc_unit) * rf.alloc_unit;
    let hardware_per_block =
        per_warp * ceil_div(warps_per_block, rf.sub_partitions) * rf.sub_partitions;
    if per_warp == 0 {
        return i64::MAX;
    }
    if hardware_per_block > rf.regs_per_block || per_warp * warps_per_block > rf.regs_per_block {
        return 0;
    }
    let warps_per_sub_partition = (rf.regs_per_sm / rf.sub_partitions) / per_warp;
    (warps_per_sub_partition * rf.sub_partitions) / warps_per_block
}

#[test]
fn register_rule_reproduces_the_programming_guide_example() -> TestResult {
    // CUDA C++ Programming Guide, "Multiprocessor Level": at 512 threads per block, 64 registers per
    // thread let two blocks (32 warps) reside on an SM and 65 registers only one (16 warps).
    // OCCUPANCY.md TV3/TV4 give the same on CC 6.1; TV1/TV2 (Best Practices Guide) add 37 registers
    // at 128 and 320 threads on CC 7.0: 12 and 4 blocks.
    let rf = register_file(6, 1).ok_or("CC 6.1 has a register file")?;
    assert_eq!(blocks_by_registers(rf, 64, 512), 2);
    assert_eq!(blocks_by_registers(rf, 65, 512), 1);
    let volta = register_file(7, 0).ok_or("CC 7.0 has a register file")?;
    assert_eq!(blocks_by_registers(volta, 37, 128), 12);
    assert_eq!(blocks_by_registers(volta, 37, 320), 4);
    assert!(register_file(3, 5).is_none());
    Ok(())
}

#[test]
fn capture_folders_are_found_by_marker_only() -> TestResult {
    let root = tempfile::tempdir()?;
    let write = |rel: &str, text: &str| -> std::io::Result<()> {
        let path = root.path().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, text)
    };
    write(
        "h100-80gb-hbm3/README.md",
        &format!("{KIT_MARKER}\n# Exports captured on NVIDIA H100\n"),
    )?;
    write("h100-80gb-hbm3/sgemm.ncu-details.csv", "")?;
    write("h100-80gb-hbm3/sgemm.ncu-raw.csv", "")?;
    write("h100-80gb-hbm3/copy_saxpy.ncu-details.csv", "")?;
    // A hand-made sample, even one that copies the marker, and the kit's own folder are not captures.
    write("synthetic/README.md", &format!("{KIT_MARKER}\n"))?;
    write("synthetic/sample.ncu-details.csv", "")?;
    write("capture/README.md", &format!("{KIT_MARKER}\n"))?;
    // A folder without the marker is not a capture either.
    write("someone-else/README.md", "# notes\n")?;
    write("someone-else/x.ncu-details.csv", "")?;

    let captures = find_captures(root.path())?;
    assert_eq!(captures.len(), 1, "{captures:?}");
    let capture = &captures[0];
    assert!(capture.dir.ends_with("h100-80gb-hbm3"));
    let names: Vec<&str> = capture.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["copy_saxpy", "sgemm"]);
    assert!(capture.case("copy_saxpy").is_some_and(|c| c.raw.is_none()));
    assert!(capture.case("sgemm").is_some_and(|c| c.raw.is_some()));
    assert!(find_captures(&root.path().join("absent"))?.is_empty());
    Ok(())
}

#[test]
fn page_comparison_accepts_a_real_details_raw_pair() -> TestResult {
    // #13 and #14 of ../shared/traces/MANIFEST.md: the same 30 H200 launches as a raw page and as a
    // details page. The comparison the capture tests rely on must find no difference there.
    let Some(shared) = shared_traces() else {
        return Ok(());
    };
    let details = shared.join("moeresearch__R_short_decode_ncu_details_setfull.csv");
    let raw = shared.join("moeresearch__R_short_decode_ncu_raw_full.csv");
    // This pair was printed with auto-scaled units (Kbyte, us), unlike the kit's exports.
    let config = PageComparison {
        base_units: false,
        require_complete: true,
    };
    let problems = compare_pages(&details, &raw, &config)?;
    assert!(
        problems.is_empty(),
        "{} disagreement(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    let (_, launches) = launches_by_id(&details)?;
    assert_eq!(launches.len(), 30, "MANIFEST.md lists 30 launches for #14");
    Ok(())
}

#[test]
fn captured_details_and_raw_pages_give_the_same_launches() -> TestResult {
    let Some(captures) = captures_or_skip("captured_details_and_raw_pages_give_the_same_launches")?
    else {
        return Ok(());
    };
    let mut problems = Vec::new();
    for capture in &captures {
        assert!(
            !capture.cases.is_empty(),
            "{} has the kit's README but no exports",
            capture.dir.display()
        );
        for case in &capture.cases {
            let Some(raw) = &case.raw else {
                problems.push(format!(
                    "{}: no raw page beside the details page",
                    case.details.display()
                ));
                continue;
            };
            let config = PageComparison {
                base_units: true,
                require_complete: true,
            };
            for problem in compare_pages(&case.details, raw, &config)? {
                problems.push(format!("{}: {problem}", case.details.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} disagreement(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    Ok(())
}

/// Checks the two launches of a `regs_64_65` export: 512-thread blocks, 64 and 65 registers, and
/// ncu's and warpsight's register limit and active blocks equal to the CUDA register rule.
/// Returns how many launches were checked (0 on a CC outside the register table).
fn check_register_case(details: &Path, registry: &Registry) -> Result<usize, Box<dyn Error>> {
    let mut checked = 0;
    let (_, launches) = launches_by_id(details)?;
    // warpsight's own numbers for the same launches, keyed by kernel.
    let frame = evaluated(details, registry)?;
    let names = strings_of(&frame, lt::KERNEL_SHORT_NAME)?;
    let our_limits = ints_of(&frame, columns::LIMIT_REGISTERS)?;
    let our_active = ints_of(&frame, columns::ACTIVE_BLOCKS)?;
    let ours = |kernel: &str| {
        let row = names.iter().position(|n| n.as_deref() == Some(kernel))?;
        Some((our_limits[row], our_active[row]))
    };
    for (kernel, registers) in [("regs64_kernel", 64), ("regs65_kernel", 65)] {
        let launch = launches
            .values()
            .find(|l| l.kernel.as_deref() == Some(kernel))
            .ok_or_else(|| format!("{}: no launch of {kernel}", details.display()))?;
        let place = format!("{} {kernel}", details.display());
        assert_eq!(
            launch.block,
            [Some(512), Some(1), Some(1)],
            "{place}: block"
        );
        assert_eq!(
            launch.registers,
            Some(registers),
            "{place}: registers per thread (build.sh checks this)"
        );
        let (Some(major), Some(minor)) = launch.cc else {
            return Err(format!("{place}: no compute capability").into());
        };
        let Some(rf) = register_file(major, minor) else {
            println!("{place}: CC {major}.{minor} is outside the register table; skipped");
            continue;
        };
        let expected = blocks_by_registers(rf, registers, 512);
        if rf.regs_per_sm == 65_536 && rf.alloc_unit == 256 && rf.sub_partitions == 4 {
            // The Programming Guide's numbers hold on this CC.
            assert_eq!(expected, if registers == 64 { 2 } else { 1 }, "{place}");
        }
        assert_eq!(
            launch.ncu_limits[0],
            Some(expected),
            "{place}: ncu's Block Limit Registers"
        );
        assert_eq!(
            ours(kernel),
            Some((Some(expected), Some(expected))),
            "{place}: warpsight's (register limit, active blocks per SM)"
        );
        // ncu's theoretical warps are the active blocks (the smallest limit) × 16 warps.
        let active = launch.ncu_limits.iter().flatten().copied().min();
        assert_eq!(
            active,
            Some(expected),
            "{place}: registers must be the binding limit"
        );
        assert!(
            close(
                launch.ncu_theoretical_warps,
                Some((expected * 16) as f64),
                0.0,
                1e-6
            ),
            "{place}: ncu's theoretical warps {:?}, expected {}",
            launch.ncu_theoretical_warps,
            expected * 16
        );
        checked += 1;
    }
    Ok(checked)
}

/// A minimal details page (header variant D′, base units) of the two `regs_64_65` launches as
/// Nsight Compute prints them on an H100 (CC 9.0, 132 SMs): the register limits are the
/// Programming Guide's 2 and 1 blocks, the warp limit 64 / 16 = 4, the block-slot limit 32, and
/// the 1 KiB reserved per block against a 32 KiB carveout gives 32 blocks by shared memory.
fn register_case_fixture() -> String {
    let header = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\
                  \"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\
                  \"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    let mut text = String::from(header);
    for (id, kernel, registers, blocks, duration) in [
        (0, "regs64_kernel", 64, 2, 120_000),
        (1, "regs65_kernel", 65, 1, 150_000),
    ] {
        let metrics: [(&str, &str, &str, String); 17] = [
            (
                "GPU Speed Of Light Throughput",
                "Duration",
                "ns",
                duration.to_string(),
            ),
            ("Launch Statistics", "Block Size", "", "512".into()),
            ("Launch Statistics", "Grid Size", "", "4096".into()),
            (
                "Launch Statistics",
                "Registers Per Thread",
                "register/thread",
                registers.to_string(),
            ),
            (
                "Launch Statistics",
                "Shared Memory Configuration Size",
                "byte",
                "32768".into(),
            ),
            (
                "Launch Statistics",
                "Driver Shared Memory Per Block",
                "byte/block",
                "1024".into(),
            ),
            (
                "Launch Statistics",
                "Dynamic Shared Memory Per Block",
                "byte/block",
                "0".into(),
            ),
            (
                "Launch Statistics",
                "Static Shared Memory Per Block",
                "byte/block",
                "0".into(),
            ),
            ("Launch Statistics", "Threads", "thread", "2097152".into()),
            ("Launch Statistics", "# SMs", "SM", "132".into()),
            ("Occupancy", "Block Limit SM", "block", "32".into()),
            (
                "Occupancy",
                "Block Limit Registers",
                "block",
                blocks.to_string(),
            ),
            ("Occupancy", "Block Limit Shared Mem", "block", "32".into()),
            ("Occupancy", "Block Limit Warps", "block", "4".into()),
            (
                "Occupancy",
                "Theoretical Active Warps per SM",
                "warp",
                (blocks * 16).to_string(),
            ),
            (
                "Occupancy",
                "Theoretical Occupancy",
                "%",
                (blocks * 25).to_string(),
            ),
            (
                "Occupancy",
                "Achieved Occupancy",
                "%",
                (blocks * 24).to_string(),
            ),
        ];
        for (section, metric, unit, value) in metrics {
            text.push_str(&format!(
                "\"{id}\",\"4242\",\"regs_64_65\",\"127.0.0.1\",\"{kernel}(const float *, float *, \
                 float, int)\",\"1\",\"7\",\"(512, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\
                 \"{section}\",\"{metric}\",\"{unit}\",\"{value}\"\n"
            ));
        }
    }
    text
}

#[test]
fn register_case_check_runs_on_a_minimal_export() -> TestResult {
    // Exercises the regs_64_65 check end to end (reader, plugin registry, model) before any GPU
    // capture exists, on a fixture shaped like the kit's export.
    let dir = tempfile::tempdir()?;
    let details = dir.path().join("regs_64_65.ncu-details.csv");
    fs::write(&details, register_case_fixture())?;
    let checked = check_register_case(&details, &registry()?)?;
    assert_eq!(checked, 2);
    Ok(())
}

#[test]
fn captured_64_and_65_register_kernels_fit_2_and_1_blocks() -> TestResult {
    let Some(captures) =
        captures_or_skip("captured_64_and_65_register_kernels_fit_2_and_1_blocks")?
    else {
        return Ok(());
    };
    let registry = registry()?;
    let mut checked = 0;
    for capture in &captures {
        match capture.case("regs_64_65") {
            Some(case) => checked += check_register_case(&case.details, &registry)?,
            None => println!(
                "{}: no regs_64_65 export; nothing to check there",
                capture.dir.display()
            ),
        }
    }
    println!("checked {checked} register-limited launch(es)");
    Ok(())
}

/// The architecture and device numbers the model runs with: the workspace's own plugins (built
/// on first use), exactly what the `warpsight` binary loads.
fn registry() -> Result<Registry, Box<dyn Error>> {
    Ok(warpsight_test_support::registry())
}

/// Any integer-like column as `i64` values.
fn ints_of(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<i64>>> {
    let column = frame.column(name)?.cast(&DataType::Int64)?;
    Ok(column.i64()?.iter().collect())
}

/// Any numeric column as `f64` values.
fn floats_of(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<f64>>> {
    let column = frame.column(name)?.cast(&DataType::Float64)?;
    Ok(column.f64()?.iter().collect())
}

/// Any column as optional strings.
fn strings_of(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    let column = frame.column(name)?.cast(&DataType::String)?;
    Ok(column.str()?.iter().map(|v| v.map(str::to_owned)).collect())
}

/// The launches of one export with the model's columns added.
fn evaluated(path: &Path, registry: &Registry) -> Result<DataFrame, Box<dyn Error>> {
    let trace = read_path(path, &ReadConfig::default())?;
    Ok(evaluate(trace.launches.lazy(), registry, &ModelConfig::default())?.collect()?)
}

/// Compares warpsight's occupancy with ncu's for every launch of one details page; returns one
/// line per disagreement.
fn occupancy_disagreements(path: &Path, frame: &DataFrame) -> PolarsResult<Vec<String>> {
    let ids = ints_of(frame, lt::LAUNCH_ID)?;
    let kernels = strings_of(frame, lt::KERNEL_SHORT_NAME)?;
    let ours = floats_of(frame, columns::THEORETICAL_OCCUPANCY)?;
    let theirs = floats_of(frame, lt::NCU_THEORETICAL_OCCUPANCY)?;
    let active = ints_of(frame, columns::ACTIVE_BLOCKS)?;
    let reasons = strings_of(frame, columns::MODEL_REASON)?;
    let pairs = [
        (
            "registers",
            columns::LIMIT_REGISTERS,
            lt::NCU_BLOCK_LIMIT_REGISTERS,
        ),
        (
            "shared memory",
            columns::LIMIT_SHARED_MEM,
            lt::NCU_BLOCK_LIMIT_SHARED_MEM,
        ),
        ("warps", columns::LIMIT_WARPS, lt::NCU_BLOCK_LIMIT_WARPS),
        ("blocks (SM)", columns::LIMIT_BLOCKS, lt::NCU_BLOCK_LIMIT_SM),
        (
            "barriers",
            columns::LIMIT_BARRIERS,
            lt::NCU_BLOCK_LIMIT_BARRIERS,
        ),
    ];
    let mut limits = Vec::new();
    for (what, ours_name, theirs_name) in pairs {
        limits.push((
            what,
            ints_of(frame, ours_name)?,
            ints_of(frame, theirs_name)?,
        ));
    }
    // The barrier count per block (`launch__barrier_count`) is on the raw page only. Without it
    // the model assumes CUDA's default of one barrier, which never limits (k >= 1) but prints a
    // different number than ncu does for kernels with no barrier at all, so that limit is compared
    // only where the export gives the count.
    let has_barrier_count = frame.schema().contains("launch__barrier_count");
    let mut problems = Vec::new();
    for row in 0..frame.height() {
        let place = format!(
            "{} launch {} ({})",
            path.display(),
            ids[row].map_or_else(|| "?".to_owned(), |id| id.to_string()),
            kernels[row].as_deref().unwrap_or("?")
        );
        // ncu prints the percentage with 2 decimals: 1e-4 of a ratio is above that rounding.
        if theirs[row].is_none() || !close(ours[row], theirs[row], 0.0, 1e-4) {
            problems.push(format!(
                "{place}: theoretical occupancy {:?}, ncu {:?} (model: {})",
                ours[row],
                theirs[row],
                reasons[row].as_deref().unwrap_or("no reason given")
            ));
        }
        for (what, ours_limit, theirs_limit) in &limits {
            if *what == "barriers" && !has_barrier_count {
                continue;
            }
            match (ours_limit[row], theirs_limit[row], active[row]) {
                (Some(a), Some(b), _) if a != b => {
                    problems.push(format!("{place}: block limit by {what} {a}, ncu {b}"));
                }
                // Unlimited for warpsight: ncu's number must not be below the active blocks.
                (None, Some(b), Some(blocks)) if b < blocks => {
                    problems.push(format!(
                        "{place}: block limit by {what} unlimited, ncu {b} < {blocks} active"
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(problems)
}

#[test]
fn captured_theoretical_occupancy_matches_ncu() -> TestResult {
    let Some(captures) = captures_or_skip("captured_theoretical_occupancy_matches_ncu")? else {
        return Ok(());
    };
    let registry = registry()?;
    let mut problems = Vec::new();
    let mut launches = 0;
    for capture in &captures {
        for case in &capture.cases {
            let frame = evaluated(&case.details, &registry)?;
            launches += frame.height();
            problems.extend(occupancy_disagreements(&case.details, &frame)?);
        }
    }
    println!("compared {launches} launch(es) with ncu's occupancy");
    assert!(launches > 0, "the captures hold no launch");
    assert!(
        problems.is_empty(),
        "{} disagreement(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    Ok(())
}

/// Accuracy of the predicted time for one kernel.
#[derive(Debug, Clone, PartialEq)]
struct KernelAccuracy {
    kernel: String,
    /// Launches with both a prediction and a measured duration.
    launches: usize,
    /// Median absolute error, percent of the measured time.
    median_pct: f64,
    /// Worst absolute error, percent of the measured time.
    worst_pct: f64,
    /// The bottlenecks the model named, `/`-joined, in first-seen order.
    bounds: String,
}

/// The median of a non-empty slice (sorted in place).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// Per-kernel accuracy of the predicted against the measured duration, plus the launches that got
/// no prediction (kernel and reason).
fn accuracy_of(frames: &[DataFrame]) -> PolarsResult<(Vec<KernelAccuracy>, Vec<String>)> {
    let mut errors: BTreeMap<String, (Vec<f64>, Vec<String>)> = BTreeMap::new();
    let mut unpredicted = Vec::new();
    for frame in frames {
        let kernels = strings_of(frame, lt::KERNEL_SHORT_NAME)?;
        let predicted = floats_of(frame, columns::PREDICTED_NS)?;
        let measured = floats_of(frame, lt::DURATION_NS)?;
        let bounds = strings_of(frame, columns::BOUND)?;
        let reasons = strings_of(frame, columns::MODEL_REASON)?;
        for row in 0..frame.height() {
            let kernel = kernels[row].clone().unwrap_or_else(|| "?".to_owned());
            match (predicted[row], measured[row]) {
                (Some(p), Some(m)) if m > 0.0 => {
                    let entry = errors.entry(kernel).or_default();
                    entry.0.push(((p - m) / m).abs() * 100.0);
                    let bound = bounds[row].clone().unwrap_or_else(|| "?".to_owned());
                    if !entry.1.contains(&bound) {
                        entry.1.push(bound);
                    }
                }
                _ => unpredicted.push(format!(
                    "{kernel}: predicted {:?}, measured {:?} ({})",
                    predicted[row],
                    measured[row],
                    reasons[row].as_deref().unwrap_or("no reason given")
                )),
            }
        }
    }
    let table = errors
        .into_iter()
        .map(|(kernel, (mut pct, bounds))| KernelAccuracy {
            launches: pct.len(),
            worst_pct: pct.iter().copied().fold(0.0, f64::max),
            median_pct: median(&mut pct),
            kernel,
            bounds: bounds.join("/"),
        })
        .collect();
    Ok((table, unpredicted))
}

/// The Markdown report of one capture.
fn accuracy_markdown(
    capture: &Capture,
    table: &[KernelAccuracy],
    unpredicted: &[String],
) -> String {
    let mut out = format!("## {}\n\n", capture.dir.display());
    out.push_str("| kernel | launches | median abs. error | worst abs. error | bound (model) |\n");
    out.push_str("|---|---:|---:|---:|---|\n");
    for k in table {
        out.push_str(&format!(
            "| `{}` | {} | {:.1} % | {:.1} % | {} |\n",
            k.kernel, k.launches, k.median_pct, k.worst_pct, k.bounds
        ));
    }
    let mut medians: Vec<f64> = table.iter().map(|k| k.median_pct).collect();
    if !medians.is_empty() {
        let worst = table.iter().map(|k| k.worst_pct).fold(0.0, f64::max);
        out.push_str(&format!(
            "\nAcross kernels: median of the per-kernel medians {:.1} %, worst launch {:.1} %.\n",
            median(&mut medians),
            worst
        ));
    }
    if !unpredicted.is_empty() {
        out.push_str(&format!(
            "\n{} launch(es) without a prediction:\n\n",
            unpredicted.len()
        ));
        for line in unpredicted {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}

/// Where the report goes: `$CARGO_TARGET_DIR` when set, else the workspace's `target/`.
fn report_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| warpsight_test_support::paths::workspace_root().join("target"));
    target.join("accuracy-report.md")
}

#[test]
fn median_and_worst_error_per_kernel() -> TestResult {
    // A hand-made two-kernel frame: errors 10 %, 30 %, 20 % for `a` (median 20, worst 30) and one
    // launch of `b` 50 % off; a third launch without a prediction is listed, not dropped.
    let frame = df!(
        lt::KERNEL_SHORT_NAME => ["a", "a", "a", "b", "b"],
        lt::DURATION_NS => [100.0, 100.0, 200.0, 10.0, 10.0],
        columns::PREDICTED_NS => [Some(110.0), Some(70.0), Some(240.0), Some(15.0), None],
        columns::BOUND => ["memory-dram", "memory-dram", "compute", "latency", "unknown"],
        columns::MODEL_REASON => [None, None, None, None, Some("no counters")],
    )?;
    let (table, unpredicted) = accuracy_of(&[frame])?;
    assert_eq!(table.len(), 2);
    assert_eq!((table[0].kernel.as_str(), table[0].launches), ("a", 3));
    assert!((table[0].median_pct - 20.0).abs() < 1e-9 && (table[0].worst_pct - 30.0).abs() < 1e-9);
    assert_eq!(table[0].bounds, "memory-dram/compute");
    assert!((table[1].median_pct - 50.0).abs() < 1e-9);
    assert_eq!(unpredicted.len(), 1);
    assert!(unpredicted[0].contains("no counters"));
    Ok(())
}

#[test]
fn captured_predictions_accuracy_report() -> TestResult {
    let Some(captures) = captures_or_skip("captured_predictions_accuracy_report")? else {
        return Ok(());
    };
    let registry = registry()?;
    let mut report = String::from(
        "# warpsight accuracy on captured kernels\n\nPredicted vs measured (ncu `gpu__time_duration.sum`) \
         duration per kernel, from `cargo test -p warpsight --test captured_traces`.\n\n",
    );
    for capture in &captures {
        let mut frames = Vec::new();
        for case in &capture.cases {
            frames.push(evaluated(&case.details, &registry)?);
        }
        let (table, unpredicted) = accuracy_of(&frames)?;
        assert!(
            !table.is_empty(),
            "{}: no launch got a prediction: {unpredicted:?}",
            capture.dir.display()
        );
        for k in &table {
            assert!(
                k.median_pct.is_finite() && k.worst_pct.is_finite(),
                "{}: {k:?}",
                capture.dir.display()
            );
        }
        report.push_str(&accuracy_markdown(capture, &table, &unpredicted));
        report.push('\n');
    }
    println!("{report}");
    let path = report_path();
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(&path, &report)?;
    println!("wrote {}", path.display());
    Ok(())
}
