//! `--sm-clock export|base|boost|MHZ` (on `analyze`, `predict` and `accuracy`): the SM clock the
//! launches are modelled at (`warpsight_model::SmClock`, docs/model.md §6 "Clock").

use warpsight_model::SmClock;

/// The `--sm-clock` flag.
#[derive(Debug, Clone, clap::Args)]
pub struct SmClockArgs {
    /// The SM clock launches are modelled at: `export` (the base clock where the export says ncu
    /// locked the clocks, else ncu's SM frequency reading, else the boost clock), `base`, `boost`,
    /// or a clock in MHz. On another device (`--on`, `--device`),
    /// `export` means the target's boost clock. The clock used is in the `model_sm_clock_hz` and
    /// `model_sm_clock_source` columns.
    #[arg(
        long = "sm-clock",
        value_name = "export|base|boost|MHZ",
        default_value = "export",
        value_parser = parse_sm_clock
    )]
    pub sm_clock: SmClock,
}

/// Parses the flag's value (clap's value parser).
fn parse_sm_clock(text: &str) -> Result<SmClock, String> {
    SmClock::parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        clock: SmClockArgs,
    }

    #[test]
    fn the_flag_defaults_to_the_export_and_takes_words_or_mhz() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
                .map(|c| c.clock.sm_clock)
        };
        assert_eq!(parse(&[]).unwrap(), SmClock::Export);
        assert_eq!(parse(&["--sm-clock", "base"]).unwrap(), SmClock::Base);
        assert_eq!(parse(&["--sm-clock", "boost"]).unwrap(), SmClock::Boost);
        assert_eq!(
            parse(&["--sm-clock", "1530"]).unwrap(),
            SmClock::Fixed(1.53e9)
        );
        let error = parse(&["--sm-clock", "turbo"]).unwrap_err().to_string();
        assert!(
            error.contains("expected `export`, `base`, `boost`"),
            "{error}"
        );
    }
}
