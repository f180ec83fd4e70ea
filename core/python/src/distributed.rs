//! The Rust side of `warpsight.dask`: the work of each Dask task. Frames travel between tasks
//! as Arrow IPC bytes (cheap to pickle, and every dtype survives the trip).
//!
//! - [`dask_analyze_files`]: consecutive files analysed together in their worker, part by part,
//!   exactly as the single-process path does (small parts of consecutive files analysed as one:
//!   the analysis has a fixed cost per run, which a task per small file paid again and again);
//!   it gives the files' launch groups (per kernel) or per-launch rows (per launch) and their
//!   kernel summaries. A group's first-launch row becomes `first file's index × 2^40 + row`, so
//!   that rows of different tasks keep the order a single process gives them without knowing the
//!   launch counts of earlier files.
//! - [`dask_partition`]: a file's groups split by a stable hash of the kernel name (the shuffle).
//! - [`dask_per_kernel`]: one partition's groups from every file, stacked and aggregated with the
//!   same Rust per-kernel aggregation as a single process: every kernel's groups meet in one
//!   partition, so each row is exact.
//! - [`dask_finish_per_kernel`] / [`dask_finish_launches`]: the final table (time shares over all
//!   kernels, the single-process order, kernel-summary rows, `sort`, `top`).
//! - [`dask_predict_file`] / [`dask_predict_partition`] / [`dask_predict_finish`]: `predict`,
//!   exact in the same way: a file's launches are split by the kernel-name hash as they are read,
//!   each partition predicts and combines all of its kernels' launches (in file order) as one
//!   process does, and the partitions' rows are sorted as `predict::combine` sorts them.

use std::io::Cursor;
use std::path::PathBuf;

use polars::prelude::*;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::ModelConfig;
use warpsight_report::analysis::aggregate;
use warpsight_report::analysis::groups::group_col::FIRST_ROW;
use warpsight_report::analysis::load::Loaded;
use warpsight_report::analysis::predict;
use warpsight_report::analysis::read_parts::read_in_parts;

use crate::arrow_stream::ArrowStream;
use crate::commands::{Common, bad_per, collect_launch_rows, empty_launch_rows, stack};
use crate::errors::{Outcome, run_detached};
use crate::inputs;

/// How far apart the first-launch rows of two files are: 2^40 launches per file.
const FILE_STRIDE: i64 = 1 << 40;

/// A frame as Arrow IPC bytes.
fn to_ipc(frame: &mut DataFrame) -> Outcome<Vec<u8>> {
    let mut bytes = Vec::new();
    IpcWriter::new(&mut bytes).finish(frame)?;
    Ok(bytes)
}

/// A frame from Arrow IPC bytes.
fn from_ipc(bytes: &[u8]) -> Outcome<DataFrame> {
    Ok(IpcReader::new(Cursor::new(bytes)).finish()?)
}

/// `frame` as IPC bytes, or `None` when it has no row.
fn nonempty_ipc(mut frame: DataFrame) -> Outcome<Option<Vec<u8>>> {
    if frame.height() == 0 {
        return Ok(None);
    }
    to_ipc(&mut frame).map(Some)
}

/// Python bytes copied out, for work done without the interpreter's lock.
fn owned(list: &[Bound<'_, PyBytes>]) -> Vec<Vec<u8>> {
    list.iter().map(|bytes| bytes.as_bytes().to_vec()).collect()
}

/// Bytes for Python.
fn to_py(py: Python<'_>, bytes: Option<Vec<u8>>) -> Option<Py<PyBytes>> {
    bytes.map(|bytes| PyBytes::new(py, &bytes).unbind())
}

/// A task's result: its files' groups (per kernel) or per-launch rows (per launch), their kernel
/// summaries, and their launch count.
type FileOutput = (Option<Py<PyBytes>>, Option<Py<PyBytes>>, usize);

/// Consecutive files of a Dask batch, the first of them `first_index`-th in the batch, analysed
/// together in the worker as the single-process path analyses them (see the module docs).
#[pyfunction]
#[pyo3(signature = (paths, first_index, *, per = "kernel", device = None, sm_clock = "export",
    filter = None, strict = false, input_format = None, plugin_dirs = Vec::new(),
    package_dir = None))]
#[allow(clippy::too_many_arguments)]
fn dask_analyze_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    first_index: i64,
    per: &str,
    device: Option<String>,
    sm_clock: &str,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<FileOutput> {
    let per = per.to_string();
    let sm_clock = sm_clock.to_string();
    let (main, summary, launches) = run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            false,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        let (registry, config) = common.analysis(device);
        let files = paths;
        let mut rows = Vec::new();
        let (loaded, analysis) = match per.as_str() {
            "kernel" => {
                inputs::analyze_files(&files, &common.reading, &registry, &config, &mut |_| Ok(()))?
            }
            "launch" => inputs::analyze_files(
                &files,
                &common.reading,
                &registry,
                &config,
                &mut |analysis| collect_launch_rows(analysis, &mut rows),
            )?,
            other => return Err(bad_per(other, &["kernel", "launch"])),
        };
        let launches = analysis.launch_count();
        let main = if per == "kernel" {
            let groups = analysis.groups;
            if groups.height() == 0 {
                None
            } else {
                let offset = first_index.saturating_mul(FILE_STRIDE);
                let groups = groups
                    .lazy()
                    .with_column(col(FIRST_ROW).cast(DataType::Int64) + lit(offset))
                    .collect()?;
                nonempty_ipc(groups)?
            }
        } else {
            match stack(rows)? {
                Some(rows) => nonempty_ipc(rows)?,
                None => None,
            }
        };
        let summary = nonempty_ipc(loaded.side.kernel_summary)?;
        inputs::release_freed_memory();
        Ok((main, summary, launches))
    })?;
    Ok((to_py(py, main), to_py(py, summary), launches))
}

/// A stable hash of a kernel name (FNV-1a): the same partition in every worker and run.
fn partition_of(name: &str, partitions: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash % partitions.max(1)
}

/// Splits a frame of launch groups (IPC bytes) into `partitions` frames by kernel name; a
/// partition without rows is `None`.
#[pyfunction]
fn dask_partition(
    py: Python<'_>,
    frame: &[u8],
    partitions: u64,
) -> PyResult<Vec<Option<Py<PyBytes>>>> {
    let frame = frame.to_vec();
    let pieces = run_detached(py, move || {
        let frame = from_ipc(&frame)?;
        let names = frame.column(lt::KERNEL_NAME)?.str()?.clone();
        let ids: Vec<u64> = names
            .iter()
            .map(|name| partition_of(name.unwrap_or_default(), partitions))
            .collect();
        let mut pieces = Vec::new();
        for partition in 0..partitions.max(1) {
            let mask: BooleanChunked = ids.iter().map(|id| *id == partition).collect();
            pieces.push(nonempty_ipc(frame.filter(&mask)?)?);
        }
        Ok(pieces)
    })?;
    Ok(pieces.into_iter().map(|piece| to_py(py, piece)).collect())
}

/// The per-kernel rows of one partition: its groups from every file stacked (in file order) and
/// aggregated by [`aggregate::per_kernel`]. `None` when no file had a group in it.
#[pyfunction]
fn dask_per_kernel(
    py: Python<'_>,
    pieces: Vec<Bound<'_, PyBytes>>,
) -> PyResult<Option<Py<PyBytes>>> {
    let pieces = owned(&pieces);
    let table = run_detached(py, move || {
        let frames = pieces
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        if frames.is_empty() {
            return Ok(None);
        }
        let frames = warpsight_ingest::combine::unify_column_types(frames)?;
        let groups = polars::functions::concat_df_diagonal(&frames)?;
        nonempty_ipc(aggregate::per_kernel(&groups)?)
    })?;
    Ok(to_py(py, table))
}

/// The per-kernel table of a batch from its partitions' rows and its files' kernel summaries:
/// time shares over every kernel, the single-process order (total time, then name), the summary
/// rows after the launch rows (as `per_kernel_all`), then `sort` and `top`.
#[pyfunction]
#[pyo3(signature = (tables, summaries, *, sort = None, top = None))]
fn dask_finish_per_kernel(
    py: Python<'_>,
    tables: Vec<Bound<'_, PyBytes>>,
    summaries: Vec<Bound<'_, PyBytes>>,
    sort: Option<String>,
    top: Option<usize>,
) -> PyResult<ArrowStream> {
    let tables = owned(&tables);
    let summaries = owned(&summaries);
    run_detached(py, move || {
        let tables = tables
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        let summaries = summaries
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        let from_launches = match stack_diagonal(tables)? {
            Some(stacked) => Some(aggregate::shares_in_order(stacked.lazy()).collect()?),
            None => None,
        };
        let from_summary = match stack_diagonal(summaries)? {
            Some(summary) if summary.height() > 0 => {
                Some(aggregate::per_kernel_from_summary(&summary)?)
            }
            _ => None,
        };
        let table = match aggregate::harmonize(from_launches, from_summary)? {
            Some(table) => table,
            None => aggregate::per_kernel_all(&DataFrame::empty(), &DataFrame::empty())?,
        };
        Ok(ArrowStream::new(inputs::sort_and_top(
            table,
            sort.as_deref(),
            top,
        )?))
    })
}

/// The per-launch table of a batch from its files' rows, in file order (no rows: the empty
/// table's columns), then `sort` and `top`.
#[pyfunction]
#[pyo3(signature = (rows, *, sort = None, top = None, device = None, sm_clock = "export",
    plugin_dirs = Vec::new(), package_dir = None))]
#[allow(clippy::too_many_arguments)]
fn dask_finish_launches(
    py: Python<'_>,
    rows: Vec<Bound<'_, PyBytes>>,
    sort: Option<String>,
    top: Option<usize>,
    device: Option<String>,
    sm_clock: &str,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<ArrowStream> {
    let sm_clock = sm_clock.to_string();
    let rows = owned(&rows);
    run_detached(py, move || {
        let frames = rows
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        let table = match frames.len() {
            0 => {
                let common = Common::parse(
                    None,
                    false,
                    None,
                    false,
                    &sm_clock,
                    plugin_dirs,
                    package_dir,
                )?;
                let (registry, config) = common.analysis(device);
                empty_launch_rows(&registry, &config)?
            }
            _ => polars::functions::concat_df_diagonal(
                &warpsight_ingest::combine::unify_column_types(frames)?,
            )?,
        };
        Ok(ArrowStream::new(inputs::sort_and_top(
            table,
            sort.as_deref(),
            top,
        )?))
    })
}

/// An IPC frame as a stream for Python (the Dask path's `compute=False` partitions).
#[pyfunction]
fn dask_ipc_to_stream(py: Python<'_>, frame: &[u8]) -> PyResult<ArrowStream> {
    let frame = frame.to_vec();
    run_detached(py, move || Ok(ArrowStream::new(from_ipc(&frame)?)))
}

/// Frames of possibly different columns stacked in order (missing columns null); `None` for none.
fn stack_diagonal(frames: Vec<DataFrame>) -> Outcome<Option<DataFrame>> {
    match frames.len() {
        0 => Ok(None),
        1 => Ok(frames.into_iter().next()),
        _ => Ok(Some(polars::functions::concat_df_diagonal(
            &warpsight_ingest::combine::unify_column_types(frames)?,
        )?)),
    }
}

/// A frame's rows split by the kernel-name hash into `partitions` frames (all of them, empty
/// ones included).
fn split_by_kernel(frame: &DataFrame, partitions: u64) -> Outcome<Vec<DataFrame>> {
    let names = frame.column(lt::KERNEL_NAME)?.str()?.clone();
    let ids: Vec<u64> = names
        .iter()
        .map(|name| partition_of(name.unwrap_or_default(), partitions))
        .collect();
    let mut pieces = Vec::new();
    for partition in 0..partitions.max(1) {
        let mask: BooleanChunked = ids.iter().map(|id| *id == partition).collect();
        pieces.push(frame.filter(&mask)?);
    }
    Ok(pieces)
}

/// One file of a Dask `predict`: its launches read part by part (with the filter) and split by
/// the kernel-name hash into `partitions` launch tables (IPC bytes; `None` for an empty one),
/// and its launch count.
#[pyfunction]
#[pyo3(signature = (path, partitions, *, filter = None, strict = false, input_format = None))]
fn dask_predict_file(
    py: Python<'_>,
    path: PathBuf,
    partitions: u64,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
) -> PyResult<(Vec<Option<Py<PyBytes>>>, usize)> {
    let (pieces, launches) = run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            false,
            "export",
            Vec::new(),
            None,
        )?;
        inputs::check_filter(common.reading.filter.as_deref())?;
        let read = common.reading.part_config();
        let mut split: Vec<Vec<DataFrame>> = vec![Vec::new(); partitions.max(1) as usize];
        let mut launches = 0;
        read_in_parts(&path, &read, &mut |part: &Loaded| -> Outcome<()> {
            launches += part.launches.height();
            if part.launches.height() > 0 {
                for (slot, piece) in split
                    .iter_mut()
                    .zip(split_by_kernel(&part.launches, partitions)?)
                {
                    if piece.height() > 0 {
                        slot.push(piece);
                    }
                }
            }
            Ok(())
        })?;
        let mut pieces = Vec::new();
        for frames in split {
            pieces.push(match stack_diagonal(frames)? {
                Some(frame) => nonempty_ipc(frame)?,
                None => None,
            });
        }
        inputs::release_freed_memory();
        Ok((pieces, launches))
    })?;
    Ok((
        pieces.into_iter().map(|piece| to_py(py, piece)).collect(),
        launches,
    ))
}

/// One partition of a Dask `predict`: its launches from every file (in file order) predicted on
/// `on` and combined per kernel, as `warpsight.predict` does; `None` without launches.
#[pyfunction]
#[pyo3(signature = (pieces, *, on, from_device = None, sm_clock = "export",
    plugin_dirs = Vec::new(), package_dir = None))]
fn dask_predict_partition(
    py: Python<'_>,
    pieces: Vec<Bound<'_, PyBytes>>,
    on: String,
    from_device: Option<String>,
    sm_clock: &str,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<Option<Py<PyBytes>>> {
    let pieces = owned(&pieces);
    let sm_clock = sm_clock.to_string();
    let table = run_detached(py, move || {
        let common = Common::parse(
            None,
            false,
            None,
            false,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        let (registry, _, _) = common.plugins.load();
        let frames = pieces
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        let Some(launches) = stack_diagonal(frames)? else {
            return Ok(None);
        };
        let loaded = Loaded {
            files: Vec::new(),
            launches,
            side: Default::default(),
            rejected: Vec::new(),
            profiling_failed: Vec::new(),
        };
        let model = ModelConfig {
            sm_clock: common.sm_clock,
            cache: Some(std::sync::Arc::default()),
            ..ModelConfig::default()
        };
        let part = predict::predict_part(&loaded, &registry, &on, from_device.as_deref(), &model)?;
        let prediction = predict::combine(vec![part], &registry, &on)?;
        nonempty_ipc(prediction.per_kernel)
    })?;
    Ok(to_py(py, table))
}

/// The predicted per-kernel table of a batch from its partitions' rows, in `predict::combine`'s
/// order (baseline time descending, then the short and the full name), then `sort` and `top`.
/// Without any row: the single process's "no launches" error (`files`: how many were read).
#[pyfunction]
#[pyo3(signature = (tables, files, *, filter = None, sort = None, top = None))]
fn dask_predict_finish(
    py: Python<'_>,
    tables: Vec<Bound<'_, PyBytes>>,
    files: Vec<String>,
    filter: Option<String>,
    sort: Option<String>,
    top: Option<usize>,
) -> PyResult<ArrowStream> {
    let tables = owned(&tables);
    run_detached(py, move || {
        let frames = tables
            .iter()
            .map(|bytes| from_ipc(bytes))
            .collect::<Outcome<Vec<_>>>()?;
        let Some(stacked) = stack_diagonal(frames)? else {
            let described = match files.as_slice() {
                [one] => format!("`{one}`"),
                many => format!("{} files", many.len()),
            };
            return Err(inputs::no_launches(filter.as_deref(), &described));
        };
        let table = predict::in_table_order(stacked.lazy()).collect()?;
        Ok(ArrowStream::new(inputs::sort_and_top(
            table,
            sort.as_deref(),
            top,
        )?))
    })
}

/// Adds the Dask functions to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(dask_analyze_files, module)?)?;
    module.add_function(wrap_pyfunction!(dask_partition, module)?)?;
    module.add_function(wrap_pyfunction!(dask_per_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(dask_finish_per_kernel, module)?)?;
    module.add_function(wrap_pyfunction!(dask_finish_launches, module)?)?;
    module.add_function(wrap_pyfunction!(dask_ipc_to_stream, module)?)?;
    module.add_function(wrap_pyfunction!(dask_predict_file, module)?)?;
    module.add_function(wrap_pyfunction!(dask_predict_partition, module)?)?;
    module.add_function(wrap_pyfunction!(dask_predict_finish, module)?)?;
    Ok(())
}
