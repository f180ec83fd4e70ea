//! The SM clock each launch is modelled at, where it came from, and how far the DRAM clock of the
//! run was below the device's (issue #23: "the clock the launch ran at").
//!
//! Nsight Compute locks the GPU at its **base** clock unless told otherwise (`--clock-control
//! base`, its default), and reports the clock it measured ("SM Frequency",
//! `sm__cycles_elapsed.avg.per_second`; "DRAM Frequency", `dram__cycles_elapsed.avg.per_second`).
//! These two readings are clocks, not durations, and they are the only values measured in time
//! that a same-device prediction reads. Policies ([`SmClock`]):
//!
//! - [`SmClock::Export`] (the default): the device's base clock when the export says ncu locked
//!   the clocks (`ncu_clocks_locked`, recorded per launch in `.ncu-rep` reports; ncu's default
//!   `--clock-control base` locks them at base) and the plugin knows the base clock; else the
//!   export's SM frequency reading; else the boost clock. A locked launch is not timed at its
//!   reading because ncu computes the reading as cycles over the launch's duration, which for a
//!   launch of a few µs includes the launch overhead (a V100 launch of 11 µs reads 0.78 GHz where
//!   the long launches of the same run read the 1.29 GHz base clock). An unlocked launch is timed at
//!   its reading, also below the base clock: the H100's wgmma GEMMs ran at 1.48–1.79 GHz under
//!   their power limit.
//! - [`SmClock::Base`], [`SmClock::Boost`], [`SmClock::Fixed`]: that clock for every launch.
//!
//! On another device (`predict --on`, `--device`) [`SmClock::Export`] means the target's boost
//! clock: the export says nothing about how the target would be clocked.
//!
//! Only at the boost clock does the time model apply its tensor-clock rule (launches running
//! tensor work are timed at the device's tensor clock, wgmma ones at a fraction of it,
//! `docs/model.md` §6): a measured, base or fixed clock is the clock of every term.
//!
//! The DRAM bandwidth of the run is the device's × (DRAM frequency reading ÷ the device's memory
//! clock), at most 1, under [`SmClock::Export`] on the launch's own device when both are known.

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;

use crate::arch::DeviceSpec;
use crate::columns as out;
use crate::params as p;

/// How the SM clock of a launch is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum SmClock {
    /// The base clock when ncu locked the clocks, else the export's SM frequency reading, else the
    /// boost clock; the target's boost clock on another device.
    #[default]
    Export,
    /// The device's base clock (its boost clock where the plugin gives no base clock).
    Base,
    /// The device's boost clock.
    Boost,
    /// This clock, Hz, on every device.
    Fixed(f64),
}

impl SmClock {
    /// Parses `export`, `base`, `boost` or a clock in MHz (e.g. `1410`).
    pub fn parse(text: &str) -> Result<SmClock, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "export" => Ok(SmClock::Export),
            "base" => Ok(SmClock::Base),
            "boost" => Ok(SmClock::Boost),
            other => {
                let mhz = other.strip_suffix("mhz").unwrap_or(other).trim();
                match mhz.parse::<f64>() {
                    Ok(v) if v.is_finite() && (1.0..=10_000.0).contains(&v) => {
                        Ok(SmClock::Fixed(v * 1e6))
                    }
                    _ => Err(format!(
                        "expected `export`, `base`, `boost` or a clock in MHz between 1 and 10000, \
                         found `{text}`"
                    )),
                }
            }
        }
    }
}

/// Internal: true where the clock is the device's boost clock, so that the time model's
/// tensor-clock rule applies.
pub(crate) const AT_BOOST: &str = "__e_clock_at_boost";
/// Internal: the run's DRAM clock over the device's memory clock (1 when unknown), at most 1.
pub(crate) const DRAM_SCALE: &str = "__e_dram_scale";

/// The export's reading of the SM clock, Hz, null when absent or not positive.
fn reading(column: &str) -> Expr {
    let value = col(column).cast(DataType::Float64);
    when(value.clone().gt(lit(0.0)))
        .then(value)
        .otherwise(lit(NULL).cast(DataType::Float64))
}

/// Whether the export says ncu locked the clocks (false when it does not say).
fn locked(schema: &Schema) -> Expr {
    if schema.contains(lt::CLOCKS_LOCKED) {
        col(lt::CLOCKS_LOCKED)
            .cast(DataType::Boolean)
            .fill_null(lit(false))
    } else {
        lit(false)
    }
}

/// The clock columns of launches modelled on their own device: [`out::MODEL_SM_CLOCK_HZ`],
/// [`out::MODEL_SM_CLOCK_SOURCE`], [`AT_BOOST`] and [`DRAM_SCALE`]. Needs the device columns
/// ([`p::DEV_SM_CLOCK`], [`p::DEV_BASE_CLOCK`], [`p::DEV_MEM_CLOCK`]).
pub(crate) fn own_device(policy: SmClock, schema: &Schema) -> Vec<Expr> {
    let boost = || col(p::DEV_SM_CLOCK);
    let base = || col(p::DEV_BASE_CLOCK);
    let has_base = || base().gt(lit(0.0)).fill_null(lit(false));
    let text = |s: &str| lit(s.to_string());
    let (clock, source, at_boost) = match policy {
        SmClock::Export => {
            let read = || reading(lt::SM_CLOCK_HZ);
            let has_read = || read().is_not_null();
            let clock = when(locked(schema).and(has_base()))
                .then(base())
                .when(has_read())
                .then(read())
                .otherwise(boost());
            let source = when(locked(schema).and(has_base()))
                .then(text("base (ncu locked the clocks)"))
                .when(has_read())
                .then(text("export"))
                .when(boost().is_not_null())
                .then(text("boost (the export has no clock)"))
                .otherwise(lit(NULL).cast(DataType::String));
            let at_boost = has_read().not().and(locked(schema).and(has_base()).not());
            (clock, source, at_boost)
        }
        SmClock::Base => (
            when(has_base()).then(base()).otherwise(boost()),
            when(has_base())
                .then(text("base"))
                .when(boost().is_not_null())
                .then(text("boost (the device's base clock is unknown)"))
                .otherwise(lit(NULL).cast(DataType::String)),
            has_base().not(),
        ),
        SmClock::Boost => (
            boost(),
            when(boost().is_not_null())
                .then(text("boost"))
                .otherwise(lit(NULL).cast(DataType::String)),
            lit(true),
        ),
        SmClock::Fixed(hz) => (lit(hz), text("fixed (--sm-clock)"), lit(false)),
    };
    let dram_scale = if policy == SmClock::Export {
        let read = reading(lt::DRAM_CLOCK_HZ);
        let nominal = col(p::DEV_MEM_CLOCK);
        when(read.clone().is_not_null().and(nominal.clone().gt(lit(0.0))))
            .then(polars::lazy::dsl::min_horizontal([read / nominal, lit(1.0)]).unwrap_or(lit(1.0)))
            .otherwise(lit(1.0))
    } else {
        lit(1.0)
    };
    vec![
        clock.alias(out::MODEL_SM_CLOCK_HZ),
        source.alias(out::MODEL_SM_CLOCK_SOURCE),
        at_boost.alias(AT_BOOST),
        dram_scale.alias(DRAM_SCALE),
    ]
}

/// The clock columns of launches modelled on `device` (another GPU): its boost clock unless the
/// policy names base or a fixed clock.
pub(crate) fn override_device(policy: SmClock, device: &DeviceSpec) -> Vec<Expr> {
    let known = |v: f64| v.is_finite() && v > 0.0;
    let boost = device.sm_clock_hz;
    let (clock, source, at_boost) = match policy {
        SmClock::Export | SmClock::Boost => (boost, "boost (target device)", true),
        SmClock::Base if known(device.base_clock_hz) => {
            (device.base_clock_hz, "base (target device)", false)
        }
        SmClock::Base => (boost, "boost (the target's base clock is unknown)", true),
        SmClock::Fixed(hz) => (hz, "fixed (--sm-clock)", false),
    };
    let clock = if known(clock) {
        lit(clock)
    } else {
        lit(NULL).cast(DataType::Float64)
    };
    vec![
        clock.alias(out::MODEL_SM_CLOCK_HZ),
        lit(source).alias(out::MODEL_SM_CLOCK_SOURCE),
        lit(at_boost).alias(AT_BOOST),
        lit(1.0).alias(DRAM_SCALE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four launches of a T4 (boost 1.59 GHz, base 0.585 GHz, memory 5.001 GHz): locked by ncu
    /// with a deflated reading; unlocked at a measured 1.2 GHz; no reading and no lock flag; locked
    /// on a device whose base clock is unknown.
    fn launches() -> PolarsResult<DataFrame> {
        df!(
            p::DEV_SM_CLOCK => [1.59e9, 1.59e9, 1.59e9, 1.59e9],
            p::DEV_BASE_CLOCK => [Some(0.585e9), Some(0.585e9), Some(0.585e9), None],
            p::DEV_MEM_CLOCK => [5.001e9, 5.001e9, 5.001e9, 5.001e9],
            lt::SM_CLOCK_HZ => [Some(0.54e9), Some(1.2e9), None, Some(0.9e9)],
            lt::DRAM_CLOCK_HZ => [Some(4.5e9), Some(6.0e9), None, None],
            lt::CLOCKS_LOCKED => [Some(1.0), Some(0.0), None, Some(1.0)],
        )
    }

    /// Per launch: the clock, its source and the DRAM scale.
    type Clocks = (Vec<Option<f64>>, Vec<Option<String>>, Vec<f64>);

    fn clocks(policy: SmClock) -> PolarsResult<Clocks> {
        let frame = launches()?;
        let schema = frame.schema().clone();
        let out = frame
            .lazy()
            .with_columns(own_device(policy, &schema))
            .collect()?;
        Ok((
            out.column(out::MODEL_SM_CLOCK_HZ)?.f64()?.iter().collect(),
            out.column(out::MODEL_SM_CLOCK_SOURCE)?
                .str()?
                .iter()
                .map(|s| s.map(str::to_string))
                .collect(),
            out.column(DRAM_SCALE)?.f64()?.iter().flatten().collect(),
        ))
    }

    #[test]
    fn the_export_policy_takes_base_when_locked_else_the_reading_else_boost() -> PolarsResult<()> {
        let (clock, source, dram) = clocks(SmClock::Export)?;
        assert_eq!(
            clock,
            [Some(0.585e9), Some(1.2e9), Some(1.59e9), Some(0.9e9)]
        );
        assert_eq!(
            source,
            [
                Some("base (ncu locked the clocks)".to_string()),
                Some("export".to_string()),
                Some("boost (the export has no clock)".to_string()),
                Some("export".to_string()),
            ]
        );
        // The DRAM reading scales the bandwidth, never above the device's.
        assert!((dram[0] - 4.5 / 5.001).abs() < 1e-12);
        assert_eq!(&dram[1..], &[1.0, 1.0, 1.0]);
        Ok(())
    }

    #[test]
    fn fixed_policies_ignore_the_export() -> PolarsResult<()> {
        let (clock, _, dram) = clocks(SmClock::Boost)?;
        assert_eq!(clock, [Some(1.59e9); 4]);
        assert_eq!(dram, [1.0; 4]);
        let (clock, source, _) = clocks(SmClock::Base)?;
        assert_eq!(
            clock,
            [Some(0.585e9), Some(0.585e9), Some(0.585e9), Some(1.59e9)]
        );
        assert_eq!(
            source[3].as_deref(),
            Some("boost (the device's base clock is unknown)")
        );
        let (clock, _, _) = clocks(SmClock::Fixed(1.0e9))?;
        assert_eq!(clock, [Some(1.0e9); 4]);
        Ok(())
    }

    #[test]
    fn policies_parse_from_the_command_line_words() {
        assert_eq!(SmClock::parse("export"), Ok(SmClock::Export));
        assert_eq!(SmClock::parse("Base"), Ok(SmClock::Base));
        assert_eq!(SmClock::parse("boost"), Ok(SmClock::Boost));
        assert_eq!(SmClock::parse("1410"), Ok(SmClock::Fixed(1.41e9)));
        assert_eq!(SmClock::parse("1410MHz"), Ok(SmClock::Fixed(1.41e9)));
        for bad in ["", "fast", "0", "-5", "nan", "20000"] {
            assert!(SmClock::parse(bad).is_err(), "{bad}");
        }
    }
}
