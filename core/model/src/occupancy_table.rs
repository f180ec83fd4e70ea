//! The occupancy fast path: [`evaluate_occupancy`] adds only the occupancy and waves columns (plus
//! `model_device` and `model_reason`), computed once per distinct launch configuration.
//!
//! Millions of launches of a Nsight Systems trace share a handful of configurations (device, block
//! shape, registers, shared memory, carveout, barriers). The device resolution ([`super::resolve`]),
//! the parameter joins ([`super::params`]) and the occupancy expressions
//! ([`super::occupancy::add_columns`]) therefore run on the unique configurations only, and their
//! results are gathered back onto the launches by configuration number, in launch order. The only
//! per-launch work left is the grid size and the waves, with the very expressions
//! [`super::evaluate`] uses, so both entry points give identical values (the `model_corpus` test
//! checks it). [`super::evaluate`] runs its own resolution and occupancy stage through
//! `resolved_occupancy`, the same per-configuration evaluation with every column kept.

use polars::prelude::*;

use super::columns as out;
use super::{ModelConfig, ModelError, occupancy, params as p, resolve, waves};
use crate::arch::{ArchSpec, DeviceSpec, Registry};
use warpsight_ingest::launch_table::column_names as lt;

/// Internal key column: the barrier count per block ([`super::barrier_count_expr`]).
pub(super) const KEY_BARRIERS: &str = "__q_barrier_count";

/// The launch-table columns that occupancy and the device resolution depend on, plus
/// [`KEY_BARRIERS`]: the device name first, then eleven integer columns, then the SM clock (which
/// the resolution turns into the clock scale of the roofline's peaks) and the DRAM clock (which
/// identifies the device when the export names none). The grid size is absent: it
/// is computed per launch. [`CLOCK_KEY_EXTRAS`] follow where the launches have them.
fn key_columns() -> [&'static str; 14] {
    [
        lt::DEVICE_NAME,
        lt::CC_MAJOR,
        lt::CC_MINOR,
        lt::SM_COUNT,
        lt::BLOCK_X,
        lt::BLOCK_Y,
        lt::BLOCK_Z,
        lt::REGISTERS_PER_THREAD,
        lt::STATIC_SMEM_BYTES,
        lt::DYNAMIC_SMEM_BYTES,
        lt::SMEM_CONFIG_BYTES,
        KEY_BARRIERS,
        lt::SM_CLOCK_HZ,
        lt::DRAM_CLOCK_HZ,
    ]
}

/// Adds the occupancy columns of [`super::columns`] (threads and warps per block, grid blocks,
/// allocations, smem capacity and source, every block limit, active blocks and warps, theoretical
/// occupancy, limiter, `not_launchable`), the waves columns (blocks per wave, waves, tail
/// efficiency), [`out::MODEL_DEVICE`] and [`out::MODEL_REASON`] to the launch table, with the same
/// values as [`super::evaluate`] gives them, but without the roofline, Little's law and
/// prediction stages, and evaluating the configuration-dependent part once per distinct launch
/// configuration. Fails like [`super::evaluate`]: on an unknown override device or a polars error.
///
/// Unlike [`super::evaluate`], this collects the key columns and evaluates the configurations when
/// called; what it returns is the launch table (still lazy) with the per-launch results beside it.
pub fn evaluate_occupancy(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    crate::plan_schema::with_shared_arenas(|| occupancy_planned(launches, registry, config))
}

/// [`evaluate_occupancy`], its plan's schemas resolved in shared arenas.
fn occupancy_planned(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    let (mut launches, ids, per_config) = conformed_configurations(launches, registry, config)?;
    let launch_names: Vec<PlSmallStr> = crate::plan_schema::schema_of(&mut launches)?
        .iter_names_cloned()
        .collect();
    let mut per_config = per_config
        .with_columns([
            col(p::DEV_NAME).alias(out::MODEL_DEVICE),
            resolve::model_reason_case().alias(resolve::REASON_CASE),
        ])
        .with_columns([resolve::model_reason().alias(out::MODEL_REASON)]);

    // The occupancy columns, in the order `add_columns` adds them.
    let occupancy_names: Vec<PlSmallStr> = crate::plan_schema::schema_of(&mut per_config)?
        .iter_names_cloned()
        .filter(|name| {
            !name.starts_with("__")
                && !carried(name)
                && name != out::MODEL_DEVICE
                && name != out::MODEL_REASON
                && name != out::MODEL_SM_CLOCK_HZ
                && name != out::MODEL_SM_CLOCK_SOURCE
        })
        .collect();
    let mut results = vec![col(resolve::SM_COUNT)];
    results.extend(
        occupancy_names
            .iter()
            .filter(|name| *name != out::GRID_BLOCKS)
            .map(|name| col(name.clone())),
    );
    results.extend([col(out::MODEL_DEVICE), col(out::MODEL_REASON)]);
    // Only the result columns are gathered onto the launches: eagerly, by configuration number.
    let per_launch = per_config.select(results).collect()?.take(&ids)?;
    // A frame the model has already evaluated gets its columns replaced, in place.
    let added: Vec<PlSmallStr> = occupancy_names
        .iter()
        .cloned()
        .chain(
            [
                out::BLOCKS_PER_WAVE,
                out::WAVES,
                out::TAIL_EFFICIENCY,
                out::MODEL_DEVICE,
                out::MODEL_REASON,
            ]
            .map(PlSmallStr::from_static),
        )
        .collect();
    let joined = beside(
        launches.drop(by_name(added.iter().cloned(), false, false)),
        per_launch.lazy(),
    )?
    .with_column(occupancy::grid_blocks().alias(out::GRID_BLOCKS));
    let joined = waves::add_columns(joined);

    let mut keep: Vec<Expr> = launch_names.iter().cloned().map(col).collect();
    keep.extend(
        added
            .into_iter()
            .filter(|name| !launch_names.contains(name))
            .map(col),
    );
    Ok(joined.select(keep))
}

/// Only the occupancy columns `columns` (names of [`super::columns`] that
/// `super::occupancy::add_columns` computes, e.g. [`out::THEORETICAL_OCCUPANCY`]) of every row of
/// `launches`, in row order, with the values [`evaluate_occupancy`] gives them. The columns not
/// asked for are pruned from the plan, never computed: the what-if engine evaluates hundreds of
/// thousands of variants and needs two numbers of each, not the limiter's text, the device
/// resolution's reason nor the waves. Fails like [`evaluate_occupancy`], and on a column that is
/// not an occupancy column.
pub fn occupancy_columns(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
    columns: &[&str],
) -> Result<DataFrame, ModelError> {
    crate::plan_schema::with_shared_arenas(|| {
        let (_, ids, per_config) = conformed_configurations(launches, registry, config)?;
        let wanted: Vec<Expr> = columns.iter().map(|name| col(*name)).collect();
        Ok(per_config.select(wanted).collect()?.take(&ids)?)
    })
}

/// The start of [`evaluate_occupancy`] and [`occupancy_columns`]: the conformed launch table (with
/// the barrier count's native columns), each launch's configuration number and the
/// per-configuration frame of [`configurations`], on the `--device` override when there is one.
fn conformed_configurations(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<(LazyFrame, IdxCa, LazyFrame), ModelError> {
    let mut launches = warpsight_ingest::launch_table::conform(launches)?;
    let barriers = super::barrier_count_expr(&mut launches)?;
    let target = match &config.device_override {
        None => None,
        Some(name) => Some(super::override_target(registry, name)?),
    };
    let (ids, per_config) = configurations(&launches, registry, config, barriers, target)?;
    Ok((launches, ids, per_config))
}

/// Columns that only some exports have and that the clock (`crate::clock`) and the device numbers
/// of devices no plugin knows (`resolve`) are read from: part of a configuration where present.
const CLOCK_KEY_EXTRAS: [&str; 4] = [
    lt::CLOCKS_LOCKED,
    resolve::ATTR_CLOCK_KHZ,
    resolve::ATTR_MEMORY_CLOCK_KHZ,
    resolve::ATTR_BUS_WIDTH_BITS,
];

/// The key columns of launches with `schema`: [`key_columns`], then the [`CLOCK_KEY_EXTRAS`] it has.
fn present_key_columns(schema: &Schema) -> Vec<&'static str> {
    key_columns()
        .into_iter()
        .chain(
            CLOCK_KEY_EXTRAS
                .into_iter()
                .filter(|name| schema.contains(name)),
        )
        .collect()
}

/// Whether a column of the per-configuration frame is one of its inputs, carried unchanged (the key
/// columns, the configuration number, the null grid) rather than computed.
fn carried(name: &str) -> bool {
    key_columns().contains(&name)
        || CLOCK_KEY_EXTRAS.contains(&name)
        || [CONFIG_ID, lt::GRID_X, lt::GRID_Y, lt::GRID_Z].contains(&name)
}

/// The device and architecture of a cross-device run.
pub(super) type Target<'r> = Option<(&'r DeviceSpec, &'r ArchSpec)>;

/// `frame` with the columns of `other` (same height) placed after its own.
fn beside(frame: LazyFrame, other: LazyFrame) -> PolarsResult<LazyFrame> {
    concat_lf_horizontal(
        [frame, other],
        HConcatOptions {
            strict: true,
            ..HConcatOptions::default()
        },
    )
}

/// The resolution and the occupancy expressions for own devices, or for `target`.
pub(super) fn resolve_and_occupancy(
    frame: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
    barriers: Expr,
    target: Target<'_>,
) -> PolarsResult<LazyFrame> {
    let resolved = match target {
        None => resolve::own_device(frame, registry, config, barriers)?,
        Some((device, arch)) => resolve::override_device(frame, device, arch, config, barriers),
    };
    occupancy::add_columns(resolved)
}

/// Numbers the distinct launch configurations of `launches` (collecting its key columns) and
/// evaluates the resolution and the occupancy once per configuration. Returns each launch's
/// configuration number and the per-configuration frame, one row per number in order (column
/// [`CONFIG_ID`]). Grid columns are null there: the grid size belongs to the launch.
fn configurations(
    launches: &LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
    barriers: Expr,
    target: Target<'_>,
) -> Result<(IdxCa, LazyFrame), ModelError> {
    // The key columns alone, one row per launch (existing columns are shared, not copied).
    let schema = crate::plan_schema::schema_of(&mut launches.clone())?;
    let keys: Vec<Expr> = present_key_columns(&schema).into_iter().map(col).collect();
    let keyed = launches
        .clone()
        .with_column(barriers.alias(KEY_BARRIERS))
        .select(keys)
        .collect()?;
    let (first_rows, ids) = number_configurations(&keyed)?;
    let configs = keyed
        .take(&first_rows)?
        .lazy()
        .with_row_index(CONFIG_ID, None)
        .with_columns([
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_X),
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_Y),
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_Z),
        ]);
    let per_config = resolve_and_occupancy(configs, registry, config, col(KEY_BARRIERS), target)?
        .sort([CONFIG_ID], SortMultipleOptions::default());
    Ok((ids, per_config))
}

/// The frame `occupancy::add_columns(resolve::own_device(..))` (or `resolve::override_device` for
/// a `target`) gives, with the same columns in the same order and the same values, computed once
/// per distinct launch configuration ([`configurations`]) and gathered onto the launches by
/// configuration number. Only the grid size is computed per launch. The key columns and the
/// configurations are evaluated when this is called. Used by [`super::evaluate`].
pub(super) fn resolved_occupancy(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
    barriers: Expr,
    target: Target<'_>,
) -> Result<LazyFrame, ModelError> {
    // The column order the per-launch evaluation would give, kept below.
    let mut resolved =
        resolve_and_occupancy(launches.clone(), registry, config, barriers.clone(), target)?;
    let order: Vec<PlSmallStr> = crate::plan_schema::schema_of(&mut resolved)?
        .iter_names_cloned()
        .collect();
    let (ids, mut per_config) = configurations(&launches, registry, config, barriers, target)?;
    let computed: Vec<PlSmallStr> = crate::plan_schema::schema_of(&mut per_config)?
        .iter_names_cloned()
        .filter(|name| !carried(name) && name != out::GRID_BLOCKS)
        .collect();
    let per_launch = per_config
        .select(computed.iter().cloned().map(col).collect::<Vec<_>>())
        .collect()?
        .take(&ids)?;
    // Columns the launch frame already has (a frame evaluated before) are replaced.
    let joined = beside(
        launches.drop(by_name(computed, false, false)),
        per_launch.lazy(),
    )?
    .with_column(occupancy::grid_blocks().alias(out::GRID_BLOCKS));
    Ok(joined.select(order.into_iter().map(col).collect::<Vec<_>>()))
}

/// Internal column: the configuration number.
const CONFIG_ID: &str = "__q_config";

/// Numbers the distinct configurations of `keyed` (its [`key_columns`]; other columns, such as
/// the grid, are not part of a configuration) in order of first appearance: returns the row of
/// each configuration's first launch, and each launch's number.
/// The device name, the integer columns and the clocks (by their bits: a -0.0 and a 0.0 only make
/// two configurations) are compared exactly, with nulls equal to nulls ([`crate::distinct`]: one
/// hash pass per column; polars' `unique` plus a join would row-encode the keys of every launch
/// twice, ≈ 0.6 GB more peak memory on 2 M launches).
fn number_configurations(keyed: &DataFrame) -> PolarsResult<(IdxCa, IdxCa)> {
    crate::distinct::number_rows(&keyed.select(present_key_columns(keyed.schema()))?)
}

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    use super::{evaluate_occupancy, number_configurations, occupancy_columns};
    use crate::columns as out;
    use crate::test_registry as registry;
    use crate::{CarveoutPolicy, ModelConfig, ModelError, evaluate, occupancy, resolve};
    use warpsight_ingest::launch_table::column_names as lt;
    use warpsight_ingest::{ReadConfig, read_path};
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};

    /// Interleaved configurations, nulls in key columns, and one launch that cannot run.
    fn launches() -> PolarsResult<DataFrame> {
        df!(
            lt::DEVICE_NAME => [Some("NVIDIA A100-SXM4-40GB"), None, Some("NVIDIA A100-SXM4-40GB"), None, Some("NVIDIA A100-SXM4-40GB")],
            lt::CC_MAJOR => [8i64, 8, 8, 8, 8],
            lt::CC_MINOR => [0i64, 0, 0, 0, 0],
            lt::BLOCK_X => [Some(256i64), Some(256), Some(256), None, Some(2048)],
            lt::GRID_X => [1000i64, 1728, 864, 10, 1],
            lt::REGISTERS_PER_THREAD => [32i64, 32, 32, 32, 32],
        )
    }

    #[test]
    fn configurations_are_numbered_by_first_appearance() -> Result<(), Box<dyn std::error::Error>> {
        let keyed = launches()?
            .lazy()
            .with_columns([
                lit(NULL).cast(DataType::Int64).alias(lt::SM_COUNT),
                lit(NULL).cast(DataType::Int64).alias(lt::BLOCK_Y),
                lit(NULL).cast(DataType::Int64).alias(lt::BLOCK_Z),
                lit(NULL).cast(DataType::Int64).alias(lt::STATIC_SMEM_BYTES),
                lit(NULL)
                    .cast(DataType::Int64)
                    .alias(lt::DYNAMIC_SMEM_BYTES),
                lit(NULL).cast(DataType::Int64).alias(lt::SMEM_CONFIG_BYTES),
                lit(1i64).alias(super::KEY_BARRIERS),
                lit(NULL).cast(DataType::Float64).alias(lt::SM_CLOCK_HZ),
                lit(NULL).cast(DataType::Float64).alias(lt::DRAM_CLOCK_HZ),
            ])
            .collect()?;
        let (first, ids) = number_configurations(&keyed)?;
        // Rows 0 and 2 share a configuration (the grid is not part of it); row 1 differs by its
        // missing device name, row 3 by its missing block size, row 4 by its block size.
        assert_eq!(first.into_no_null_iter().collect::<Vec<_>>(), [0, 1, 3, 4]);
        assert_eq!(ids.into_no_null_iter().collect::<Vec<_>>(), [0, 1, 0, 2, 3]);
        Ok(())
    }

    #[test]
    fn occupancy_and_waves_match_the_documented_a100_example()
    -> Result<(), Box<dyn std::error::Error>> {
        // 256 threads × 32 registers on CC 8.0: 8 blocks per SM (64 warps: occupancy 1), × 108 SMs
        // = 864 blocks per wave (the CUDA occupancy calculator's numbers for an A100).
        let out = evaluate_occupancy(launches()?.lazy(), &registry(), &ModelConfig::default())?
            .collect()?;
        assert_eq!(out.height(), 5);
        let occupancy = out.column(out::THEORETICAL_OCCUPANCY)?.f64()?;
        assert_eq!(occupancy.get(0), Some(1.0));
        assert_eq!(occupancy.get(2), Some(1.0));
        assert_eq!(occupancy.get(3), None);
        let waves = out.column(out::WAVES)?.f64()?;
        assert!((waves.get(0).ok_or("null")? - 1000.0 / 864.0).abs() < 1e-12);
        assert_eq!(waves.get(2), Some(1.0));
        // Row 1 has no device name: the architecture alone gives its occupancy, and (CC 8.0 with
        // an unknown SM count matching no single device) no waves.
        assert_eq!(occupancy.get(1), Some(1.0));
        assert_eq!(out.column(out::WAVES)?.f64()?.get(1), None);
        let reason = out.column(out::NOT_LAUNCHABLE)?.str()?;
        assert_eq!(
            reason.get(4),
            Some("needs 2048 threads per block, the device allows 1024")
        );
        // The same values as the full model, column for column.
        let full = evaluate(launches()?.lazy(), &registry(), &ModelConfig::default())?.collect()?;
        for column in out.columns() {
            let reference = full.column(column.name())?;
            assert!(
                column
                    .as_materialized_series()
                    .equals_missing(reference.as_materialized_series()),
                "{}",
                column.name()
            );
        }
        Ok(())
    }

    #[test]
    fn occupancy_columns_are_those_of_the_fast_path() -> Result<(), Box<dyn std::error::Error>> {
        let wanted = [
            out::THEORETICAL_OCCUPANCY,
            out::ACTIVE_BLOCKS,
            out::LIMITER,
            out::NOT_LAUNCHABLE,
        ];
        for config in [
            ModelConfig::default(),
            ModelConfig {
                device_override: Some("NVIDIA H100 80GB HBM3".to_string()),
                ..ModelConfig::default()
            },
        ] {
            let narrow = occupancy_columns(launches()?.lazy(), &registry(), &config, &wanted)?;
            let full = evaluate_occupancy(launches()?.lazy(), &registry(), &config)?.collect()?;
            assert_eq!(narrow.get_column_names(), wanted);
            assert_eq!(narrow.height(), 5);
            for name in wanted {
                assert!(
                    narrow
                        .column(name)?
                        .as_materialized_series()
                        .equals_missing(full.column(name)?.as_materialized_series()),
                    "{name}"
                );
            }
        }
        // A column that is not an occupancy column is an error, not a null column.
        assert!(
            occupancy_columns(
                launches()?.lazy(),
                &registry(),
                &ModelConfig::default(),
                &[out::PREDICTED_NS]
            )
            .is_err()
        );
        Ok(())
    }

    /// The per-configuration evaluation against the same expressions run on every launch
    /// (`occupancy::add_columns(resolve::…(launches))`): every column, every row, identical.
    fn per_configuration_equals_per_launch(
        launches: &DataFrame,
        config: &ModelConfig,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let registry = registry();
        let target = match &config.device_override {
            None => None,
            Some(name) => Some(crate::override_target(&registry, name)?),
        };
        let mut frame = warpsight_ingest::launch_table::conform(launches.clone().lazy())?;
        let barriers = crate::barrier_count_expr(&mut frame)?;
        let fast =
            super::resolved_occupancy(frame.clone(), &registry, config, barriers.clone(), target)?
                .collect()?;
        let resolved = match target {
            None => resolve::own_device(frame, &registry, config, barriers)?,
            Some((device, arch)) => resolve::override_device(frame, device, arch, config, barriers),
        };
        let slow = occupancy::add_columns(resolved)?.collect()?;
        assert_eq!(fast.get_column_names(), slow.get_column_names());
        for column in fast.columns() {
            let reference = slow.column(column.name())?;
            assert_eq!(column.dtype(), reference.dtype(), "{}", column.name());
            assert!(
                column
                    .as_materialized_series()
                    .equals_missing(reference.as_materialized_series()),
                "{}",
                column.name()
            );
        }
        Ok(())
    }

    #[test]
    fn evaluating_per_configuration_changes_no_value() -> Result<(), Box<dyn std::error::Error>> {
        let temp = tempfile::tempdir()?;
        let csv = temp.path().join("cuda_gpu_trace.csv");
        let synthetic = SyntheticConfig {
            launches: 5_000,
            memcpy_every: 50,
            schema: Schema::New,
        };
        write_gpu_trace_csv(&csv, &synthetic)?;
        let nsys = read_path(&csv, &ReadConfig::default())?.launches;
        let configs = [
            ModelConfig::default(),
            ModelConfig {
                carveout: CarveoutPolicy::Maximum,
                ..ModelConfig::default()
            },
            ModelConfig {
                device_override: Some("NVIDIA A100-SXM4-40GB".to_string()),
                ..ModelConfig::default()
            },
        ];
        for config in &configs {
            per_configuration_equals_per_launch(&launches()?, config)?;
            per_configuration_equals_per_launch(&nsys, config)?;
        }
        Ok(())
    }

    #[test]
    fn an_evaluated_frame_gets_its_columns_replaced() -> Result<(), Box<dyn std::error::Error>> {
        // Re-evaluating with another device must replace the earlier values, not keep them.
        let evaluated =
            evaluate(launches()?.lazy(), &registry(), &ModelConfig::default())?.collect()?;
        let config = ModelConfig {
            device_override: Some("NVIDIA A100-SXM4-40GB".to_string()),
            ..ModelConfig::default()
        };
        let again =
            evaluate_occupancy(evaluated.clone().lazy(), &registry(), &config)?.collect()?;
        let fresh = evaluate_occupancy(launches()?.lazy(), &registry(), &config)?.collect()?;
        assert_eq!(again.get_column_names(), evaluated.get_column_names());
        for column in fresh.columns() {
            assert!(
                column
                    .as_materialized_series()
                    .equals_missing(again.column(column.name())?.as_materialized_series()),
                "{}",
                column.name()
            );
        }
        // Row 1 (no device name) now has the A100's 108 SMs: 1728 blocks / 864 per wave.
        assert_eq!(again.column(out::WAVES)?.f64()?.get(1), Some(2.0));
        Ok(())
    }

    #[test]
    fn an_unknown_override_device_is_an_error() -> Result<(), Box<dyn std::error::Error>> {
        let config = ModelConfig {
            device_override: Some("NVIDIA TITAN Q".to_string()),
            ..ModelConfig::default()
        };
        let result = evaluate_occupancy(launches()?.lazy(), &registry(), &config);
        assert!(matches!(result, Err(ModelError::UnknownDevice { .. })));
        Ok(())
    }
}
