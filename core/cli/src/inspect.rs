//! `warpsight inspect`: says what each input is (format, launches, rejected rows, devices) and,
//! for inputs that cannot be read, why. Always exits 0 when the command line itself is valid.
//!
//! `--format json` prints an array with one object per input file: `file`, `format` (null when
//! unreadable), `launches`, `rejected_rows`, `devices` (`[{name, cc}]`), `error` (null when read,
//! else the message with its hint), plus `transfers` and `kernel_summary_rows` when non-zero, and
//! `report_version` and `ncu_version` for an Nsight Compute report (`ncu-rep`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use polars::prelude::*;
use serde_json::{Value, json};

use super::{GlobalArgs, errors};
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::Trace;
use warpsight_ingest::{self, Format, ReadConfig, batch};

/// Output style of `inspect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InspectFormat {
    /// One readable line per file.
    Table,
    /// A JSON array, one object per file.
    Json,
}

/// Arguments of `warpsight inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// Input files, directories (their files) or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Output style.
    #[arg(long, value_enum, default_value_t = InspectFormat::Table)]
    pub format: InspectFormat,
    /// Read every input as this format instead of detecting it (e.g. `ncu-details`).
    #[arg(long = "input-format", value_name = "NAME", value_parser = super::ingest::parse_format)]
    pub input_format: Option<Format>,
}

/// What `inspect` reports about one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileReport {
    /// The file.
    pub file: String,
    /// The format read, or None when unreadable.
    pub format: Option<String>,
    /// Distinct launches.
    pub launches: usize,
    /// Rejected rows.
    pub rejected_rows: usize,
    /// Distinct (device name, compute capability) pairs.
    pub devices: Vec<(Option<String>, Option<String>)>,
    /// nsys transfer rows.
    pub transfers: usize,
    /// nsys kernel-summary rows.
    pub kernel_summary_rows: usize,
    /// For an `.ncu-rep` report: its report version and the ncu version that wrote it.
    pub ncu_rep: Option<(u32, Option<String>)>,
    /// Why the file could not be read, with its hint.
    pub error: Option<String>,
}

impl FileReport {
    fn from_trace(file: String, path: &Path, trace: &Trace) -> FileReport {
        // The report's own header, read again without decoding a launch (the trace has no room
        // for it).
        let ncu_rep = (trace.format == Format::NcuRep)
            .then(|| warpsight_ingest::ncu::rep::info(path).ok())
            .flatten()
            .map(|info| (info.report_version, info.ncu_version));
        FileReport {
            file,
            format: Some(trace.format.name().to_string()),
            launches: trace.launch_count(),
            rejected_rows: trace.rejected.len(),
            devices: devices(&trace.launches).unwrap_or_default(),
            transfers: trace.side.transfers.height(),
            kernel_summary_rows: trace.side.kernel_summary.height(),
            ncu_rep,
            error: None,
        }
    }

    fn from_error(file: String, err: anyhow::Error) -> FileReport {
        let text = errors::format_error(&err, false);
        let text = text
            .trim_end()
            .strip_prefix("error: ")
            .unwrap_or(text.trim_end())
            .to_string();
        FileReport {
            file,
            format: None,
            launches: 0,
            rejected_rows: 0,
            devices: Vec::new(),
            transfers: 0,
            kernel_summary_rows: 0,
            ncu_rep: None,
            error: Some(text),
        }
    }

    /// The JSON object of this report.
    pub fn to_json(&self) -> Value {
        let devices: Vec<Value> = self
            .devices
            .iter()
            .map(|(name, cc)| json!({"name": name, "cc": cc}))
            .collect();
        let mut obj = json!({
            "file": self.file,
            "format": self.format,
            "launches": self.launches,
            "rejected_rows": self.rejected_rows,
            "devices": devices,
            "error": self.error,
        });
        if let Some(map) = obj.as_object_mut() {
            if self.transfers > 0 {
                map.insert("transfers".into(), json!(self.transfers));
            }
            if self.kernel_summary_rows > 0 {
                map.insert(
                    "kernel_summary_rows".into(),
                    json!(self.kernel_summary_rows),
                );
            }
            if let Some((report_version, ncu_version)) = &self.ncu_rep {
                map.insert("report_version".into(), json!(report_version));
                map.insert("ncu_version".into(), json!(ncu_version));
            }
        }
        obj
    }

    /// One readable line (plus indented error lines for unreadable files).
    pub fn to_line(&self) -> String {
        let Some(format) = &self.format else {
            let error = self.error.as_deref().unwrap_or("unreadable");
            return format!(
                "{}  unreadable: {}",
                self.file,
                error.replace('\n', "\n    ")
            );
        };
        let mut line = format!("{}  {}", self.file, format);
        if let Some((report_version, ncu_version)) = &self.ncu_rep {
            line.push_str(&format!("  report v{report_version}"));
            if let Some(ncu) = ncu_version {
                // `2025.3.1.0 (build 36398880) (public-release)`: the number is enough here
                // (JSON has the whole string).
                let number = ncu.split(" (").next().unwrap_or(ncu);
                line.push_str(&format!("  ncu {number}"));
            }
        }
        line.push_str(&format!("  {} launches", self.launches));
        if self.rejected_rows > 0 {
            line.push_str(&format!("  {} rejected rows", self.rejected_rows));
        }
        if self.transfers > 0 {
            line.push_str(&format!("  {} transfers", self.transfers));
        }
        if self.kernel_summary_rows > 0 {
            line.push_str(&format!(
                "  {} kernel-summary rows",
                self.kernel_summary_rows
            ));
        }
        let devices: Vec<String> = self
            .devices
            .iter()
            .map(|(name, cc)| match (name, cc) {
                (Some(n), Some(c)) => format!("{n} (cc {c})"),
                (Some(n), None) => n.clone(),
                (None, Some(c)) => format!("cc {c}"),
                (None, None) => "unknown device".into(),
            })
            .collect();
        if !devices.is_empty() {
            line.push_str(&format!("  devices: {}", devices.join(", ")));
        }
        line
    }
}

/// The distinct (device name, `major.minor`) pairs of a launch table, in first-seen order.
fn devices(launches: &DataFrame) -> PolarsResult<Vec<(Option<String>, Option<String>)>> {
    let pairs = launches
        .clone()
        .lazy()
        .select([col(lt::DEVICE_NAME), col(lt::CC_MAJOR), col(lt::CC_MINOR)])
        .unique_stable(None, UniqueKeepStrategy::First)
        .collect()?;
    let names = pairs.column(lt::DEVICE_NAME)?.str()?;
    let majors = pairs.column(lt::CC_MAJOR)?.i64()?;
    let minors = pairs.column(lt::CC_MINOR)?.i64()?;
    let mut out = Vec::new();
    for i in 0..pairs.height() {
        let cc = majors
            .get(i)
            .map(|major| format!("{major}.{}", minors.get(i).unwrap_or(0)));
        let name = names.get(i).map(str::to_string);
        if name.is_some() || cc.is_some() {
            out.push((name, cc));
        }
    }
    Ok(out)
}

/// Reads the inputs and reports on each (unexpandable inputs become reports too).
pub fn inspect(inputs: &[String], config: &ReadConfig) -> Vec<FileReport> {
    let mut reports: Vec<(usize, FileReport)> = Vec::new();
    let mut paths: Vec<(usize, PathBuf)> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        match batch::expand_inputs(std::slice::from_ref(input)) {
            Ok(found) => paths.extend(found.into_iter().map(|p| (i, p))),
            Err(err) => reports.push((
                i,
                FileReport::from_error(input.clone(), anyhow::Error::new(err)),
            )),
        }
    }
    // One file at a time (each reader is parallel inside): a file's tables are dropped as soon as
    // its report is made, so a batch of large exports never sits in memory at once.
    for (i, path) in paths {
        let name = path.display().to_string();
        let report = match warpsight_ingest::read_path(&path, config) {
            Ok(trace) => FileReport::from_trace(name, &path, &trace),
            Err(err) => FileReport::from_error(name, anyhow::Error::new(err)),
        };
        reports.push((i, report));
        crate::allocator::release_freed_memory();
    }
    reports.sort_by_key(|(i, _)| *i);
    reports.into_iter().map(|(_, r)| r).collect()
}

/// Runs `warpsight inspect`.
pub fn run(args: InspectArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let config = ReadConfig {
        strict: global.strict,
        format: args.input_format,
    };
    let reports = inspect(&args.inputs, &config);
    warpsight_ingest::memory::log_stage("reading the inputs");
    if reports.is_empty() {
        return Err(anyhow::Error::new(crate::errors::CliError::new(
            format!("no profiler export found in {}", args.inputs.join(", ")),
            "give the exports' files, directories or glob patterns; see `warpsight --help` for the formats",
        )));
    }
    match args.format {
        InspectFormat::Json => {
            let array: Vec<Value> = reports.iter().map(FileReport::to_json).collect();
            let text = serde_json::to_string_pretty(&Value::Array(array))? + "\n";
            crate::output_file::print_stdout(&text)?;
        }
        InspectFormat::Table => {
            let mut text = String::new();
            for report in &reports {
                text.push_str(&report.to_line());
                text.push('\n');
            }
            crate::output_file::print_stdout(&text)?;
        }
    }
    // What could be read is printed above; a file that could not be read fails the command.
    let unreadable = reports.iter().filter(|r| r.error.is_some()).count();
    if unreadable > 0 {
        return Err(anyhow::Error::new(crate::errors::CliError::new(
            format!("{unreadable} of {} inputs could not be read", reports.len()),
            "each such line above says why and how to produce a supported export",
        )));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_files_are_explained_not_fatal() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let good = dir.path().join("a.csv");
        std::fs::write(&good, warpsight_test_support::fixtures::SMALL_DETAILS)?;
        let bad = dir.path().join("b.txt");
        std::fs::write(&bad, "hello\n")?;
        let reports = inspect(&[dir.path().display().to_string()], &ReadConfig::default());
        assert_eq!(reports.len(), 2);
        let json = reports[0].to_json();
        assert_eq!(json["format"], "ncu-details");
        assert_eq!(json["launches"], 2);
        assert_eq!(json["rejected_rows"], 0);
        assert_eq!(json["devices"][0]["cc"], "9.0");
        assert!(json["error"].is_null());
        assert!(json.get("transfers").is_none());
        let json = reports[1].to_json();
        assert!(json["format"].is_null());
        let error = json["error"].as_str().ok_or("error text")?;
        assert!(
            error.contains("b.txt") && error.contains("hint:"),
            "{error}"
        );
        Ok(())
    }
}
