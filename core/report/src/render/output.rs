//! Writing a result frame in the machine formats of `analyze`, `predict` and `diff`: CSV, JSON (an
//! array of row objects) or Parquet, with the raw base-unit values.

use std::io::Write;

use polars::prelude::*;
use warpsight_ingest::Format;
use warpsight_ingest::native::BatchWriter;

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Writing failed.
    #[error("cannot write the output")]
    Io(#[from] std::io::Error),
    /// Serialising failed.
    #[error("cannot serialise the output table")]
    Polars(#[from] PolarsError),
    /// JSON serialisation failed.
    #[error("cannot serialise the output as JSON")]
    Json(#[from] serde_json::Error),
}

/// Writes `frame` as CSV (header row, raw values).
pub fn write_csv(frame: &mut DataFrame, out: &mut dyn Write) -> Result<(), OutputError> {
    let mut buffer = Vec::new();
    CsvWriter::new(&mut buffer)
        .include_header(true)
        .finish(frame)?;
    out.write_all(&buffer)?;
    Ok(())
}

/// Writes `frame` as Parquet.
pub fn write_parquet(frame: &mut DataFrame, out: &mut dyn Write) -> Result<(), OutputError> {
    let mut buffer = Vec::new();
    ParquetWriter::new(&mut buffer).finish(frame)?;
    out.write_all(&buffer)?;
    Ok(())
}

/// Writes `frame` as an Arrow IPC file.
pub fn write_ipc(frame: &mut DataFrame, out: &mut dyn Write) -> Result<(), OutputError> {
    let mut buffer = Vec::new();
    IpcWriter::new(&mut buffer).finish(frame)?;
    out.write_all(&buffer)?;
    Ok(())
}

/// Writes `frame` as a JSON array of row objects, one object per line, keys in column order
/// (null for missing and non-finite values).
pub fn write_json(frame: &DataFrame, out: &mut dyn Write) -> Result<(), OutputError> {
    out.write_all(b"[")?;
    write_json_rows(frame, out, true)?;
    out.write_all(if frame.height() == 0 { "]\n" } else { "\n]\n" }.as_bytes())?;
    Ok(())
}

/// The rows of `frame` as the JSON objects of [`write_json`], each after `,` unless `first` and
/// it is the first row.
fn write_json_rows(frame: &DataFrame, out: &mut dyn Write, first: bool) -> Result<(), OutputError> {
    let names: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|n| serde_json::to_string(n.as_str()))
        .collect::<Result<_, _>>()?;
    let values = column_values(frame)?;
    for row in 0..frame.height() {
        out.write_all(if first && row == 0 { "\n  {" } else { ",\n  {" }.as_bytes())?;
        for (index, (name, column)) in names.iter().zip(&values).enumerate() {
            if index > 0 {
                out.write_all(b", ")?;
            }
            write!(out, "{name}: {}", serde_json::to_string(&column[row])?)?;
        }
        out.write_all(b"}")?;
    }
    Ok(())
}

/// A machine-format output written one batch of rows at a time (`analyze --per launch`), so
/// that the whole table is never held: the same bytes as [`write_csv`] and [`write_json`] give
/// for the concatenated batches, and one Parquet file with a row group per batch.
pub enum FrameSink<'w> {
    /// CSV or Parquet, through the ingest crate's batched writer.
    Table(BatchWriter<&'w mut dyn Write>),
    /// JSON: whether a row was written yet, and the output.
    Json(bool, &'w mut dyn Write),
}

/// The machine formats a [`FrameSink`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkFormat {
    /// CSV with a header row.
    Csv,
    /// Parquet.
    Parquet,
    /// An Arrow IPC file.
    Ipc,
    /// A JSON array of row objects.
    Json,
}

impl<'w> FrameSink<'w> {
    /// A sink for batches with `schema`, writing to `out`.
    pub fn new(
        format: SinkFormat,
        schema: &Schema,
        out: &'w mut dyn Write,
    ) -> Result<Self, OutputError> {
        let table = |format: Format, out: &'w mut dyn Write| -> Result<Self, OutputError> {
            BatchWriter::new(format, schema, out)?
                .map(FrameSink::Table)
                .ok_or_else(|| {
                    OutputError::Polars(polars_err!(ComputeError: "not a batched format"))
                })
        };
        match format {
            SinkFormat::Csv => table(Format::WarpsightCsv, out),
            SinkFormat::Parquet => table(Format::WarpsightParquet, out),
            SinkFormat::Ipc => table(Format::WarpsightIpc, out),
            SinkFormat::Json => {
                out.write_all(b"[")?;
                Ok(FrameSink::Json(false, out))
            }
        }
    }

    /// Writes one batch.
    pub fn write(&mut self, batch: &DataFrame) -> Result<(), OutputError> {
        match self {
            FrameSink::Table(writer) => writer.write(batch)?,
            FrameSink::Json(any, out) => {
                write_json_rows(batch, *out, !*any)?;
                *any |= batch.height() > 0;
            }
        }
        Ok(())
    }

    /// Ends the output (CSV's header when no batch came, Parquet's footer, JSON's `]`).
    pub fn finish(self) -> Result<(), OutputError> {
        match self {
            FrameSink::Table(writer) => writer.finish()?,
            FrameSink::Json(any, out) => {
                out.write_all(if any { "\n]\n" } else { "]\n" }.as_bytes())?
            }
        }
        Ok(())
    }
}

/// Every column of `frame` as JSON values.
fn column_values(frame: &DataFrame) -> PolarsResult<Vec<Vec<serde_json::Value>>> {
    frame
        .columns()
        .iter()
        .map(|column| -> PolarsResult<Vec<serde_json::Value>> {
            Ok(match column.dtype() {
                DataType::String => column
                    .str()?
                    .iter()
                    .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                    .collect(),
                DataType::Boolean => column
                    .bool()?
                    .iter()
                    .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                    .collect(),
                dtype if dtype.is_integer() => column
                    .cast(&DataType::Int64)?
                    .i64()?
                    .iter()
                    .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                    .collect(),
                dtype if dtype.is_primitive_numeric() => column
                    .cast(&DataType::Float64)?
                    .f64()?
                    .iter()
                    .map(|v| {
                        v.and_then(serde_json::Number::from_f64)
                            .map_or(serde_json::Value::Null, serde_json::Value::Number)
                    })
                    .collect(),
                _ => column
                    .cast(&DataType::String)?
                    .str()?
                    .iter()
                    .map(|v| v.map_or(serde_json::Value::Null, Into::into))
                    .collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rows_keep_raw_values_and_nulls() -> Result<(), Box<dyn std::error::Error>> {
        let frame = df!("kernel" => ["a", "b"], "ns" => [Some(1500.0f64), Some(f64::NAN)], "n" => [Some(3i64), None])?;
        let mut out = Vec::new();
        write_json(&frame, &mut out)?;
        let value: serde_json::Value = serde_json::from_slice(&out)?;
        assert_eq!(value[0]["kernel"], "a");
        assert_eq!(value[0]["ns"], 1500.0);
        assert_eq!(value[0]["n"], 3);
        assert!(value[1]["ns"].is_null());
        assert!(value[1]["n"].is_null());
        // Keys keep the column order.
        let text = String::from_utf8(out)?;
        assert!(text.find("\"kernel\"") < text.find("\"ns\""));
        assert!(text.find("\"ns\"") < text.find("\"n\":"));
        Ok(())
    }

    #[test]
    fn csv_has_a_header_and_raw_numbers() -> Result<(), Box<dyn std::error::Error>> {
        let mut frame = df!("kernel" => ["a"], "ns" => [1500.0f64])?;
        let mut out = Vec::new();
        write_csv(&mut frame, &mut out)?;
        assert_eq!(String::from_utf8(out)?, "kernel,ns\na,1500.0\n");
        Ok(())
    }
}
