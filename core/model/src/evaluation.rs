//! The model evaluated once per distinct model input, with the per-launch columns added only where
//! an output asks for them.
//!
//! Millions of launches of a training run share a few dozen launch configurations. [`Evaluation`]
//! numbers the distinct tuples of the columns the model reads (`key_columns`: every launch-table
//! column except the launch's identity and its measured duration), runs every stage of the model
//! on one row per tuple, and keeps each launch's tuple number. Only what depends on the measured
//! duration is computed per launch ([`MEASURED`]: the achieved FLOP/s, the fraction of the roof,
//! the prediction error and, across devices, the prediction scaled to the measured time), with the
//! same expressions the per-launch path ([`super::evaluate_each_launch`]) uses, so both give
//! identical values (the `model_corpus` tests check it column by column on the real traces).
//!
//! [`Evaluation::per_launch`] gathers the model's columns onto the launches (all of them for
//! `--per launch` output, or the few a caller needs); [`Evaluation::rows`] does it for a few rows
//! only, such as one representative launch per kernel.

use polars::prelude::*;

use super::columns as out;
use super::empty_columns::EmptyColumns;
use super::occupancy_table::{KEY_BARRIERS, Target, resolve_and_occupancy};
use super::predicted_time::{prediction_error, scaled_prediction};
use super::{ModelConfig, ModelError, distinct, littles_law, roofline};
use crate::arch::Registry;
use warpsight_ingest::launch_table::{self, column_names as lt};

/// The model columns computed per launch, because they read the measured duration.
pub const MEASURED: [&str; 5] = [
    out::ACHIEVED_FLOPS,
    out::PCT_OF_ROOF,
    out::PREDICTED_NS,
    out::PREDICTION_METHOD,
    out::PREDICTION_ERROR,
];

/// Launch-table columns that identify or time a launch and are never model inputs. Every other
/// column (launch configuration, device, clocks, counters, the native metric columns of ncu) is
/// part of the key, so a column the model reads can never be left out of it; the
/// `model_corpus` tests overwrite these columns and check that no model column but [`MEASURED`]
/// changes.
pub const NOT_MODEL_INPUTS: [&str; 12] = [
    lt::SOURCE_FILE,
    lt::FORMAT,
    lt::LAUNCH_ID,
    lt::PROCESS_ID,
    lt::PROCESS_NAME,
    lt::DEVICE_ORDINAL,
    lt::KERNEL_NAME,
    lt::KERNEL_SHORT_NAME,
    lt::START_NS,
    lt::DURATION_NS,
    lt::CONTEXT,
    lt::STREAM,
];

/// Internal: the source device's prediction of a configuration (cross-device runs).
const SOURCE_PREDICTED: &str = "__m_source_predicted_ns";
/// Internal: the Speed-of-Light factor of a configuration (cross-device runs).
const SOL_FACTOR: &str = "__m_sol_factor";
/// Internal: the configuration's own prediction before the per-launch scaling.
const CONFIG_PREDICTED: &str = "__m_config_predicted_ns";
/// Internal: the configuration's prediction method before the per-launch scaling.
const CONFIG_METHOD: &str = "__m_config_method";
/// Internal: a row index to join the two runs of a cross-device evaluation.
const ROW: &str = "__m_row";

/// The columns the model is evaluated on, of a conformed launch frame with `schema`: every column
/// except [`NOT_MODEL_INPUTS`], Nsight Systems' extra kernel columns (`nsys_*`), internal columns
/// and the model's own output columns (`model_columns`) of a frame evaluated before.
fn key_columns(schema: &Schema, model_columns: &[PlSmallStr]) -> Vec<PlSmallStr> {
    schema
        .iter_names()
        .filter(|name| {
            !NOT_MODEL_INPUTS.contains(&name.as_str())
                && !name.starts_with("nsys_")
                && !name.starts_with("__")
                && !model_columns.contains(name)
        })
        .cloned()
        .collect()
}

/// How [`Evaluation::with_options`] evaluates the model; the values never change a result.
#[derive(Debug, Clone, Copy)]
pub struct EvaluationOptions {
    /// The distinct model inputs are evaluated in row chunks of at least this many rows
    /// ([`crate::row_chunks`]), in parallel, when there are enough of them; the chunks stacked in
    /// order equal the whole evaluated at once, which the tests check with a small value on the
    /// real captures.
    pub parallel_min_rows: usize,
}

impl Default for EvaluationOptions {
    fn default() -> Self {
        EvaluationOptions {
            parallel_min_rows: crate::row_chunks::PARALLEL_MIN_ROWS,
        }
    }
}

/// The model evaluated per distinct model input (see the module documentation).
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The conformed launch table, without model columns, one row per launch.
    launches: DataFrame,
    /// One row per distinct model input: every model column, then the internal columns the
    /// per-launch columns are computed from.
    configs: DataFrame,
    /// Each launch's row in `configs`.
    config_ids: IdxCa,
    /// The model's output columns, in the order the per-launch path adds them.
    model_columns: Vec<PlSmallStr>,
    /// Whether the launches were evaluated on another device (`--on`, `--device`).
    cross_device: bool,
}

impl Evaluation {
    /// Evaluates the model on `launches` (see [`super::evaluate`] for the device resolution and
    /// the errors).
    pub fn new(
        launches: LazyFrame,
        registry: &Registry,
        config: &ModelConfig,
    ) -> Result<Self, ModelError> {
        Self::with_options(launches, registry, config, EvaluationOptions::default())
    }

    /// [`Self::new`] with explicit [`EvaluationOptions`].
    pub fn with_options(
        launches: LazyFrame,
        registry: &Registry,
        config: &ModelConfig,
        options: EvaluationOptions,
    ) -> Result<Self, ModelError> {
        let target = match &config.device_override {
            None => None,
            Some(name) => Some(super::override_target(registry, name)?),
        };
        let launches = launch_table::conform(launches)?;
        let entry = cache_entry(config);
        // The model's column names take tens of milliseconds: they are found while the launch
        // table is collected, once per configuration when a cache is shared (a caller may have
        // found them before the launches were read, `EvaluationCache::prepare`).
        let names = || model_column_names(registry, config);
        let (model_columns, launches) = rayon::join(
            || match &config.cache {
                Some(cache) => cache.model_columns(&entry, names),
                None => names(),
            },
            || launches.collect(),
        );
        let model_columns = model_columns?;
        let mut launches = launches?;
        warpsight_ingest::memory::log_stage("conforming the launch table");
        // A frame the model has already evaluated gets its columns replaced.
        let stale: Vec<PlSmallStr> = model_columns
            .iter()
            .filter(|name| launches.schema().contains(name))
            .cloned()
            .collect();
        if !stale.is_empty() {
            launches = launches.drop_many(stale);
        }
        let mut lazy = launches.clone().lazy();
        let barriers = super::barrier_count_expr(&mut lazy)?;
        let bytes_per_request = littles_law::bytes_per_request_expr(&mut lazy)?;
        let mut keys: Vec<Expr> = key_columns(launches.schema(), &model_columns)
            .into_iter()
            .map(col)
            .collect();
        keys.push(barriers.alias(KEY_BARRIERS));
        keys.push(bytes_per_request.alias(littles_law::BYTES_PER_REQUEST));
        let keyed = lazy.select(keys).collect()?;
        warpsight_ingest::memory::log_stage("the model's key columns");
        let (first_rows, config_ids) = distinct::number_rows(&keyed)?;
        warpsight_ingest::memory::log_stage("numbering the distinct model inputs");
        let keys = keyed.take(&first_rows)?;
        drop(keyed);
        let distinct = launch_table::conform(keys.clone().lazy())?.collect()?;
        // The model on the distinct inputs at `rows` (all when `None`), in that order.
        let evaluate = |rows: Option<&IdxCa>| -> Result<DataFrame, ModelError> {
            let inputs = match rows {
                None => distinct.clone(),
                Some(rows) => distinct.take(rows)?,
            };
            // One input is evaluated as two equal rows: polars evaluates a one-row column as a
            // broadcast scalar, which may round differently in the last bit from the same input
            // evaluated among others (`row_chunks`), and a part of an export may bring one new
            // input to the cache.
            let single = inputs.height() == 1;
            let inputs = if single {
                inputs.vstack(&inputs)?
            } else {
                inputs
            };
            let outputs = crate::row_chunks::evaluate_in_row_chunks(
                inputs,
                options.parallel_min_rows,
                |part| evaluate_configs(part, registry, config, target, &model_columns),
            )?;
            Ok(if single {
                outputs.head(Some(1))
            } else {
                outputs
            })
        };
        let configs = match &config.cache {
            Some(cache) => cache.outputs(&entry, &keys, evaluate)?,
            None => evaluate(None)?,
        };
        drop(keys);
        tracing::debug!(
            "model evaluated on {} distinct inputs of {} launches",
            configs.height(),
            launches.height()
        );
        Ok(Evaluation {
            launches,
            configs,
            config_ids,
            model_columns,
            cross_device: target.is_some(),
        })
    }

    /// The launch table without model columns, one row per launch.
    pub fn launches(&self) -> &DataFrame {
        &self.launches
    }

    /// The model's columns per distinct model input, plus internal `__m_*` columns. The values
    /// of [`MEASURED`] are null here: they are computed per launch.
    pub fn configs(&self) -> &DataFrame {
        &self.configs
    }

    /// Each launch's row in [`Self::configs`].
    pub fn config_ids(&self) -> &IdxCa {
        &self.config_ids
    }

    /// The model's output column names, in order.
    pub fn model_columns(&self) -> &[PlSmallStr] {
        &self.model_columns
    }

    /// Every launch with every model column: the frame [`super::evaluate_each_launch`] gives.
    pub fn per_launch(&self) -> PolarsResult<DataFrame> {
        self.gather(&self.launches, &self.config_ids, None)
    }

    /// Every launch with only the model columns named in `columns` (in the model's order).
    pub fn per_launch_columns(&self, columns: &[&str]) -> PolarsResult<DataFrame> {
        self.gather(&self.launches, &self.config_ids, Some(columns))
    }

    /// The `len` launches from row `offset` of the launch table with every model column (a batch
    /// of [`Self::per_launch`]).
    pub fn per_launch_slice(&self, offset: usize, len: usize) -> PolarsResult<DataFrame> {
        let offset =
            i64::try_from(offset).map_err(|_| polars_err!(ComputeError: "offset too large"))?;
        let launches = self.launches.slice(offset, len);
        let ids = self.config_ids.slice(offset, len);
        self.gather(&launches, &ids, None)
    }

    /// The launches at `rows` (launch-table row numbers) with every model column.
    pub fn rows(&self, rows: &IdxCa) -> PolarsResult<DataFrame> {
        let launches = self.launches.take(rows)?;
        let ids = self.config_ids.take(rows)?;
        self.gather(&launches, &ids, None)
    }

    /// `launches` (rows of the launch table) with the model columns of their `ids`, restricted
    /// to `wanted` when given.
    fn gather(
        &self,
        launches: &DataFrame,
        ids: &IdxCa,
        wanted: Option<&[&str]>,
    ) -> PolarsResult<DataFrame> {
        let chosen: Vec<&PlSmallStr> = self
            .model_columns
            .iter()
            .filter(|name| wanted.is_none_or(|w| w.contains(&name.as_str())))
            .collect();
        let gathered: Vec<PlSmallStr> = chosen
            .iter()
            .filter(|name| !MEASURED.contains(&name.as_str()))
            .map(|name| (*name).clone())
            .collect();
        let mut per_config = self.configs.select(gathered.iter().cloned())?.take(ids)?;
        let measured: Vec<&str> = chosen
            .iter()
            .map(|name| name.as_str())
            .filter(|name| MEASURED.contains(name))
            .collect();
        if !measured.is_empty() {
            let measured = self.measured(launches, ids, &measured)?;
            per_config = per_config.hstack(measured.columns())?;
        }
        let mut columns = launches.columns().to_vec();
        for name in chosen {
            columns.push(per_config.column(name)?.clone());
        }
        DataFrame::new(launches.height(), columns)
    }

    /// The `wanted` [`MEASURED`] columns of `launches` (configuration rows `ids`). Only the
    /// configuration columns they read are gathered onto the launches.
    fn measured(
        &self,
        launches: &DataFrame,
        ids: &IdxCa,
        wanted: &[&str],
    ) -> PolarsResult<DataFrame> {
        let roof = wanted
            .iter()
            .any(|name| [out::ACHIEVED_FLOPS, out::PCT_OF_ROOF].contains(name));
        let prediction = wanted.iter().any(|name| {
            [
                out::PREDICTED_NS,
                out::PREDICTION_METHOD,
                out::PREDICTION_ERROR,
            ]
            .contains(name)
        });
        let mut inputs: Vec<&str> = Vec::new();
        if roof {
            inputs.extend([out::FLOP_TOTAL, out::ATTAINABLE_FLOPS]);
        }
        if prediction {
            inputs.extend([CONFIG_PREDICTED, CONFIG_METHOD]);
            if self.cross_device {
                inputs.extend([SOURCE_PREDICTED, SOL_FACTOR]);
            }
        }
        let mut frame = self.configs.select(inputs)?.take(ids)?;
        frame.with_column(launches.column(lt::DURATION_NS)?.clone())?;
        let measured = col(lt::DURATION_NS);
        let mut frame = frame.lazy();
        if roof {
            frame = frame
                .with_column(roofline::achieved_flops(measured.clone()).alias(out::ACHIEVED_FLOPS))
                .with_column(roofline::pct_of_roof().alias(out::PCT_OF_ROOF));
        }
        if prediction && self.cross_device {
            frame = frame
                .with_columns(scaled_prediction(
                    col(CONFIG_PREDICTED),
                    col(SOURCE_PREDICTED),
                    col(SOL_FACTOR),
                    col(CONFIG_METHOD),
                    measured.clone(),
                ))
                .with_column(
                    prediction_error(col(out::PREDICTED_NS), measured, lit(true))
                        .alias(out::PREDICTION_ERROR),
                );
        } else if prediction {
            frame = frame.with_columns([
                col(CONFIG_PREDICTED).alias(out::PREDICTED_NS),
                col(CONFIG_METHOD).alias(out::PREDICTION_METHOD),
                prediction_error(col(CONFIG_PREDICTED), measured, lit(false))
                    .alias(out::PREDICTION_ERROR),
            ]);
        }
        frame
            .select(wanted.iter().map(|name| col(*name)).collect::<Vec<_>>())
            .collect()
    }
}

/// The key of `config`'s entry in an [`crate::EvaluationCache`]: everything in the configuration
/// that changes a result (the device override, the carveout policy and the SM clock policy).
pub(crate) fn cache_entry(config: &ModelConfig) -> String {
    format!(
        "{:?} {:?} {:?}",
        config.device_override, config.carveout, config.sm_clock
    )
}

/// The model's column names, in order: the per-launch path's output on an empty launch table,
/// without the launch table's own columns. They depend on the registry and the configuration only,
/// never on the launches.
pub(crate) fn model_column_names(
    registry: &Registry,
    config: &ModelConfig,
) -> Result<Vec<PlSmallStr>, ModelError> {
    crate::plan_schema::with_shared_arenas(|| {
        Ok(
            crate::plan_schema::schema_of(&mut super::evaluate_each_launch(
                launch_table::empty().lazy(),
                registry,
                config,
            )?)?
            .iter_names()
            .filter(|name| !launch_table::is_known_column(name))
            .cloned()
            .collect(),
        )
    })
}

/// Runs every stage on the distinct model inputs `distinct` (one row each): the own devices, or
/// the `target` with the source-device prediction and the SOL factor beside it. Returns the model
/// columns and the internal columns [`Evaluation`] computes the per-launch columns from.
fn evaluate_configs(
    distinct: DataFrame,
    registry: &Registry,
    config: &ModelConfig,
    target: Target<'_>,
    model_columns: &[PlSmallStr],
) -> Result<DataFrame, ModelError> {
    // The inputs are at hand: the counters null on every one of them are planned as absent.
    let empty = EmptyColumns::of(&distinct);
    crate::plan_schema::with_shared_arenas(|| {
        evaluate_configs_planned(
            distinct.lazy(),
            &empty,
            registry,
            config,
            target,
            model_columns,
        )
    })
}

/// [`evaluate_configs`], its plan's schemas resolved in shared arenas.
fn evaluate_configs_planned(
    distinct: LazyFrame,
    empty: &EmptyColumns,
    registry: &Registry,
    config: &ModelConfig,
    target: Target<'_>,
    model_columns: &[PlSmallStr],
) -> Result<DataFrame, ModelError> {
    let run = |frame: LazyFrame, target: Target<'_>| -> Result<LazyFrame, ModelError> {
        let resolved = resolve_and_occupancy(frame, registry, config, col(KEY_BARRIERS), target)?;
        Ok(super::run_stages(resolved, registry, empty)?)
    };
    let frame = match target {
        None => super::finish(run(distinct, None)?)?,
        Some(_) => {
            let indexed = distinct.with_row_index(ROW, None);
            let source = run(indexed.clone(), None)?.select(
                [
                    col(ROW),
                    col(out::PREDICTED_NS).alias(super::SOURCE_PREDICTED),
                ]
                .into_iter()
                .chain(super::time::cross_device::source_capability_columns())
                .collect::<Vec<_>>(),
            );
            let mut joined = run(indexed, target)?.join(
                source,
                [col(ROW)],
                [col(ROW)],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            );
            let schema = crate::plan_schema::schema_of(&mut joined)?;
            let joined = joined.with_columns([
                super::time::cross_device::sol_factor(schema, empty).alias(SOL_FACTOR),
                col(super::SOURCE_PREDICTED).alias(SOURCE_PREDICTED),
            ]);
            super::finish_keeping(joined, &[SOURCE_PREDICTED, SOL_FACTOR])?
        }
    };
    let mut keep: Vec<Expr> = model_columns.iter().cloned().map(col).collect();
    keep.push(col(out::PREDICTED_NS).alias(CONFIG_PREDICTED));
    keep.push(col(out::PREDICTION_METHOD).alias(CONFIG_METHOD));
    if target.is_some() {
        keep.extend([col(SOURCE_PREDICTED), col(SOL_FACTOR)]);
    }
    Ok(frame.select(keep).collect()?)
}
