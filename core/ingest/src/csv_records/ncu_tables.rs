//! How Nsight Compute CSV tables start, for the shared driver: a header line beginning with
//! `"ID","Process ID"` (and, on the raw page, the units row after it) opens a table; every such
//! line starts a new one. [`parse_ncu_file`] is the entry point the ncu readers call.

use std::path::Path;
use std::sync::Arc;

use super::record::Record;
use super::stream::{self, Opening, StreamOptions, TableRule};
use crate::{Format, IngestError};

/// The table a piece of records belongs to: its header (and, for the raw page, its units row).
#[derive(Debug, Clone)]
pub(crate) struct TableContext {
    /// 0-based index of the table (header block) in the file.
    pub(crate) index: usize,
    /// The header fields.
    pub(crate) header: Vec<String>,
    /// The units row (raw page only).
    pub(crate) units: Option<Vec<String>>,
    /// Line of the header (kept for error messages about the header itself).
    #[allow(dead_code)]
    pub(crate) line: u64,
}

impl TableContext {
    /// Index of the header column named `name`.
    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// A slice of complete records of one ncu table, handed to a parser.
pub(crate) type Piece<'a> = stream::Piece<'a, TableContext>;

/// How the driver treats header blocks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StreamConfig {
    /// Every header is followed by a units row (`ncu --page raw`).
    pub(crate) units_row: bool,
    /// Bytes per streamed block; 0 for the default.
    pub(crate) block_bytes: usize,
}

/// The ncu table rule: `validate` checks each new header and returns a message when it cannot be
/// used (reported as [`IngestError::Malformed`]).
struct NcuTables<V> {
    units_row: bool,
    validate: V,
}

fn is_ncu(format: Format) -> bool {
    matches!(format, Format::NcuDetails | Format::NcuRaw)
}

impl<V: Fn(&TableContext) -> Option<String>> TableRule for NcuTables<V> {
    type Table = TableContext;

    fn is_first_header(&self, format: Format) -> bool {
        is_ncu(format)
    }

    fn starts_table(&self, format: Format) -> bool {
        is_ncu(format)
    }

    fn header_records(&self, _format: Format) -> usize {
        if self.units_row { 2 } else { 1 }
    }

    fn open(
        &mut self,
        path: &Path,
        opening: Opening<'_>,
        _previous: Option<&Arc<TableContext>>,
    ) -> Result<Arc<TableContext>, IngestError> {
        let record = |i: usize| {
            opening
                .records
                .get(i)
                .map_or_else(Vec::new, Record::to_strings)
        };
        let ctx = TableContext {
            index: opening.index,
            header: record(0),
            units: self.units_row.then(|| record(1)),
            line: opening.line,
        };
        if let Some(problem) = (self.validate)(&ctx) {
            return Err(IngestError::Malformed {
                path: path.to_path_buf(),
                line: opening.line,
                expected: problem,
                found: format!("a header with {} columns", ctx.header.len()),
            });
        }
        Ok(Arc::new(ctx))
    }

    fn no_header(&self, path: &Path, line: u64) -> IngestError {
        IngestError::Malformed {
            path: path.to_path_buf(),
            line,
            expected: "an Nsight Compute CSV header line starting with \"ID\",\"Process ID\""
                .into(),
            found: "no such line in the file".into(),
        }
    }
}

/// Streams `path`, finds the ncu header blocks, and parses the records in parallel with `parse`,
/// one call per piece. `consume` receives the results sequentially, in file order, block by
/// block. `validate` checks each new header and returns a message when it cannot be used
/// (reported as [`IngestError::Malformed`]). An unterminated quote at the end is an error.
pub(crate) fn parse_ncu_file<T, P, V, C>(
    path: &Path,
    config: StreamConfig,
    validate: V,
    parse: P,
    mut consume: C,
) -> Result<(), IngestError>
where
    T: Send,
    P: Fn(Piece<'_>) -> T + Sync,
    V: Fn(&TableContext) -> Option<String>,
    C: FnMut(T),
{
    // A stream is read from its copy; a file that shrinks during the read is an error.
    let file = crate::source::open(path)?;
    let options = StreamOptions {
        block_bytes: config.block_bytes,
        open_quote_is_error: true,
    };
    let mut rule = NcuTables {
        units_row: config.units_row,
        validate,
    };
    stream::stream_tables(path, file, options, &mut rule, parse, |result| {
        consume(result);
        std::ops::ControlFlow::Continue(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv_records::RecordReader;

    fn drive(text: &str, block: usize) -> Result<Vec<(usize, u64, String)>, IngestError> {
        let dir = tempfile::tempdir().map_err(|e| IngestError::Io {
            path: "tmp".into(),
            source: e,
        })?;
        let path = dir.path().join("x.csv");
        std::fs::write(&path, text).map_err(|e| IngestError::Io {
            path: path.clone(),
            source: e,
        })?;
        let mut records = Vec::new();
        parse_ncu_file(
            &path,
            StreamConfig {
                units_row: false,
                block_bytes: block,
            },
            |_| None,
            |piece| {
                let mut reader = RecordReader::new(piece.data, piece.first_line);
                let mut rec = Record::default();
                let mut out = Vec::new();
                while reader.read(&mut rec) {
                    out.push((piece.table.index, rec.line, rec.get(0).to_string()));
                }
                out
            },
            |out| records.extend(out),
        )?;
        Ok(records)
    }

    #[test]
    fn noise_lines_and_two_header_blocks_with_tiny_blocks() -> Result<(), IngestError> {
        let mut text = String::from("app says \"hi\n==PROF== Connected\n");
        text.push_str("\"ID\",\"Process ID\",\"X\"\n");
        for i in 0..50 {
            text.push_str(&format!("\"{i}\",\"1\",\"multi\nline\"\n"));
        }
        text.push_str("\"ID\",\"Process ID\",\"X\"\n\"0\",\"2\",\"y\"\n");
        for block in [0, 7, 64] {
            let recs = drive(&text, block)?;
            assert_eq!(recs.len(), 51, "block {block}");
            assert_eq!(recs[0], (0, 4, "0".to_string()));
            assert_eq!(recs[49], (0, 4 + 49 * 2, "49".to_string()));
            assert_eq!(recs[50], (1, 105, "0".to_string()));
        }
        Ok(())
    }

    #[test]
    fn a_file_without_header_is_malformed() {
        match drive("just text\n", 0) {
            Err(IngestError::Malformed { expected, .. }) => assert!(expected.contains("\"ID\"")),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }

    #[test]
    fn an_unterminated_quote_is_malformed() {
        match drive("\"ID\",\"Process ID\"\n\"0\",\"open\n", 0) {
            Err(IngestError::Malformed { expected, .. }) => assert!(expected.contains("closing")),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }
}
