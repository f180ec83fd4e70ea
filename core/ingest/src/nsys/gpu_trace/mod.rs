//! Reader for `nsys stats --report cuda_gpu_trace --format csv` (older name `gputrace`): one row
//! per kernel, memcpy or memset on the GPU, sorted by start time.
//!
//! - Units come from the header (`Start (ns)`, `Duration (us)`, `StcSMem (MB)`, `Bytes (MB)`,
//!   `Throughput (MB/s)` or the older `(MBps)`); nsys memory units are decimal (1 MB = 1e6 B) and
//!   are rounded to whole bytes.
//! - Kernel rows have a launch configuration (`GrdX` set) and become launches; memcpy / memset
//!   rows (`GrdX` empty, `Name` like `[CUDA memcpy Host-to-Device]`) go to `Trace::transfers`.
//!   Any other row is rejected with its line and the reason.
//! - Noise before the header (`Processing [...]`, `NOTICE:`, application output) is skipped, as
//!   are other nsys reports concatenated after the table (until the next `cuda_gpu_trace` header).
//! - The file is streamed in blocks through the shared CSV driver ([`crate::csv_records`]) and
//!   parsed in parallel pieces; kernel and device names are interned so that millions of rows
//!   share a few distinct strings.
//! - [`read`] merges the pieces and builds the whole trace; [`GpuTraceSource`] (behind
//!   [`crate::read_batches`], `warpsight ingest`) builds the launch table batch by batch as the
//!   pieces come, so that it is never held whole: each batch is the pieces gathered until they
//!   hold [`crate::launch_source::BATCH_LAUNCHES`] launches, with the whole table's schema and
//!   strings.
//!
//! Modules: [`header`] (columns and units), [`rows`] (row parsing into columns), [`transfers`]
//! (memcpy/memset names), [`frame`] (the polars frames), [`batches`] (the launch table in
//! batches).

use std::io::Read;
use std::path::Path;

use crate::launch_source::BLOCK_BYTES;
use crate::nsys::stats_csv::{self, Report, StatsTable};
use crate::trace::{RejectedRow, SideTables, Trace};
use crate::{Format, IngestError, ReadConfig};

mod batches;
mod frame;
mod header;
mod rows;
mod transfers;

pub(crate) use batches::GpuTraceSource;
use header::Header;
use rows::{Parsed, merge, parse_piece};

#[cfg(test)]
pub(crate) use frame::{GREEN_CONTEXT_COLUMN, TRANSFER_THROUGHPUT_COLUMN};

/// The `cuda_gpu_trace` report for the shared `nsys stats` table rule.
const REPORT: Report<Header> = Report {
    format: Format::NsysGpuTrace,
    name: "cuda_gpu_trace",
    expected_header: "a cuda_gpu_trace CSV header (`Start (ns),Duration (ns),CorrId,GrdX,...`)",
    parse_header: Header::parse,
    later_header_is_a_row: true,
};

/// Reads a `cuda_gpu_trace` CSV export.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_with_blocks(path, config, BLOCK_BYTES)
}

/// Reads the file `block_bytes` at a time.
fn read_with_blocks(
    path: &Path,
    config: &ReadConfig,
    block_bytes: usize,
) -> Result<Trace, IngestError> {
    // A stream is read from its copy; a file that shrinks during the read is an error.
    let file = crate::source::open(path)?;
    read_source(path, file, config, block_bytes)
}

/// Parses the bytes of a `cuda_gpu_trace` CSV export read from `path`.
#[cfg(test)]
fn parse(path: &Path, data: &[u8], config: &ReadConfig) -> Result<Trace, IngestError> {
    read_source(path, data, config, BLOCK_BYTES)
}

/// Streams `source` through the shared CSV driver, merges the pieces and builds the trace.
fn read_source(
    path: &Path,
    source: impl Read,
    config: &ReadConfig,
    block_bytes: usize,
) -> Result<Trace, IngestError> {
    let mut pieces = Vec::new();
    let read = stats_csv::read_report(path, source, REPORT, block_bytes, parse_piece, |piece| {
        pieces.push(piece)
    })?;
    let mut parsed = merge(pieces);
    parsed.rejected.extend(read.rejected);
    parsed.rejected.sort_by_key(|row| row.line);
    finish(path, &parsed.rejected, config)?;
    let header = match &*read.first_header {
        StatsTable::Report(header) => Some(header),
        StatsTable::Other => None,
    };
    build_trace(path, parsed, header)
}

/// Fails with `--strict` on the first of the `rejected` rows (in line order); otherwise warns
/// that there are some.
fn finish(path: &Path, rejected: &[RejectedRow], config: &ReadConfig) -> Result<(), IngestError> {
    crate::trace::refuse_rejected(path, config.strict, rejected)?;
    if !rejected.is_empty() {
        tracing::warn!(
            path = %path.display(),
            rejected = rejected.len(),
            "some cuda_gpu_trace rows could not be used (`warpsight inspect` counts them; --strict fails instead)"
        );
    }
    Ok(())
}

/// Builds the trace from the parsed columns (moving them into the frames).
fn build_trace(
    path: &Path,
    mut parsed: Parsed,
    header: Option<&Header>,
) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let source = path.display().to_string();
    let transfers = frame::build_transfers(&parsed, &source).map_err(polars)?;
    let launches = frame::build_launches(&mut parsed, header, &source).map_err(polars)?;
    Ok(Trace {
        format: Format::NsysGpuTrace,
        launches,
        side: SideTables {
            transfers,
            ..SideTables::default()
        },
        rejected: parsed.rejected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv_records::stream::Piece;
    use crate::launch_table::column_names as lt;
    use crate::trace::transfers_col;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/nsys");

    fn read_fixture(name: &str, strict: bool) -> Result<Trace, IngestError> {
        read(
            &Path::new(FIXTURES).join(name),
            &ReadConfig {
                strict,
                format: None,
            },
        )
    }

    #[test]
    fn older_header_with_preamble_microseconds_and_mbps() -> Result<(), Box<dyn std::error::Error>>
    {
        // The fixture has `Processing [...]` and `NOTICE:` lines before an older header (no
        // GreenCtx, `Throughput (MBps)`), times in microseconds and a CRLF line ending.
        let trace = read_fixture("gpu_trace_old_header_us.csv", true)?;
        let launches = &trace.launches;
        assert_eq!(launches.height(), 2);
        assert!(trace.rejected.is_empty());
        // `Start (us)` 1.5 -> 1500 ns; `Duration (us)` 2.25 -> 2250 ns.
        assert_eq!(launches.column(lt::START_NS)?.i64()?.get(0), Some(1500));
        assert_eq!(
            launches.column(lt::DURATION_NS)?.f64()?.get(0),
            Some(2250.0)
        );
        // `StcSMem (MB)` 0.019 is 19 000 bytes; `DymSMem (MB)` 0.049 is 49 000 bytes.
        assert_eq!(
            launches.column(lt::STATIC_SMEM_BYTES)?.i64()?.get(1),
            Some(19_000)
        );
        assert_eq!(
            launches.column(lt::DYNAMIC_SMEM_BYTES)?.i64()?.get(1),
            Some(49_000)
        );
        assert_eq!(
            launches.column(lt::KERNEL_NAME)?.str()?.get(1),
            Some("void gemm<float, 128>(float *, int)")
        );
        assert_eq!(
            launches.column(lt::KERNEL_SHORT_NAME)?.str()?.get(1),
            Some("gemm")
        );
        assert_eq!(
            launches.column(lt::DEVICE_NAME)?.str()?.get(0),
            Some("Tesla V100-SXM2-16GB")
        );
        assert_eq!(launches.column(lt::DEVICE_ORDINAL)?.i64()?.get(0), Some(1));
        assert_eq!(
            launches.column(lt::FORMAT)?.str()?.get(0),
            Some("nsys-gpu-trace")
        );
        assert!(launches.column(GREEN_CONTEXT_COLUMN).is_err());
        let transfers = &trace.side.transfers;
        assert_eq!(transfers.height(), 1);
        assert_eq!(
            transfers.column(transfers_col::DIRECTION)?.str()?.get(0),
            Some("Host-to-Device")
        );
        // `Bytes (MB)` 4.194 -> 4 194 000 bytes; 2 000 MBps -> 2e9 B/s.
        assert_eq!(
            transfers.column(transfers_col::BYTES)?.i64()?.get(0),
            Some(4_194_000)
        );
        assert_eq!(
            transfers.column(TRANSFER_THROUGHPUT_COLUMN)?.f64()?.get(0),
            Some(2.0e9)
        );
        Ok(())
    }

    #[test]
    fn the_preamble_does_not_hide_the_header_from_detection() -> Result<(), IngestError> {
        let path = Path::new(FIXTURES).join("gpu_trace_old_header_us.csv");
        assert_eq!(crate::detect(&path)?, Format::NsysGpuTrace);
        Ok(())
    }

    #[test]
    fn bad_rows_are_rejected_with_line_and_reason() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_fixture("gpu_trace_bad_rows.csv", false)?;
        assert_eq!(trace.launches.height(), 1);
        let lines: Vec<u64> = trace.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, [3, 4]);
        assert!(
            trace.rejected[0].reason.contains("`GrdY`"),
            "{}",
            trace.rejected[0].reason
        );
        assert!(
            trace.rejected[0].reason.contains("`x`"),
            "{}",
            trace.rejected[0].reason
        );
        assert!(
            trace.rejected[1].reason.contains("neither a kernel row"),
            "{}",
            trace.rejected[1].reason
        );
        match read_fixture("gpu_trace_bad_rows.csv", true) {
            Err(IngestError::StrictRejected { line, .. }) => assert_eq!(line, 3),
            other => panic!("expected StrictRejected, got {other:?}"),
        }
        Ok(())
    }

    #[test]
    fn a_file_without_header_is_malformed() {
        let result = parse(
            Path::new("x.csv"),
            b"hello\nworld\n",
            &ReadConfig::default(),
        );
        assert!(
            matches!(result, Err(IngestError::Malformed { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn reading_in_small_blocks_gives_the_same_trace() -> Result<(), Box<dyn std::error::Error>> {
        // Blocks of 97 bytes cut the preamble, the header and rows (a quoted name included) at
        // arbitrary places; the rejected row must keep its line number.
        let path = Path::new(FIXTURES).join("gpu_trace_old_header_us.csv");
        let mut text = std::fs::read_to_string(&path)?;
        text.push_str(
            "9.0,1.0,14,1,z,1,32,1,1,8,0.000,0.000,,,,,Tesla V100-SXM2-16GB (1),1,7,bad\n",
        );
        let dir = tempfile::tempdir()?;
        let copy = dir.path().join("trace.csv");
        std::fs::write(&copy, &text)?;
        let whole = parse(&copy, text.as_bytes(), &ReadConfig::default())?;
        let blocks = read_with_blocks(&copy, &ReadConfig::default(), 97)?;
        assert!(whole.launches.equals_missing(&blocks.launches));
        assert!(whole.side.transfers.equals_missing(&blocks.side.transfers));
        assert_eq!(whole.rejected, blocks.rejected);
        assert_eq!(blocks.rejected.len(), 1);
        assert_eq!(blocks.rejected[0].line, 8);
        assert_eq!(blocks.launches.height(), 2);
        Ok(())
    }

    #[test]
    fn parallel_pieces_match_one_piece() -> Result<(), Box<dyn std::error::Error>> {
        let mut text = String::from(
            "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n",
        );
        let rows = 60_000;
        for i in 0..rows {
            if i % 7 == 3 {
                text.push_str(&format!("{},100,{i},,,,,,,,,,0.131,1310.0,Pinned,Device,NVIDIA H100 (0),1,,7,[CUDA memcpy Host-to-Device]\n", i * 10));
            } else if i == 40_000 {
                text.push_str("1,2,3,4,x,1,1,1,1,1,0,0,,,,,NVIDIA H100 (0),1,,7,bad\n");
            } else {
                text.push_str(&format!("{},{},{i},{},1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,\"void k<int, {}>(int)\"\n", i * 10, 5 + i % 3, 1 + i % 5, i % 4));
            }
        }
        let path = Path::new("chunked.csv");
        let header = Header::parse(
            path,
            1,
            text.lines()
                .next()
                .unwrap_or_default()
                .split(',')
                .map(String::from)
                .collect(),
        )?;
        let body_start = text.find('\n').ok_or("the test input has a header")? + 1;
        let body = &text.as_bytes()[body_start..];
        let table = std::sync::Arc::new(StatsTable::Report(header));
        let single = parse_piece(Piece {
            data: body,
            first_line: 2,
            table: table.clone(),
        });
        let piece_starts: Vec<usize> = (0..4)
            .map(|k| {
                if k == 0 {
                    0
                } else {
                    crate::csv_records::stream::next_record_boundary(body, body.len() * k / 4)
                }
            })
            .chain([body.len()])
            .collect();
        let pieces: Vec<Parsed> = piece_starts
            .windows(2)
            .map(|w| {
                let first_line = 2 + body[..w[0]].iter().filter(|&&b| b == b'\n').count() as u64;
                parse_piece(Piece {
                    data: &body[w[0]..w[1]],
                    first_line,
                    table: table.clone(),
                })
            })
            .collect();
        let chunked = merge(pieces);
        assert_eq!(chunked.launch_id, single.launch_id);
        assert_eq!(chunked.rejected, single.rejected);
        // Line 1 is the header, so row i is on line i + 2.
        assert_eq!(
            single.rejected.iter().map(|r| r.line).collect::<Vec<_>>(),
            [40_002]
        );
        let names = |p: &Parsed| {
            p.name
                .iter()
                .map(|&n| p.names.values()[n as usize].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&chunked), names(&single));
        assert_eq!(chunked.transfers.start_ns, single.transfers.start_ns);
        // The whole file read in small blocks gives the same launches.
        let dir = tempfile::tempdir()?;
        let copy = dir.path().join("trace.csv");
        std::fs::write(&copy, &text)?;
        let streamed = read_with_blocks(&copy, &ReadConfig::default(), 1 << 20)?;
        assert_eq!(streamed.launches.height(), single.launch_id.len());
        assert_eq!(streamed.rejected, single.rejected);
        Ok(())
    }

    #[test]
    fn a_concatenated_report_and_a_bad_second_header_are_handled()
    -> Result<(), Box<dyn std::error::Error>> {
        let data = b"Processing [r.sqlite] with [cuda_gpu_trace.py]...\nStart (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Device,Strm,Name\n1,2,3,1,1,1,1,1,1,8,0,0,GPU (0),7,k\n\nTime (%),Total Time (ns),Instances,Name\n100.0,100,2,k\nStart (ns),Duration (ns),CorrId\n9,9,9\n";
        let trace = parse(Path::new("s.csv"), data, &ReadConfig::default())?;
        assert_eq!(trace.launches.height(), 1);
        let lines: Vec<u64> = trace.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, [7]);
        assert!(
            trace.rejected[0]
                .reason
                .contains("a second cuda_gpu_trace header"),
            "{}",
            trace.rejected[0].reason
        );
        Ok(())
    }
}
