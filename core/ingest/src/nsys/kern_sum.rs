//! Reader for `nsys stats --report cuda_gpu_kern_sum --format csv` (older name `gpukernsum`): one
//! row per kernel name with its share of GPU time and duration statistics.
//!
//! The rows go to `Trace::kernel_summary` (see `trace::kernel_summary_col`); the launch table stays
//! empty because a summary has no individual launches (warpsight never invents them).
//!
//! Accepted headers: `Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),
//! StdDev (ns),Name` (2024+), the older `Time(%)` and `Average`/`Minimum`/`Maximum`/`Median`
//! spellings, and any time unit `nsys stats --timeunit` prints (`ns`, `us`, `ms`, `s`). Only
//! `Time`, `Total Time`, `Instances` and `Name` are required. Noise before the header, blank lines
//! and other nsys tables concatenated after it are skipped.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use polars::prelude::*;

use crate::csv_records::{Record, RecordReader, stream::Piece};
use crate::nsys::header::HeaderLabels;
use crate::nsys::stats_csv::{self, Report, StatsTable};
use crate::trace::{RejectedRow, Trace, kernel_summary_col as ks};
use crate::{Format, IngestError, ReadConfig};

/// The `cuda_gpu_kern_sum` report for the shared `nsys stats` table rule.
const REPORT: Report<Header> = Report {
    format: Format::NsysKernSum,
    name: "cuda_gpu_kern_sum",
    expected_header: "a cuda_gpu_kern_sum CSV header (`Time (%),Total Time (ns),Instances,...`)",
    parse_header: Header::parse,
    later_header_is_a_row: false,
};

/// The largest `Time (%)` taken, as a share: 100 % and a little rounding.
const MAX_TIME_SHARE: f64 = 1.005;

/// Reads a `cuda_gpu_kern_sum` CSV export.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    // A stream is read from its copy; a file that shrinks during the read is an error.
    let file = crate::source::open(path)?;
    read_source(path, file, config)
}

/// Where each statistic is in the header, with the scale of its time unit (ns per unit).
#[derive(Debug, Clone)]
struct Header {
    labels: Vec<String>,
    time_percent: usize,
    total: (usize, f64),
    instances: usize,
    avg: Option<(usize, f64)>,
    med: Option<(usize, f64)>,
    min: Option<(usize, f64)>,
    max: Option<(usize, f64)>,
    stddev: Option<(usize, f64)>,
    name: usize,
}

impl Header {
    fn parse(path: &Path, line: u64, labels: Vec<String>) -> Result<Header, IngestError> {
        let h = HeaderLabels::new(path, line, "cuda_gpu_kern_sum", labels);
        let time = |names: &[&str]| h.find(names).map(|i| h.time(i)).transpose();
        let header = Header {
            labels: Vec::new(),
            time_percent: h.require(&["Time"])?,
            total: h.time(h.require(&["Total Time"])?)?,
            instances: h.require(&["Instances"])?,
            avg: time(&["Avg", "Average"])?,
            med: time(&["Med", "Median"])?,
            min: time(&["Min", "Minimum"])?,
            max: time(&["Max", "Maximum"])?,
            stddev: time(&["StdDev", "Std Dev"])?,
            name: h.require(&["Name"])?,
        };
        Ok(Header {
            labels: h.into_labels(),
            ..header
        })
    }
}

/// The summary rows, column by column.
#[derive(Debug, Default)]
struct Rows {
    name: Vec<String>,
    time_share: Vec<f64>,
    total: Vec<f64>,
    instances: Vec<i64>,
    avg: Vec<Option<f64>>,
    med: Vec<Option<f64>>,
    min: Vec<Option<f64>>,
    max: Vec<Option<f64>>,
    stddev: Vec<Option<f64>>,
}

impl Rows {
    /// Moves the rows of `other` after these.
    fn append(&mut self, mut other: Rows) {
        self.name.append(&mut other.name);
        self.time_share.append(&mut other.time_share);
        self.total.append(&mut other.total);
        self.instances.append(&mut other.instances);
        self.avg.append(&mut other.avg);
        self.med.append(&mut other.med);
        self.min.append(&mut other.min);
        self.max.append(&mut other.max);
        self.stddev.append(&mut other.stddev);
    }
}

/// Parses the bytes of a `cuda_gpu_kern_sum` CSV export read from `path`.
#[cfg(test)]
fn parse(path: &Path, data: &[u8], config: &ReadConfig) -> Result<Trace, IngestError> {
    read_source(path, data, config)
}

/// The rows and rejected rows of one piece.
#[derive(Debug, Default)]
struct PieceRows {
    rows: Rows,
    rejected: Vec<RejectedRow>,
}

/// Parses one piece of records; rows of another nsys table are skipped. Cells that are not valid
/// UTF-8 read with U+FFFD in place of the bad bytes.
fn parse_piece(piece: Piece<'_, StatsTable<Header>>) -> PieceRows {
    let mut out = PieceRows::default();
    let StatsTable::Report(header) = &*piece.table else {
        return out;
    };
    let mut reader = RecordReader::new(piece.data, piece.first_line);
    let mut record = Record::default();
    while reader.read(&mut record) {
        let fields: Vec<Cow<'_, str>> = (0..record.len()).map(|i| record.get_lossy(i)).collect();
        let first = fields.first().map_or("", |f| f.as_ref());
        if (fields.len() <= 1 && first.trim().is_empty()) || stats_csv::is_console_line(first) {
            continue;
        }
        if let Err(reason) = parse_row(&fields, header, &mut out.rows) {
            out.rejected.push(RejectedRow {
                line: record.line,
                reason,
            });
        }
    }
    out
}

/// Streams `source` through the shared CSV driver and builds the trace.
fn read_source(path: &Path, source: impl Read, config: &ReadConfig) -> Result<Trace, IngestError> {
    let mut rows = Rows::default();
    let mut rejected = Vec::new();
    let read = stats_csv::read_report(path, source, REPORT, 0, parse_piece, |piece| {
        rows.append(piece.rows);
        rejected.extend(piece.rejected);
    })?;
    rejected.extend(read.rejected);
    crate::trace::refuse_rejected(path, config.strict, &rejected)?;
    let kernel_summary =
        build(rows, &path.display().to_string()).map_err(|source| IngestError::Polars {
            path: path.to_path_buf(),
            source,
        })?;
    let mut trace = Trace::empty(Format::NsysKernSum);
    trace.side.kernel_summary = kernel_summary;
    trace.rejected = rejected;
    Ok(trace)
}

fn parse_row(fields: &[Cow<'_, str>], header: &Header, rows: &mut Rows) -> Result<(), String> {
    let cell = |index: usize| fields.get(index).map_or("", |c| c.as_ref()).trim();
    let number = |index: usize| -> Result<f64, String> {
        let text = cell(index);
        stats_csv::parse_f64(text.trim_end_matches('%')).ok_or_else(|| {
            format!(
                "expected a number in `{}`, found `{}`",
                header.labels[index], text
            )
        })
    };
    let time = |spec: Option<(usize, f64)>| -> Result<Option<f64>, String> {
        match spec {
            Some((index, scale)) if !cell(index).is_empty() => Ok(Some(number(index)? * scale)),
            _ => Ok(None),
        }
    };
    let share = number(header.time_percent)? / 100.0;
    let total = number(header.total.0)? * header.total.1;
    let instances = stats_csv::parse_i64(cell(header.instances)).ok_or_else(|| {
        format!(
            "expected an integer in `{}`, found `{}`",
            header.labels[header.instances],
            cell(header.instances)
        )
    })?;
    let (avg, med, min, max, stddev) = (
        time(header.avg)?,
        time(header.med)?,
        time(header.min)?,
        time(header.max)?,
        time(header.stddev)?,
    );
    // The statistics are checked like every other format's values (docs/trace-schema.md,
    // *Validated ranges*): a negative or non-finite time, a share outside 0-100 % or fewer than
    // one instance is not a summary nsys writes.
    let label = |index: usize| header.labels[index].as_str();
    if !(0.0..=MAX_TIME_SHARE).contains(&share) {
        return Err(format!(
            "expected a share of 0 to 100 % in `{}`, found `{}`",
            label(header.time_percent),
            cell(header.time_percent)
        ));
    }
    if instances < 1 {
        return Err(format!(
            "expected at least 1 instance in `{}`, found `{instances}`",
            label(header.instances)
        ));
    }
    let times = [
        Some((header.total.0, Some(total))),
        header.avg.map(|(i, _)| (i, avg)),
        header.med.map(|(i, _)| (i, med)),
        header.min.map(|(i, _)| (i, min)),
        header.max.map(|(i, _)| (i, max)),
        header.stddev.map(|(i, _)| (i, stddev)),
    ];
    for (index, value) in times.into_iter().flatten() {
        if let Some(value) = value
            && !(value.is_finite() && value >= 0.0)
        {
            return Err(format!(
                "expected a finite time of at least 0 in `{}`, found `{}`",
                label(index),
                cell(index)
            ));
        }
    }
    let name = fields.get(header.name).map_or("", |c| c.as_ref());
    if name.trim().is_empty() {
        return Err(format!(
            "expected a kernel name in `{}`, found an empty cell",
            header.labels[header.name]
        ));
    }
    rows.name.push(name.to_string());
    rows.time_share.push(share);
    rows.total.push(total);
    rows.instances.push(instances);
    rows.avg.push(avg);
    rows.med.push(med);
    rows.min.push(min);
    rows.max.push(max);
    rows.stddev.push(stddev);
    Ok(())
}

fn build(rows: Rows, source: &str) -> PolarsResult<DataFrame> {
    let height = rows.name.len();
    let opt = |name: &str, values: Vec<Option<f64>>| {
        let ca: Float64Chunked = values.into_iter().collect();
        ca.with_name(name.into()).into_column()
    };
    DataFrame::new(
        height,
        vec![
            Column::new_scalar(
                ks::SOURCE_FILE.into(),
                Scalar::from(PlSmallStr::from(source)),
                height,
            ),
            StringChunked::from_iter_values(
                ks::KERNEL_NAME.into(),
                rows.name.iter().map(String::as_str),
            )
            .into_column(),
            Float64Chunked::from_vec(ks::TIME_SHARE.into(), rows.time_share).into_column(),
            Float64Chunked::from_vec(ks::TOTAL_NS.into(), rows.total).into_column(),
            Int64Chunked::from_vec(ks::INSTANCES.into(), rows.instances).into_column(),
            opt(ks::AVG_NS, rows.avg),
            opt(ks::MED_NS, rows.med),
            opt(ks::MIN_NS, rows.min),
            opt(ks::MAX_NS, rows.max),
            opt(ks::STDDEV_NS, rows.stddev),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/nsys");

    #[test]
    fn older_spellings_microseconds_and_a_trailing_blank_line()
    -> Result<(), Box<dyn std::error::Error>> {
        // Older header (`Time(%)`, `Average`, `Minimum`, `Maximum`, no Med/StdDev), `--timeunit us`,
        // nsys console lines before it and a blank line after it.
        let path = Path::new(FIXTURES).join("kern_sum_old_us.csv");
        let trace = read(
            &path,
            &ReadConfig {
                strict: true,
                format: None,
            },
        )?;
        assert_eq!(trace.launch_count(), 0);
        assert!(trace.rejected.is_empty());
        let summary = &trace.side.kernel_summary;
        assert_eq!(summary.height(), 2);
        assert_eq!(
            summary.column(ks::KERNEL_NAME)?.str()?.get(0),
            Some("void gemm<float, 128>(float *, int)")
        );
        // 62.5 % -> 0.625; Total 1 250.5 us -> 1 250 500 ns; 3 instances.
        assert_eq!(summary.column(ks::TIME_SHARE)?.f64()?.get(0), Some(0.625));
        assert_eq!(
            summary.column(ks::TOTAL_NS)?.f64()?.get(0),
            Some(1_250_500.0)
        );
        assert_eq!(summary.column(ks::INSTANCES)?.i64()?.get(0), Some(3));
        assert_eq!(summary.column(ks::AVG_NS)?.f64()?.get(0), Some(416_500.0));
        assert_eq!(summary.column(ks::MIN_NS)?.f64()?.get(1), Some(2_000.0));
        assert_eq!(summary.column(ks::MED_NS)?.null_count(), 2);
        assert_eq!(summary.column(ks::STDDEV_NS)?.null_count(), 2);
        Ok(())
    }

    #[test]
    fn a_bad_row_is_rejected_and_strict_turns_it_into_an_error()
    -> Result<(), Box<dyn std::error::Error>> {
        let data = b"Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n50.0,100,two,50.0,50.0,40,60,1.0,k\n50.0,100,2,50.0,50.0,40,60,1.0,j\n";
        let trace = parse(Path::new("s.csv"), data, &ReadConfig::default())?;
        assert_eq!(trace.side.kernel_summary.height(), 1);
        assert_eq!(trace.rejected.len(), 1);
        assert_eq!(trace.rejected[0].line, 2);
        assert!(
            trace.rejected[0].reason.contains("`Instances`"),
            "{}",
            trace.rejected[0].reason
        );
        let strict = parse(
            Path::new("s.csv"),
            data,
            &ReadConfig {
                strict: true,
                format: None,
            },
        );
        assert!(
            matches!(strict, Err(IngestError::StrictRejected { line: 2, .. })),
            "{strict:?}"
        );
        Ok(())
    }

    #[test]
    fn a_concatenated_gpu_trace_table_is_skipped() -> Result<(), Box<dyn std::error::Error>> {
        let data = b"Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n100.0,100,2,50.0,50.0,40,60,1.0,k\n\nProcessing [r.sqlite] with [cuda_gpu_trace.py]...\nStart (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n1,2,3,1,1,1,1,1,1,8,0,0,,,,,GPU (0),1,,7,k\n";
        let trace = parse(
            Path::new("s.csv"),
            data,
            &ReadConfig {
                strict: true,
                format: None,
            },
        )?;
        assert_eq!(trace.side.kernel_summary.height(), 1);
        Ok(())
    }
}
