//! A small, hand-written reader for the protobuf wire format (proto2): varints, fixed32/fixed64,
//! length-delimited fields and packed repeated scalars. Every length is checked against the bytes
//! that remain before anything is sliced, and every offset it reports is absolute in the input.

use crate::error::DecodeError;

/// Wire type 0: a base-128 varint.
pub(crate) const VARINT: u8 = 0;
/// Wire type 1: eight little-endian bytes (fixed64, sfixed64, double).
pub(crate) const FIXED64: u8 = 1;
/// Wire type 2: a varint length followed by that many bytes (string, bytes, message, packed).
pub(crate) const LEN: u8 = 2;
/// Wire type 5: four little-endian bytes (fixed32, sfixed32, float).
pub(crate) const FIXED32: u8 = 5;

/// The value of one field as the wire format carries it, before the schema gives it a meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum WireValue<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: the bytes and the absolute offset of their first byte.
    Len(&'a [u8], usize),
    /// Wire type 5.
    Fixed32(u32),
}

impl WireValue<'_> {
    /// The numeric wire type of this value, for error messages.
    pub(crate) fn wire_type(&self) -> u8 {
        match self {
            WireValue::Varint(_) => VARINT,
            WireValue::Fixed64(_) => FIXED64,
            WireValue::Len(..) => LEN,
            WireValue::Fixed32(_) => FIXED32,
        }
    }
}

/// One decoded field: its number, its value and the absolute offset of its key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Field<'a> {
    /// The field number from the key.
    pub number: u32,
    /// The value that follows the key.
    pub value: WireValue<'a>,
    /// Absolute offset of the key in the input.
    pub offset: usize,
}

impl<'a> Field<'a> {
    /// The value as a varint, or a wire-type error naming `name`.
    pub(crate) fn varint(&self, name: &'static str) -> Result<u64, DecodeError> {
        match self.value {
            WireValue::Varint(v) => Ok(v),
            other => Err(self.wire_error(name, VARINT, other)),
        }
    }

    /// The value as length-delimited bytes with their absolute offset, or a wire-type error.
    pub(crate) fn bytes(&self, name: &'static str) -> Result<(&'a [u8], usize), DecodeError> {
        match self.value {
            WireValue::Len(b, o) => Ok((b, o)),
            other => Err(self.wire_error(name, LEN, other)),
        }
    }

    /// The value as a UTF-8 string (invalid sequences replaced by U+FFFD), or a wire-type error.
    pub(crate) fn string(&self, name: &'static str) -> Result<String, DecodeError> {
        let (b, _) = self.bytes(name)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    /// Builds the error for a field whose wire type differs from the schema's.
    fn wire_error(&self, name: &'static str, expected: u8, found: WireValue<'_>) -> DecodeError {
        DecodeError::WireType {
            offset: self.offset,
            field: name,
            expected,
            found: found.wire_type(),
        }
    }
}

/// A cursor over one protobuf message (or any byte range) that knows its absolute offset.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `buf`, whose first byte sits at absolute offset `base` in the input.
    pub(crate) fn new(buf: &'a [u8], base: usize) -> Self {
        Reader { buf, pos: 0, base }
    }

    /// The absolute offset of the next byte to be read.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The number of bytes not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether every byte has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Reads a base-128 varint of at most ten bytes.
    #[inline]
    pub(crate) fn read_varint(&mut self) -> Result<u64, DecodeError> {
        // Fast path: a one-byte varint, the most common case for keys and small values.
        if let Some(&b) = self.buf.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(b));
        }
        self.read_varint_slow()
    }

    /// Reads a multi-byte varint; rejects one that is cut off or longer than ten bytes.
    fn read_varint_slow(&mut self) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..10 {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(DecodeError::Truncated {
                    offset: self.base + start,
                    expected: "the rest of a varint",
                    remaining: self.buf.len() - start,
                });
            };
            self.pos += 1;
            // The tenth byte may only contribute the top bit of a u64.
            if i == 9 && b > 1 {
                return Err(DecodeError::Malformed {
                    offset: self.base + start,
                    expected: "a varint that fits in 64 bits",
                });
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(DecodeError::Malformed {
            offset: self.base + start,
            expected: "a varint of at most 10 bytes",
        })
    }

    /// Reads a little-endian u32 (wire type 5, and the size prefixes of the report layout).
    pub(crate) fn read_fixed32(&mut self, expected: &'static str) -> Result<u32, DecodeError> {
        let b = self.take(4, expected)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads a little-endian u64 (wire type 1).
    pub(crate) fn read_fixed64(&mut self, expected: &'static str) -> Result<u64, DecodeError> {
        let b = self.take(8, expected)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// Takes exactly `n` bytes of a fixed-size item, or reports the item as truncated.
    fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < n {
            return Err(DecodeError::Truncated {
                offset: self.offset(),
                expected,
                remaining: self.remaining(),
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Takes `size` bytes announced by a size field at `size_offset`; a size larger than what
    /// remains is a [`DecodeError::SizeExceeds`]. Returns the bytes and their absolute offset.
    pub(crate) fn take_sized(
        &mut self,
        size: u64,
        size_offset: usize,
        what: &'static str,
    ) -> Result<(&'a [u8], usize), DecodeError> {
        let remaining = self.remaining();
        if size > remaining as u64 {
            return Err(DecodeError::SizeExceeds {
                offset: size_offset,
                what,
                size,
                remaining,
            });
        }
        // The comparison above guarantees that `size` fits in usize.
        let n = size as usize;
        let at = self.offset();
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok((s, at))
    }

    /// Skips `n` bytes announced by a size field (used for SourceData payloads).
    pub(crate) fn skip_sized(
        &mut self,
        size: u64,
        size_offset: usize,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        self.take_sized(size, size_offset, what).map(|_| ())
    }

    /// Reads the next field of a message, or `None` at the end of the message.
    ///
    /// Groups (wire types 3 and 4) are deprecated and never used by Nsight Compute; they and the
    /// undefined wire types 6 and 7 are reported as malformed input.
    #[inline]
    pub(crate) fn next_field(&mut self) -> Result<Option<Field<'a>>, DecodeError> {
        let pos = self.pos;
        let buf = self.buf;
        let Some(&key) = buf.get(pos) else {
            return Ok(None);
        };
        // Fast path: a one-byte key followed by a one-byte varint or a one-byte length, which
        // is how nearly every field of a metric is written.
        if (8..0x80).contains(&key)
            && let Some(&b) = buf.get(pos + 1)
            && b < 0x80
        {
            let number = u32::from(key >> 3);
            let offset = self.base + pos;
            match key & 7 {
                VARINT => {
                    self.pos = pos + 2;
                    let value = WireValue::Varint(u64::from(b));
                    return Ok(Some(Field {
                        number,
                        value,
                        offset,
                    }));
                }
                LEN => {
                    let start = pos + 2;
                    let n = usize::from(b);
                    if buf.len() - start >= n {
                        self.pos = start + n;
                        let value = WireValue::Len(&buf[start..start + n], self.base + start);
                        return Ok(Some(Field {
                            number,
                            value,
                            offset,
                        }));
                    }
                }
                _ => {}
            }
        }
        self.next_field_slow()
    }

    /// The general case of [`Reader::next_field`]: any key, any wire type, any length.
    fn next_field_slow(&mut self) -> Result<Option<Field<'a>>, DecodeError> {
        if self.is_empty() {
            return Ok(None);
        }
        let offset = self.offset();
        let key = self.read_varint()?;
        let number = key >> 3;
        if number == 0 || number > u64::from(u32::MAX >> 3) {
            return Err(DecodeError::Malformed {
                offset,
                expected: "a field key with a field number between 1 and 536870911",
            });
        }
        let value = match (key & 7) as u8 {
            VARINT => WireValue::Varint(self.read_varint()?),
            FIXED64 => WireValue::Fixed64(self.read_fixed64("an 8-byte fixed64 field")?),
            LEN => {
                let len_offset = self.offset();
                let len = self.read_varint()?;
                let (b, at) = self.take_sized(len, len_offset, "length-delimited field")?;
                WireValue::Len(b, at)
            }
            FIXED32 => WireValue::Fixed32(self.read_fixed32("a 4-byte fixed32 field")?),
            _ => {
                return Err(DecodeError::Malformed {
                    offset,
                    expected: "a field key with wire type 0, 1, 2 or 5",
                });
            }
        };
        Ok(Some(Field {
            number: number as u32,
            value,
            offset,
        }))
    }
}

/// Iterates over the varints of a packed repeated scalar field (wire type 2 holding varints).
///
/// proto2 readers must accept the packed encoding for every repeated scalar field; none of the
/// fields this crate reads today is a repeated scalar, so this exists for forward compatibility
/// and is exercised by the unit tests.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct PackedVarints<'a> {
    reader: Reader<'a>,
    failed: bool,
}

#[cfg_attr(not(test), allow(dead_code))]
impl<'a> PackedVarints<'a> {
    /// Iterates over the varints packed into `bytes`, which start at absolute offset `base`.
    pub(crate) fn new(bytes: &'a [u8], base: usize) -> Self {
        PackedVarints {
            reader: Reader::new(bytes, base),
            failed: false,
        }
    }
}

impl Iterator for PackedVarints<'_> {
    type Item = Result<u64, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.is_empty() {
            return None;
        }
        let r = self.reader.read_varint();
        self.failed = r.is_err();
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        let mut r = Reader::new(&[0x96, 0x01, 0x00, 0x7f], 10);
        assert_eq!(r.read_varint(), Ok(150));
        assert_eq!(r.read_varint(), Ok(0));
        assert_eq!(r.read_varint(), Ok(127));
        assert!(r.is_empty());

        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(Reader::new(&max, 0).read_varint(), Ok(u64::MAX));
        let overflow = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert!(Reader::new(&overflow, 0).read_varint().is_err());
        let cut = [0x80, 0x80];
        let e = Reader::new(&cut, 5).read_varint().unwrap_err();
        assert_eq!(e.offset(), 5);
    }

    #[test]
    fn fields_of_every_wire_type() {
        // Field 1 varint 7, field 2 "hi", field 3 fixed64 1.0, field 4 fixed32 1.0f.
        let mut msg = vec![0x08, 0x07, 0x12, 0x02, b'h', b'i', 0x19];
        msg.extend_from_slice(&1.0f64.to_le_bytes());
        msg.push(0x25);
        msg.extend_from_slice(&1.0f32.to_le_bytes());
        let mut r = Reader::new(&msg, 100);
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(
            (f.number, f.value, f.offset),
            (1, WireValue::Varint(7), 100)
        );
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.value, WireValue::Len(b"hi", 104));
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.value, WireValue::Fixed64(1.0f64.to_bits()));
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.value, WireValue::Fixed32(1.0f32.to_bits()));
        assert_eq!(r.next_field(), Ok(None));
    }

    #[test]
    fn oversized_length_is_an_error_not_an_allocation() {
        // Field 1, wire type 2, length 2^40.
        let msg = [0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
        let e = Reader::new(&msg, 0).next_field().unwrap_err();
        assert!(
            matches!(e, DecodeError::SizeExceeds { offset: 1, .. }),
            "{e}"
        );
    }

    #[test]
    fn groups_and_field_zero_are_rejected() {
        assert!(Reader::new(&[0x0b], 0).next_field().is_err());
        assert!(Reader::new(&[0x00, 0x00], 0).next_field().is_err());
    }

    #[test]
    fn packed_varints() {
        let v: Result<Vec<u64>, _> = PackedVarints::new(&[0x01, 0x96, 0x01, 0x03], 0).collect();
        assert_eq!(v, Ok(vec![1, 150, 3]));
        let v: Vec<_> = PackedVarints::new(&[0x01, 0x80], 0).collect();
        assert_eq!(v.len(), 2);
        assert!(v[1].is_err());
    }
}
