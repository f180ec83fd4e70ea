//! `warpsight ingest`: reads profiler exports (files, directories, globs) in parallel into one
//! launch table and writes it as Parquet, Arrow IPC or CSV (chosen by the output's extension).
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
    let results = warpsight_ingest::read_many(&paths, &config);
    let mut frames = Vec::new();
    let mut failed = 0usize;
    for file in results {
        match file.result {
            Ok(trace) => {
                if !trace.rejected.is_empty() {
                    tracing::warn!(
                        file = %file.path.display(),
                        rejected = trace.rejected.len(),
                        first_line = trace.rejected[0].line,
                        first_reason = %trace.rejected[0].reason,
                        "rows could not be used (use --strict to fail instead)"
                    );
                }
                tracing::info!(file = %file.path.display(), format = %trace.format, launches = trace.launch_count(), "read");
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
    let format = warpsight_native::write(&mut table, &args.output)?;
    tracing::info!(output = %args.output.display(), format = format.name(), launches = table.height(), "written");
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
