//! Numbers as people read them: durations in ns/µs/ms/s, sizes in B/KiB/MiB/GiB, bandwidths in
//! GB/s, compute rates in GFLOP/s or TFLOP/s, ratios as percentages.
//!
//! The model works in base units (ns, bytes, bytes/s, FLOP/s, 0–1 ratios); these helpers convert only
//! at the edge, for the terminal table, the markdown table and the HTML report. Machine formats
//! (csv, json, parquet) never go through them. A missing or non-finite value prints as `-`.

/// What to print for a missing (null or non-finite) value.
pub(crate) const MISSING: &str = "-";

/// A duration given in nanoseconds, e.g. `850 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`.
pub fn duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return MISSING.to_string();
    }
    let magnitude = ns.abs();
    if magnitude < 1e3 {
        format!("{ns:.0} ns")
    } else if magnitude < 1e6 {
        format!("{} µs", three_significant(ns / 1e3))
    } else if magnitude < 1e9 {
        format!("{} ms", three_significant(ns / 1e6))
    } else {
        format!("{} s", three_significant(ns / 1e9))
    }
}

/// A size in bytes with binary prefixes, e.g. `512 B`, `48.0 KiB`, `1.50 MiB`.
pub fn bytes(value: f64) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if value.abs() < 1024.0 {
        return format!("{value:.0} B");
    }
    let mut scaled = value / 1024.0;
    let mut unit = 0;
    while scaled.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    format!("{} {}", three_significant(scaled), UNITS[unit])
}

/// A bandwidth in bytes per second with decimal prefixes, e.g. `900 GB/s`, `1.55 TB/s`.
pub(crate) fn bandwidth(bytes_per_second: f64) -> String {
    decimal_rate(bytes_per_second, "B/s")
}

/// A compute rate in FLOP per second with decimal prefixes, e.g. `389 GFLOP/s`, `19.5 TFLOP/s`.
pub(crate) fn flops(flop_per_second: f64) -> String {
    decimal_rate(flop_per_second, "FLOP/s")
}

/// A ratio in 0–1 printed as a percentage with one decimal, e.g. `0.75` → `75.0 %`.
pub(crate) fn percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return MISSING.to_string();
    }
    let mut text = String::with_capacity(10);
    write_fixed(&mut text, ratio * 100.0, 1, Sign::OnlyNegative);
    text.push_str(" %");
    text
}

/// A signed relative change in 0–1 units printed as a percentage, e.g. `-0.25` → `-25.0 %`.
pub fn signed_percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return MISSING.to_string();
    }
    let mut text = String::with_capacity(10);
    write_fixed(&mut text, ratio * 100.0, 1, Sign::Always);
    text.push_str(" %");
    text
}

/// `value` with `decimals` decimals: the text of `format!("{value:.decimals$}")`.
pub(crate) fn fixed(value: f64, decimals: usize) -> String {
    let mut text = String::with_capacity(12);
    write_fixed(&mut text, value, decimals, Sign::OnlyNegative);
    text
}

/// Which values [`write_fixed`] writes a sign for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    /// `-` for negative values (`{:.N}`).
    OnlyNegative,
    /// `-` or `+` (`{:+.N}`).
    Always,
}

/// Writes `value` with `decimals` decimals as the standard formatter does (`{:.N}` or `{:+.N}`),
/// which rounds the value's exact decimal expansion half to even and keeps the sign of a negative
/// value that rounds to zero. The standard formatter falls back to slow exact arithmetic often
/// (about a third of the rules' message time on an ncu page of 30 000 launches); here a value is
/// scaled and rounded in floating point when it is far from a rounding tie (the scaling errs by
/// at most 1e-7 of a unit of the last decimal below 1e9 units, and a value within 1e-6 of a tie
/// goes to the standard formatter), so the text is the same.
fn write_fixed(text: &mut String, value: f64, decimals: usize, sign: Sign) {
    use std::fmt::Write as _;
    const SCALES: [u64; 4] = [1, 10, 100, 1000];
    if let Some(&scale) = SCALES.get(decimals)
        && value.is_finite()
    {
        let scaled = value.abs() * scale as f64;
        let fraction = scaled - scaled.floor();
        if scaled < 1e9 && (fraction - 0.5).abs() > 1e-6 {
            // Below 1e9, so the rounded value fits a u64 exactly.
            let units = scaled.round() as u64;
            if value.is_sign_negative() {
                text.push('-');
            } else if sign == Sign::Always {
                text.push('+');
            }
            let _ = write!(text, "{}", units / scale);
            if decimals > 0 {
                let _ = write!(text, ".{:0width$}", units % scale, width = decimals);
            }
            return;
        }
    }
    let _ = match sign {
        Sign::OnlyNegative => write!(text, "{value:.decimals$}"),
        Sign::Always => write!(text, "{value:+.decimals$}"),
    };
}

/// A signed duration in nanoseconds, e.g. `+1.20 ms`, `-850 ns`.
pub(crate) fn signed_duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return MISSING.to_string();
    }
    let sign = if ns < 0.0 { "-" } else { "+" };
    format!("{sign}{}", duration_ns(ns.abs()))
}

/// A plain number with up to three significant digits (no unit), e.g. `12.5`, `0.250`, `1234`.
pub(crate) fn number(value: f64) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    if value != 0.0 && value.abs() < 0.001 {
        return format!("{value:.2e}");
    }
    three_significant(value)
}

/// A multiplier such as a speedup, e.g. `2.35×`.
pub fn times(value: f64) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    format!("{}×", three_significant(value))
}

/// Scales a per-second rate to k/M/G/T/P/E and appends `unit`.
fn decimal_rate(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    const PREFIXES: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    let mut scaled = value;
    let mut prefix = 0;
    while scaled.abs() >= 1000.0 && prefix + 1 < PREFIXES.len() {
        scaled /= 1000.0;
        prefix += 1;
    }
    format!("{} {}{}", three_significant(scaled), PREFIXES[prefix], unit)
}

/// Three significant digits for values below 1000, no decimals at or above 100 (e.g. `1.55`,
/// `12.3`, `389`, `1234`).
fn three_significant(value: f64) -> String {
    let magnitude = value.abs();
    // Round first so that 99.96 prints as `100`, not `100.0`.
    let decimals = if magnitude >= 99.95 {
        0
    } else if magnitude >= 9.995 {
        1
    } else {
        2
    };
    fixed(value, decimals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path must give the standard formatter's text for every value: ties and values
    /// next to them, negative values that round to zero, large and tiny magnitudes.
    #[test]
    fn fixed_decimals_are_the_standard_formatters() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.05,
            -0.05,
            0.25,
            0.35,
            2.5,
            -2.5,
            12.25,
            0.125,
            1e-9,
            -1e-9,
            999.95,
            99.95,
            9.995,
            1e9,
            1e12,
            1e300,
            5e-324,
            0.1 + 0.2,
        ];
        for _ in 0..200_000 {
            let bits = next();
            // Random magnitudes from 1e-6 to 1e12, both signs, and exact multiples of 1/16
            // (binary ties at every decimal count).
            let mantissa = (bits >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = (bits % 19) as i32 - 6;
            let sign = if bits & 1 == 0 { 1.0 } else { -1.0 };
            values.push(sign * mantissa * 10f64.powi(exponent));
            values.push(sign * ((bits >> 20) % 100_000) as f64 / 16.0);
        }
        for value in values {
            for decimals in 0..4 {
                assert_eq!(
                    fixed(value, decimals),
                    format!("{value:.decimals$}"),
                    "{value:e} with {decimals} decimals"
                );
                let mut signed = String::new();
                write_fixed(&mut signed, value, decimals, Sign::Always);
                assert_eq!(signed, format!("{value:+.decimals$}"), "{value:e}");
            }
        }
        assert_eq!(percent(0.75), "75.0 %");
        assert_eq!(signed_percent(-0.25), "-25.0 %");
        assert_eq!(signed_percent(0.0), "+0.0 %");
    }

    #[test]
    fn durations_pick_the_readable_unit() {
        assert_eq!(duration_ns(850.0), "850 ns");
        assert_eq!(duration_ns(12_345.0), "12.3 µs");
        assert_eq!(duration_ns(4_560_000.0), "4.56 ms");
        assert_eq!(duration_ns(1.2e9), "1.20 s");
        assert_eq!(duration_ns(f64::NAN), "-");
    }

    #[test]
    fn sizes_use_binary_prefixes() {
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(49_152.0), "48.0 KiB");
        assert_eq!(bytes(1.5 * 1024.0 * 1024.0), "1.50 MiB");
        assert_eq!(bytes(167_936.0), "164 KiB");
    }

    #[test]
    fn rates_use_decimal_prefixes() {
        // The A100 SXM4 40GB datasheet figures: 1555 GB/s and 19.5 TFLOP/s FP32.
        assert_eq!(bandwidth(1555e9), "1.55 TB/s");
        assert_eq!(bandwidth(900e9), "900 GB/s");
        assert_eq!(flops(19.5e12), "19.5 TFLOP/s");
        // 0.25 FLOP/B at 1555 GB/s = 388.75 GFLOP/s.
        assert_eq!(flops(0.25 * 1555e9), "389 GFLOP/s");
    }

    #[test]
    fn ratios_print_as_percent() {
        assert_eq!(percent(0.75), "75.0 %");
        assert_eq!(percent(0.625), "62.5 %");
        assert_eq!(signed_percent(-0.25), "-25.0 %");
        assert_eq!(signed_duration_ns(-850.0), "-850 ns");
        assert_eq!(times(2.0), "2.00×");
    }

    #[test]
    fn rounding_does_not_overflow_the_digit_budget() {
        assert_eq!(number(99.96), "100");
        assert_eq!(number(9.996), "10.0");
        assert_eq!(number(0.0001234), "1.23e-4");
    }
}
