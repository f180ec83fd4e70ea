//! The launch table and the transfers frame built from the parsed `cuda_gpu_trace` columns
//! (moved into polars without copying; strings are gathers from the interned values).

use polars::prelude::*;

use crate::Format;
use crate::kernel_names::{short_name, split_device_label};
use crate::launch_table::{self, column_names as lt};
use crate::nsys::interner::{Interner, gather_strings, gather_strings_dense};
use crate::trace::transfers_col;

use super::header::Header;
use super::rows::Parsed;

/// Name of the extra launch-table column holding nsys's green-context id (`GreenCtx`).
pub(crate) const GREEN_CONTEXT_COLUMN: &str = "nsys_green_context_id";
/// Name of the extra transfers column holding the correlation id (`CorrId`) of a memcpy/memset.
pub(crate) use crate::trace::transfers_col::CORRELATION_ID as TRANSFER_CORRELATION_COLUMN;
/// Name of the extra transfers column holding nsys's throughput, bytes per second.
pub(crate) const TRANSFER_THROUGHPUT_COLUMN: &str = "throughput_bytes_per_s";

/// A non-null Int64 column that takes `values` without copying.
fn i64_column(name: &str, values: Vec<i64>) -> Column {
    Int64Chunked::from_vec(name.into(), values).into_column()
}

/// A nullable Int64 column.
fn opt_i64_column(name: &str, values: &[Option<i64>]) -> Column {
    let mut ca: Int64Chunked = values.iter().copied().collect();
    ca.rename(name.into());
    ca.into_column()
}

/// Device names and ordinals of the distinct device labels.
fn split_devices(devices: &Interner) -> (Vec<String>, Vec<Option<i64>>) {
    devices
        .values()
        .iter()
        .map(|label| {
            let (name, ordinal) = split_device_label(label);
            (name.to_string(), ordinal)
        })
        .unzip()
}

/// The launch table of the kernel rows; the green-context column only when the first header
/// has one.
pub(crate) fn build_launches(
    parsed: &mut Parsed,
    header: Option<&Header>,
    source: &str,
) -> PolarsResult<DataFrame> {
    let height = parsed.launch_id.len();
    let short: Vec<&str> = parsed
        .names
        .values()
        .iter()
        .map(|n| short_name(n))
        .collect();
    let (device_names, device_ordinals) = split_devices(&parsed.devices);
    let ordinals: Int64Chunked = parsed
        .device
        .iter()
        .map(|d| d.and_then(|d| device_ordinals[d as usize]))
        .collect();
    let mut columns = vec![
        i64_column(lt::LAUNCH_ID, std::mem::take(&mut parsed.launch_id)),
        gather_strings(
            lt::DEVICE_NAME,
            &device_names,
            parsed.device.iter().copied(),
        )?,
        ordinals.with_name(lt::DEVICE_ORDINAL.into()).into_column(),
        gather_strings_dense(lt::KERNEL_NAME, parsed.names.values(), &parsed.name)?,
        gather_strings_dense(lt::KERNEL_SHORT_NAME, &short, &parsed.name)?,
        i64_column(lt::GRID_X, std::mem::take(&mut parsed.grid[0])),
        i64_column(lt::GRID_Y, std::mem::take(&mut parsed.grid[1])),
        i64_column(lt::GRID_Z, std::mem::take(&mut parsed.grid[2])),
        i64_column(lt::BLOCK_X, std::mem::take(&mut parsed.block[0])),
        i64_column(lt::BLOCK_Y, std::mem::take(&mut parsed.block[1])),
        i64_column(lt::BLOCK_Z, std::mem::take(&mut parsed.block[2])),
        i64_column(
            lt::REGISTERS_PER_THREAD,
            std::mem::take(&mut parsed.registers),
        ),
        i64_column(
            lt::STATIC_SMEM_BYTES,
            std::mem::take(&mut parsed.static_smem),
        ),
        i64_column(
            lt::DYNAMIC_SMEM_BYTES,
            std::mem::take(&mut parsed.dynamic_smem),
        ),
        i64_column(lt::START_NS, std::mem::take(&mut parsed.start_ns)),
        Float64Chunked::from_vec(
            lt::DURATION_NS.into(),
            std::mem::take(&mut parsed.duration_ns),
        )
        .into_column(),
        opt_i64_column(lt::CONTEXT, &parsed.context),
        opt_i64_column(lt::STREAM, &parsed.stream),
    ];
    if header.is_some_and(|h| h.green_context.is_some()) {
        columns.push(opt_i64_column(GREEN_CONTEXT_COLUMN, &parsed.green_context));
    }
    let frame = DataFrame::new(height, columns)?.lazy().with_columns([
        lit(source).alias(lt::SOURCE_FILE),
        lit(Format::NsysGpuTrace.name()).alias(lt::FORMAT),
    ]);
    launch_table::conform(frame)?.collect()
}

/// The transfers frame of the memcpy / memset rows.
pub(crate) fn build_transfers(parsed: &Parsed, source: &str) -> PolarsResult<DataFrame> {
    let rows = &parsed.transfers;
    let height = rows.start_ns.len();
    let (device_names, device_ordinals) = split_devices(&parsed.devices);
    let labels = parsed.labels.values();
    let kinds: StringChunked = rows
        .is_memset
        .iter()
        .map(|&m| Some(if m { "memset" } else { "memcpy" }))
        .collect();
    let ordinals: Int64Chunked = rows
        .device
        .iter()
        .map(|d| d.and_then(|d| device_ordinals[d as usize]))
        .collect();
    let bytes: Int64Chunked = rows.bytes.iter().copied().collect();
    let throughput: Float64Chunked = rows.throughput.iter().copied().collect();
    let columns = vec![
        Column::new_scalar(
            transfers_col::SOURCE_FILE.into(),
            Scalar::from(PlSmallStr::from(source)),
            height,
        ),
        kinds.with_name(transfers_col::KIND.into()).into_column(),
        gather_strings(
            transfers_col::DIRECTION,
            labels,
            rows.direction.iter().copied(),
        )?,
        bytes.with_name(transfers_col::BYTES.into()).into_column(),
        i64_column(transfers_col::START_NS, rows.start_ns.clone()),
        Float64Chunked::from_vec(transfers_col::DURATION_NS.into(), rows.duration_ns.clone())
            .into_column(),
        gather_strings(
            transfers_col::SRC_KIND,
            labels,
            rows.src_kind.iter().copied(),
        )?,
        gather_strings(
            transfers_col::DST_KIND,
            labels,
            rows.dst_kind.iter().copied(),
        )?,
        gather_strings(
            transfers_col::DEVICE_NAME,
            &device_names,
            rows.device.iter().copied(),
        )?,
        ordinals
            .with_name(transfers_col::DEVICE_ORDINAL.into())
            .into_column(),
        opt_i64_column(transfers_col::STREAM, &rows.stream),
        opt_i64_column(TRANSFER_CORRELATION_COLUMN, &rows.correlation_id),
        throughput
            .with_name(TRANSFER_THROUGHPUT_COLUMN.into())
            .into_column(),
    ];
    DataFrame::new(height, columns)
}
