//! The columns looked up from the side tables (`StringIds`, `TARGET_INFO_GPU`, `PROCESSES`) for
//! every kernel row: kernel names, device properties and process names.

use std::path::Path;

use polars::prelude::*;

use super::columns::{GPU_COLUMNS, MANGLED_NAME_COLUMN};
use super::export::NsysTables;
use super::lookup::{Lookup, column_names};
use crate::IngestError;
use crate::launch_table::column_names as lt;

/// The columns looked up from the side tables for every kernel row: names, device properties and
/// process names. Returns the columns and the names of the device columns among them.
pub(crate) fn side_columns(
    path: &Path,
    kernel: &DataFrame,
    tables: &NsysTables,
) -> Result<(Vec<Column>, Vec<String>), IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let mut columns = Vec::new();

    // Names: text columns are used as they are; id columns go through `StringIds`.
    let string_ids = match &tables.string_ids {
        Some(ids) => Some(
            ids.clone()
                .select([
                    col("id").cast(DataType::Int64),
                    col("value").cast(DataType::String),
                ])
                .collect()
                .map_err(polars)?,
        ),
        None => None,
    };
    for (id_column, output) in [
        ("demangledName", lt::KERNEL_NAME),
        ("shortName", lt::KERNEL_SHORT_NAME),
        ("mangledName", MANGLED_NAME_COLUMN),
    ] {
        let Ok(ids) = kernel.column(id_column) else {
            continue;
        };
        if ids.dtype() == &DataType::String {
            columns.push(ids.clone().with_name(output.into()));
        } else if let Some(strings) = &string_ids {
            let names = Lookup::new(ids, strings.column("id").map_err(polars)?)
                .and_then(|lookup| lookup.gather(strings.column("value")?))
                .map_err(polars)?;
            columns.push(names.with_name(output.into()));
        }
    }

    // Device properties, by `deviceId`.
    let mut gpu_outputs: Vec<String> = Vec::new();
    if let (Ok(device_ids), Some(gpus)) = (kernel.column("deviceId"), tables.gpus.clone()) {
        let mut gpus = gpus;
        let gpu_present = column_names(&mut gpus).map_err(polars)?;
        if gpu_present.iter().any(|c| c == "id") {
            let mut selected = vec![col("id").cast(DataType::Int64).alias("__gpu_id")];
            for (nsys, output, text) in GPU_COLUMNS {
                if gpu_present.iter().any(|c| c == nsys) {
                    let dtype = if *text {
                        DataType::String
                    } else {
                        DataType::Int64
                    };
                    selected.push(col(*nsys).cast(dtype).alias(*output));
                    gpu_outputs.push((*output).to_string());
                }
            }
            if gpu_present.iter().any(|c| c == "clockRate") {
                // The schema documents `clockRate` in Hz; CUDA's own attribute is in kHz, so a value
                // below 10 MHz is taken to be kHz.
                let clock = col("clockRate").cast(DataType::Float64);
                selected.push(
                    when(clock.clone().lt(lit(1.0e7)))
                        .then(clock.clone() * lit(1.0e3))
                        .otherwise(clock)
                        .alias(lt::SM_CLOCK_HZ),
                );
                gpu_outputs.push(lt::SM_CLOCK_HZ.to_string());
            }
            let gpus = gpus.select(selected).collect().map_err(polars)?;
            let lookup = Lookup::new(device_ids, gpus.column("__gpu_id").map_err(polars)?)
                .map_err(polars)?;
            for output in &gpu_outputs {
                let values = lookup
                    .gather(gpus.column(output).map_err(polars)?)
                    .map_err(polars)?;
                columns.push(values);
            }
        }
    }

    // Process names, by `globalPid` (or by the pid it encodes).
    if let (Ok(global_pids), Some(processes)) =
        (kernel.column("globalPid"), tables.processes.clone())
    {
        let mut processes = processes;
        let names = column_names(&mut processes).map_err(polars)?;
        let has = |c: &str| names.iter().any(|n| n == c);
        let key = if has("globalPid") {
            Some(("globalPid", global_pids.clone()))
        } else if has("pid") {
            let pids = kernel
                .clone()
                .lazy()
                .select([process_id_expr()])
                .collect()
                .map_err(polars)?
                .column(lt::PROCESS_ID)
                .map_err(polars)?
                .clone();
            Some(("pid", pids))
        } else {
            None
        };
        if let Some((table_key, keys)) = key
            && has("name")
        {
            let processes = processes
                .select([
                    col(table_key).cast(DataType::Int64),
                    col("name").cast(DataType::String),
                ])
                .collect()
                .map_err(polars)?;
            let values = Lookup::new(&keys, processes.column(table_key).map_err(polars)?)
                .and_then(|lookup| lookup.gather(processes.column("name")?))
                .map_err(polars)?;
            columns.push(values.with_name(lt::PROCESS_NAME.into()));
        }
    }
    Ok((columns, gpu_outputs))
}

/// The process id nsys encodes in `globalPid`.
pub(crate) fn process_id_expr() -> Expr {
    ((col("globalPid").cast(DataType::Int64) / lit(0x100_0000i64)) % lit(0x100_0000i64))
        .alias(lt::PROCESS_ID)
}
