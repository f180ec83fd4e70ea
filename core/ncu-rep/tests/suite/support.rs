//! Shared helpers: locating and loading the fixture reports and CSV pages, and comparing a
//! decoded value with the text a CSV page printed for it.

use std::path::PathBuf;

use warpsight_ncu_rep::{Launch, Report, Value};

/// The three fixture reports.
pub const REPORTS: [&str; 3] = ["copy_basic", "regs_64_65", "gpt_layer_basic"];

/// The folder holding the fixtures: `traces/ncu-rep/` of the workspace (this crate is
/// `core/ncu-rep`, so that is `CARGO_MANIFEST_DIR/../../traces/ncu-rep`), which every clone has.
pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../traces/ncu-rep")
}

/// The bytes of `<name>.ncu-rep`.
pub fn report_bytes(name: &str) -> Vec<u8> {
    let p = fixture_dir().join(format!("{name}.ncu-rep"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The decoded `<name>.ncu-rep`.
pub fn report(name: &str) -> Report {
    warpsight_ncu_rep::decode(&report_bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// All records of a CSV page (`<name>.ncu-<page>.csv`), header included; `None` if absent.
pub fn csv_page(name: &str, page: &str) -> Option<Vec<Vec<String>>> {
    let p = fixture_dir().join(format!("{name}.ncu-{page}.csv"));
    if !p.is_file() {
        return None;
    }
    let data = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Some(parse_csv(&data))
}

/// Splits CSV text into records of fields (quoted fields, `""` escapes, newlines inside quotes,
/// records of any length). `csv-core` rather than `csv`, whose serde dependency would change the
/// features the workspace's polars build was compiled with.
fn parse_csv(mut input: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv_core::Reader::new();
    // A record's output never exceeds the input, nor its fields the input's bytes plus one.
    let mut out = vec![0u8; input.len() + 1];
    let mut ends = vec![0usize; input.len() + 1];
    let (mut out_len, mut ends_len) = (0, 0);
    let mut rows = Vec::new();
    loop {
        let (result, read, written, ended) =
            reader.read_record(input, &mut out[out_len..], &mut ends[ends_len..]);
        for e in &mut ends[ends_len..ends_len + ended] {
            *e += out_len;
        }
        input = &input[read..];
        out_len += written;
        ends_len += ended;
        match result {
            csv_core::ReadRecordResult::InputEmpty => {}
            csv_core::ReadRecordResult::Record => {
                let mut start = 0;
                let fields = ends[..ends_len]
                    .iter()
                    .map(|&end| {
                        let f = String::from_utf8_lossy(&out[start..end]).into_owned();
                        start = end;
                        f
                    })
                    .collect();
                rows.push(fields);
                (out_len, ends_len) = (0, 0);
            }
            csv_core::ReadRecordResult::End => return rows,
            other => panic!("CSV reader: unexpected {other:?}"),
        }
    }
}

/// Parses a CSV number: thousands separators removed.
pub fn csv_number(text: &str) -> Option<f64> {
    text.replace(',', "").parse::<f64>().ok()
}

/// Whether the CSV text `text` is what ncu prints for `value`, which rounds to two decimals and
/// drops trailing zeros (so the tolerance is half a unit of the second decimal, or of the last
/// printed digit if more are printed).
pub fn csv_matches(value: &Value, text: &str) -> bool {
    match (value, csv_number(text)) {
        (Value::String(s), _) => s.as_str() == text,
        (v, Some(n)) => {
            let Some(x) = v.as_f64() else { return false };
            if x.is_nan() || n.is_nan() {
                return x.is_nan() && n.is_nan();
            }
            let decimals = text.split('.').nth(1).map_or(0, str::len).max(2) as i32;
            let tol = 0.5 * 10f64.powi(-decimals) * (1.0 + 1e-9) + 1e-12 * x.abs();
            (x - n).abs() <= tol
        }
        (_, None) => false,
    }
}

/// Index of a CSV header column.
pub fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// The compute capability as the CSV `CC` column prints it, from the launch's metrics.
pub fn cc(report: &Report, launch: &Launch) -> Option<String> {
    let major = report.value(launch, "device__attribute_compute_capability_major")?;
    let minor = report.value(launch, "device__attribute_compute_capability_minor")?;
    Some(format!("{major}.{minor}"))
}

/// Checks the identification columns (everything before the metrics) of one CSV row.
pub fn check_id_columns(report: &Report, launch: &Launch, header: &[String], row: &[String]) {
    let get = |name: &str| row[col(header, name)].as_str();
    let ctx = format!("launch {}", launch.id);
    assert_eq!(get("ID"), launch.id.to_string(), "{ctx}");
    assert_eq!(
        get("Process ID"),
        launch.process_id.unwrap().to_string(),
        "{ctx}"
    );
    assert_eq!(
        Some(get("Process Name")),
        launch.process_display_name(),
        "{ctx}"
    );
    assert_eq!(Some(get("Host Name")), launch.host_name.as_deref(), "{ctx}");
    let stored = launch.kernel_name().unwrap();
    let printed = get("Kernel Name");
    if printed != stored {
        // ncu's CSV prints demangled names simplified; the report stores them unsimplified.
        assert_eq!(printed, simplify_like_csv(stored), "{ctx}");
        SIMPLIFIED_NAMES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    assert_eq!(
        get("Context"),
        launch.context_id.unwrap().to_string(),
        "{ctx}"
    );
    assert_eq!(
        get("Stream"),
        launch.stream_id.unwrap().to_string(),
        "{ctx}"
    );
    assert_eq!(get("Block Size"), launch.block.unwrap().to_csv(), "{ctx}");
    assert_eq!(get("Grid Size"), launch.grid.unwrap().to_csv(), "{ctx}");
    assert_eq!(get("Device"), launch.device.unwrap().to_string(), "{ctx}");
    assert_eq!(Some(get("CC").to_string()), cc(report, launch), "{ctx}");
}

/// How many kernel names matched only after [`simplify_like_csv`].
pub static SIMPLIFIED_NAMES: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// The two rewrites seen between the stored demangled names and the CSV `Kernel Name` column:
/// C-style casts of integer template arguments dropped (`(bool)0` → `0`) and the `native::`
/// namespace dropped (`at::native::` → `at::`). Not a general model of ncu's simplification.
pub fn simplify_like_csv(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        let cast = tail.find(')').filter(|&close| {
            let inner = &tail[1..close];
            !inner.is_empty()
                && inner.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
                && tail[close + 1..].starts_with(|c: char| c.is_ascii_digit() || c == '-')
        });
        match cast {
            Some(close) => rest = &tail[close + 1..],
            None => {
                out.push('(');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.replace("native::", "")
}
