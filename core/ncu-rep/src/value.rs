//! Metric values: the `ProfileMetricValue` message (one of string, float, double, uint32, uint64)
//! as a Rust enum, and its decoder.

use std::fmt;

use crate::error::DecodeError;
use crate::wire::{Reader, WireValue};

/// One metric value exactly as the report stores it (`ProfileMetricValue`).
///
/// Numbers are unscaled base units as the metric defines them (ns, byte, cycle, %, …): the same
/// units the raw CSV page prints with `--print-units base`.
///
/// The enum is 16 bytes (`Option<Value>` too): strings, which are rare among metric values, sit
/// behind a thin `Box<String>` so that the numeric variants, which make up nearly all of the
/// tens of millions of values a large report holds, stay small.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Field 1, `StringValue` (e.g. `device__attribute_display_name`).
    String(Box<String>),
    /// Field 2, `FloatValue`.
    Float(f32),
    /// Field 3, `DoubleValue`.
    Double(f64),
    /// Field 4, `Uint32Value`.
    Uint32(u32),
    /// Field 5, `Uint64Value`.
    Uint64(u64),
}

impl Value {
    /// The value as an `f64` if it is numeric (integers above 2^53 lose precision).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::String(_) => None,
            Value::Float(f) => Some(f64::from(f)),
            Value::Double(d) => Some(d),
            Value::Uint32(u) => Some(f64::from(u)),
            Value::Uint64(u) => Some(u as f64),
        }
    }

    /// The value as a `u64` if it is stored as an integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Uint32(u) => Some(u64::from(u)),
            Value::Uint64(u) => Some(u),
            _ => None,
        }
    }

    /// The value as a string slice if it is stored as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    /// Formats the exact value: integers in full, floating-point numbers in Rust's shortest
    /// round-trip form, strings verbatim. (The raw CSV page instead rounds to two decimals and
    /// adds thousands separators.)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::String(s) => f.write_str(s),
            Value::Float(v) => write!(f, "{v}"),
            Value::Double(v) => write!(f, "{v}"),
            Value::Uint32(v) => write!(f, "{v}"),
            Value::Uint64(v) => write!(f, "{v}"),
        }
    }
}

/// Decodes a `ProfileMetricValue` message that starts at absolute offset `base`.
///
/// Returns `None` when none of the five value fields is set. If several are set (never seen),
/// the last one wins, as protobuf's rules for a `oneof` say. Unknown fields are skipped.
#[inline]
pub(crate) fn decode_value(bytes: &[u8], base: usize) -> Result<Option<Value>, DecodeError> {
    // Fast paths for the encodings ncu writes for nearly every value: a lone Uint64Value with a
    // one-byte varint, or a lone DoubleValue.
    match bytes {
        [0x28, b] if *b < 0x80 => return Ok(Some(Value::Uint64(u64::from(*b)))),
        [0x19, rest @ ..] if rest.len() == 8 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(rest);
            return Ok(Some(Value::Double(f64::from_le_bytes(a))));
        }
        _ => {}
    }
    let mut r = Reader::new(bytes, base);
    let mut out = None;
    while let Some(f) = r.next_field()? {
        out = match (f.number, f.value) {
            (1, WireValue::Len(b, _)) => Some(Value::String(Box::new(
                String::from_utf8_lossy(b).into_owned(),
            ))),
            (2, WireValue::Fixed32(bits)) => Some(Value::Float(f32::from_bits(bits))),
            (3, WireValue::Fixed64(bits)) => Some(Value::Double(f64::from_bits(bits))),
            // A uint32 on the wire is a varint; protobuf truncates an oversized one.
            (4, WireValue::Varint(v)) => Some(Value::Uint32(v as u32)),
            (5, WireValue::Varint(v)) => Some(Value::Uint64(v)),
            (1..=5, other) => {
                return Err(DecodeError::WireType {
                    offset: f.offset,
                    field: "ProfileMetricValue",
                    expected: [0, 2, 5, 1, 0, 0][f.number as usize],
                    found: other.wire_type(),
                });
            }
            _ => out,
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_small() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
    }

    #[test]
    fn every_variant_decodes() {
        assert_eq!(
            decode_value(&[0x0a, 0x02, b'o', b'k'], 0),
            Ok(Some(Value::String(Box::new("ok".to_string()))))
        );
        let mut f = vec![0x15];
        f.extend_from_slice(&2.5f32.to_le_bytes());
        assert_eq!(decode_value(&f, 0), Ok(Some(Value::Float(2.5))));
        let mut d = vec![0x19];
        d.extend_from_slice(&2.5f64.to_le_bytes());
        assert_eq!(decode_value(&d, 0), Ok(Some(Value::Double(2.5))));
        assert_eq!(decode_value(&[0x20, 0x05], 0), Ok(Some(Value::Uint32(5))));
        assert_eq!(
            decode_value(&[0x28, 0x80, 0x02], 0),
            Ok(Some(Value::Uint64(256)))
        );
        assert_eq!(decode_value(&[], 0), Ok(None));
        // An unknown field is skipped.
        assert_eq!(
            decode_value(&[0x30, 0x01, 0x20, 0x07], 0),
            Ok(Some(Value::Uint32(7)))
        );
        // A known field with the wrong wire type is an error.
        assert!(decode_value(&[0x18, 0x01], 0).is_err());
    }
}
