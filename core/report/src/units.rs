//! Numbers as people read them: durations in ns/µs/ms/s, sizes in B/KiB/MiB/GiB, bandwidths in
//! GB/s, compute rates in GFLOP/s or TFLOP/s, ratios as percentages.
//!
//! The model works in base units (ns, bytes, bytes/s, FLOP/s, 0–1 ratios); these helpers convert only
//! at the edge, for the terminal table, the markdown table and the HTML report. Machine formats
//! (csv, json, parquet) never go through them. A missing or non-finite value prints as `-`.

/// What to print for a missing (null or non-finite) value.
pub const MISSING: &str = "-";

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
pub fn bandwidth(bytes_per_second: f64) -> String {
    decimal_rate(bytes_per_second, "B/s")
}

/// A compute rate in FLOP per second with decimal prefixes, e.g. `389 GFLOP/s`, `19.5 TFLOP/s`.
pub fn flops(flop_per_second: f64) -> String {
    decimal_rate(flop_per_second, "FLOP/s")
}

/// A ratio in 0–1 printed as a percentage with one decimal, e.g. `0.75` → `75.0 %`.
pub fn percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return MISSING.to_string();
    }
    format!("{:.1} %", ratio * 100.0)
}

/// A signed relative change in 0–1 units printed as a percentage, e.g. `-0.25` → `-25.0 %`.
pub fn signed_percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return MISSING.to_string();
    }
    format!("{:+.1} %", ratio * 100.0)
}

/// A signed duration in nanoseconds, e.g. `+1.20 ms`, `-850 ns`.
pub fn signed_duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return MISSING.to_string();
    }
    let sign = if ns < 0.0 { "-" } else { "+" };
    format!("{sign}{}", duration_ns(ns.abs()))
}

/// A plain number with up to three significant digits (no unit), e.g. `12.5`, `0.250`, `1234`.
pub fn number(value: f64) -> String {
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
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
