//! Record and field splitting for Nsight Systems `nsys stats --format csv` output, plus the
//! header-unit parsing that the `cuda_gpu_trace` and `cuda_gpu_kern_sum` readers share.
//!
//! nsys quotes only the fields that need it (kernel names with commas), so most records have no
//! quote at all and are split on commas directly; quoted fields follow RFC 4180 (`""` is a quote,
//! and a quoted field may span physical lines). Records are handed out with the 1-based physical
//! line they start on, so that rejected rows can be reported precisely.

use std::borrow::Cow;

use memchr::{memchr, memchr_iter};

/// One logical record of the input: its first physical line number and its text without the line
/// terminator.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// 1-based physical line the record starts on.
    pub line: u64,
    /// The record's bytes (possibly several physical lines when a quoted field holds a newline).
    pub bytes: &'a [u8],
}

/// Iterates over the records of a byte buffer, one per line, joining physical lines while a
/// quoted field is open.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    data: &'a [u8],
    pos: usize,
    next_line: u64,
}

impl<'a> Records<'a> {
    /// Records of `data`, whose first byte is at 1-based physical line `first_line`.
    pub fn new(data: &'a [u8], first_line: u64) -> Self {
        Records {
            data,
            pos: 0,
            next_line: first_line,
        }
    }

    /// The physical line the next record starts on.
    pub fn next_line(&self) -> u64 {
        self.next_line
    }

    /// The byte offset in the buffer where the next record starts.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let line = self.next_line;
        let mut search = start;
        let mut open_quote = false;
        let end = loop {
            let rest = &self.data[search..];
            match memchr(b'\n', rest) {
                Some(offset) => {
                    let newline = search + offset;
                    self.next_line += 1;
                    let segment = &self.data[search..newline];
                    if memchr(b'"', segment).is_some() {
                        let quotes = memchr_iter(b'"', segment).count();
                        open_quote ^= quotes % 2 == 1;
                    }
                    search = newline + 1;
                    if !open_quote {
                        self.pos = search;
                        break newline;
                    }
                }
                None => {
                    self.pos = self.data.len();
                    break self.data.len();
                }
            }
        };
        let mut bytes = &self.data[start..end];
        if let [head @ .., b'\r'] = bytes {
            bytes = head;
        }
        Some(Record { line, bytes })
    }
}

/// Splits one record into its fields (appending to `out`, which is cleared first). Quoted fields
/// are unquoted and `""` becomes `"`; a field that is not quoted is returned unchanged.
pub fn split_fields<'a>(record: &'a str, out: &mut Vec<Cow<'a, str>>) {
    out.clear();
    let bytes = record.as_bytes();
    if memchr(b'"', bytes).is_none() {
        out.extend(record.split(',').map(Cow::Borrowed));
        return;
    }
    let mut pos = 0usize;
    loop {
        if bytes.get(pos) == Some(&b'"') {
            let (field, after) = quoted_field(record, pos + 1);
            out.push(field);
            // Anything between the closing quote and the next comma is malformed; keep going at
            // the comma so that the following fields stay aligned.
            match memchr(b',', &bytes[after.min(bytes.len())..]) {
                Some(offset) => pos = after + offset + 1,
                None => return,
            }
        } else {
            match memchr(b',', &bytes[pos..]) {
                Some(offset) => {
                    out.push(Cow::Borrowed(&record[pos..pos + offset]));
                    pos += offset + 1;
                }
                None => {
                    out.push(Cow::Borrowed(&record[pos..]));
                    return;
                }
            }
        }
        if pos == bytes.len() {
            out.push(Cow::Borrowed(""));
            return;
        }
    }
}

/// Reads a quoted field whose content starts at `start` (just after the opening quote). Returns
/// the unquoted text and the position just after the closing quote.
fn quoted_field(record: &str, start: usize) -> (Cow<'_, str>, usize) {
    let bytes = record.as_bytes();
    let mut owned: Option<String> = None;
    let mut chunk_start = start;
    let mut pos = start;
    loop {
        match memchr(b'"', &bytes[pos..]) {
            None => {
                // An unterminated quote: take the rest of the record.
                let text = &record[chunk_start..];
                return match owned {
                    Some(mut s) => {
                        s.push_str(text);
                        (Cow::Owned(s), bytes.len())
                    }
                    None => (Cow::Borrowed(text), bytes.len()),
                };
            }
            Some(offset) => {
                let quote = pos + offset;
                if bytes.get(quote + 1) == Some(&b'"') {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&record[chunk_start..=quote]);
                    pos = quote + 2;
                    chunk_start = pos;
                } else {
                    let text = &record[chunk_start..quote];
                    return match owned {
                        Some(mut s) => {
                            s.push_str(text);
                            (Cow::Owned(s), quote + 1)
                        }
                        None => (Cow::Borrowed(text), quote + 1),
                    };
                }
            }
        }
    }
}

/// Splits a header label into its name and the unit in parentheses: `Start (ns)` gives
/// (`Start`, `Some("ns")`), `Start(sec)` gives (`Start`, `Some("sec")`), `CorrId` gives
/// (`CorrId`, `None`).
pub fn label_and_unit(label: &str) -> (&str, Option<&str>) {
    let label = label.trim();
    if let Some(stripped) = label.strip_suffix(')')
        && let Some(open) = stripped.rfind('(')
    {
        return (
            stripped[..open].trim_end(),
            Some(stripped[open + 1..].trim()),
        );
    }
    (label, None)
}

/// Nanoseconds per unit for a time unit printed by nsys (`ns`, `us`, `ms`, `s`, also `sec`,
/// `usec`, `msec`, `nsec`).
pub fn ns_per_unit(unit: &str) -> Option<f64> {
    match unit {
        "ns" | "nsec" => Some(1.0),
        "us" | "usec" | "μs" | "µs" => Some(1e3),
        "ms" | "msec" => Some(1e6),
        "s" | "sec" => Some(1e9),
        _ => None,
    }
}

/// Bytes per unit for a memory-size unit printed by nsys. nsys uses decimal prefixes (0.131 MB is
/// printed for 131 072 bytes), so `KB`/`MB`/`GB` are 1e3/1e6/1e9; the binary `KiB`/`MiB`/`GiB`
/// are accepted too.
pub fn bytes_per_unit(unit: &str) -> Option<f64> {
    match unit {
        "B" | "byte" | "bytes" => Some(1.0),
        "KB" | "kB" => Some(1e3),
        "MB" => Some(1e6),
        "GB" => Some(1e9),
        "KiB" => Some(1024.0),
        "MiB" => Some(1024.0 * 1024.0),
        "GiB" => Some(1024.0 * 1024.0 * 1024.0),
        _ => None,
    }
}

/// Bytes per second per unit for a throughput unit: `MB/s` (nsys 2024+) and `MBps` (older), with
/// any prefix [`bytes_per_unit`] accepts.
pub fn bytes_per_second_per_unit(unit: &str) -> Option<f64> {
    let size = unit
        .strip_suffix("/s")
        .or_else(|| unit.strip_suffix("ps"))?;
    bytes_per_unit(size)
}

/// True for the console lines nsys prints around its CSV tables when writing to stdout
/// (`Processing [x.sqlite] with [...]`, `NOTICE: ...`, `SKIPPED: ...`, and the like).
pub fn is_nsys_console_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("Processing [")
        || line.starts_with("NOTICE:")
        || line.starts_with("SKIPPED:")
        || line.starts_with("WARNING:")
        || line.starts_with("ERROR:")
        || line.starts_with("Generating ")
        || line.starts_with("Exporting ")
        || line.starts_with("** ")
}

/// Parses a decimal integer cell. Cells written as `12.000` (a whole number with decimals) are
/// accepted; anything else that is not an integer is an error.
pub fn parse_i64(cell: &str) -> Option<i64> {
    let cell = cell.trim();
    if let Ok(value) = cell.parse::<i64>() {
        return Some(value);
    }
    let value: f64 = cell.parse().ok()?;
    (value.is_finite() && value.fract() == 0.0 && value.abs() < 9.0e18).then_some(value as i64)
}

/// Parses a decimal number cell (finite values only).
pub fn parse_f64(cell: &str) -> Option<f64> {
    let value: f64 = cell.trim().parse().ok()?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(record: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_fields(record, &mut out);
        out.into_iter().map(Cow::into_owned).collect()
    }

    #[test]
    fn unquoted_records_split_on_every_comma() {
        assert_eq!(fields("1,,3,"), ["1", "", "3", ""]);
    }

    #[test]
    fn quoted_fields_keep_commas_and_unescape_doubled_quotes() {
        assert_eq!(
            fields("24.9,\"void k<int, float>(T1)\",\"say \"\"hi\"\"\",x"),
            ["24.9", "void k<int, float>(T1)", "say \"hi\"", "x"]
        );
        assert_eq!(fields("\"a,b\""), ["a,b"]);
        assert_eq!(fields("\"a\","), ["a", ""]);
    }

    #[test]
    fn records_carry_their_line_and_join_quoted_newlines() {
        let data = b"a,b\r\n\"x\ny\",z\nlast";
        let records: Vec<(u64, &[u8])> = Records::new(data, 5).map(|r| (r.line, r.bytes)).collect();
        assert_eq!(
            records,
            [(5, &b"a,b"[..]), (6, &b"\"x\ny\",z"[..]), (8, &b"last"[..])]
        );
    }

    #[test]
    fn header_units_are_parsed() {
        assert_eq!(label_and_unit("Start (ns)"), ("Start", Some("ns")));
        assert_eq!(label_and_unit("Start(sec)"), ("Start", Some("sec")));
        assert_eq!(
            label_and_unit("Throughput (MB/s)"),
            ("Throughput", Some("MB/s"))
        );
        assert_eq!(label_and_unit("Reg/Trd"), ("Reg/Trd", None));
        assert_eq!(ns_per_unit("us"), Some(1e3));
        assert_eq!(bytes_per_unit("MB"), Some(1e6));
        assert_eq!(bytes_per_second_per_unit("MBps"), Some(1e6));
        assert_eq!(bytes_per_second_per_unit("GB/s"), Some(1e9));
        assert_eq!(bytes_per_second_per_unit("MB"), None);
    }

    #[test]
    fn integers_with_trailing_zero_decimals_are_accepted() {
        assert_eq!(parse_i64("12"), Some(12));
        assert_eq!(parse_i64("12.000"), Some(12));
        assert_eq!(parse_i64("12.5"), None);
        assert_eq!(parse_i64("abc"), None);
        assert_eq!(parse_f64("0.019"), Some(0.019));
        assert_eq!(parse_f64("inf"), None);
    }
}
