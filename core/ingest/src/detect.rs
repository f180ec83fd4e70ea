//! Format detection by content: magic bytes for binary exports (`NVR\0` is an Nsight Compute
//! report; a zstd frame or an Nsight Systems report is refused with what to run instead), the
//! header line for CSV exports (found after any noise lines), and a clear "what it looks like" for
//! everything else.
//!
//! Memory is bounded whatever the input: the magic bytes and binary content are decided from the
//! first `DETECT_PREFIX_BYTES` (64 KiB); text is searched for a header line by line, keeping at
//! most `MAX_LINE_BYTES` of a line, over at most `MAX_HEADER_SEARCH_LINES` lines and
//! `MAX_HEADER_SEARCH_BYTES` bytes. A stream (FIFO, pipe, `-`) is read once
//! (`crate::source`): detection and the reader read the same copy.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::launch_table::column_names as lt;
use crate::{Format, IngestError};

/// How many lines of noise (application output, `==PROF==` lines, banners) are searched for a
/// CSV header before giving up.
const MAX_HEADER_SEARCH_LINES: usize = 200_000;

/// How many bytes of noise are searched for a CSV header before giving up.
pub(crate) const MAX_HEADER_SEARCH_BYTES: u64 = 64 << 20;

/// The prefix magic bytes and binary content are decided from.
pub(crate) const DETECT_PREFIX_BYTES: usize = 64 << 10;

/// The most bytes of one line kept while searching for a header (a header is recognised by its
/// start; the rest of a longer line is skipped unread into memory).
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// Detects the format of `path` from its content. Telling an nsys table from warpsight's own in
/// a Parquet or Arrow file reads its schema through polars, which panics on some damaged files:
/// as in [`crate::read_path`], a panic becomes [`IngestError::Panicked`].
pub fn detect(path: &Path) -> Result<Format, IngestError> {
    // The closure only reads: nothing it borrows is left half-modified when it unwinds.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| detect_content(path))).unwrap_or_else(
        |payload| {
            Err(IngestError::Panicked {
                path: path.to_path_buf(),
                message: crate::panic_message(&*payload),
            })
        },
    )
}

/// [`detect`] without the panic boundary.
fn detect_content(path: &Path) -> Result<Format, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return detect_directory(path);
    }
    // A stream is copied once here and read from the copy by the reader too.
    let mut file = crate::source::open(path)?;
    let mut prefix = vec![0u8; DETECT_PREFIX_BYTES];
    let n = read_up_to(&mut file, &mut prefix).map_err(io)?;
    prefix.truncate(n);
    let magic = &prefix[..n.min(32)];
    if warpsight_ncu_rep::is_ncu_rep(magic) {
        return Ok(Format::NcuRep);
    }
    if warpsight_ncu_rep::is_zstd(magic) {
        // A compressed report (`.ncu-repz`): refused with the decoder's explanation.
        return Err(IngestError::NcuRep {
            path: path.to_path_buf(),
            source: warpsight_ncu_rep::DecodeError::Compressed { offset: 0 },
        });
    }
    if magic.starts_with(NSYS_REP_MAGIC) || has_extension(path, &["nsys-rep", "qdrep"]) {
        return Err(IngestError::Unrecognized {
            path: path.to_path_buf(),
            looks_like: "an Nsight Systems report (`.nsys-rep`), whose format is not documented".into(),
            hint: "export it first and pass the export: `nsys export --type sqlite report.nsys-rep` (or `--type parquetdir`)".into(),
        });
    }
    if magic.starts_with(b"SQLite format 3\0") {
        return Ok(Format::NsysSqlite);
    }
    if magic.starts_with(b"PAR1") {
        return classify_single_file(path, Format::WarpsightParquet);
    }
    if magic.starts_with(b"ARROW1") {
        return classify_single_file(path, Format::WarpsightIpc);
    }
    detect_text(path, &prefix, file)
}

/// How an Nsight Systems report (`.nsys-rep`, formerly `.qdrep`) starts.
const NSYS_REP_MAGIC: &[u8] = b"NVIDIA Tegra Profiler Report";

/// Whether the file name ends in `.<ext>` for one of `exts` (ASCII case-insensitive).
fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// A directory is an nsys `parquetdir` / `arrowdir` export when it holds the kernel table.
fn detect_directory(path: &Path) -> Result<Format, IngestError> {
    let has = |name: &str| path.join(name).is_file();
    // An export of a run without kernels has no kernel table but still has `StringIds`.
    if has("CUPTI_ACTIVITY_KIND_KERNEL.parquet") || has("StringIds.parquet") {
        return Ok(Format::NsysParquet);
    }
    if has("CUPTI_ACTIVITY_KIND_KERNEL.arrow") || has("StringIds.arrow") {
        return Ok(Format::NsysArrow);
    }
    Err(IngestError::Unrecognized {
        path: path.to_path_buf(),
        looks_like: "a directory without an nsys table export (no CUPTI_ACTIVITY_KIND_KERNEL.parquet or .arrow)".into(),
        hint: "pass the export files themselves, or a directory written by `nsys export --type parquetdir` / `arrowdir`".into(),
    })
}

/// How every CSV header line [`classify_header_line`] recognises begins (after a BOM); a line
/// that starts otherwise is no header.
const HEADER_STARTS: &[&str] = &[
    "\"ID\",\"Process ID\"",
    "ID,Process ID,",
    "Start (",
    "Start(",
    "Time (%),",
    "Time(%),",
    lt::SOURCE_FILE,
];

/// What a header line says about the format, if it is a header at all.
pub(crate) fn classify_header_line(line: &str) -> Option<Format> {
    let line = line
        .trim_start_matches('\u{feff}')
        .trim_end_matches(['\r', '\n']);
    let starts = |i: usize| line.starts_with(HEADER_STARTS[i]);
    if starts(0) || starts(1) {
        if line.contains("Metric Name") && line.contains("Section Name") {
            return Some(Format::NcuDetails);
        }
        return Some(Format::NcuRaw);
    }
    if (starts(2) || starts(3)) && line.contains("CorrId") {
        return Some(Format::NsysGpuTrace);
    }
    if (starts(4) || starts(5)) && line.contains("Total Time") {
        return Some(Format::NsysKernSum);
    }
    if starts(6) && line.contains(lt::LAUNCH_ID) {
        return Some(Format::WarpsightCsv);
    }
    None
}

/// The format announced by the first line of `bytes` (up to its `\n`), if that line is a CSV
/// header. Lines that cannot be headers are rejected on their first bytes, so that a reader can
/// ask this of every line it streams.
pub(crate) fn header_format(bytes: &[u8]) -> Option<Format> {
    // The starts hold no `\n`, so a match lies within the first line.
    let body = bytes
        .strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(bytes);
    if !HEADER_STARTS
        .iter()
        .any(|start| body.starts_with(start.as_bytes()))
    {
        return None;
    }
    let line = memchr::memchr(b'\n', bytes).map_or(bytes, |end| &bytes[..end]);
    classify_header_line(&String::from_utf8_lossy(line))
}

/// The first line of `region` (which starts at a line start) that is a header of a format
/// `accept` takes: its offset and format.
///
/// A region of at least [`PARALLEL_HEADER_SEARCH_BYTES`] is searched in parallel chunks, each of
/// the line starts in its byte range; the first chunk with a header gives the answer, so the
/// result is the one a search line by line finds.
pub(crate) fn find_header_line(
    region: &[u8],
    accept: impl Fn(Format) -> bool + Sync,
) -> Option<(usize, Format)> {
    use rayon::prelude::*;
    let chunks = if region.len() < PARALLEL_HEADER_SEARCH_BYTES {
        1
    } else {
        (rayon::current_num_threads() * 4)
            .min(region.len() / (PARALLEL_HEADER_SEARCH_BYTES / 4))
            .max(1)
    };
    let bounds = |k: usize| region.len() / chunks * k;
    (0..chunks).into_par_iter().find_map_first(|k| {
        let (from, to) = (
            bounds(k),
            if k + 1 == chunks {
                region.len()
            } else {
                bounds(k + 1)
            },
        );
        header_line_in(region, from, to, &accept)
    })
}

/// Regions from this size on are searched for a header line in parallel chunks.
const PARALLEL_HEADER_SEARCH_BYTES: usize = 1 << 20;

/// The first header line (of a format `accept` takes) of `region` that starts in `[from, to)`.
fn header_line_in(
    region: &[u8],
    from: usize,
    to: usize,
    accept: &impl Fn(Format) -> bool,
) -> Option<(usize, Format)> {
    // The first line start at or after `from`: 0, or just after a line end at `from - 1` or later.
    let first = if from == 0 {
        0
    } else {
        from + memchr::memchr(b'\n', &region[from - 1..])?
    };
    std::iter::once(first)
        .chain(memchr::memchr_iter(b'\n', region.get(first..to)?).map(|at| first + at + 1))
        .take_while(|&start| start < to)
        .find_map(|start| {
            header_format(&region[start..])
                .filter(|&format| accept(format))
                .map(|format| (start, format))
        })
}

/// Reads one line of `reader` into `line` (cleared first), keeping at most [`MAX_LINE_BYTES`] of
/// it and reading at most `budget` bytes of it; returns the bytes the line took in the input (0
/// at the end).
fn read_line_bounded(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    budget: u64,
) -> std::io::Result<usize> {
    line.clear();
    let mut taken = 0usize;
    loop {
        if taken as u64 >= budget {
            return Ok(taken);
        }
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(taken);
        }
        let left = usize::try_from(budget - taken as u64).unwrap_or(usize::MAX);
        let buf = &buf[..buf.len().min(left)];
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(end) => (&buf[..=end], true),
            None => (buf, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        reader.consume(used);
        taken += used;
        if done {
            return Ok(taken);
        }
    }
}

/// Finds the CSV header in `prefix` (the input's first bytes) followed by `rest`. Content with a
/// NUL byte in its prefix is binary and decided from the prefix alone; text is searched up to
/// the limits of the module docs.
fn detect_text(path: &Path, prefix: &[u8], rest: impl Read) -> Result<Format, IngestError> {
    let binary = memchr::memchr(0, prefix).is_some();
    let limit = if binary {
        prefix.len() as u64
    } else {
        MAX_HEADER_SEARCH_BYTES
    };
    let mut reader = BufReader::with_capacity(DETECT_PREFIX_BYTES, prefix.chain(rest));
    let mut line = Vec::new();
    let mut looks_like_ncu_text = false;
    let mut prof_lines = 0usize;
    let mut first_line: Option<String> = None;
    let mut searched = 0u64;
    for _ in 0..MAX_HEADER_SEARCH_LINES {
        if searched >= limit {
            break;
        }
        let n = read_line_bounded(&mut reader, &mut line, limit - searched).map_err(|source| {
            IngestError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        if n == 0 {
            break;
        }
        searched += n as u64;
        let text = String::from_utf8_lossy(&line);
        if first_line.is_none() && !text.trim().is_empty() {
            first_line = Some(printable(text.trim(), 80));
        }
        if let Some(format) = classify_header_line(&text) {
            return Ok(format);
        }
        if text.starts_with("==PROF==") {
            prof_lines += 1;
        }
        let trimmed = text.trim_start();
        if trimmed.starts_with("Section: ")
            || trimmed.starts_with("----- ")
            || trimmed.contains("  Metric Name  ")
        {
            looks_like_ncu_text = true;
        }
    }
    if binary {
        return Err(IngestError::Unrecognized {
            path: path.to_path_buf(),
            looks_like: describe_binary(prefix),
            hint: "warpsight reads `ncu --csv` pages, `.ncu-rep` reports, `nsys stats --format csv` (cuda_gpu_trace, cuda_gpu_kern_sum), nsys SQLite / Parquet / Arrow exports and its own output; see docs/trace-schema.md".into(),
        });
    }
    if looks_like_ncu_text {
        return Err(IngestError::Unrecognized {
            path: path.to_path_buf(),
            looks_like: "Nsight Compute's plain-text report (sections printed as text tables), not CSV".into(),
            hint: "export CSV instead: `ncu --csv --print-units base --page details ... > report.csv` (add `--page raw` for the wide page), or from a saved report: `ncu --import report.ncu-rep --csv --print-units base --page details > report.csv`".into(),
        });
    }
    let looks_like = if prof_lines > 0 {
        format!("profiler console output ({prof_lines} `==PROF==` lines) with no CSV table in it")
    } else if let Some(first) = first_line {
        format!("text without an ncu or nsys CSV header (first line: `{first}`)")
    } else {
        "an empty file".to_string()
    };
    Err(IngestError::Unrecognized {
        path: path.to_path_buf(),
        looks_like,
        hint: "warpsight reads `ncu --csv` (details or raw page), `nsys stats --format csv` (cuda_gpu_trace, cuda_gpu_kern_sum), nsys SQLite / Parquet / Arrow exports and its own output; see docs/trace-schema.md".into(),
    })
}

/// At most `max` characters of `text`, with control characters (and U+FFFD, a byte that was
/// not UTF-8) shown as `?`, so that a message never echoes raw bytes to a terminal.
fn printable(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .map(|c| {
            if c.is_control() || c == char::REPLACEMENT_CHARACTER {
                '?'
            } else {
                c
            }
        })
        .collect()
}

/// What binary content (a prefix with a NUL byte) looks like, named by its magic where known,
/// never echoed.
fn describe_binary(prefix: &[u8]) -> String {
    let kind = if prefix.starts_with(b"\x7fELF") {
        Some("an executable or library (ELF)")
    } else if prefix.starts_with(b"PK\x03\x04") {
        Some("a zip archive")
    } else if prefix.starts_with(&[0x1f, 0x8b]) {
        Some("a gzip-compressed file (decompress it first)")
    } else if prefix.iter().all(|&b| b == 0) {
        Some("binary data: only zero bytes (a sparse or zero-filled file)")
    } else {
        None
    };
    match kind {
        Some(kind) => kind.to_string(),
        None => {
            let first: Vec<String> = prefix.iter().take(8).map(|b| format!("{b:02X}")).collect();
            format!(
                "binary data, not a text export (first bytes {})",
                first.join(" ")
            )
        }
    }
}

/// Kernel-table columns that identify a single file as an nsys kernel table.
const NSYS_KERNEL_MARKERS: &[&str] = &["gridX", "blockX", "start", "end"];

/// Tells a single Parquet / Arrow IPC file written by warpsight from a single-table nsys export.
/// `default` is the warpsight format for the file's container: a file with warpsight's own
/// `source_file` and `launch_id` columns is that format; one with the nsys kernel-table columns is
/// `nsys-parquet` / `nsys-arrow`; anything else is left to the warpsight reader (which reports
/// what is missing).
pub(crate) fn classify_single_file(path: &Path, default: Format) -> Result<Format, IngestError> {
    let container = if default == Format::WarpsightParquet {
        Format::NsysParquet
    } else {
        Format::NsysArrow
    };
    // polars reads the footer to learn the schema: its length fields are checked first.
    crate::preflight::check(path, container, crate::preflight::Depth::Footer)?;
    // Only the footer is read, into memory: polars never maps the file.
    let footer = crate::source::footer_file(path, container == Format::NsysParquet)?;
    let scan = crate::source::scan_bytes(footer, container == Format::NsysParquet);
    let schema = scan
        .and_then(|mut frame| frame.collect_schema())
        .map_err(|source| IngestError::Polars {
            path: path.to_path_buf(),
            source,
        })?;
    if schema.contains(lt::SOURCE_FILE) && schema.contains(lt::LAUNCH_ID) {
        return Ok(default);
    }
    if NSYS_KERNEL_MARKERS.iter().all(|c| schema.contains(c)) {
        return Ok(container);
    }
    Ok(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;

    #[test]
    fn headers_are_classified_by_content() {
        assert_eq!(
            classify_header_line(
                "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
            ),
            Some(Format::NcuDetails)
        );
        assert_eq!(
            classify_header_line(
                "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"dram__bytes.sum\""
            ),
            Some(Format::NcuRaw)
        );
        assert_eq!(
            classify_header_line(
                "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name"
            ),
            Some(Format::NsysGpuTrace)
        );
        assert_eq!(
            classify_header_line(
                "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\r\n"
            ),
            Some(Format::NsysKernSum)
        );
        assert_eq!(
            classify_header_line("==PROF== Connected to process 1"),
            None
        );
    }

    #[test]
    fn noise_before_the_header_is_skipped() -> Result<(), IngestError> {
        let text = "grid: (1,1,1)\n==PROF== Connected to process 1\n\"ID\",\"Process ID\",\"Section Name\",\"Metric Name\"\n";
        let format = detect_text(Path::new("x.csv"), text.as_bytes(), std::io::empty())?;
        assert_eq!(format, Format::NcuDetails);
        Ok(())
    }

    #[test]
    fn ncu_plain_text_gets_a_hint_to_export_csv() {
        let text = "==PROF== Disconnected from process 1\n  square_kernel (1, 1, 1)x(1024, 1, 1)\n    Section: GPU Speed Of Light Throughput\n    ---------------------- ----------- ------------\n";
        match detect_text(Path::new("log.txt"), text.as_bytes(), std::io::empty()) {
            Err(IngestError::Unrecognized {
                looks_like, hint, ..
            }) => {
                assert!(looks_like.contains("plain-text"), "{looks_like}");
                assert!(hint.contains("--csv"), "{hint}");
            }
            other => panic!("expected Unrecognized, got {other:?}"),
        }
    }

    #[test]
    fn single_files_are_told_apart_by_their_columns() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let own = dir.path().join("launches.parquet");
        let mut frame = df!(lt::SOURCE_FILE => ["a.csv"], lt::LAUNCH_ID => [1i64])?;
        ParquetWriter::new(std::fs::File::create(&own)?).finish(&mut frame)?;
        assert_eq!(
            classify_single_file(&own, Format::WarpsightParquet)?,
            Format::WarpsightParquet
        );
        let nsys = dir.path().join("kernels.arrow");
        let mut frame =
            df!("start" => [1i64], "end" => [2i64], "gridX" => [1i64], "blockX" => [32i64])?;
        IpcWriter::new(std::fs::File::create(&nsys)?).finish(&mut frame)?;
        assert_eq!(
            classify_single_file(&nsys, Format::WarpsightIpc)?,
            Format::NsysArrow
        );
        Ok(())
    }

    #[test]
    fn header_lines_are_found_in_a_streamed_region() {
        let region =
            b"1,2,3\nStart (ns),Duration (ns),CorrId,Name\nTime (%),Total Time (ns),Name\n";
        assert_eq!(header_format(region), None);
        assert_eq!(header_format(&region[6..]), Some(Format::NsysGpuTrace));
        assert_eq!(
            find_header_line(region, |_| true),
            Some((6, Format::NsysGpuTrace))
        );
        assert_eq!(
            find_header_line(region, |f| f == Format::NsysKernSum),
            Some((43, Format::NsysKernSum))
        );
        assert_eq!(find_header_line(region, |f| f == Format::NcuRaw), None);
        assert_eq!(
            header_format(b"\xef\xbb\xbf\"ID\",\"Process ID\",\"X\"\r\n"),
            Some(Format::NcuRaw)
        );
    }

    /// The header search line by line, as the parallel one must answer.
    fn header_line_serially(region: &[u8]) -> Option<(usize, Format)> {
        std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', region).map(|at| at + 1))
            .filter(|&start| start < region.len())
            .find_map(|start| header_format(&region[start..]).map(|format| (start, format)))
    }

    #[test]
    fn a_large_region_finds_the_first_header_on_any_pool() -> Result<(), Box<dyn std::error::Error>>
    {
        let header = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Section Name\",\"Metric Name\"\n";
        let row = "\"1\",\"2\",\"app\",\"host\",\"GPU Speed Of Light\",\"Duration\"\n";
        let rows = (3 << 20) / row.len();
        let chunk = 1 << 20;
        // Headers (at the first row from byte `at` on) just before, at and after chunk boundaries
        // of every plausible chunking, and at the very end without a line end; then none at all.
        for at in [
            0,
            chunk / 4 - 1,
            chunk / 4,
            chunk - 2,
            chunk,
            2 * chunk + 7,
            usize::MAX,
        ] {
            let mut text = String::with_capacity((rows + 1) * row.len() + header.len());
            let mut placed = false;
            for i in 0..rows {
                if i * row.len() >= at && !placed {
                    text.push_str(header);
                    placed = true;
                }
                text.push_str(row);
            }
            if !placed {
                text.push_str(header.trim_end());
            }
            let region = text.as_bytes();
            let expected = header_line_serially(region);
            assert!(expected.is_some());
            for threads in [1, 2, 3, 8] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?;
                let found = pool.install(|| find_header_line(region, |_| true));
                assert_eq!(found, expected, "header near byte {at}, {threads} threads");
            }
        }
        let none = "x,y\n".repeat(1 << 19);
        assert_eq!(find_header_line(none.as_bytes(), |_| true), None);
        // A chunk boundary just before, at and just after the header's line start.
        let small = format!("{row}{row}{header}{row}");
        let start = 2 * row.len();
        for from in start - 2..=start + 2 {
            let found = header_line_in(small.as_bytes(), from, small.len(), &|_| true);
            assert_eq!(
                found.map(|(at, _)| at),
                (from <= start).then_some(start),
                "{from}"
            );
            let before = header_line_in(small.as_bytes(), 0, from, &|_| true);
            assert_eq!(
                before.map(|(at, _)| at),
                (start < from).then_some(start),
                "{from}"
            );
        }
        Ok(())
    }
}
