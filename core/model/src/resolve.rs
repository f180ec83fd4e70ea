//! Which device and architecture each launch is modelled with, and the joins that bring their
//! parameters onto the launch frame.
//!
//! Own device (no override): the launch's `device_name` matched in the registry (normalised as
//! [`crate::arch::registry::normalize_device_name`] does); else the registry device with the
//! launch's compute capability and SM count; the architecture is the launch's CC, or the matched
//! device's CC when the export has none. SM count and SM clock come from the launch row when it has
//! them (they describe the run that was measured), else from the device; the device's peak FLOP/s
//! (quoted at the boost clock) are scaled by the row's clock over the boost clock.
//!
//! Override: every launch gets the named device and its architecture; SM count and clock are the
//! target's. The export's carveout is used only when the target has the launch's own CC.

use polars::prelude::*;

use super::clock;
use super::columns as out;
use super::occupancy::{BARRIER_COUNT, CARVEOUT_PERCENT, USE_EXPORT};
use super::params as p;
use super::{CarveoutPolicy, ModelConfig};
use crate::arch::{ArchSpec, DeviceSpec, Registry};
use warpsight_ingest::launch_table::column_names as lt;

/// Effective SM count of the row (launch row first, then the device).
pub(crate) const SM_COUNT: &str = "__e_sm_count";
/// Effective SM clock of the row, Hz (launch row first, then the device's boost clock).
pub(crate) const SM_CLOCK: &str = "__e_sm_clock_hz";
/// The row's SM clock over the device's boost clock (1 when either is unknown, and in
/// cross-device runs): scales the device's peak FLOP/s to the clock the launch ran at.
pub(crate) const CLOCK_SCALE: &str = "__e_clock_scale";
/// True when the row is modelled on another device than the one it ran on.
pub(crate) const IS_OVERRIDE: &str = "__e_override";

const FALLBACK_PREFIX: &str = "__f";
/// Prefix of the memory-clock fallback's columns.
const CLOCK_PREFIX: &str = "__g";
/// The launch's memory-clock bucket (from the export's DRAM frequency).
const MEMORY_BUCKET: &str = "__e_memory_bucket";

fn left_join_args() -> JoinArgs {
    JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(JoinType::Left)
    }
}

/// Joins the architecture frame on the target compute capability columns.
fn join_arch(frame: LazyFrame, registry: &Registry) -> PolarsResult<LazyFrame> {
    let archs: Vec<&ArchSpec> = registry.archs.iter().map(|(a, _)| a).collect();
    let arch_frame = p::arch_frame(&archs)?
        .lazy()
        .with_columns([
            col(p::CC_MAJOR).alias(p::TARGET_CC_MAJOR),
            col(p::CC_MINOR).alias(p::TARGET_CC_MINOR),
        ])
        .unique(None, UniqueKeepStrategy::First);
    Ok(frame.join(
        arch_frame,
        [col(p::TARGET_CC_MAJOR), col(p::TARGET_CC_MINOR)],
        [col(p::TARGET_CC_MAJOR), col(p::TARGET_CC_MINOR)],
        left_join_args(),
    ))
}

/// Resolves every launch to its own device and architecture and joins their parameters.
pub(crate) fn own_device(
    frame: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
    barrier_count: Expr,
) -> PolarsResult<LazyFrame> {
    let by_name = p::device_frame(registry)?.lazy();
    // The fallback: the device that alone has the launch's (CC, SM count).
    let fallback_columns: Vec<Expr> = p::device_columns()
        .into_iter()
        .map(|name| col(name).alias(format!("{FALLBACK_PREFIX}{name}")))
        .collect();
    let by_config = p::unique_config_device_frame(registry)?
        .lazy()
        .select(fallback_columns);
    // The last fallback: the device that alone has the launch's (CC, SM count, memory clock).
    let clock_columns: Vec<Expr> = p::device_columns()
        .into_iter()
        .chain([p::DEV_MEMORY_BUCKET])
        .map(|name| col(name).alias(format!("{CLOCK_PREFIX}{name}")))
        .collect();
    let by_clock = p::unique_memory_clock_device_frame(registry)?
        .lazy()
        .select(clock_columns);
    let frame = frame
        .with_column(p::memory_clock_bucket(col(lt::DRAM_CLOCK_HZ)).alias(MEMORY_BUCKET))
        .join(
            by_clock,
            [
                col(lt::CC_MAJOR),
                col(lt::CC_MINOR),
                col(lt::SM_COUNT),
                col(MEMORY_BUCKET),
            ],
            [
                col(format!("{CLOCK_PREFIX}{}", p::DEV_CC_MAJOR)),
                col(format!("{CLOCK_PREFIX}{}", p::DEV_CC_MINOR)),
                col(format!("{CLOCK_PREFIX}{}", p::DEV_SM_COUNT)),
                col(format!("{CLOCK_PREFIX}{}", p::DEV_MEMORY_BUCKET)),
            ],
            JoinArgs {
                coalesce: JoinCoalesce::KeepColumns,
                ..left_join_args()
            },
        );
    let frame = frame
        .with_column(p::normalized_device_name(col(lt::DEVICE_NAME)).alias(p::DEV_KEY))
        .join(
            by_name,
            [col(p::DEV_KEY)],
            [col(p::DEV_KEY)],
            left_join_args(),
        )
        .join(
            by_config,
            [col(lt::CC_MAJOR), col(lt::CC_MINOR), col(lt::SM_COUNT)],
            [
                col(format!("{FALLBACK_PREFIX}{}", p::DEV_CC_MAJOR)),
                col(format!("{FALLBACK_PREFIX}{}", p::DEV_CC_MINOR)),
                col(format!("{FALLBACK_PREFIX}{}", p::DEV_SM_COUNT)),
            ],
            JoinArgs {
                coalesce: JoinCoalesce::KeepColumns,
                ..left_join_args()
            },
        );
    // A name match wins over the (CC, SM count) match, which wins over the memory-clock match.
    let name_matched = col(p::DEV_NAME).is_not_null();
    let config_matched = col(format!("{FALLBACK_PREFIX}{}", p::DEV_NAME)).is_not_null();
    let merged: Vec<Expr> = p::device_columns()
        .into_iter()
        .map(|name| {
            when(name_matched.clone())
                .then(col(name))
                .when(config_matched.clone())
                .then(col(format!("{FALLBACK_PREFIX}{name}")))
                .otherwise(col(format!("{CLOCK_PREFIX}{name}")))
                .alias(name)
        })
        .collect();
    let dropped: Vec<String> = p::device_columns()
        .into_iter()
        .map(|name| format!("{FALLBACK_PREFIX}{name}"))
        .chain(
            p::device_columns()
                .into_iter()
                .chain([p::DEV_MEMORY_BUCKET])
                .map(|name| format!("{CLOCK_PREFIX}{name}")),
        )
        .chain([MEMORY_BUCKET.to_string()])
        .collect();
    let frame = frame.with_columns(merged).drop(cols(dropped));
    let mut frame = export_device_attributes(frame)?;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let use_export = config.carveout == CarveoutPolicy::ExportOrMaximum;
    let frame = frame.with_columns([
        col(lt::CC_MAJOR)
            .fill_null(col(p::DEV_CC_MAJOR))
            .alias(p::TARGET_CC_MAJOR),
        col(lt::CC_MINOR)
            .fill_null(col(p::DEV_CC_MINOR))
            .alias(p::TARGET_CC_MINOR),
        col(lt::SM_COUNT)
            .fill_null(col(p::DEV_SM_COUNT))
            .alias(SM_COUNT),
        lit(use_export).alias(USE_EXPORT),
        lit(NULL).cast(DataType::Int64).alias(CARVEOUT_PERCENT),
        barrier_count.alias(BARRIER_COUNT),
        lit(false).alias(IS_OVERRIDE),
    ]);
    let frame = frame.with_columns(clock::own_device(config.sm_clock, &schema));
    let frame = frame.with_columns([col(out::MODEL_SM_CLOCK_HZ).alias(SM_CLOCK)]);
    // Peaks are quoted at the boost clock; the clock the launch is modelled at (ncu locks clocks
    // to base by default) scales them.
    let scale = when(
        col(p::DEV_SM_CLOCK)
            .gt(lit(0.0))
            .and(col(SM_CLOCK).gt(lit(0.0))),
    )
    .then(col(SM_CLOCK) / col(p::DEV_SM_CLOCK))
    .otherwise(lit(1.0));
    let frame = frame.with_columns([scale.alias(CLOCK_SCALE)]);
    join_arch(frame, registry)
}

/// ncu's device attributes (the CUDA driver's own numbers for the GPU the launch ran on): the
/// peak SM clock and memory clock in kHz, the memory bus width in bits.
pub(crate) const ATTR_CLOCK_KHZ: &str = "device__attribute_clock_rate";
pub(crate) const ATTR_MEMORY_CLOCK_KHZ: &str = "device__attribute_memory_clock_rate";
pub(crate) const ATTR_BUS_WIDTH_BITS: &str = "device__attribute_global_memory_bus_width";

/// For launches whose device no plugin knows, the device numbers the time model needs from the
/// export's own device attributes, where it has them: the boost clock (`clock_rate`), the memory
/// clock and the DRAM bandwidth, 2 × memory clock × bus width / 8 (double data rate: T4 2 × 5.001
/// GHz × 256 bit / 8 = 320 GB/s, its datasheet figure; H100 SXM 2 × 2.619 GHz × 5120 / 8 = 3.35
/// TB/s). Peak FLOP/s and L2 numbers stay unknown.
fn export_device_attributes(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let attr = |name: &str| {
        if schema.contains(name) {
            let v = col(name).cast(DataType::Float64);
            when(v.clone().gt(lit(0.0)))
                .then(v)
                .otherwise(lit(NULL).cast(DataType::Float64))
        } else {
            lit(NULL).cast(DataType::Float64)
        }
    };
    let unknown = || col(p::DEV_NAME).is_null();
    let memory_clock = attr(ATTR_MEMORY_CLOCK_KHZ) * lit(1e3);
    let bandwidth = lit(2.0) * memory_clock.clone() * attr(ATTR_BUS_WIDTH_BITS) / lit(8.0);
    Ok(frame.with_columns([
        when(unknown())
            .then(col(p::DEV_SM_CLOCK).fill_null(attr(ATTR_CLOCK_KHZ) * lit(1e3)))
            .otherwise(col(p::DEV_SM_CLOCK))
            .alias(p::DEV_SM_CLOCK),
        when(unknown())
            .then(col(p::DEV_MEM_CLOCK).fill_null(memory_clock))
            .otherwise(col(p::DEV_MEM_CLOCK))
            .alias(p::DEV_MEM_CLOCK),
        when(unknown())
            .then(col(p::DEV_DRAM_BW).fill_null(bandwidth))
            .otherwise(col(p::DEV_DRAM_BW))
            .alias(p::DEV_DRAM_BW),
    ]))
}

/// Models every launch with `device` (and its architecture `arch`).
pub(crate) fn override_device(
    frame: LazyFrame,
    device: &DeviceSpec,
    arch: &ArchSpec,
    config: &ModelConfig,
    barrier_count: Expr,
) -> LazyFrame {
    let same_cc = col(lt::CC_MAJOR)
        .eq(lit(i64::from(device.cc.major)))
        .and(col(lt::CC_MINOR).eq(lit(i64::from(device.cc.minor))))
        .fill_null(lit(false));
    let use_export = if config.carveout == CarveoutPolicy::ExportOrMaximum {
        same_cc
    } else {
        lit(false)
    };
    let mut exprs = p::device_literals(device);
    exprs.extend(p::arch_literals(arch));
    exprs.extend([
        lit(i64::from(device.cc.major)).alias(p::TARGET_CC_MAJOR),
        lit(i64::from(device.cc.minor)).alias(p::TARGET_CC_MINOR),
        lit(i64::from(device.sm_count)).alias(SM_COUNT),
        use_export.alias(USE_EXPORT),
        lit(NULL).cast(DataType::Int64).alias(CARVEOUT_PERCENT),
        barrier_count.alias(BARRIER_COUNT),
        lit(true).alias(IS_OVERRIDE),
    ]);
    exprs.extend(clock::override_device(config.sm_clock, device));
    let boost = device.sm_clock_hz;
    frame.with_columns(exprs).with_columns([
        col(out::MODEL_SM_CLOCK_HZ).alias(SM_CLOCK),
        if boost.is_finite() && boost > 0.0 {
            (col(out::MODEL_SM_CLOCK_HZ) / lit(boost)).fill_null(lit(1.0))
        } else {
            lit(1.0)
        }
        .alias(CLOCK_SCALE),
    ])
}

/// Which reason the launch is not (fully) modelled for, as a small code (null when it is). The
/// text ([`model_reason`]) is written only for the rows with a code.
pub(crate) fn model_reason_case() -> Expr {
    when(col(p::TARGET_CC_MAJOR).is_null())
        .then(lit(1i32))
        .when(col(p::ARCH_FOUND).is_null())
        .then(lit(2i32))
        .when(
            col(super::columns::THREADS_PER_BLOCK)
                .is_null()
                .or(col(lt::REGISTERS_PER_THREAD).is_null()),
        )
        .then(lit(3i32))
        .when(
            col(p::DEV_NAME)
                .is_null()
                .and(col(lt::DEVICE_NAME).is_null()),
        )
        .then(lit(4i32))
        .when(col(p::DEV_NAME).is_null())
        .then(lit(5i32))
        .otherwise(lit(NULL).cast(DataType::Int32))
}

/// Internal column holding [`model_reason_case`].
pub(crate) const REASON_CASE: &str = "__e_reason_case";

/// The text of [`model_reason_case`]'s case (needs the [`REASON_CASE`] column), written only for
/// the rows with a case.
pub(crate) fn model_reason() -> Expr {
    let inputs = vec![
        col(REASON_CASE),
        col(lt::DEVICE_NAME),
        col(p::TARGET_CC_MAJOR),
        col(p::TARGET_CC_MINOR),
        col(SM_COUNT),
    ];
    super::text::text_column(super::columns::MODEL_REASON, inputs, write_reason)
}

/// Writes the reason text of a row from [`model_reason`]'s inputs: the case (0), the export's
/// device name (1), the target compute capability (2, 3) and the SM count (4). A text that needs a
/// value the row lacks is null.
fn write_reason(inputs: &super::text::TextInputs<'_>, row: usize, text: &mut String) -> bool {
    let capability = |text: &mut String| {
        let major = inputs.write_number(2, row, text);
        text.push('.');
        major && inputs.write_number(3, row, text)
    };
    match inputs.number(0, row) {
        Some(1.0) => {
            text.push_str("no compute capability: the export has none and device ");
            text.push_str(inputs.text(1, row).unwrap_or("(unnamed)"));
            text.push_str(" is not in the loaded plugins");
            true
        }
        Some(2.0) => {
            text.push_str("no loaded plugin provides compute capability ");
            capability(text)
        }
        Some(3.0) => {
            text.push_str(
                "no launch configuration (block size and registers per thread) in the export",
            );
            true
        }
        Some(4.0) => {
            text.push_str(
                "the export names no device and no single loaded device has compute capability ",
            );
            let known = capability(text);
            text.push_str(" with ");
            if !inputs.write_number(4, row, text) {
                text.push_str("unknown");
            }
            text.push_str(" SMs: device ceilings (bandwidth, peak FLOP/s) unknown");
            known
        }
        Some(5.0) => match inputs.text(1, row) {
            Some(name) => {
                text.push_str("device ");
                text.push_str(name);
                text.push_str(
                    " is not in the loaded plugins: device ceilings (bandwidth, peak FLOP/s) \
                     unknown",
                );
                true
            }
            None => false,
        },
        _ => false,
    }
}
