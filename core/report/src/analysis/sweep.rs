//! Occupancy sweeps, like the graphs of NVIDIA's occupancy calculator: one launch configuration
//! with one parameter varied — threads per block (warp steps up to the architecture's maximum),
//! registers per thread (1 to the maximum) or shared memory per block (0 to the opt-in maximum in
//! 1 KiB steps) — each point evaluated by the model (`super::variants`).

use polars::prelude::*;

use super::error::AnalysisError;
use super::frame_access::Cells;
use super::variants::{self, Variant};
use crate::units;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::{ArchSpec, ComputeCapability, Registry};
use warpsight_model::{ModelConfig, columns as mc};

/// Which parameter a sweep varies (sets the axis label and tick format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepAxis {
    /// Threads per block.
    BlockSize,
    /// Registers per thread.
    Registers,
    /// Shared memory per block, bytes.
    SharedMemory,
}

impl SweepAxis {
    /// The axis label.
    pub(crate) fn label(self) -> &'static str {
        match self {
            SweepAxis::BlockSize => "threads per block",
            SweepAxis::Registers => "registers per thread",
            SweepAxis::SharedMemory => "shared memory per block",
        }
    }

    /// A tick or value label.
    pub(crate) fn format(self, value: f64) -> String {
        match self {
            SweepAxis::SharedMemory => units::bytes(value),
            _ => format!("{value:.0}"),
        }
    }
}

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    /// The varied parameter's value (threads, registers or bytes).
    pub value: f64,
    /// Theoretical occupancy, 0–1.
    pub occupancy: f64,
    /// Active blocks per SM.
    pub(crate) active_blocks: i64,
    /// The limiter(s).
    pub limiter: String,
}

/// One sweep: a parameter, its points and the configuration's current value.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The varied parameter.
    pub axis: SweepAxis,
    /// The points, ascending.
    pub points: Vec<SweepPoint>,
    /// The current value and its occupancy.
    pub current: Option<(f64, f64)>,
}

impl Sweep {
    /// The points where occupancy or the limiter changes (plus the first and last), the rows a
    /// person wants in a table.
    pub(crate) fn steps(&self) -> Vec<&SweepPoint> {
        let mut out: Vec<&SweepPoint> = Vec::new();
        for (index, point) in self.points.iter().enumerate() {
            let changed = out.last().is_none_or(|last| {
                (last.occupancy - point.occupancy).abs() > 1e-9 || last.limiter != point.limiter
            });
            if changed || index + 1 == self.points.len() {
                out.push(point);
            }
        }
        out
    }
}

/// A one-row launch frame for a configuration given by hand (for `warpsight occupancy --sweep`).
pub(crate) fn config_row(
    cc: ComputeCapability,
    block_size: u32,
    registers: u32,
    static_smem: u64,
    dynamic_smem: u64,
    smem_config: Option<u64>,
) -> PolarsResult<DataFrame> {
    let frame = df!(
        lt::CC_MAJOR => [i64::from(cc.major)],
        lt::CC_MINOR => [i64::from(cc.minor)],
        lt::BLOCK_X => [i64::from(block_size)],
        lt::BLOCK_Y => [1i64],
        lt::BLOCK_Z => [1i64],
        lt::GRID_X => [1i64],
        lt::GRID_Y => [1i64],
        lt::GRID_Z => [1i64],
        lt::REGISTERS_PER_THREAD => [i64::from(registers)],
        lt::STATIC_SMEM_BYTES => [i64::try_from(static_smem).unwrap_or(i64::MAX)],
        lt::DYNAMIC_SMEM_BYTES => [i64::try_from(dynamic_smem).unwrap_or(i64::MAX)],
        lt::SMEM_CONFIG_BYTES => [smem_config.and_then(|v| i64::try_from(v).ok())],
    )?;
    warpsight_ingest::launch_table::conform(frame.lazy())?.collect()
}

/// The three sweeps of row `row` of `base` (launch-table columns) on architecture `arch`.
pub(crate) fn sweeps(
    base: &DataFrame,
    row: usize,
    arch: &ArchSpec,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<Vec<Sweep>, AnalysisError> {
    let one = base.slice(row as i64, 1);
    let mut cells = Cells::new(&one);
    let threads = cells.i64(lt::BLOCK_X, 0).unwrap_or(0)
        * cells.i64(lt::BLOCK_Y, 0).unwrap_or(1).max(1)
        * cells.i64(lt::BLOCK_Z, 0).unwrap_or(1).max(1);
    let registers = cells.i64(lt::REGISTERS_PER_THREAD, 0);
    let static_smem = cells.i64(lt::STATIC_SMEM_BYTES, 0).unwrap_or(0);
    let dynamic_smem = cells.i64(lt::DYNAMIC_SMEM_BYTES, 0).unwrap_or(0);
    let warp = arch.threads_per_warp.max(1);

    let block_values: Vec<u32> = (1..=arch.max_threads_per_block / warp)
        .map(|k| k * warp)
        .collect();
    let register_values: Vec<u32> = (1..=arch.max_regs_per_thread.min(255)).collect();
    let step = 1024u64;
    let smem_values: Vec<i64> = (0..=u64::from(arch.smem_per_block_optin) / step)
        .map(|k| i64::try_from(k * step).unwrap_or(i64::MAX))
        .collect();

    let mut variants = Vec::new();
    variants.push(Variant::default());
    variants.extend(block_values.iter().map(|&b| Variant {
        block_size: Some(b),
        ..Variant::default()
    }));
    variants.extend(register_values.iter().map(|&r| Variant {
        registers: Some(r),
        ..Variant::default()
    }));
    variants.extend(smem_values.iter().map(|&s| Variant {
        static_smem: Some(0),
        dynamic_smem: Some(s),
        ..Variant::default()
    }));
    let results = variants::evaluate(
        &one,
        &variants,
        registry,
        config,
        variants::Detail::WithLimiter,
    )?;
    let current_occupancy = results.first().and_then(|r| r.occupancy);
    let mut rest = results.into_iter().skip(1);
    let mut take = |values: Vec<f64>| -> Vec<SweepPoint> {
        values
            .into_iter()
            .zip(rest.by_ref())
            .filter_map(|(value, result)| {
                Some(SweepPoint {
                    value,
                    occupancy: result.occupancy?,
                    active_blocks: result.active_blocks.unwrap_or(0),
                    limiter: result.limiter.unwrap_or_default(),
                })
            })
            .collect()
    };
    let block_points = take(block_values.iter().map(|&v| f64::from(v)).collect());
    let register_points = take(register_values.iter().map(|&v| f64::from(v)).collect());
    let smem_points = take(smem_values.iter().map(|&v| v as f64).collect());
    let current = |value: Option<f64>| value.zip(current_occupancy);
    Ok(vec![
        Sweep {
            axis: SweepAxis::BlockSize,
            points: block_points,
            current: current(Some(threads as f64)),
        },
        Sweep {
            axis: SweepAxis::Registers,
            points: register_points,
            current: current(registers.map(|r| r as f64)),
        },
        Sweep {
            axis: SweepAxis::SharedMemory,
            points: smem_points,
            current: current(Some((static_smem + dynamic_smem) as f64)),
        },
    ])
}

/// The sweeps as plain-text tables (only the points where something changes).
pub fn to_text(sweeps: &[Sweep]) -> String {
    let mut out = String::new();
    for sweep in sweeps {
        out.push_str(&format!("occupancy vs {}\n", sweep.axis.label()));
        out.push_str(&format!(
            "  {:>12}  {:>9}  {:>10}  {}\n",
            "value", "occupancy", "blocks/SM", "limiter"
        ));
        for point in sweep.steps() {
            let marker = match sweep.current {
                Some((value, _)) if (value - point.value).abs() < 0.5 => "  ← current",
                _ => "",
            };
            out.push_str(&format!(
                "  {:>12}  {:>9}  {:>10}  {}{marker}\n",
                sweep.axis.format(point.value),
                crate::units::percent(point.occupancy),
                point.active_blocks,
                point.limiter
            ));
        }
        if let Some((value, occupancy)) = sweep.current {
            out.push_str(&format!(
                "  current: {} → {}\n",
                sweep.axis.format(value),
                crate::units::percent(occupancy)
            ));
        }
        out.push('\n');
    }
    out
}

/// The architecture of row `row` of an evaluated frame (by its compute capability, else by its
/// model device).
pub(crate) fn arch_of<'r>(
    frame: &DataFrame,
    row: usize,
    registry: &'r Registry,
) -> Option<&'r ArchSpec> {
    let mut cells = Cells::new(frame);
    if let (Some(major), Some(minor)) = (cells.i64(lt::CC_MAJOR, row), cells.i64(lt::CC_MINOR, row))
    {
        let cc = ComputeCapability::new(u32::try_from(major).ok()?, u32::try_from(minor).ok()?);
        if let Some(arch) = registry.arch(cc) {
            return Some(arch);
        }
    }
    let device = cells
        .str(mc::MODEL_DEVICE, row)
        .or_else(|| cells.str(lt::DEVICE_NAME, row))?;
    registry.arch(registry.device(&device)?.cc)
}

/// The three sweeps of a configuration given by hand (for `warpsight occupancy --sweep`).
#[allow(clippy::too_many_arguments)]
pub fn for_config(
    registry: &Registry,
    cc: ComputeCapability,
    block_size: u32,
    registers: u32,
    static_smem: u64,
    dynamic_smem: u64,
    smem_config: Option<u64>,
) -> Result<Vec<Sweep>, AnalysisError> {
    let arch = registry
        .arch(cc)
        .ok_or(warpsight_model::ModelError::UnknownArch { cc, device: None })?;
    let row = config_row(
        cc,
        block_size,
        registers,
        static_smem,
        dynamic_smem,
        smem_config,
    )?;
    sweeps(&row, 0, arch, registry, &ModelConfig::default())
}
