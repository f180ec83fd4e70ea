//! `warpsight ingest`: reads profiler exports (files, directories, globs) into one launch table and
//! writes it as Parquet, Arrow IPC or CSV (chosen by the output's extension). Several files with
//! the same columns are written to Parquet or CSV one file at a time, so that only one file's table
//! is in memory; otherwise they are read in parallel and stacked.
//!
//! Per-file problems are printed on stderr in the `error:` / `Caused by:` / `hint:` style; the
//! exit code is 1 when any input could not be read (the table of the others is still written).

use std::path::PathBuf;
use std::process::ExitCode;

use super::GlobalArgs;
use super::errors;
use warpsight_ingest::{self, Format, ReadConfig, batch, native as warpsight_native};

/// Arguments of `warpsight ingest`.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// Input files, directories (their files) or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Output file; the extension picks the container: `.parquet`, `.arrow` / `.ipc`, `.csv`.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Read every input as this format instead of detecting it (e.g. `ncu-details`, `ncu-raw`).
    #[arg(long = "input-format", value_name = "NAME", value_parser = parse_format)]
    pub input_format: Option<Format>,
}

/// Parses a `--input-format` value (the names of [`Format::name`]).
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown format `{name}`; expected one of: {}",
            names.join(", ")
        )
    })
}

/// Runs `warpsight ingest`.
pub fn run(args: IngestArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    if warpsight_native::format_for_extension(&args.output).is_none() {
        anyhow::bail!(errors::Hinted {
            message: format!(
                "cannot tell the output format of `{}`",
                args.output.display()
            ),
            hint: "name the output `*.parquet`, `*.arrow` (or `*.ipc`) or `*.csv`".into(),
            source: None,
        });
    }
    let paths = batch::expand_inputs(&args.inputs)?;
    // Writing over an input would destroy it before (or while) it is read.
    let output = std::fs::canonicalize(&args.output).ok();
    if let Some(output) = &output
        && paths.iter().any(|p| std::fs::canonicalize(p).ok().as_ref() == Some(output))
    {
        anyhow::bail!(errors::Hinted {
            message: format!("the output `{}` is also an input", args.output.display()),
            hint: "write the launch table to another file".into(),
            source: None,
        });
    }
    let config = ReadConfig {
        strict: global.strict,
        format: args.input_format,
    };
    let color = errors::use_color(global.color);
    // Several files with the same columns are written one file at a time (only one file's table
    // in memory); otherwise, or for Arrow IPC, the tables are stacked and written whole.
    let streamed = if paths.len() > 1 {
        stream(&paths, &config, &args.output, color)?
    } else {
        None
    };
    let (failed, launches) = match streamed {
        Some(done) => done,
        None => stack_and_write(&paths, &config, &args.output, color)?,
    };
    tracing::info!(output = %args.output.display(), launches, "written");
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Logs a file's rejected rows and that it was read.
fn log_read(path: &std::path::Path, trace: &warpsight_ingest::trace::Trace) {
    if !trace.rejected.is_empty() {
        tracing::warn!(
            file = %path.display(),
            rejected = trace.rejected.len(),
            first_line = trace.rejected[0].line,
            first_reason = %trace.rejected[0].reason,
            "rows could not be used (use --strict to fail instead)"
        );
    }
    tracing::info!(file = %path.display(), format = %trace.format, launches = trace.launch_count(), "read");
}

/// Reads the files one at a time and writes each table as it comes. Returns the number of files
/// that failed and of launches written, or `None` (nothing written) when the output format is
/// written whole or a file's columns differ from the first's: the caller then stacks them.
fn stream(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &std::path::Path,
    color: bool,
) -> anyhow::Result<Option<(usize, usize)>> {
    let mut writer: Option<(warpsight_native::BatchWriter<std::fs::File>, polars::prelude::Schema)> =
        None;
    let written = |result: polars::prelude::PolarsResult<()>| {
        result.map_err(|source| warpsight_native::WriteError::Polars {
            path: output.to_path_buf(),
            source,
        })
    };
    let mut failed = 0usize;
    let mut launches = 0usize;
    let mut errors_seen = Vec::new();
    for path in paths {
        match warpsight_ingest::read_path(path, config) {
            Ok(trace) => {
                log_read(path, &trace);
                let frame = trace.launches;
                let schema = frame.schema().as_ref().clone();
                match &mut writer {
                    None => match warpsight_native::create_batch_writer(output, &schema)? {
                        Some(mut created) => {
                            written(created.write(&frame))?;
                            writer = Some((created, schema));
                        }
                        None => return Ok(None),
                    },
                    Some((open, first)) if *first == schema => written(open.write(&frame))?,
                    Some(_) => {
                        tracing::info!(
                            file = %path.display(),
                            "columns differ from the first file's: the tables are stacked instead"
                        );
                        drop(writer);
                        return Ok(None);
                    }
                }
                launches += frame.height();
            }
            Err(err) => {
                failed += 1;
                errors_seen.push(anyhow::Error::new(err));
            }
        }
        crate::inputs::release_freed_memory();
    }
    let Some((open, _)) = writer else {
        for err in &errors_seen {
            errors::print_error(err, color);
        }
        anyhow::bail!("no input could be read ({failed} failed)");
    };
    written(open.finish())?;
    for err in &errors_seen {
        errors::print_error(err, color);
    }
    Ok(Some((failed, launches)))
}

/// Reads every file (in parallel), stacks the tables (columns unioned) and writes them.
fn stack_and_write(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &std::path::Path,
    color: bool,
) -> anyhow::Result<(usize, usize)> {
    let results = warpsight_ingest::read_many(paths, config);
    let mut frames = Vec::new();
    let mut failed = 0usize;
    for file in results {
        match file.result {
            Ok(trace) => {
                log_read(&file.path, &trace);
                frames.push(trace.launches);
            }
            Err(err) => {
                failed += 1;
                errors::print_error(&anyhow::Error::new(err), color);
            }
        }
    }
    if frames.is_empty() {
        anyhow::bail!("no input could be read ({failed} failed)");
    }
    let mut table = polars::functions::concat_df_diagonal(&frames)
        .map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?;
    drop(frames);
    warpsight_native::write(&mut table, output)?;
    Ok((failed, table.height()))
}
