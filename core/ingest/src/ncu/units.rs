//! Nsight Compute units and values: every unit spelling of FORMATS.md §1.5 converted to base units,
//! and metric values parsed into numbers, nulls or strings.
//!
//! Base units: bytes, nanoseconds for durations, hertz for frequencies, per-second for rates,
//! ratios 0–1 for percentages. Prefixes are decimal SI (K = 1e3, M = 1e6, G = 1e9, T = 1e12).
//! Compound units are handled generically: `numerator/denominator`, where the numerator's prefix
//! scales the value, a time numerator converts to nanoseconds, a time denominator converts to
//! per-second (`sector/us` × 1e6), and a prefixed denominator divides (`%/Kbyte` ÷ 1e3 per byte).
//! Counting words (`cycle`, `inst`, `warp`, `block`, `SM`, ...) have factor 1. A metric that fills a
//! launch-table column must have a unit whose every word is known, of the column's dimension
//! ([`unit_problem`]); its row is rejected otherwise, naming the unit.
//!
//! Values: thousands separators are stripped; empty, `n/a` and `no data` are null; `;`-separated
//! instance lists (`"32.00; 32.00; 0.00"`) are kept as the original string (they are per-instance
//! values, not one number); other non-numeric values (`CachePreferNone`, `0x3`) stay strings.

// Polars' hash map (foldhash) rather than std's (SipHash): these maps are looked up per record.
use polars::prelude::PlHashMap as HashMap;

/// A parsed metric value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// No value (empty, `n/a`, `no data`).
    Null,
    /// A number in base units.
    Num(f64),
    /// A value that is not a number, kept as written.
    Str(String),
}

/// Seconds in one unit of a time word, if it is one.
fn time_seconds(word: &str) -> Option<f64> {
    Some(match word {
        "ns" | "nsecond" | "nseconds" | "nsec" => 1e-9,
        "us" | "usecond" | "useconds" | "usec" => 1e-6,
        "ms" | "msecond" | "mseconds" | "msec" => 1e-3,
        "s" | "second" | "seconds" | "sec" => 1.0,
        _ => return None,
    })
}

/// `word` without its SI prefix (`Kbyte` → `byte`), as [`prefix_factor`] reads it.
fn without_prefix(word: &str) -> &str {
    if prefix_factor(word) == 1.0 {
        word
    } else {
        // A prefix is one ASCII letter (`prefix_factor` matched it).
        &word[1..]
    }
}

/// The decimal multiplier of a prefixed unit word such as `Kbyte`, `Ghz` (1 when unprefixed).
fn prefix_factor(word: &str) -> f64 {
    let mut chars = word.chars();
    let (Some(first), Some(second)) = (chars.next(), chars.next()) else {
        return 1.0;
    };
    if !second.is_ascii_lowercase() {
        return 1.0;
    }
    match first {
        'K' | 'k' => 1e3,
        'M' => 1e6,
        'G' => 1e9,
        'T' => 1e12,
        'P' => 1e15,
        _ => 1.0,
    }
}

/// The factor that converts a value in `unit` to base units.
pub(crate) fn unit_factor(unit: &str) -> f64 {
    let unit = unit.trim();
    if unit.is_empty() {
        return 1.0;
    }
    let mut parts = unit.split('/');
    let numerator = parts.next().unwrap_or("");
    let mut factor = if numerator == "%" {
        0.01
    } else if let Some(seconds) = time_seconds(numerator) {
        seconds * 1e9
    } else {
        prefix_factor(numerator)
    };
    for denominator in parts {
        if let Some(seconds) = time_seconds(denominator) {
            factor /= seconds;
        } else {
            factor /= prefix_factor(denominator);
        }
    }
    factor
}

/// Unit words Nsight Compute prints that count things: their factor is 1.
const COUNT_WORDS: &[&str] = &[
    "SM",
    "block",
    "blocks",
    "branch",
    "branches",
    "cluster",
    "clusters",
    "cycle",
    "cycles",
    "inst",
    "instruction",
    "instructions",
    "pass",
    "passes",
    "register",
    "registers",
    "request",
    "requests",
    "sample",
    "samples",
    "sector",
    "sectors",
    "thread",
    "threads",
    "transaction",
    "transactions",
    "warp",
    "warps",
    "wavefront",
    "wavefronts",
];

/// What a unit measures, for the columns whose unit matters: a duration, a frequency, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dimension {
    /// `ns`, `usecond`, `second`, ...
    Time,
    /// `hz`, `Ghz`, `cycle/second`, `cycle/nsecond`, ...
    Frequency,
    /// `byte`, `Kbyte`, ...
    Bytes,
}

/// Whether `word` is a unit word warpsight knows the factor of: a time word, a (prefixed) byte or
/// hertz word, `%`, or a counting word.
fn is_known_word(word: &str) -> bool {
    if word == "%" || time_seconds(word).is_some() || COUNT_WORDS.contains(&word) {
        return true;
    }
    matches!(without_prefix(word), "byte" | "bytes" | "hz" | "Hz")
}

/// The dimension of a unit with a known factor, when it is one of [`Dimension`]'s.
fn dimension_of(unit: &str) -> Option<Dimension> {
    let mut parts = unit.split('/');
    let numerator = parts.next().unwrap_or("");
    let denominator = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let base = without_prefix(numerator);
    // A quantity per counted thing (`Kbyte/block`, shared memory per block) keeps its dimension.
    let per_count = denominator.is_none_or(|d| COUNT_WORDS.contains(&d));
    match (numerator, denominator) {
        (n, _) if per_count && time_seconds(n).is_some() => Some(Dimension::Time),
        (_, None) if matches!(base, "hz" | "Hz") => Some(Dimension::Frequency),
        _ if per_count && matches!(base, "byte" | "bytes") => Some(Dimension::Bytes),
        ("cycle" | "cycles", Some(d)) if time_seconds(d).is_some() => Some(Dimension::Frequency),
        _ => None,
    }
}

/// The dimension a launch-table column's values have, if its unit matters: `*_ns` columns are
/// durations, `*_hz` frequencies, `*_bytes` (and `*_bytes_*`) byte counts.
pub(crate) fn column_dimension(column: &str) -> Option<Dimension> {
    if column.ends_with("_ns") {
        Some(Dimension::Time)
    } else if column.ends_with("_hz") {
        Some(Dimension::Frequency)
    } else if column.ends_with("_bytes") || column.contains("_bytes_") {
        Some(Dimension::Bytes)
    } else {
        None
    }
}

/// Why a value in `unit` cannot fill launch-table column `column`, or `None` when it can: every
/// word of the unit must be one warpsight knows the factor of (an unknown word would be read with
/// factor 1, silently), and a duration, frequency or byte column needs a unit of that dimension.
/// An empty unit (a page printed without units) is taken as the base unit.
pub(crate) fn unit_problem(unit: &str, column: &str) -> Option<String> {
    let unit = unit.trim();
    if unit.is_empty() {
        return None;
    }
    if let Some(word) = unit.split('/').find(|w| !is_known_word(w)) {
        return Some(if word == unit {
            format!("unknown unit `{unit}`")
        } else {
            format!("unknown unit `{unit}` (the word `{word}`)")
        });
    }
    let expected = column_dimension(column)?;
    if dimension_of(unit) == Some(expected) {
        return None;
    }
    let what = match expected {
        Dimension::Time => "a time unit (ns, us, ms, s)",
        Dimension::Frequency => "a frequency unit (hz, Mhz, Ghz, cycle/second)",
        Dimension::Bytes => "a byte unit (byte, Kbyte, Mbyte, Gbyte)",
    };
    Some(format!("unit `{unit}` where `{column}` needs {what}"))
}

/// The aggregate part of a cell printed with `--print-metric-instances values`: the text before
/// the instance list, e.g. `186,449,920` of `186,449,920 (67,108,864; 44,138,496; …)`. A cell whose
/// metric has no aggregate prints only the list (`(0.00; 0; …)`) and gives an empty aggregate. A
/// cell without an instance list is returned as it is.
pub(crate) fn aggregate_of_instances(text: &str) -> &str {
    let text = text.trim();
    if !text.ends_with(')') {
        return text;
    }
    let Some(open) = text.find('(') else {
        return text;
    };
    let inner = &text[open + 1..text.len() - 1];
    // Instances are separated by `; `. A single instance has no separator; it is told from a
    // launch dimension like `(32, 32, 1)` by the absence of `, ` (thousands separators have no
    // space after the comma).
    let is_list = inner.contains(';')
        || (!inner.contains(", ") && (open == 0 || text[..open].ends_with(' ')));
    if is_list {
        text[..open].trim_end()
    } else {
        text
    }
}

/// Parses a metric value written in a unit whose factor is `factor`. A cell with an instance list
/// is read as its aggregate ([`aggregate_of_instances`]). ncu's non-finite values (`nan`, `-nan`,
/// `inf`, `-inf`, as its pages print them) are numbers: a metric column holding one stays Float64.
pub(crate) fn parse_value(text: &str, factor: f64) -> Value {
    let text = aggregate_of_instances(text);
    if text.is_empty() || text.eq_ignore_ascii_case("n/a") || text == "no data" {
        return Value::Null;
    }
    if text.contains(';') {
        return Value::Str(text.to_string());
    }
    if let Some(v) = parse_non_finite(text) {
        return Value::Num(v * factor);
    }
    match parse_number(text) {
        Some(v) => Value::Num(v * factor),
        None => Value::Str(text.to_string()),
    }
}

/// ncu's spellings of the non-finite values (`nan`, `-nan`, `inf`, `-inf`, any case), else `None`.
fn parse_non_finite(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let value = if body.eq_ignore_ascii_case("nan") {
        f64::NAN
    } else if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        f64::INFINITY
    } else {
        return None;
    };
    Some(if negative && value.is_infinite() {
        -value
    } else {
        value
    })
}

/// Parses a number that may contain thousands separators (`1,024.00`); `None` when it is not one.
pub(crate) fn parse_number(text: &str) -> Option<f64> {
    let first = text.as_bytes().first()?;
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return None;
    }
    if text.contains(',') {
        let stripped: String = text.chars().filter(|&c| c != ',').collect();
        stripped.parse().ok()
    } else {
        text.parse().ok()
    }
}

/// A cache of unit factors, so that each distinct unit string is analysed once per parser.
#[derive(Debug, Default)]
pub(crate) struct UnitCache {
    factors: HashMap<String, f64>,
    /// [`unit_problem`] by column, then by unit.
    problems: HashMap<&'static str, HashMap<String, Option<String>>>,
}

impl UnitCache {
    /// The factor of `unit`.
    pub(crate) fn factor(&mut self, unit: &str) -> f64 {
        if let Some(&f) = self.factors.get(unit) {
            return f;
        }
        let f = unit_factor(unit);
        self.factors.insert(unit.to_string(), f);
        f
    }

    /// [`unit_problem`] of `unit` for `column`, analysed once per pair.
    pub(crate) fn problem(&mut self, unit: &str, column: &'static str) -> Option<&str> {
        let by_unit = self.problems.entry(column).or_default();
        if !by_unit.contains_key(unit) {
            by_unit.insert(unit.to_string(), unit_problem(unit, column));
        }
        by_unit.get(unit).and_then(|p| p.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn every_spelling_converts_to_base_units() {
        let cases: &[(&str, f64)] = &[
            ("", 1.0),
            ("%", 0.01),
            ("nsecond", 1.0),
            ("ns", 1.0),
            ("usecond", 1e3),
            ("us", 1e3),
            ("msecond", 1e6),
            ("ms", 1e6),
            ("second", 1e9),
            ("s", 1e9),
            ("cycle/second", 1.0),
            ("cycle/nsecond", 1e9),
            ("cycle/usecond", 1e6),
            ("hz", 1.0),
            ("Khz", 1e3),
            ("Mhz", 1e6),
            ("Ghz", 1e9),
            ("byte", 1.0),
            ("Kbyte", 1e3),
            ("Mbyte", 1e6),
            ("Gbyte", 1e9),
            ("Tbyte", 1e12),
            ("byte/second", 1.0),
            ("Kbyte/second", 1e3),
            ("Mbyte/second", 1e6),
            ("Gbyte/second", 1e9),
            ("byte/s", 1.0),
            ("Kbyte/s", 1e3),
            ("Mbyte/s", 1e6),
            ("Gbyte/s", 1e9),
            ("Tbyte/s", 1e12),
            ("byte/block", 1.0),
            ("Kbyte/block", 1e3),
            ("Kbyte/cycle", 1e3),
            ("Kbyte/sector", 1e3),
            ("sector/us", 1e6),
            ("sector/ns", 1e9),
            ("sector/ms", 1e3),
            ("sector/s", 1.0),
            ("%/Kbyte", 0.01 / 1e3),
            ("%/register", 0.01),
            ("cycle", 1.0),
            ("inst", 1.0),
            ("warp/cycle", 1.0),
            ("register/thread", 1.0),
            ("SM", 1.0),
            ("block", 1.0),
        ];
        for (unit, want) in cases {
            assert!(
                close(unit_factor(unit), *want),
                "{unit}: {} != {want}",
                unit_factor(unit)
            );
        }
    }

    #[test]
    fn values_follow_the_documented_rules() {
        assert_eq!(parse_value("1,024", 1.0), Value::Num(1024.0));
        assert_eq!(
            parse_value("967,585,940.83", 1.0),
            Value::Num(967_585_940.83)
        );
        assert_eq!(parse_value("n/a", 1.0), Value::Null);
        assert_eq!(parse_value("no data", 1.0), Value::Null);
        assert_eq!(parse_value("", 1.0), Value::Null);
        assert_eq!(
            parse_value("CachePreferNone", 1.0),
            Value::Str("CachePreferNone".into())
        );
        assert_eq!(parse_value("0x3", 1.0), Value::Str("0x3".into()));
        assert_eq!(
            parse_value("32.00; 32.00; 0.00", 1.0),
            Value::Str("32.00; 32.00; 0.00".into())
        );
        assert_eq!(parse_value("-105", 1.0), Value::Num(-105.0));
        // `--print-metric-instances values` cells (kit captures): the aggregate before the list.
        assert_eq!(
            parse_value("186,449,920 (67,108,864; 44,138,496; 0)", 1.0),
            Value::Num(186_449_920.0)
        );
        assert_eq!(parse_value("32 (32)", 1.0), Value::Num(32.0));
        assert_eq!(parse_value("(0.00; 0; 0)", 1.0), Value::Null);
        // Launch dimensions and text values in parentheses are not instance lists.
        assert_eq!(
            parse_value("(32, 32, 1)", 1.0),
            Value::Str("(32, 32, 1)".into())
        );
        assert_eq!(parse_value("1.5e3", 1.0), Value::Num(1500.0));
        // A `Kbyte` value from #14 (32.77 Kbyte) becomes bytes; a percentage becomes a ratio.
        assert_eq!(
            parse_value("32.77", unit_factor("Kbyte")),
            Value::Num(32_770.0)
        );
        assert_eq!(parse_value("62.50", unit_factor("%")), Value::Num(0.625));
        assert_eq!(parse_value("6.75", unit_factor("us")), Value::Num(6750.0));
    }

    #[test]
    fn unknown_units_and_wrong_dimensions_are_named() {
        assert_eq!(unit_problem("nsecond", "duration_ns"), None);
        assert_eq!(unit_problem("us", "duration_ns"), None);
        assert_eq!(unit_problem("", "duration_ns"), None);
        assert_eq!(unit_problem("cycle/nsecond", "sm_clock_hz"), None);
        assert_eq!(unit_problem("Ghz", "dram_clock_hz"), None);
        assert_eq!(unit_problem("Kbyte", "dram_bytes_read"), None);
        assert_eq!(unit_problem("Kbyte/block", "static_smem_bytes"), None);
        assert!(unit_problem("byte/second", "dram_bytes_read").is_some());
        assert_eq!(
            unit_problem("register/thread", "registers_per_thread"),
            None
        );
        assert_eq!(unit_problem("%", "achieved_occupancy"), None);
        let parsec = unit_problem("parsec", "duration_ns").unwrap_or_default();
        assert!(parsec.contains("unknown unit `parsec`"), "{parsec}");
        let byte = unit_problem("byte", "duration_ns").unwrap_or_default();
        assert!(byte.contains("needs a time unit"), "{byte}");
        let word = unit_problem("Kbyte/fortnight", "inst_fadd").unwrap_or_default();
        assert!(word.contains("`fortnight`"), "{word}");
    }
}
