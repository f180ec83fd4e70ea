//! Writing a result frame in one of the output formats of `analyze`, `predict` and `diff`:
//! the terminal table, GitHub markdown, CSV, JSON (an array of row objects) or Parquet. Machine
//! formats carry the raw base-unit values; only the human formats go through [`super::units`].

use std::io::Write;

use polars::prelude::*;

use super::table::{self, DisplayColumn, TerminalStyle};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// A terminal table with readable units.
    Table,
    /// A GitHub markdown table with readable units.
    Md,
    /// CSV, raw base units.
    Csv,
    /// JSON: an array of objects, raw base units.
    Json,
    /// Parquet, raw base units (needs `-o` or a non-terminal stdout).
    Parquet,
}

impl OutputFormat {
    /// The format an output path's extension implies, if any.
    pub fn from_path(path: &std::path::Path) -> Option<OutputFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(OutputFormat::Csv),
            "json" => Some(OutputFormat::Json),
            "parquet" | "pq" => Some(OutputFormat::Parquet),
            "md" | "markdown" => Some(OutputFormat::Md),
            "txt" => Some(OutputFormat::Table),
            _ => None,
        }
    }

    /// True for the formats meant for people (units, truncation, findings below the table).
    pub fn is_human(self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Md)
    }
}

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

/// Writes `frame` as a JSON array of row objects, one object per line, keys in column order
/// (null for missing and non-finite values).
pub fn write_json(frame: &DataFrame, out: &mut dyn Write) -> Result<(), OutputError> {
    let names: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|n| serde_json::to_string(n.as_str()))
        .collect::<Result<_, _>>()?;
    let values = column_values(frame)?;
    out.write_all(b"[")?;
    for row in 0..frame.height() {
        out.write_all(if row == 0 { "\n  {" } else { ",\n  {" }.as_bytes())?;
        for (index, (name, column)) in names.iter().zip(&values).enumerate() {
            if index > 0 {
                out.write_all(b", ")?;
            }
            write!(out, "{name}: {}", serde_json::to_string(&column[row])?)?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(if frame.height() == 0 { "]\n" } else { "\n]\n" }.as_bytes())?;
    Ok(())
}

/// The rows of `frame` as JSON objects (keys sorted; use [`write_json`] for column order).
pub fn to_json_rows(frame: &DataFrame) -> PolarsResult<Vec<serde_json::Value>> {
    let names: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let values = column_values(frame)?;
    Ok((0..frame.height())
        .map(|row| {
            serde_json::Value::Object(
                names
                    .iter()
                    .cloned()
                    .zip(values.iter().map(|c| c[row].clone()))
                    .collect(),
            )
        })
        .collect())
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

/// Writes `frame` in a human format with the given display columns.
pub fn write_human(
    frame: &DataFrame,
    columns: &[DisplayColumn],
    format: OutputFormat,
    style: TerminalStyle,
    out: &mut dyn Write,
) -> Result<(), OutputError> {
    let text = match format {
        OutputFormat::Md => table::markdown(frame, columns)?,
        _ => table::terminal(frame, columns, style)?,
    };
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes `frame` in a machine format (CSV, JSON, Parquet).
pub fn write_machine(
    frame: &DataFrame,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), OutputError> {
    let mut frame = frame.clone();
    match format {
        OutputFormat::Csv => write_csv(&mut frame, out),
        OutputFormat::Parquet => write_parquet(&mut frame, out),
        _ => write_json(&frame, out),
    }
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

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(
            OutputFormat::from_path(std::path::Path::new("x.parquet")),
            Some(OutputFormat::Parquet)
        );
        assert_eq!(
            OutputFormat::from_path(std::path::Path::new("x.JSON")),
            Some(OutputFormat::Json)
        );
        assert_eq!(OutputFormat::from_path(std::path::Path::new("x")), None);
    }
}
