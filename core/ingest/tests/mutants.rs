//! Issue #14: damaged binary exports read through `read_path`. A deterministic mutation loop
//! (SplitMix64, so every run tries the same mutants) over a small warpsight Parquet file, the same
//! table as Arrow IPC, a small nsys SQLite export, and Parquet and IPC files written by Arrow C++
//! (`fixtures/arrow_cpp`): truncations at regular steps and single-byte changes (half of them where
//! the containers keep their metadata). Every mutant must give `Ok` or an `Err` that names the
//! file, in under 2 s, and none may abort the process (the container checks of `preflight` refuse
//! the lengths that made polars ask for absurd allocations); a panic inside a dependency (polars'
//! Parquet reader) is caught at the file boundary and counted, and each one found is kept below as
//! a named regression case, as are the two mutants that used to abort.
//!
//! Set `INGEST_MUTANTS=<n>` to run `n` mutants per container instead of the default (see
//! docs/reliability.md for the figures of the last runs).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use warpsight_ingest::{Hint as _, IngestError, ReadConfig, read_path};
use warpsight_test_support::synthetic_nsys::{
    Schema, SyntheticConfig, write_gpu_trace_csv, write_sqlite,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// SplitMix64: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The containers under test.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Container {
    Parquet,
    Ipc,
    Sqlite,
}

impl Container {
    fn file_name(self) -> &'static str {
        match self {
            Container::Parquet => "launches.parquet",
            Container::Ipc => "launches.arrow",
            Container::Sqlite => "report.sqlite",
        }
    }
}

/// Writes the original file of `container` into `dir`: a warpsight launch table of 12 launches
/// (read from a synthetic `cuda_gpu_trace` CSV and written as `warpsight ingest -o` writes it), or
/// an nsys SQLite export of 12 launches and 3 transfers.
fn original(dir: &Path, container: Container) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let config = SyntheticConfig {
        launches: 12,
        memcpy_every: 4,
        schema: Schema::New,
    };
    let path = dir.join(container.file_name());
    if container == Container::Sqlite {
        write_sqlite(&path, &config)?;
    } else {
        let csv = dir.join("trace.csv");
        write_gpu_trace_csv(&csv, &config)?;
        let mut launches = read_path(&csv, &ReadConfig::default())?.launches;
        if container == Container::Parquet {
            // polars' own batched writer, as warpsight wrote Parquet before issue #27 gave it a
            // writer of its own (`native::ParquetBatches`): the cases below are offsets into this
            // file, a Parquet file as other polars-based tools write it.
            launches.rechunk_mut();
            let mut writer = polars::prelude::ParquetWriter::new(std::fs::File::create(&path)?)
                .batched(launches.schema())?;
            writer.write_batch(&launches)?;
            writer.finish()?;
        } else {
            warpsight_ingest::native::write(&mut launches, &path)?;
        }
    }
    Ok(std::fs::read(&path)?)
}

/// Byte ranges where a container keeps its metadata: Parquet's footer (thrift metadata, its length
/// and `PAR1`), Arrow IPC's schema message and footer, SQLite's file header and the b-tree header
/// at the start of every page.
fn metadata_offsets(bytes: &[u8], container: Container) -> Vec<usize> {
    let len = bytes.len();
    match container {
        Container::Parquet => {
            let footer = bytes
                .get(len.saturating_sub(8)..len.saturating_sub(4))
                .and_then(|b| b.try_into().ok())
                .map_or(0, |b: [u8; 4]| u32::from_le_bytes(b) as usize);
            (len.saturating_sub(footer + 8)..len).collect()
        }
        Container::Ipc => (0..len.min(1024))
            .chain(len.saturating_sub(2048)..len)
            .collect(),
        Container::Sqlite => {
            let page = 4096;
            (0..100.min(len))
                .chain((page..len).step_by(page).flat_map(|p| p..(p + 12).min(len)))
                .collect()
        }
    }
}

/// One mutant: the bytes and how they were made (for the failure messages and regression cases).
struct Mutant {
    bytes: Vec<u8>,
    what: String,
}

/// The `count` mutants of `original`: one in eight a truncation at a regular step, the others one
/// changed byte, half of them inside the metadata.
fn mutants(original: &[u8], container: Container, count: usize, seed: u64) -> Vec<Mutant> {
    let len = original.len();
    let meta = metadata_offsets(original, container);
    let truncations = count / 8;
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(count);
    for i in 0..truncations {
        let at = len * i / truncations.max(1);
        out.push(Mutant {
            bytes: original[..at].to_vec(),
            what: format!("cut at {at} of {len} bytes"),
        });
    }
    while out.len() < count {
        let offset = if rng.below(2) == 0 || meta.is_empty() {
            rng.below(len)
        } else {
            meta[rng.below(meta.len())]
        };
        // Any other value, so that every mutant differs from the original.
        let value = original[offset] ^ (1 + rng.below(255)) as u8;
        let mut bytes = original.to_vec();
        bytes[offset] = value;
        out.push(Mutant {
            bytes,
            what: format!("byte {offset} set to {value:#04x}"),
        });
    }
    out
}

/// True when `text` is a `Debug` dump of a struct (`Name { field: … }`) rather than a sentence.
fn looks_like_debug(text: &str) -> bool {
    let Some((name, rest)) = text.split_once(" { ") else {
        return false;
    };
    let name = name.rsplit([' ', ':']).next().unwrap_or(name);
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && rest.contains(": ")
}

/// True when `what` (as [`mutants`] describes a mutant) is listed in `INGEST_MUTANTS_SKIP`
/// (`Parquet:6108:0x1d,…`): a way to step over a mutant that aborts the process (no test can catch
/// an abort) and find the next one. None is known (see [`files_that_made_polars_abort_are_damaged`]).
fn skipped(container: Container, what: &str) -> bool {
    let listed = std::env::var("INGEST_MUTANTS_SKIP").unwrap_or_default();
    listed.split(',').any(|entry| {
        let mut parts = entry.split(':');
        let (Some(c), Some(offset), Some(value)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        c == format!("{container:?}") && what == format!("byte {offset} set to {value}")
    })
}

/// What the loop over one container found.
#[derive(Debug, Default)]
struct Outcome {
    ok: usize,
    err: usize,
    /// (how the mutant was made, the panic message) of each panic caught at the file boundary.
    panicked: Vec<(String, String)>,
    /// Causes whose first line is a `Debug` dump (the binary replaces them by a sentence).
    debug_causes: Vec<String>,
    /// Mutants skipped (`INGEST_MUTANTS_SKIP`).
    skipped: usize,
    slowest: Duration,
}

/// Reads every mutant of `container`'s original file through `read_path` and checks the contract.
fn run(
    container: Container,
    default_count: usize,
    seed: u64,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let original = original(dir.path(), container)?;
    run_on(
        container,
        &original,
        container.file_name(),
        default_count,
        seed,
    )
}

/// Reads every mutant of `original` (a `container` file, written as `file_name`) through
/// `read_path` and checks the contract.
fn run_on(
    container: Container,
    original: &[u8],
    file_name: &str,
    default_count: usize,
    seed: u64,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let count = std::env::var("INGEST_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default_count);
    let dir = tempfile::tempdir()?;
    // The mutants go to a folder of their own: an nsys table file looks for its sibling tables.
    let mutant_dir = dir.path().join("mutant");
    std::fs::create_dir(&mutant_dir)?;
    let path: PathBuf = mutant_dir.join(file_name);
    let trace = std::env::var_os("INGEST_MUTANTS_TRACE").is_some();
    let mut outcome = Outcome::default();
    let start = Instant::now();
    for mutant in mutants(original, container, count, seed) {
        if skipped(container, &mutant.what) {
            outcome.skipped += 1;
            continue;
        }
        std::fs::write(&path, &mutant.bytes)?;
        if trace {
            // Before the read: an abort (which no test can catch) is then preceded by its mutant.
            eprintln!("{container:?}: {}", mutant.what);
        }
        let began = Instant::now();
        let result = read_path(&path, &ReadConfig::default());
        let took = began.elapsed();
        outcome.slowest = outcome.slowest.max(took);
        assert!(
            took < Duration::from_secs(2),
            "{container:?}, {}: read in {took:?}",
            mutant.what
        );
        match result {
            Ok(_) => outcome.ok += 1,
            Err(IngestError::Panicked { message, .. }) => {
                outcome.panicked.push((mutant.what, message))
            }
            Err(error) => {
                outcome.err += 1;
                let text = error.to_string();
                assert!(
                    text.contains(file_name),
                    "{container:?}, {}: `{text}` does not name the file",
                    mutant.what
                );
                assert!(
                    !text.contains('\n') && !looks_like_debug(&text),
                    "{container:?}, {}: `{text}`",
                    mutant.what
                );
                let mut cause = std::error::Error::source(&error);
                while let Some(inner) = cause {
                    let first = inner
                        .to_string()
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    if looks_like_debug(&first) {
                        outcome
                            .debug_causes
                            .push(format!("{}: {first}", mutant.what));
                    }
                    cause = inner.source();
                }
            }
        }
    }
    eprintln!(
        "{container:?} `{file_name}` ({} bytes): {count} mutants in {:.1?}: {} Ok, {} Err, {} panics caught, {} skipped, {} Debug-dump causes, slowest {:.1?}",
        original.len(),
        start.elapsed(),
        outcome.ok,
        outcome.err,
        outcome.panicked.len(),
        outcome.skipped,
        outcome.debug_causes.len(),
        outcome.slowest
    );
    for (what, message) in outcome.panicked.iter().take(20) {
        eprintln!("  panic caught: {what}: {message}");
    }
    for cause in outcome.debug_causes.iter().take(20) {
        eprintln!("  Debug-dump cause: {cause}");
    }
    Ok(outcome)
}

#[test]
fn mutated_parquet_files_give_an_error_or_a_table() -> TestResult {
    let outcome = run(Container::Parquet, 4000, 0x5EED_0001)?;
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome:?}");
    // Every panic inside polars was caught at the file boundary and has a message.
    assert!(
        outcome
            .panicked
            .iter()
            .all(|(_, message)| !message.is_empty()),
        "{:?}",
        outcome.panicked
    );
    Ok(())
}

#[test]
fn mutated_arrow_ipc_files_give_an_error_or_a_table() -> TestResult {
    let outcome = run(Container::Ipc, 3000, 0x5EED_0002)?;
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome:?}");
    assert!(
        outcome
            .panicked
            .iter()
            .all(|(_, message)| !message.is_empty()),
        "{:?}",
        outcome.panicked
    );
    Ok(())
}

#[test]
fn mutated_sqlite_exports_give_an_error_or_a_trace() -> TestResult {
    let outcome = run(Container::Sqlite, 2000, 0x5EED_0003)?;
    assert!(outcome.ok > 0 && outcome.err > 0, "{outcome:?}");
    assert!(outcome.panicked.is_empty(), "{:?}", outcome.panicked);
    Ok(())
}

/// The Parquet and Arrow IPC files written by Arrow C++ (pyarrow) in `tests/fixtures/arrow_cpp`,
/// whose layouts polars does not write: compressed IPC buffers (zstd, lz4), V4 metadata, a column of
/// nulls, string views, data page v2, dictionary pages, delta encodings.
const ARROW_CPP_FILES: &[(Container, &str)] = &[
    (Container::Ipc, "zstd_v5_views.arrow"),
    (Container::Ipc, "lz4_v4.arrow"),
    (Container::Parquet, "zstd_v2_pages.parquet"),
    (Container::Parquet, "snappy_delta.parquet"),
];

#[test]
fn mutated_arrow_cpp_files_give_an_error() -> TestResult {
    // The files are not launch tables: every mutant is an error (the intact file too: it has no
    // `launch_id` column), but polars reads the whole file before that is known, so each mutant
    // goes through the container check and, when it passes, polars' reader.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arrow_cpp");
    for (index, &(container, name)) in ARROW_CPP_FILES.iter().enumerate() {
        let original = std::fs::read(dir.join(name))?;
        let outcome = run_on(container, &original, name, 500, 0x5EED_0010 + index as u64)?;
        assert_eq!(outcome.ok, 0, "{name}: {outcome:?}");
        assert!(
            outcome
                .panicked
                .iter()
                .all(|(_, message)| !message.is_empty()),
            "{name}: {:?}",
            outcome.panicked
        );
    }
    Ok(())
}

/// A one-byte change of an original file of [`original`] that made polars 0.55.2 panic, found by
/// the loops above: the container, the place of the panic, the byte's offset and its new value,
/// and whether the container check (`preflight`) now refuses the file before polars reads it
/// (`IngestError::Damaged`) or polars still panics on it (`IngestError::Panicked`).
struct CaughtPanic {
    container: Container,
    site: &'static str,
    offset: usize,
    value: u8,
    refused: bool,
}

/// One mutant per panic site of polars-parquet / polars-arrow 0.55.2: of the loops' mutants, 30
/// Parquet ones panicked, at 9 places (8 below), and 1 Arrow IPC one. Since the container check,
/// the Parquet mutants at 6 of the places are refused as damaged (the wrongly typed footer fields,
/// negative value counts, unknown encodings, chunk ranges past the end); the others are in page
/// data or in the schema, which the check does not read.
const CAUGHT_PANICS: &[CaughtPanic] = &[
    // `thrift bool field`: a thrift field type that is not a bool where one is expected.
    CaughtPanic {
        container: Container::Parquet,
        site: "handwritten_thrift/file_metadata_thrift.rs:351",
        offset: 10_037,
        value: 0xbb,
        refused: true,
    },
    CaughtPanic {
        container: Container::Parquet,
        site: "handwritten_thrift/file_metadata_thrift.rs:350",
        offset: 13_375,
        value: 0xda,
        refused: true,
    },
    // `assertion failed: self.total_num_values >= 0` in the page reader.
    CaughtPanic {
        container: Container::Parquet,
        site: "read/page/reader.rs:126",
        offset: 12_372,
        value: 0x7f,
        refused: true,
    },
    // `Result::unwrap()` on `OutOfSpec("Thrift out of range")`: an enum value out of range.
    CaughtPanic {
        container: Container::Parquet,
        site: "parquet_bridge.rs:289",
        offset: 4_796,
        value: 0x4f,
        refused: true,
    },
    // `Option::unwrap()` on `None` in the column chunk's metadata.
    CaughtPanic {
        container: Container::Parquet,
        site: "metadata/column_chunk_metadata.rs:195",
        offset: 12_505,
        value: 0x63,
        refused: true,
    },
    // `assertion failed: offset + length <= self.length` slicing a bitmap (polars-arrow).
    CaughtPanic {
        container: Container::Parquet,
        site: "polars-arrow bitmap/immutable.rs:329",
        offset: 3_461,
        value: 0x99,
        refused: false,
    },
    // `range end index 18446744073709546691 out of range for slice of length 18092` (polars-utils
    // range.rs:10): a column chunk's byte range that wraps below 0.
    CaughtPanic {
        container: Container::Parquet,
        site: "polars-utils range.rs:10",
        offset: 11_927,
        value: 0xbb,
        refused: true,
    },
    // `assertion failed: start + length <= self.bytes.len()` slicing a page's values.
    CaughtPanic {
        container: Container::Parquet,
        site: "deserialize/utils/array_chunks.rs:42",
        offset: 6_065,
        value: 0x19,
        refused: false,
    },
    // (The ninth site, a `debug_assert_eq!` in `dictionary_encoded/required.rs:85`, byte 2 198 =
    // 0x85, panics only where polars is built with debug assertions, as in `cargo test`.)
    // `not yet implemented`: a schema field whose type became run-end encoded or a list view.
    CaughtPanic {
        container: Container::Ipc,
        site: "polars-arrow io/ipc/read/schema.rs:366",
        offset: 18_109,
        value: 0x16,
        refused: false,
    },
];

/// The sizes of the original files the offsets above are for; another size means that the writer
/// changed and the cases must be found again (run the loops with `--nocapture`). Issue #24 renamed
/// the column `inst_executed` to `warp_inst_executed`, which moved the bytes after the schema: the
/// table written with the column named back had the old sizes (18 092 and 19 350 bytes), and each
/// case's byte was found in the new file by the 48 bytes around it (footer bytes +10 to +12).
fn original_bytes(container: Container) -> usize {
    match container {
        Container::Parquet => 18_116,
        Container::Ipc => 19_362,
        Container::Sqlite => 40_960,
    }
}

#[test]
fn files_that_made_polars_panic_give_an_error() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mutant_dir = dir.path().join("mutant");
    std::fs::create_dir(&mutant_dir)?;
    for container in [Container::Parquet, Container::Ipc] {
        let original = original(dir.path(), container)?;
        assert_eq!(
            original.len(),
            original_bytes(container),
            "{container:?}: the writer changed: find the cases again"
        );
        let path = mutant_dir.join(format!("damaged-{}", container.file_name()));
        for case in CAUGHT_PANICS
            .iter()
            .filter(|case| case.container == container)
        {
            let mut bytes = original.clone();
            bytes[case.offset] = case.value;
            std::fs::write(&path, &bytes)?;
            match read_path(&path, &ReadConfig::default()) {
                Ok(trace) => {
                    return Err(format!(
                        "{}: byte {} = {:#04x} read {} launches",
                        case.site,
                        case.offset,
                        case.value,
                        trace.launch_count()
                    )
                    .into());
                }
                Err(error) => {
                    let text = error.to_string();
                    assert!(text.contains("damaged-"), "{}: {text}", case.site);
                    assert!(
                        error.hint().is_some_and(|hint| hint.contains("damaged")),
                        "{}: {error}",
                        case.site
                    );
                    let refused = matches!(error, IngestError::Damaged { .. });
                    let panicked = matches!(error, IngestError::Panicked { .. });
                    assert!(
                        refused == case.refused && panicked != case.refused,
                        "{}: {text}",
                        case.site
                    );
                }
            }
        }
    }
    Ok(())
}

/// A one-byte change of an original file of [`original`] that made polars 0.55.2 ask for an absurd
/// allocation, which aborted the whole process (Rust aborts when an allocation fails; no
/// `catch_unwind` helps), and what the container check (`preflight`) now says about it.
struct FormerAbort {
    container: Container,
    offset: usize,
    value: u8,
    /// What polars did.
    was: &'static str,
    /// A part of the error the check gives now: the place and the problem.
    now: &'static str,
}

/// The two mutants of the loops above that aborted the process before the container checks.
const FORMER_ABORTS: &[FormerAbort] = &[
    FormerAbort {
        container: Container::Parquet,
        offset: 6_108,
        value: 0x1d,
        was: "2^61 bytes reserved for a data page's validity bitmap (decode_page_validity)",
        now: "row group 0, column `inst_fmul`, page 0 (byte 6100): it claims -15 values",
    },
    FormerAbort {
        container: Container::Ipc,
        offset: 3_574,
        value: 0xeb,
        was: "up to 6.6e16 bytes for a view column's data buffer (read_binview, read_uncompressed_bytes)",
        now: "of the batch body, but the body has",
    },
];

#[test]
fn files_that_made_polars_abort_are_damaged() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mutant_dir = dir.path().join("mutant");
    std::fs::create_dir(&mutant_dir)?;
    for case in FORMER_ABORTS {
        let original = original(dir.path(), case.container)?;
        assert_eq!(
            original.len(),
            original_bytes(case.container),
            "{:?}: the writer changed: find the cases again",
            case.container
        );
        let path = mutant_dir.join(format!("aborted-{}", case.container.file_name()));
        let mut bytes = original.clone();
        bytes[case.offset] = case.value;
        std::fs::write(&path, &bytes)?;
        match read_path(&path, &ReadConfig::default()) {
            Err(error @ IngestError::Damaged { .. }) => {
                let text = error.to_string();
                eprintln!("{} (was: {}): {text}", case.container.file_name(), case.was);
                assert!(
                    text.contains("aborted-") && text.contains(case.now),
                    "{:?}: {text}",
                    case.container
                );
                assert!(!text.contains('\n') && !looks_like_debug(&text), "{text}");
                assert!(
                    error.hint().is_some_and(|hint| hint.contains("damaged")),
                    "{error}"
                );
            }
            Ok(trace) => {
                return Err(format!(
                    "{:?}: read {} launches",
                    case.container,
                    trace.launch_count()
                )
                .into());
            }
            Err(other) => {
                return Err(
                    format!("{:?}: not refused as damaged: {other}", case.container).into(),
                );
            }
        }
    }
    Ok(())
}

/// Inputs on which cargo-fuzz (`core/ingest/fuzz`, target `parquet_ipc`) found polars 0.55.2
/// panicking at places the loops above did not reach, kept in `tests/fixtures/fuzz/` (named after
/// the place), and whether the container check (`preflight`) now refuses each as damaged (`true`)
/// or polars still panics on it (`false`, caught at the file boundary).
const FUZZ_CRASHES: &[(&str, bool)] = &[
    // `thrift bool field` at four more places of file_metadata_thrift.rs: a footer field polars
    // reads as a bool has another thrift type.
    ("thrift_bool_field_388.parquet", true),
    ("thrift_bool_field_389.parquet", true),
    ("thrift_bool_field_541.parquet", true),
    ("thrift_bool_field_574.parquet", true),
    // `assertion left == right failed` in polars-arrow io/ipc/read/common.rs:92: the record
    // batch's block runs into the footer.
    ("ipc_assert_eq_common_92.arrow", true),
    // `Arrow datatype Float16 not supported by Polars` (polars-core datatypes/field.rs:310): a
    // type polars cannot hold, not a length.
    ("ipc_float16_field_310.arrow", false),
    // `attempt to subtract with overflow` in deserialize/utils/mod.rs:799 (overflow checks only):
    // a column chunk with fewer values than its row group has rows.
    ("subtract_overflow_799.parquet", true),
    // Found by the session-5 campaign (1 M executions of `parquet_ipc`), all in page data or in
    // types polars cannot hold, which the container checks do not read:
    // polars-arrow bitmap/immutable.rs:329, `offset + length <= self.length`: a validity bitmap
    // shorter than its page says.
    ("bitmap_slice_immutable_329.parquet", false),
    // polars-parquet deserialize/dictionary_encoded/required.rs:85 (`assert_eq!`, with one
    // polars thread; the bitmap assertion above with two): dictionary indices that do not fit the
    // page.
    ("dictionary_required_85.parquet", false),
    // polars-parquet deserialize/utils/array_chunks.rs:42, `start + length <= self.bytes.len()`:
    // a plain-encoded page shorter than its values.
    ("array_chunks_42.parquet", false),
    // polars-arrow io/ipc/read/common.rs:92 `assert_eq!` again (left 53, right 54): a record
    // batch's buffers one short of its schema, with lengths that fit together.
    ("ipc_assert_eq_common_92_unrefused.arrow", false),
    // polars-arrow io/ipc/read/schema.rs:366 and :367, `todo!()`: IPC types polars does not read.
    ("ipc_todo_schema_366.arrow", false),
    ("ipc_todo_schema_367.arrow", false),
    // polars-core datatypes/field.rs:303, `could not import from month_day_nano`: an interval
    // type polars cannot hold.
    ("ipc_month_day_nano_field_303.arrow", false),
    // A Float16 column that polars already meets while detection reads the schema: `detect`
    // itself, called alone (the fuzz target does), panicked outside any boundary.
    ("ipc_float16_detect.arrow", false),
];

#[test]
fn fuzz_crashes_of_polars_give_an_error() -> TestResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    for &(name, refused) in FUZZ_CRASHES {
        let path = dir.join(name);
        assert!(path.is_file(), "{} is missing", path.display());
        // Detection alone returns, whatever it returns (a panic here fails the test).
        let _ = warpsight_ingest::detect(&path);
        match read_path(&path, &ReadConfig::default()) {
            Ok(trace) => {
                return Err(format!("{name}: read {} launches", trace.launch_count()).into());
            }
            Err(error) => {
                let text = error.to_string();
                assert!(text.contains(name), "{name}: {text}");
                assert!(
                    !text.contains('\n'),
                    "{name}: the error is one line: {text}"
                );
                assert!(error.hint().is_some(), "{name}: {error}");
                let kind_ok = if refused {
                    matches!(error, IngestError::Damaged { .. })
                } else {
                    matches!(error, IngestError::Panicked { .. })
                };
                assert!(kind_ok, "{name}: {text}");
            }
        }
    }
    Ok(())
}
