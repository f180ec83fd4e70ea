//! Where and how `analyze`, `predict` and `diff` write their result: the output formats (`--format`,
//! or the `-o` extension), the output file or stdout, the terminal style, `--sort`/`--top`, the
//! footer under human tables, and the dispatch to the human (terminal, markdown) or machine (CSV,
//! JSON, Parquet) writers.

use std::io::{IsTerminal, Write};
use std::path::Path;

use polars::prelude::*;

use super::errors::CliError;
use super::{ColorChoice, GlobalArgs};
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_report::analysis::aggregate::TransferSummary;
use warpsight_report::analysis::findings::Finding;
use warpsight_report::analysis::ranked;
use warpsight_report::analysis::report_columns as rc;

use warpsight_report::render::output::{
    OutputError, write_csv, write_ipc, write_json, write_parquet,
};
use warpsight_report::render::table::{self as report_table, DisplayColumn};

use crate::inputs::transfer_line;
use crate::output_file::Sink;
use crate::table::{self, TerminalStyle};

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
    /// An Arrow IPC file (Feather v2), raw base units (needs `-o` or a non-terminal stdout).
    Arrow,
}

impl OutputFormat {
    /// The format an output path's extension implies, if any.
    pub fn from_path(path: &std::path::Path) -> Option<OutputFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(OutputFormat::Csv),
            "json" => Some(OutputFormat::Json),
            "parquet" | "pq" => Some(OutputFormat::Parquet),
            "arrow" | "ipc" | "feather" => Some(OutputFormat::Arrow),
            "md" | "markdown" => Some(OutputFormat::Md),
            "txt" => Some(OutputFormat::Table),
            _ => None,
        }
    }

    /// True for the binary formats, which are never written to a terminal.
    pub fn is_binary(self) -> bool {
        matches!(self, OutputFormat::Parquet | OutputFormat::Arrow)
    }

    /// True for the formats meant for people (units, truncation, findings below the table).
    pub fn is_human(self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Md)
    }
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
        OutputFormat::Md => report_table::markdown(frame, columns)?,
        _ => table::terminal(frame, columns, style)?,
    };
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes `frame` in a machine format (CSV, JSON, Parquet, Arrow IPC).
pub fn write_machine(
    frame: &DataFrame,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), OutputError> {
    let mut frame = frame.clone();
    match format {
        OutputFormat::Csv => write_csv(&mut frame, out),
        OutputFormat::Parquet => write_parquet(&mut frame, out),
        OutputFormat::Arrow => write_ipc(&mut frame, out),
        _ => write_json(&frame, out),
    }
}

/// The output format: `--format`, else the `-o` extension, else `table`.
pub fn resolve_format(
    format: Option<OutputFormat>,
    output: Option<&Path>,
) -> anyhow::Result<OutputFormat> {
    if let Some(format) = format {
        return Ok(format);
    }
    match output {
        None => Ok(OutputFormat::Table),
        Some(path) => OutputFormat::from_path(path).ok_or_else(|| {
            anyhow::Error::new(CliError::new(format!("cannot tell the output format of `{}`", path.display()), "name the output `*.txt`, `*.md`, `*.csv`, `*.json`, `*.parquet` or `*.arrow`, or pass --format"))
        }),
    }
}

/// Where the output goes: the `-o` file (written under a temporary name and renamed into place by
/// [`Sink::finish`]), else stdout (Parquet refuses a terminal).
pub fn open_output(path: Option<&Path>, format: OutputFormat) -> anyhow::Result<Sink> {
    if path.is_none() && format.is_binary() && std::io::stdout().is_terminal() {
        let (name, extension) = match format {
            OutputFormat::Arrow => ("Arrow IPC", "arrow"),
            _ => ("Parquet", "parquet"),
        };
        return Err(anyhow::Error::new(CliError::new(
            format!("refusing to write {name} to a terminal"),
            format!("add `-o FILE.{extension}`, or redirect stdout"),
        )));
    }
    Sink::open(path)
}

/// The terminal table's style. On a terminal: fitted to its width (or `--width`), coloured
/// unless `NO_COLOR` is set (or as `--color` says). Not on a terminal: every row on one line at
/// its full width, no colour, unless the hidden `--width` (`WARPSIGHT_WIDTH`) asks for the
/// terminal layout at that width. A file written with `-o` is never fitted nor coloured.
pub fn terminal_style(global: &GlobalArgs, to_file: bool) -> TerminalStyle {
    let tty = !to_file && std::io::stdout().is_terminal();
    let color = match global.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let width = if to_file {
        None
    } else if global.width.is_some() {
        global.width
    } else if tty {
        Some(
            comfy_table::Table::new()
                .width()
                .unwrap_or(DEFAULT_TERMINAL_WIDTH),
        )
    } else {
        None
    };
    TerminalStyle {
        width,
        drop_columns: true,
        color: color && !to_file,
    }
}

/// The width assumed for a terminal whose size cannot be read.
const DEFAULT_TERMINAL_WIDTH: u16 = 100;

/// `--filter`: the kernels a command keeps (flattened into `analyze`, `report`, `predict`, `diff`
/// and `accuracy`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KernelFilter {
    /// Keep only kernels whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
}

/// `--format` and `-o/--output`: the output format and where the output goes (flattened into
/// `analyze`, `predict`, `diff` and `accuracy`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutputArgs {
    /// Output format (default: from the `-o` extension, else `table`).
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

/// `--columns` and `--wide`: which columns a human table shows.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ColumnArgs {
    /// Show these columns, in this order (output column names such as `kernel,total_ns,bound`,
    /// or headers such as `Share`; comma-separated). Nothing is dropped to fit the terminal.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub columns: Vec<String>,
    /// Show every column (those of the markdown table); nothing is dropped to fit the terminal.
    #[arg(long, conflicts_with = "columns")]
    pub wide: bool,
}

impl ColumnArgs {
    /// The columns to show: the chosen ones, all of `full` under `--wide` (or for markdown), else
    /// `compact`, and whether the terminal may drop some of them.
    pub fn select(
        &self,
        frame: &DataFrame,
        compact: Vec<DisplayColumn>,
        full: Vec<DisplayColumn>,
        format: OutputFormat,
    ) -> anyhow::Result<(Vec<DisplayColumn>, bool)> {
        if self.columns.is_empty() {
            return Ok(if self.wide || format != OutputFormat::Table {
                (full, false)
            } else {
                (compact, true)
            });
        }
        let known: Vec<&DisplayColumn> = compact.iter().chain(&full).collect();
        let chosen = self
            .columns
            .iter()
            .map(|wanted| {
                let wanted = wanted.trim();
                if let Some(column) = known.iter().find(|c| {
                    c.source.eq_ignore_ascii_case(wanted) || c.header.eq_ignore_ascii_case(wanted)
                }) {
                    return Ok(DisplayColumn::clone(column));
                }
                match frame.column(wanted) {
                    Ok(column) => Ok(DisplayColumn::new(
                        wanted,
                        wanted,
                        if column.dtype().is_primitive_numeric() {
                            report_table::Unit::Number
                        } else {
                            report_table::Unit::Text
                        },
                    )),
                    Err(_) => Err(anyhow::Error::new(CliError::new(
                        format!("no column `{wanted}` to show"),
                        format!(
                            "columns: {}",
                            full.iter()
                                .map(|c| c.source.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ))),
                }
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((chosen, false))
    }
}

/// Sorts by `--sort` (an output column; `:asc` for ascending, descending by default) and keeps the
/// first `--top` rows ([`warpsight_report::analysis::ordering::sort_and_top`]).
pub fn sort_and_top(
    frame: DataFrame,
    sort: Option<&str>,
    top: Option<usize>,
) -> anyhow::Result<DataFrame> {
    Ok(warpsight_report::analysis::ordering::sort_and_top(
        frame, sort, top,
    )?)
}

/// How many findings the footer under a human table lists (`--findings all|N|none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingsLimit {
    /// Every finding.
    All,
    /// The first N by estimated time saved.
    Top(usize),
    /// None.
    None,
}

impl FindingsLimit {
    /// Parses `all`, `none` or a number (clap's value parser).
    pub fn parse(text: &str) -> Result<FindingsLimit, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(FindingsLimit::All),
            "none" => Ok(FindingsLimit::None),
            number => number
                .parse()
                .map(FindingsLimit::Top)
                .map_err(|_| format!("expected `all`, `none` or a number, not `{text}`")),
        }
    }
}

/// Which findings a table's footer is about: those of the kernels shown (per kernel) or of the
/// launches shown (per launch).
pub(crate) enum Shown {
    /// Full kernel names.
    Kernels(Vec<String>),
    /// (file, launch id) pairs.
    Launches(Vec<(String, i64)>),
}

impl Shown {
    /// The kernels of a per-kernel table (the launches when it has no full kernel names).
    pub(crate) fn kernels(table: &DataFrame) -> PolarsResult<Shown> {
        if !table.schema().contains(rc::KERNEL_NAME) {
            return Shown::launches(table);
        }
        let mut cells = warpsight_report::analysis::frame_access::Cells::new(table);
        Ok(Shown::Kernels(
            (0..table.height())
                .filter_map(|row| cells.str(rc::KERNEL_NAME, row))
                .collect(),
        ))
    }

    /// The launches of a per-launch table.
    pub(crate) fn launches(table: &DataFrame) -> PolarsResult<Shown> {
        let mut cells = warpsight_report::analysis::frame_access::Cells::new(table);
        Ok(Shown::Launches(
            (0..table.height())
                .filter_map(|row| Some((cells.str(rc::FILE, row)?, cells.i64(lt::LAUNCH_ID, row)?)))
                .collect(),
        ))
    }

    /// True when `finding` is about a row shown.
    fn contains(&self, finding: &Finding) -> bool {
        match self {
            Shown::Kernels(kernels) => kernels.iter().any(|kernel| **kernel == *finding.kernel),
            Shown::Launches(launches) => finding.launch_id.is_some_and(|id| {
                launches
                    .iter()
                    .any(|(file, launch)| *launch == id && **file == *finding.file)
            }),
        }
    }
}

/// Below a human table: the findings about the rows shown, per kernel, the same advice on many
/// launches once with their count, ranked by estimated time saved and cut to `limit`; then the
/// transfers line.
pub(crate) fn write_footer(
    out: &mut dyn Write,
    findings: &[Finding],
    shown: &Shown,
    limit: FindingsLimit,
    transfers: Option<TransferSummary>,
    format: OutputFormat,
) -> std::io::Result<()> {
    let ranked = ranked::rank(findings.iter().filter(|f| shown.contains(f)));
    let take = match limit {
        FindingsLimit::All => ranked.len(),
        FindingsLimit::Top(n) => n.min(ranked.len()),
        FindingsLimit::None => 0,
    };
    if take > 0 {
        let md = format == OutputFormat::Md;
        writeln!(out)?;
        let count = if take < ranked.len() {
            format!(
                " ({take} of {}; `--findings all` lists every one)",
                ranked.len()
            )
        } else {
            String::new()
        };
        if md {
            writeln!(out, "### Findings, by estimated time saved{count}")?;
        } else {
            writeln!(out, "Findings, by estimated time saved{count}:")?;
        }
        for (kernel, list) in ranked::per_kernel(&ranked, Some(take)) {
            let name = report_table::abbreviate_kernel(kernel, 100);
            if md {
                writeln!(out, "\n**{}**\n", name.replace('*', "\\*"))?;
            } else {
                writeln!(out, "{name}")?;
            }
            for finding in list {
                let indent = if md { "" } else { "  " };
                let source = if &*finding.source == "warpsight" {
                    String::new()
                } else {
                    format!(" [{}]", finding.source)
                };
                let mut extent = vec![if finding.launches == 1 {
                    "1 launch".to_string()
                } else {
                    format!("{} launches", finding.launches)
                }];
                if let Some(saving) = finding.saving.filter(|s| *s > 0.0) {
                    extent.push(format!("saves ≈ {:.1} % of the time", saving * 100.0));
                }
                writeln!(
                    out,
                    "{indent}- {} `{}`{source} ({}): {}",
                    finding.severity.name(),
                    finding.rule_id,
                    extent.join(", "),
                    finding.message
                )?;
            }
        }
    }
    if let Some(transfers) = transfers {
        writeln!(out)?;
        writeln!(out, "{}", transfer_line(&transfers))?;
    }
    Ok(())
}

/// Writes a table in a human or machine format (used by `predict` and `diff`); `drop_columns`
/// lets a narrow terminal drop columns (not when `--columns` or `--wide` chose them).
pub fn write_table(
    table: &DataFrame,
    (columns, drop_columns): (&[DisplayColumn], bool),
    format: OutputFormat,
    global: &GlobalArgs,
    output: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if format.is_human() {
        let style = TerminalStyle {
            drop_columns,
            ..terminal_style(global, output.is_some())
        };
        write_human(table, columns, format, style, out)?;
    } else {
        write_machine(table, format, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            OutputFormat::from_path(std::path::Path::new("x.arrow")),
            Some(OutputFormat::Arrow)
        );
        assert_eq!(OutputFormat::from_path(std::path::Path::new("x")), None);
    }

    #[test]
    fn findings_limits_parse() {
        assert_eq!(FindingsLimit::parse("all"), Ok(FindingsLimit::All));
        assert_eq!(FindingsLimit::parse("None"), Ok(FindingsLimit::None));
        assert_eq!(FindingsLimit::parse("3"), Ok(FindingsLimit::Top(3)));
        assert!(FindingsLimit::parse("many").is_err());
    }
}
