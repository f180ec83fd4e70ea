//! The transfers frame of an nsys export: memcpy and memset rows with their direction, memory
//! kinds and device names as labels.

use polars::prelude::*;

use super::columns::{MEM_KIND_LABELS, MEMCPY_OPER_LABELS};
use super::export::NsysTables;
use super::lookup::{column_names, left_join, lookup};
use crate::trace::transfers_col;

/// A label lookup from an enum table, or from the documented labels when the table is missing.
fn enum_labels(
    table: Option<&LazyFrame>,
    fallback: &[(i64, &str)],
    key: &str,
    output: &str,
) -> PolarsResult<LazyFrame> {
    if let Some(mut frame) = table.cloned() {
        let names = column_names(&mut frame)?;
        if names.iter().any(|c| c == "id") && names.iter().any(|c| c == "label") {
            return Ok(lookup(
                frame,
                "id",
                col("label").cast(DataType::String).alias(output),
                key,
            ));
        }
    }
    let frame = df!(
        key => fallback.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        output => fallback.iter().map(|(_, label)| *label).collect::<Vec<_>>(),
    )?;
    Ok(frame.lazy())
}

/// Device names by device id, from `TARGET_INFO_GPU`.
fn device_names(tables: &NsysTables) -> PolarsResult<Option<LazyFrame>> {
    let Some(mut gpus) = tables.gpus.clone() else {
        return Ok(None);
    };
    let names = column_names(&mut gpus)?;
    if !(names.iter().any(|c| c == "id") && names.iter().any(|c| c == "name")) {
        return Ok(None);
    }
    Ok(Some(lookup(
        gpus,
        "id",
        col("name")
            .cast(DataType::String)
            .alias(transfers_col::DEVICE_NAME),
        "__dev",
    )))
}

/// One transfers frame from a memcpy or memset table.
fn transfer_frame(
    source: &str,
    mut frame: LazyFrame,
    is_memset: bool,
    tables: &NsysTables,
) -> PolarsResult<LazyFrame> {
    let present = column_names(&mut frame)?;
    let has = |c: &str| present.iter().any(|p| p == c);
    let int = |c: &str| col(c).cast(DataType::Int64);
    let mut frame = frame;
    if has("deviceId")
        && let Some(devices) = device_names(tables)?
    {
        frame = left_join(
            frame.with_column(int("deviceId").alias("__dev")),
            devices,
            "__dev",
            "__dev",
        );
    }
    let kinds = |frame: LazyFrame, column: &str, output: &str| -> PolarsResult<LazyFrame> {
        if !has(column) {
            return Ok(frame.with_column(lit(NULL).cast(DataType::String).alias(output)));
        }
        let key = format!("__{output}");
        let labels = enum_labels(tables.mem_kind.as_ref(), MEM_KIND_LABELS, &key, output)?;
        Ok(left_join(
            frame.with_column(int(column).alias(key.as_str())),
            labels,
            &key,
            &key,
        ))
    };
    if is_memset {
        frame = kinds(frame, "memKind", transfers_col::SRC_KIND)?;
        frame = frame.with_columns([
            lit(NULL)
                .cast(DataType::String)
                .alias(transfers_col::DST_KIND),
            lit(NULL)
                .cast(DataType::String)
                .alias(transfers_col::DIRECTION),
        ]);
    } else {
        frame = kinds(frame, "srcKind", transfers_col::SRC_KIND)?;
        frame = kinds(frame, "dstKind", transfers_col::DST_KIND)?;
        if has("copyKind") {
            let labels = enum_labels(
                tables.memcpy_oper.as_ref(),
                MEMCPY_OPER_LABELS,
                "__dir",
                transfers_col::DIRECTION,
            )?;
            frame = left_join(
                frame.with_column(int("copyKind").alias("__dir")),
                labels,
                "__dir",
                "__dir",
            );
        } else {
            frame = frame.with_column(
                lit(NULL)
                    .cast(DataType::String)
                    .alias(transfers_col::DIRECTION),
            );
        }
    }
    let or_null = |c: &str, output: &str, dtype: DataType| {
        if has(c) {
            col(c).cast(dtype.clone()).alias(output)
        } else {
            lit(NULL).cast(dtype).alias(output)
        }
    };
    let device_name = if has("deviceId") && device_names(tables)?.is_some() {
        col(transfers_col::DEVICE_NAME)
    } else {
        lit(NULL)
            .cast(DataType::String)
            .alias(transfers_col::DEVICE_NAME)
    };
    Ok(frame.select([
        lit(source).alias(transfers_col::SOURCE_FILE),
        lit(if is_memset { "memset" } else { "memcpy" }).alias(transfers_col::KIND),
        col(transfers_col::DIRECTION),
        or_null("bytes", transfers_col::BYTES, DataType::Int64),
        or_null("start", transfers_col::START_NS, DataType::Int64),
        (int("end") - int("start"))
            .cast(DataType::Float64)
            .alias(transfers_col::DURATION_NS),
        col(transfers_col::SRC_KIND),
        col(transfers_col::DST_KIND),
        device_name,
        or_null("deviceId", transfers_col::DEVICE_ORDINAL, DataType::Int64),
        or_null("streamId", transfers_col::STREAM, DataType::Int64),
        or_null(
            "correlationId",
            crate::trace::transfers_col::CORRELATION_ID,
            DataType::Int64,
        ),
    ]))
}

/// The transfers frame of the memcpy and memset tables, sorted by start time.
pub(crate) fn build_transfers(source: &str, tables: &NsysTables) -> PolarsResult<DataFrame> {
    let mut parts = Vec::new();
    if let Some(memcpy) = tables.memcpy.clone() {
        parts.push(transfer_frame(source, memcpy, false, tables)?);
    }
    if let Some(memset) = tables.memset.clone() {
        parts.push(transfer_frame(source, memset, true, tables)?);
    }
    if parts.is_empty() {
        return Ok(DataFrame::empty());
    }
    let all = concat(parts, UnionArgs::default())?;
    all.sort(
        [transfers_col::START_NS],
        SortMultipleOptions::default().with_maintain_order(true),
    )
    .collect()
}
