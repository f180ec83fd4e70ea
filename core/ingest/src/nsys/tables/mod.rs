//! Nsight Systems export tables (SQLite, Parquet, Arrow) turned into a [`Trace`].
//!
//! The SQLite, `parquetdir` and `arrowdir` exports hold the same tables with the same column names;
//! each reader loads them as polars frames ([`NsysTables`]) and this module does the rest with
//! lazy expressions and joins:
//! - `CUPTI_ACTIVITY_KIND_KERNEL` rows become launches; names come from `StringIds`, the device's
//!   name, SM count, clock, compute capability and limits from `TARGET_INFO_GPU`, process names
//!   from `PROCESSES`. Kernel columns beyond the ones mapped are kept as `nsys_<snake_case>` extra
//!   columns, so both the 27-column (2023) and the 38-column (2025+) schemas work.
//! - `CUPTI_ACTIVITY_KIND_MEMCPY` / `_MEMSET` rows become transfers, with labels from
//!   `ENUM_CUDA_MEMCPY_OPER` / `ENUM_CUDA_MEM_KIND` (or the documented values when those tables
//!   are missing).
//! - Kernel rows missing a timestamp or launch dimension are rejected with their row number.
//!
//! Modules: `export` (the tables of one export), `columns` (which nsys columns map to which
//! launch-table columns, and the documented enum labels), `lookup` (joins and id lookups),
//! `narrow` (constant columns kept as scalar columns), `side` (names, device properties and
//! process names looked up for every kernel row), `launches` (the launch table), `transfers`
//! (the transfers frame).

use std::path::Path;

use crate::trace::Trace;
use crate::{Format, IngestError, ReadConfig};

mod columns;
mod export;
mod launches;
mod lookup;
mod narrow;
mod side;
mod transfers;

#[cfg(test)]
use columns::{extra_kernel_column, snake_case};
pub use export::{NsysTables, table};
pub(crate) use launches::build_launches;
pub(crate) use narrow::ConstantColumns;
#[cfg(test)]
pub(crate) use narrow::assert_same_trace;
pub(crate) use transfers::build_transfers;

/// Builds the trace of an nsys table export read from `path` as `format`.
pub(crate) fn build_trace(
    path: &Path,
    format: Format,
    mut tables: NsysTables,
    config: &ReadConfig,
) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let source = path.display().to_string();
    let mut trace = Trace::empty(format);
    // The kernel table is taken out of `tables`, so that its columns are freed as soon as the launch
    // table no longer needs them.
    if let Some(kernels) = tables.kernels.take() {
        let (launches, rejected) =
            launches::build_launches(path, format, &source, kernels, &tables, 0)?;
        crate::trace::refuse_rejected(path, config.strict, &rejected)?;
        if !rejected.is_empty() {
            tracing::warn!(path = %path.display(), rejected = rejected.len(), "some kernel rows were rejected");
        }
        trace.launches = launches;
        trace.rejected = rejected;
    } else {
        tracing::info!(path = %path.display(), "no {} table: the export holds no kernel launches", table::KERNEL);
    }
    trace.side.transfers = transfers::build_transfers(&source, &tables).map_err(polars)?;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch_table::column_names as lt;
    use polars::prelude::*;

    #[test]
    fn camel_case_columns_become_snake_case_extras() {
        assert_eq!(
            extra_kernel_column("sharedMemoryLimitConfig"),
            "nsys_shared_memory_limit_config"
        );
        assert_eq!(
            extra_kernel_column("greenContextId"),
            "nsys_green_context_id"
        );
        assert_eq!(extra_kernel_column("clusterX"), "nsys_cluster_x");
        assert_eq!(
            extra_kernel_column("qmdLastCtaDone"),
            "nsys_qmd_last_cta_done"
        );
        assert_eq!(
            snake_case("localMemoryPerThread"),
            "local_memory_per_thread"
        );
    }

    #[test]
    fn a_kilohertz_clock_rate_is_converted_and_strings_already_in_the_kernel_table_are_used()
    -> Result<(), Box<dyn std::error::Error>> {
        // A single-file export may carry the names as text; `clockRate` 1 980 000 is CUDA's kHz.
        let kernels = df!(
            "start" => [100i64], "end" => [350i64], "deviceId" => [0i64],
            "gridX" => [2i64], "gridY" => [1i64], "gridZ" => [1i64],
            "blockX" => [64i64], "blockY" => [1i64], "blockZ" => [1i64],
            "demangledName" => ["void k<int>(int)"], "shortName" => ["k"], "futureColumn" => [9i64],
        )?;
        let gpus = df!("id" => [0i64, 0], "name" => ["GPU A", "GPU A (duplicate row)"], "clockRate" => [1_980_000i64, 1])?;
        let tables = NsysTables {
            kernels: Some(kernels.lazy()),
            gpus: Some(gpus.lazy()),
            ..Default::default()
        };
        let trace = build_trace(
            Path::new("t.parquet"),
            Format::NsysParquet,
            tables,
            &ReadConfig::default(),
        )?;
        let l = &trace.launches;
        assert_eq!(l.height(), 1);
        assert_eq!(l.column(lt::SM_CLOCK_HZ)?.f64()?.get(0), Some(1.98e9));
        assert_eq!(l.column(lt::DEVICE_NAME)?.str()?.get(0), Some("GPU A"));
        assert_eq!(l.column(lt::KERNEL_SHORT_NAME)?.str()?.get(0), Some("k"));
        assert_eq!(l.column(lt::DURATION_NS)?.f64()?.get(0), Some(250.0));
        assert_eq!(l.column("nsys_future_column")?.i64()?.get(0), Some(9));
        assert_eq!(trace.side.transfers.height(), 0);
        Ok(())
    }
}
