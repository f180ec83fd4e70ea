//! What the `nsys stats --format csv` readers share: how their tables start (the shared CSV
//! driver's [`TableRule`] for one report among the other nsys tables and console lines of a
//! concatenated `nsys stats` stdout), which rows are not data, and how cells are read.

use std::cell::OnceCell;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use crate::csv_records::{self, Opening, StreamOptions, TableRule, TextFields};
use crate::trace::RejectedRow;
use crate::{Format, IngestError};

/// The table a piece of rows belongs to: the report this reader reads (with its parsed header),
/// or another nsys table whose rows are skipped.
#[derive(Debug)]
pub(crate) enum StatsTable<H> {
    /// A table of the report, with its header.
    Report(H),
    /// Another table (a concatenated `nsys stats` report); skipped until the next header.
    Other,
}

/// How one report's header is recognised and parsed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Report<H> {
    /// The report's format.
    pub(crate) format: Format,
    /// The report's name in messages (`cuda_gpu_trace`).
    pub(crate) name: &'static str,
    /// What the error for a file without the header expects (`a cuda_gpu_trace CSV header ...`).
    pub(crate) expected_header: &'static str,
    /// Parses the header labels found at a line of a file.
    pub(crate) parse_header: fn(&Path, u64, Vec<String>) -> Result<H, IngestError>,
    /// Whether a header after the first that cannot be used is a rejected row (the previous
    /// header stays in force) rather than an error.
    pub(crate) later_header_is_a_row: bool,
}

/// The rule the shared driver runs with, and what it learnt on the way. The first table is in a
/// cell that the consumer of the pieces reads while the driver runs.
struct StatsTables<'a, H> {
    report: Report<H>,
    first: &'a OnceCell<Arc<StatsTable<H>>>,
    rejected: Vec<RejectedRow>,
}

impl<H: Send + Sync> TableRule for StatsTables<'_, H> {
    type Table = StatsTable<H>;

    fn is_first_header(&self, format: Format) -> bool {
        format == self.report.format
    }

    fn starts_table(&self, _format: Format) -> bool {
        true
    }

    fn open(
        &mut self,
        path: &Path,
        opening: Opening<'_>,
        previous: Option<&Arc<StatsTable<H>>>,
    ) -> Result<Arc<StatsTable<H>>, IngestError> {
        if opening.format != self.report.format {
            tracing::debug!(
                line = opening.line,
                format = opening.format.name(),
                "skipping another nsys table"
            );
            return Ok(Arc::new(StatsTable::Other));
        }
        let labels = opening.records.first().map_or_else(Vec::new, |record| {
            (0..record.len())
                .map(|i| record.get_lossy(i).into_owned())
                .collect()
        });
        let table = match previous {
            Some(previous) if self.report.later_header_is_a_row => {
                match (self.report.parse_header)(Path::new(""), opening.line, labels) {
                    Ok(header) => Arc::new(StatsTable::Report(header)),
                    Err(error) => {
                        self.rejected.push(RejectedRow {
                            line: opening.line,
                            reason: format!(
                                "a second {} header that cannot be used: {error}",
                                self.report.name
                            ),
                        });
                        previous.clone()
                    }
                }
            }
            _ => Arc::new(StatsTable::Report((self.report.parse_header)(
                path,
                opening.line,
                labels,
            )?)),
        };
        // The first table is set once; later ones leave it as it is.
        let _ = self.first.set(table.clone());
        Ok(table)
    }

    fn no_header(&self, path: &Path, _line: u64) -> IngestError {
        IngestError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            expected: self.report.expected_header.into(),
            found: "no such header in the file".into(),
        }
    }
}

/// What reading one report gives besides the parsed pieces.
pub(crate) struct StatsRead<H> {
    /// The first header of the report.
    pub(crate) first_header: Arc<StatsTable<H>>,
    /// Rows rejected by the driver itself (unusable later headers).
    pub(crate) rejected: Vec<RejectedRow>,
}

/// Streams the `report` tables of `source` (named `path`) through the shared CSV driver in blocks
/// of `block_bytes` (0 for the default); `parse` and `consume` are as in
/// [`csv_records::stream_tables`].
pub(crate) fn read_report<H, T, P, C>(
    path: &Path,
    source: impl Read,
    report: Report<H>,
    block_bytes: usize,
    parse: P,
    mut consume: C,
) -> Result<StatsRead<H>, IngestError>
where
    H: Send + Sync,
    T: Send,
    P: Fn(csv_records::stream::Piece<'_, StatsTable<H>>) -> T + Sync,
    C: FnMut(T),
{
    read_report_until(path, source, report, block_bytes, parse, |piece, _| {
        consume(piece);
        ControlFlow::Continue(())
    })
}

/// Like [`read_report`], for a consumer that needs the report's first table while the file is
/// read (`None` only before the first header, where no piece exists) and may stop the reading
/// early: after a break, the driver reads no further and what was learnt until then is
/// returned.
pub(crate) fn read_report_until<H, T, P, C>(
    path: &Path,
    source: impl Read,
    report: Report<H>,
    block_bytes: usize,
    parse: P,
    mut consume: C,
) -> Result<StatsRead<H>, IngestError>
where
    H: Send + Sync,
    T: Send,
    P: Fn(csv_records::stream::Piece<'_, StatsTable<H>>) -> T + Sync,
    C: FnMut(T, Option<&StatsTable<H>>) -> ControlFlow<()>,
{
    let first = OnceCell::new();
    let mut rule = StatsTables {
        report,
        first: &first,
        rejected: Vec::new(),
    };
    let options = StreamOptions {
        block_bytes,
        open_quote_is_error: false,
    };
    csv_records::stream_tables(path, source, options, &mut rule, parse, |piece| {
        consume(piece, first.get().map(|table| &**table))
    })?;
    let rejected = std::mem::take(&mut rule.rejected);
    let first_header = first
        .get()
        .cloned()
        .ok_or_else(|| rule.no_header(path, 1))?;
    Ok(StatsRead {
        first_header,
        rejected,
    })
}

/// True for a record that holds no data: a blank line, or one of the console lines nsys prints
/// around its CSV tables when writing to stdout (`Processing [x.sqlite] with [...]`, `NOTICE:
/// ...`, `SKIPPED: ...`, and the like).
pub(crate) fn is_not_data(fields: &TextFields<'_>) -> bool {
    fields.is_blank() || is_console_line(fields.get(0))
}

/// True for the console lines nsys prints around its CSV tables (see [`is_not_data`]).
pub(crate) fn is_console_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("Processing [")
        || line.starts_with("NOTICE:")
        || line.starts_with("SKIPPED:")
        || line.starts_with("WARNING:")
        || line.starts_with("ERROR:")
        || line.starts_with("Generating ")
        || line.starts_with("Exporting ")
        || line.starts_with("** ")
}

/// Parses a decimal integer cell. Cells written as `12.000` (a whole number with decimals) are
/// accepted; anything else that is not an integer is an error.
pub(crate) fn parse_i64(cell: &str) -> Option<i64> {
    let cell = trim(cell);
    if let Ok(value) = cell.parse::<i64>() {
        return Some(value);
    }
    let value: f64 = cell.parse().ok()?;
    (value.is_finite() && value.fract() == 0.0 && value.abs() < 9.0e18).then_some(value as i64)
}

/// `cell` without its leading and trailing whitespace, exactly as `str::trim` gives it, without
/// decoding the ends of a cell that starts and ends with a printable ASCII character (every
/// number and most names nsys writes): `str::trim` took about 5 % of a 2 M-launch CSV's ingest.
pub(crate) fn trim(cell: &str) -> &str {
    match cell.as_bytes() {
        [first, .., last] if first.is_ascii_graphic() && last.is_ascii_graphic() => cell,
        [only] if only.is_ascii_graphic() => cell,
        _ => cell.trim(),
    }
}

/// Parses a decimal number cell (finite values only).
pub(crate) fn parse_f64(cell: &str) -> Option<f64> {
    let value: f64 = trim(cell).parse().ok()?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_trimmed_as_str_trim_trims_them() {
        for cell in [
            "",
            " ",
            "1",
            "12",
            " 12",
            "12 ",
            "\t12\r",
            "a b",
            "\u{a0}12",
            "12\u{a0}",
            "\u{2003}x\u{85}",
            "\u{1f}x",
            "x\u{0b}",
            "é",
            "éx",
            "[CUDA memcpy HtoD]",
            "\n",
        ] {
            assert_eq!(trim(cell), cell.trim(), "{cell:?}");
        }
    }

    #[test]
    fn integers_with_trailing_zero_decimals_are_accepted() {
        assert_eq!(parse_i64("12"), Some(12));
        assert_eq!(parse_i64("12.000"), Some(12));
        assert_eq!(parse_i64("12.5"), None);
        assert_eq!(parse_i64("abc"), None);
        assert_eq!(parse_f64("0.019"), Some(0.019));
        assert_eq!(parse_f64("inf"), None);
    }

    #[test]
    fn console_lines_are_not_data() {
        assert!(is_console_line("  Processing [r.sqlite] with [x.py]..."));
        assert!(is_console_line("NOTICE: nothing"));
        assert!(!is_console_line("1,2,3"));
    }
}
