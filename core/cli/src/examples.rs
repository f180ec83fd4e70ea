//! The "Examples:" section at the end of each subcommand's `--help` (clap `after_help`). Each
//! example is a command line that parses (a test in `main.rs` checks it); paths are the project's
//! sample (`traces/synthetic/`) or placeholders a user replaces.

/// `warpsight ingest`.
pub(crate) const INGEST: &str = "\
Examples:
  warpsight ingest exports/ -o launches.parquet
  warpsight ingest run.ncu-rep -o launches.arrow
  warpsight ingest traces/synthetic/h100_classic_kernels.ncu-details.csv -o launches.csv";

/// `warpsight inspect`.
pub(crate) const INSPECT: &str = "\
Examples:
  warpsight inspect traces/synthetic/h100_classic_kernels.ncu-details.csv
  warpsight inspect exports/ --format json";

/// `warpsight archs`.
pub(crate) const ARCHS: &str = "\
Examples:
  warpsight archs
  warpsight archs --format json";

/// `warpsight devices`.
pub(crate) const DEVICES: &str = "\
Examples:
  warpsight devices
  warpsight devices --format json";

/// `warpsight plugins`.
pub(crate) const PLUGINS: &str = "\
Examples:
  warpsight plugins
  warpsight plugins --plugin-dir target/debug --format json";

/// `warpsight occupancy`.
pub(crate) const OCCUPANCY: &str = "\
Examples:
  warpsight occupancy --cc 8.0 --block-size 256 --registers 64 --dynamic-smem 48K
  warpsight occupancy --device \"H100 SXM5 80GB\" --block-size 128 --registers 128 --sweep
  warpsight occupancy --cc 9.0 --block-size 512 --registers 32 --sweep --svg sweep.svg";

/// `warpsight analyze`.
pub(crate) const ANALYZE: &str = "\
Examples:
  warpsight analyze traces/synthetic/h100_classic_kernels.ncu-details.csv
  warpsight analyze exports/*.csv --top 20 --findings all --columns kernel,total_ns,bottleneck
  warpsight analyze run.ncu-rep --per launch --format csv -o launches.csv";

/// `warpsight report`.
pub(crate) const REPORT: &str = "\
Examples:
  warpsight report exports/ -o review.html
  warpsight report run.ncu-rep --top 10 --title \"ResNet-50 forward\" -o review.html";

/// `warpsight predict`.
pub(crate) const PREDICT: &str = "\
Examples:
  warpsight predict traces/synthetic/h100_classic_kernels.ncu-details.csv --on \"A100 SXM4 80GB\"
  warpsight predict a100_run.csv --from \"A100 SXM4 40GB\" --on \"H100 SXM5 80GB\" --format json
  warpsight predict t4_run.ncu-rep --on \"Tesla T4\" --sm-clock base";

/// `warpsight diff`.
pub(crate) const DIFF: &str = "\
Examples:
  warpsight diff before.csv after.csv
  warpsight diff before.ncu-rep after.ncu-rep --top 10 --format md";

/// `warpsight accuracy`.
pub(crate) const ACCURACY: &str = "\
Examples:
  warpsight accuracy traces/h200/*.ncu-raw.csv
  warpsight accuracy traces/h100-80gb-hbm3/*.ncu-raw.csv --sm-clock boost --per kernel --format md
  warpsight accuracy a100_run.csv --on \"NVIDIA H200\" --against traces/h200/*.ncu-raw.csv";

/// `warpsight completions`.
pub(crate) const COMPLETIONS: &str = "\
Examples:
  warpsight completions bash > ~/.local/share/bash-completion/completions/warpsight
  warpsight completions zsh > ~/.zfunc/_warpsight
  warpsight completions fish > ~/.config/fish/completions/warpsight.fish";
