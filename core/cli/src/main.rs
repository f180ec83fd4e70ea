//! The `warpsight` binary: a thin command line over the library crates (`warpsight-ingest`,
//! `warpsight-model`, `warpsight-report`). One module per subcommand, each with its clap `Args`
//! struct and a `run` function, plus the shared pieces: global options, logging, error printing in
//! the `error:` / `Caused by:` / `hint:` style, the terminal table and the output formats.

mod accuracy;
mod allocator;
mod analyze;
mod archs;
mod devices;
mod diff;
mod errors;
mod examples;
mod ingest;
mod inputs;
mod inspect;
mod logging;
mod occupancy;
mod output;
mod output_file;
mod plugins;
mod predict;
mod report;
mod sm_clock;
mod table;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Explain and predict GPU kernel performance from Nsight Compute / Nsight Systems exports.
#[derive(Debug, Parser)]
#[command(name = "warpsight", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by every subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// More log output on stderr (-v: debug, -vv: trace). `RUST_LOG` overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No progress bar and only errors in the log.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Turn rows that cannot be used into errors instead of counting them.
    #[arg(long, global = true)]
    pub strict: bool,
    /// Extra directory to search for architecture plugins (repeatable). Also
    /// `WARPSIGHT_PLUGIN_PATH` (a `:`-separated list) and the executable's own directory.
    #[arg(long = "plugin-dir", global = true, value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// When to use colour: auto (a TTY and no `NO_COLOR`), always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Fit human tables to this many columns as on a terminal, even when stdout is not one (used
    /// by the snapshot tests; also `WARPSIGHT_WIDTH`).
    #[arg(
        long,
        global = true,
        hide = true,
        env = "WARPSIGHT_WIDTH",
        value_name = "COLUMNS"
    )]
    pub width: Option<u16>,
    /// Launches per batch when an input is read in batches, and a quarter of the launches
    /// analysed together (tests cut small exports into many parts with it; also
    /// `WARPSIGHT_BATCH_LAUNCHES`).
    #[arg(
        long,
        global = true,
        hide = true,
        env = "WARPSIGHT_BATCH_LAUNCHES",
        value_name = "LAUNCHES",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub batch_launches: Option<u32>,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Read profiler exports into one launch table and write it (Parquet, Arrow IPC or CSV).
    #[command(after_help = examples::INGEST)]
    Ingest(ingest::IngestArgs),
    /// Say what each input is: format, launches, rejected rows, devices.
    #[command(after_help = examples::INSPECT)]
    Inspect(inspect::InspectArgs),
    /// List the architectures (compute capabilities) the loaded plugins provide.
    #[command(after_help = examples::ARCHS)]
    Archs(archs::ArchsArgs),
    /// List the devices the loaded plugins provide.
    #[command(after_help = examples::DEVICES)]
    Devices(devices::DevicesArgs),
    /// List loaded and rejected plugins.
    #[command(after_help = examples::PLUGINS)]
    Plugins(plugins::PluginsArgs),
    /// The CUDA occupancy calculator for one launch configuration.
    #[command(after_help = examples::OCCUPANCY)]
    Occupancy(occupancy::OccupancyArgs),
    /// Per-kernel (or per-launch) analysis table: occupancy, latency hiding, roofline, time.
    #[command(after_help = examples::ANALYZE)]
    Analyze(analyze::AnalyzeArgs),
    /// One self-contained HTML report with the summary table and charts.
    #[command(after_help = examples::REPORT)]
    Report(report::ReportArgs),
    /// Predict the same launches on another GPU.
    #[command(after_help = examples::PREDICT)]
    Predict(predict::PredictArgs),
    /// Compare two traces per kernel name (before / after).
    #[command(after_help = examples::DIFF)]
    Diff(diff::DiffArgs),
    /// Predicted against measured time per launch, per kernel and per device, on the device the
    /// launches ran on or across devices (`--on DEVICE --against OTHER_INPUTS...`).
    #[command(after_help = examples::ACCURACY)]
    Accuracy(accuracy::AccuracyArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    #[command(after_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
}

/// Arguments of `warpsight completions`.
#[derive(Debug, clap::Args)]
struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Runs the command line and returns the process exit code. Errors are printed on stderr as
/// `error:` / `Caused by:` / `hint:`.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    logging::init(&cli.global);
    // With `-v`, the stage log's times count from here (the start of the command).
    warpsight_ingest::memory::log_stage("starting");
    let color = cli.global.color;
    errors::install_panic_hook();
    // A panic that escapes every file boundary is still printed as an `error:`, never as Rust's
    // panic text (the hook above records it instead of printing it).
    let outcome = std::panic::catch_unwind(|| run(cli))
        .unwrap_or_else(|_| Err(anyhow::Error::new(errors::internal_error())));
    // A failed write to the output explains whatever error it caused further down (polars'
    // writers wrap it): a closed pipe ends quietly, as `head` expects; anything else is said once.
    let outcome = match (output_file::output_fault(), outcome) {
        (Some(output_file::OutputFault::BrokenPipe), _) => return ExitCode::SUCCESS,
        (Some(output_file::OutputFault::Failed(fault)), _) => Err(fault),
        (None, Err(err)) if errors::is_broken_pipe(&err) => return ExitCode::SUCCESS,
        (None, outcome) => outcome,
    };
    match outcome {
        // A message that could not be written to stderr is lost: the exit status says so.
        Ok(_) if output_file::stderr_failed() => ExitCode::from(2),
        Ok(code) => code,
        Err(err) => {
            errors::print_error(&err, errors::use_color(color));
            ExitCode::from(2)
        }
    }
}

/// Prints a command-line parsing error (or `--help`, `--version`) as clap does, with a `hint:`
/// line in place of clap's closing "For more information" line, and returns clap's exit status.
/// Output that cannot be written ends as a write fault does: quietly on a closed pipe, else 2.
fn usage_error(err: &clap::Error) -> ExitCode {
    let code = u8::try_from(err.exit_code()).unwrap_or(2);
    if !err.use_stderr() {
        // `--help` and `--version` on stdout.
        let text = err.render().to_string();
        return match output_file::print_stdout(&text) {
            Ok(()) => ExitCode::from(code),
            Err(write) if write.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(2),
        };
    }
    let color = std::env::args_os().any(|arg| arg == "--color=always")
        || std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let rendered = if color {
        err.render().ansi().to_string()
    } else {
        err.render().to_string()
    };
    let text = match rendered.trim_end().rsplit_once('\n') {
        Some((body, last)) if last.contains("For more information, try '--help'") => {
            format!("{}\nhint: see `{}`\n", body.trim_end(), help_command())
        }
        _ => format!("{}\nhint: see `{}`\n", rendered.trim_end(), help_command()),
    };
    output_file::eprint(&text);
    ExitCode::from(code)
}

/// `warpsight SUBCOMMAND --help` for the subcommand on the command line (or `warpsight --help`).
fn help_command() -> String {
    let command = Cli::command();
    let sub = std::env::args().skip(1).find(|arg| {
        command
            .get_subcommands()
            .any(|sub| sub.get_name() == arg.as_str())
    });
    match sub {
        Some(sub) => format!("warpsight {sub} --help"),
        None => "warpsight --help".to_string(),
    }
}

/// Dispatches to the subcommand.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let global = cli.global;
    // A `--plugin-dir` that is not a directory would otherwise be skipped without a word.
    for dir in &global.plugin_dirs {
        if !dir.is_dir() {
            return Err(anyhow::Error::new(errors::CliError::new(
                format!("--plugin-dir `{}` is not a directory", dir.display()),
                "give the directory that holds the plugin libraries (libwarpsight_plugin_*), \
                 or leave --plugin-dir out to use the plugins beside the binary",
            )));
        }
    }
    match cli.command {
        Command::Ingest(args) => ingest::run(args, &global),
        Command::Inspect(args) => inspect::run(args, &global),
        Command::Archs(args) => archs::run(args, &global),
        Command::Devices(args) => devices::run(args, &global),
        Command::Plugins(args) => plugins::run(args, &global),
        Command::Occupancy(args) => occupancy::run(args, &global),
        Command::Analyze(args) => analyze::run(args, &global),
        Command::Report(args) => report::run(args, &global),
        Command::Predict(args) => predict::run(args, &global),
        Command::Diff(args) => diff::run(args, &global),
        Command::Accuracy(args) => accuracy::run(args, &global),
        Command::Completions(args) => {
            // Generated into memory: clap_complete panics when it cannot write.
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "warpsight", &mut script);
            output_file::Stdout.write_all(&script)?;
            output_file::Stdout.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a command line into words, honouring double quotes (enough for the examples).
    fn words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quoted = false;
        let mut any = false;
        for c in line.chars() {
            match c {
                '"' => {
                    quoted = !quoted;
                    any = true;
                }
                c if c.is_whitespace() && !quoted => {
                    if any {
                        words.push(std::mem::take(&mut word));
                        any = false;
                    }
                }
                c => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if any {
            words.push(word);
        }
        words
    }

    #[test]
    fn every_subcommand_help_ends_with_examples_that_parse() {
        let mut cli = Cli::command();
        cli.build();
        for sub in cli.get_subcommands().filter(|sub| sub.get_name() != "help") {
            let help = sub.clone().render_long_help().to_string();
            let examples = help
                .split("Examples:\n")
                .nth(1)
                .unwrap_or_else(|| panic!("`{}` has no Examples section:\n{help}", sub.get_name()));
            let lines: Vec<&str> = examples.lines().filter(|l| !l.trim().is_empty()).collect();
            assert!(
                (2..=3).contains(&lines.len()),
                "`{}` has {} examples",
                sub.get_name(),
                lines.len()
            );
            for line in lines {
                // Redirections are the shell's, not the command's.
                let command = line.split(" > ").next().unwrap_or(line);
                let args = words(command);
                assert_eq!(
                    args.get(1).map(String::as_str),
                    Some(sub.get_name()),
                    "{line}"
                );
                if let Err(err) = Cli::try_parse_from(&args) {
                    panic!("example `{line}` does not parse: {err}");
                }
            }
        }
    }

    #[test]
    fn completions_are_generated_for_every_shell() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "warpsight", &mut out);
            let text = String::from_utf8_lossy(&out);
            assert!(
                text.contains("analyze") && text.contains("findings"),
                "{shell}"
            );
        }
    }
}
