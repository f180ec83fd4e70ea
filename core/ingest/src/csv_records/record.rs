//! One RFC-4180 record at a time from an in-memory slice of CSV text, on `csv-core`.
//!
//! What it tolerates (FORMATS.md §0): ragged records (missing trailing fields read as ""), quoted
//! fields with commas, doubled quotes and embedded newlines, `\r\n` line endings and a UTF-8 BOM.
//! Each record carries the 1-based physical line where it starts, for error messages. Invalid
//! UTF-8 inside a field reads as U+FFFD through [`Record::get`]; [`Record::text`] validates a
//! whole record once for readers that parse every field (the nsys rows).

use std::borrow::Cow;

/// One parsed record: the fields (as bytes) and where it starts.
#[derive(Debug, Default)]
pub(crate) struct Record {
    buf: Vec<u8>,
    ends: Vec<usize>,
    nends: usize,
    /// 1-based physical line where the record starts.
    pub(crate) line: u64,
}

impl Record {
    /// Number of fields actually present in the record.
    pub(crate) fn len(&self) -> usize {
        self.nends
    }

    /// Field `i` as bytes; a missing trailing field reads as empty.
    pub(crate) fn bytes(&self, i: usize) -> &[u8] {
        if i >= self.nends {
            return b"";
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }

    /// Field `i` as text (U+FFFD when it is not valid UTF-8); a missing field reads as "".
    pub(crate) fn get(&self, i: usize) -> &str {
        std::str::from_utf8(self.bytes(i)).unwrap_or("\u{FFFD}")
    }

    /// Field `i` as text, with every invalid UTF-8 sequence replaced by U+FFFD.
    pub(crate) fn get_lossy(&self, i: usize) -> Cow<'_, str> {
        String::from_utf8_lossy(self.bytes(i))
    }

    /// Field `i` when the index is known (`Some`), else "".
    pub(crate) fn get_opt(&self, i: Option<usize>) -> &str {
        i.map_or("", |i| self.get(i))
    }

    /// All fields as owned strings.
    pub(crate) fn to_strings(&self) -> Vec<String> {
        (0..self.nends).map(|i| self.get(i).to_string()).collect()
    }

    /// The fields as text, validated once for the whole record; fails when any field is not valid
    /// UTF-8, so that a row parser can read every field as `&str` without checking each one.
    pub(crate) fn text(&self) -> Result<TextFields<'_>, NotUtf8> {
        let used = if self.nends == 0 {
            0
        } else {
            self.ends[self.nends - 1]
        };
        let text = std::str::from_utf8(&self.buf[..used]).map_err(NotUtf8::Invalid)?;
        let ends = &self.ends[..self.nends];
        if ends.iter().any(|&end| !text.is_char_boundary(end)) {
            return Err(NotUtf8::SplitCharacter);
        }
        Ok(TextFields { text, ends })
    }
}

/// Why a record cannot be read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotUtf8 {
    /// The fields hold an invalid UTF-8 sequence.
    Invalid(std::str::Utf8Error),
    /// A multi-byte character is split across two fields (each field alone is invalid).
    SplitCharacter,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotUtf8::Invalid(error) => error.fmt(f),
            NotUtf8::SplitCharacter => f.write_str("a character is split across two fields"),
        }
    }
}

/// The fields of one record as text (see [`Record::text`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextFields<'a> {
    text: &'a str,
    ends: &'a [usize],
}

impl<'a> TextFields<'a> {
    /// Number of fields in the record.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Field `i`; a missing trailing field reads as "".
    pub(crate) fn get(&self, i: usize) -> &'a str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end).unwrap_or("")
    }

    /// True for a record that is one field of white space (a blank line).
    pub(crate) fn is_blank(&self) -> bool {
        self.len() <= 1 && self.get(0).trim().is_empty()
    }
}

/// Reads records one by one from an in-memory slice of CSV text.
pub(crate) struct RecordReader<'a> {
    input: &'a [u8],
    core: csv_core::Reader,
    line: u64,
    finished: bool,
}

impl<'a> RecordReader<'a> {
    /// A reader over `input` whose first byte is on physical line `first_line` (1-based).
    pub(crate) fn new(input: &'a [u8], first_line: u64) -> Self {
        RecordReader {
            input,
            core: csv_core::Reader::new(),
            line: first_line,
            finished: false,
        }
    }

    /// Bytes not consumed yet.
    pub(crate) fn remaining(&self) -> &'a [u8] {
        self.input
    }

    /// Reads the next record into `record`. Returns `false` at the end of the input. A record
    /// without a final line terminator at the end of the input is still returned.
    pub(crate) fn read(&mut self, record: &mut Record) -> bool {
        if self.finished {
            return false;
        }
        if record.buf.len() < 256 {
            record.buf.resize(4096, 0);
        }
        if record.ends.len() < 8 {
            record.ends.resize(64, 0);
        }
        let (mut out, mut nend) = (0usize, 0usize);
        let mut started = false;
        loop {
            let (res, nin, nout, ne) =
                self.core
                    .read_record(self.input, &mut record.buf[out..], &mut record.ends[nend..]);
            let consumed = &self.input[..nin];
            if !started {
                // Blank lines before the record are skipped by csv-core; do not count them as the
                // record's own start.
                let leading = consumed
                    .iter()
                    .take_while(|&&b| b == b'\n' || b == b'\r')
                    .count();
                self.line += count_newlines(&consumed[..leading]);
                record.line = self.line;
                self.line += count_newlines(&consumed[leading..]);
                started = leading < nin;
            } else {
                self.line += count_newlines(consumed);
            }
            self.input = &self.input[nin..];
            out += nout;
            nend += ne;
            match res {
                csv_core::ReadRecordResult::InputEmpty => {
                    // An empty input tells csv-core to flush the final record: loop once more.
                }
                csv_core::ReadRecordResult::OutputFull => {
                    let len = record.buf.len() * 2;
                    record.buf.resize(len, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => {
                    let len = record.ends.len() * 2;
                    record.ends.resize(len, 0);
                }
                csv_core::ReadRecordResult::Record => {
                    record.nends = nend;
                    return true;
                }
                csv_core::ReadRecordResult::End => {
                    self.finished = true;
                    return false;
                }
            }
        }
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut reader = RecordReader::new(text.as_bytes(), 1);
        let mut rec = Record::default();
        let mut out = Vec::new();
        while reader.read(&mut rec) {
            out.push((rec.line, rec.to_strings()));
        }
        out
    }

    #[test]
    fn quoted_commas_doubled_quotes_and_embedded_newlines() {
        let text = "\"a\",\"b, c\"\r\n\"x\",\"see \"\"Local\"\"\nline two\"\n\"last\",\"1,024\"";
        let recs = all(text);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0], (1, vec!["a".to_string(), "b, c".to_string()]));
        assert_eq!(recs[1].0, 2);
        assert_eq!(recs[1].1[1], "see \"Local\"\nline two");
        assert_eq!(recs[2], (4, vec!["last".to_string(), "1,024".to_string()]));
    }

    #[test]
    fn ragged_records_read_missing_fields_as_empty() {
        let mut reader = RecordReader::new(b"\"a\",\"b\",\"c\"\n\"1\",\"2\",\n", 1);
        let mut rec = Record::default();
        assert!(reader.read(&mut rec));
        assert!(reader.read(&mut rec));
        assert_eq!(rec.len(), 3);
        assert_eq!(rec.get(2), "");
        assert_eq!(rec.get(7), "");
    }

    #[test]
    fn blank_lines_do_not_shift_record_lines() {
        let recs = all("\"a\"\n\n\"b\"\n");
        assert_eq!(recs.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 3]);
    }

    #[test]
    fn nsys_rows_quote_only_the_fields_that_need_it() {
        let recs = all("1,,3,\n24.9,\"void k<int, float>(T1)\",\"say \"\"hi\"\"\",x\n");
        assert_eq!(recs[0].1, ["1", "", "3", ""]);
        assert_eq!(
            recs[1].1,
            ["24.9", "void k<int, float>(T1)", "say \"hi\"", "x"]
        );
    }

    #[test]
    fn text_fields_are_validated_once() -> Result<(), NotUtf8> {
        let mut reader = RecordReader::new("1,\"k<a, b>\",\n  \n".as_bytes(), 1);
        let mut rec = Record::default();
        assert!(reader.read(&mut rec));
        let fields = rec.text()?;
        assert_eq!(
            (0..4).map(|i| fields.get(i)).collect::<Vec<_>>(),
            ["1", "k<a, b>", "", ""]
        );
        assert!(!fields.is_blank());
        assert!(reader.read(&mut rec));
        assert!(rec.text()?.is_blank());
        let mut reader = RecordReader::new(b"\xc3,\xa9\nok,\xff\n", 1);
        assert!(reader.read(&mut rec));
        assert_eq!(rec.text().err(), Some(NotUtf8::SplitCharacter));
        assert!(reader.read(&mut rec));
        assert!(matches!(rec.text(), Err(NotUtf8::Invalid(_))));
        assert_eq!(rec.get_lossy(1), "\u{FFFD}");
        Ok(())
    }
}
