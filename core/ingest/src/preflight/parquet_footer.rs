//! A walk over a Parquet footer (thrift compact protocol) that reads it the way polars-parquet
//! 0.55.2's own decoder does (`parquet/handwritten_thrift/file_metadata_thrift.rs`) and refuses
//! what that decoder would trust to its harm.
//!
//! polars decodes the footer by field id, not by the type the bytes declare, and sizes each list
//! of structs (`schema`, `row_groups`, `key_value_metadata`, `column_orders`, a row group's
//! `columns` and `sorting_columns`) from the count in its header before reading it: a damaged
//! count is an allocation of up to 2^31 elements of some hundred bytes. The walk follows the
//! same fields in the same way (so it meets exactly the list headers polars will meet) and
//! requires every count to fit in the bytes left, every string to be inside the footer, and every
//! field polars reads as a bool to be one (polars panics on anything else).

use super::{Finding, damaged};

/// The generic skip of an unknown field gives up past this depth, as polars' does.
const SKIP_DEPTH: u32 = 64;

/// polars builds the schema tree recursively, a level of recursion per level of nesting: deeper
/// schemas are refused before that recursion can exhaust the stack.
const MAX_SCHEMA_DEPTH: usize = 64;

/// How deep the schema whose elements have `children` (each element's `num_children`, in the
/// footer's depth-first order) nests: the depth of polars' recursion over it.
fn schema_depth(children: &[Option<i32>]) -> usize {
    // The children still to come of each open group.
    let mut open: Vec<i32> = Vec::new();
    let mut deepest = 0;
    for count in children {
        if let Some(left) = open.last_mut() {
            *left -= 1;
        }
        match count {
            Some(n) if *n > 0 => open.push(*n),
            _ => {}
        }
        deepest = deepest.max(open.len());
        while open.last() == Some(&0) {
            open.pop();
        }
    }
    deepest
}

/// Thrift compact field and element types.
mod kind {
    pub(super) const STOP: u8 = 0;
    pub(super) const TRUE: u8 = 1;
    pub(super) const FALSE: u8 = 2;
    pub(super) const BYTE: u8 = 3;
    pub(super) const I16: u8 = 4;
    pub(super) const I32: u8 = 5;
    pub(super) const I64: u8 = 6;
    pub(super) const DOUBLE: u8 = 7;
    pub(super) const BINARY: u8 = 8;
    pub(super) const LIST: u8 = 9;
    pub(super) const STRUCT: u8 = 12;
}

/// Walks the footer `bytes`, which start at byte `file_offset` of the file.
pub(crate) fn walk(bytes: &[u8], file_offset: u64) -> Result<(), Finding> {
    let mut walker = Walker {
        bytes,
        at: 0,
        file_offset,
    };
    walker.file_metadata()
}

/// One field's header.
struct Field {
    id: i16,
    kind: u8,
}

/// The walker's position in the footer.
struct Walker<'a> {
    bytes: &'a [u8],
    at: usize,
    file_offset: u64,
}

impl Walker<'_> {
    /// A damaged-footer finding at the current position.
    fn damaged(&self, problem: impl Into<String>) -> Finding {
        let at = self.file_offset.saturating_add(self.at as u64);
        damaged(format!("footer, byte {at}"), problem)
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    fn byte(&mut self) -> Result<u8, Finding> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.damaged("the footer ends inside a value"))?;
        self.at += 1;
        Ok(byte)
    }

    fn skip(&mut self, n: u64) -> Result<(), Finding> {
        match usize::try_from(n) {
            Ok(n) if n <= self.left() => {
                self.at += n;
                Ok(())
            }
            _ => Err(self.damaged(format!(
                "a value claims {n} bytes, but {} are left in the footer",
                self.left()
            ))),
        }
    }

    /// An unsigned LEB128 varint, accumulated as polars does (bits past 64 are dropped).
    fn vlq(&mut self) -> Result<u64, Finding> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f).wrapping_shl(shift);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(7);
        }
    }

    /// A zigzag varint.
    fn zigzag(&mut self) -> Result<i64, Finding> {
        let value = self.vlq()?;
        // Zigzag decoding: the low bit is the sign.
        Ok(((value >> 1) as i64) ^ -((value & 1) as i64))
    }

    /// A binary or string (`utf8`: it must be valid UTF-8, as polars requires of strings).
    fn binary(&mut self, utf8: bool) -> Result<(), Finding> {
        let len = self.vlq()?;
        let start = self.at;
        self.skip(len)?;
        if utf8 && std::str::from_utf8(self.bytes.get(start..self.at).unwrap_or_default()).is_err()
        {
            return Err(self.damaged("a string is not valid UTF-8"));
        }
        Ok(())
    }

    /// A field header after field `last` (`None` at the end of the struct).
    fn field(&mut self, last: i16) -> Result<Option<Field>, Finding> {
        let byte = self.byte()?;
        let kind = byte & 0x0f;
        if kind == kind::STOP {
            return Ok(None);
        }
        if kind > kind::STRUCT {
            return Err(self.damaged(format!("unknown thrift field type {kind}")));
        }
        let delta = byte >> 4;
        let id = if delta == 0 {
            // A full field id: an i16 zigzag varint, truncated as polars truncates it.
            self.zigzag()? as i16
        } else {
            last.checked_add(i16::from(delta))
                .ok_or_else(|| self.damaged("a field id overflows"))?
        };
        Ok(Some(Field { id, kind }))
    }

    /// A list header: its element type and its count, which must fit in the bytes left (every
    /// element takes at least one byte). polars reads the count as an `i32`.
    fn list(&mut self, what: &str) -> Result<(u8, u32), Finding> {
        let header = self.byte()?;
        let short = header >> 4;
        let element = header & 0x0f;
        if element == 0 && short == 0 {
            return Ok((kind::BYTE, 0));
        }
        if !(1..=kind::STRUCT).contains(&element) {
            return Err(self.damaged(format!("unknown thrift element type {element} in {what}")));
        }
        let count = if short != 15 {
            i32::from(short)
        } else {
            // polars keeps the low 32 bits of the varint as an `i32`.
            self.vlq()? as i32
        };
        let count = u32::try_from(count).unwrap_or(0);
        if count as usize > self.left() {
            return Err(self.damaged(format!(
                "{what} claims {count} elements, but {} bytes are left in the footer",
                self.left()
            )));
        }
        Ok((element, count))
    }

    /// A field of type `kind` that polars skips (generic skip, to depth 64).
    fn skip_value(&mut self, kind: u8, depth: u32) -> Result<(), Finding> {
        if depth == 0 {
            return Err(self.damaged(format!("values nest more than {SKIP_DEPTH} levels deep")));
        }
        match kind {
            kind::TRUE | kind::FALSE => Ok(()),
            kind::BYTE => self.byte().map(|_| ()),
            kind::I16 | kind::I32 | kind::I64 => self.vlq().map(|_| ()),
            kind::DOUBLE => self.skip(8),
            kind::BINARY => self.binary(false),
            kind::STRUCT => {
                let mut last = 0;
                while let Some(field) = self.field(last)? {
                    self.skip_value(field.kind, depth - 1)?;
                    last = field.id;
                }
                Ok(())
            }
            kind::LIST => {
                let (element, count) = self.list("a skipped list")?;
                // polars skips each element as a field of the element's type: a bool element
                // without reading its byte, which the walk must do too to stay in step.
                for _ in 0..count {
                    self.skip_value(element, depth - 1)?;
                }
                Ok(())
            }
            _ => Err(self.damaged(format!(
                "thrift type {kind} cannot be skipped (sets and maps are not used by Parquet)"
            ))),
        }
    }

    /// A struct field polars does not read.
    fn skip_field(&mut self, field: &Field) -> Result<(), Finding> {
        self.skip_value(field.kind, SKIP_DEPTH)
    }

    /// A field polars reads as a bool: its type must be one (polars panics otherwise).
    fn bool_field(&self, field: &Field, name: &str) -> Result<(), Finding> {
        if field.kind == kind::TRUE || field.kind == kind::FALSE {
            Ok(())
        } else {
            Err(self.damaged(format!(
                "`{name}` has thrift type {} instead of a bool",
                field.kind
            )))
        }
    }

    /// Every field of a struct, each handed to `read` (which returns `false` to skip it).
    fn struct_fields(
        &mut self,
        mut read: impl FnMut(&mut Self, &Field) -> Result<bool, Finding>,
    ) -> Result<(), Finding> {
        let mut last = 0;
        while let Some(field) = self.field(last)? {
            if !read(self, &field)? {
                self.skip_field(&field)?;
            }
            last = field.id;
        }
        Ok(())
    }

    /// A list of `count` elements each read by `element`, after its header.
    fn list_of(
        &mut self,
        what: &str,
        mut element: impl FnMut(&mut Self) -> Result<(), Finding>,
    ) -> Result<(), Finding> {
        let (_, count) = self.list(what)?;
        for _ in 0..count {
            element(self)?;
        }
        Ok(())
    }

    /// A struct whose fields polars all skips (the empty structs of unions).
    fn empty_struct(&mut self) -> Result<(), Finding> {
        self.struct_fields(|_, _| Ok(false))
    }

    /// `FileMetaData`.
    fn file_metadata(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| {
            match f.id {
                1 | 3 => {
                    w.zigzag()?;
                }
                2 => {
                    let start = w.at;
                    let mut children = Vec::new();
                    w.list_of("the schema", |w| {
                        children.push(w.schema_element()?);
                        Ok(())
                    })?;
                    let depth = schema_depth(&children);
                    if depth > MAX_SCHEMA_DEPTH {
                        w.at = start;
                        return Err(w.damaged(format!(
                            "the schema nests {depth} levels deep; at most {MAX_SCHEMA_DEPTH} are read"
                        )));
                    }
                }
                4 => w.list_of("the row group list", Self::row_group)?,
                5 => w.list_of("the key-value metadata", Self::key_value)?,
                6 => w.binary(true)?,
                7 => w.list_of("the column orders", Self::column_order)?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// `SchemaElement`; returns its `num_children`.
    fn schema_element(&mut self) -> Result<Option<i32>, Finding> {
        let mut children = None;
        self.struct_fields(|w, f| {
            match f.id {
                // polars reads the count as an `i32` (the low bits of the zigzag value).
                5 => children = Some(w.zigzag()? as i32),
                1 | 2 | 3 | 6 | 7 | 8 | 9 => {
                    w.zigzag()?;
                }
                4 => w.binary(true)?,
                10 => w.logical_type()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(children)
    }

    /// `LogicalType` (a union of structs).
    fn logical_type(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| {
            match f.id {
                1 | 2 | 3 | 4 | 6 | 11 | 12 | 13 | 14 | 15 => w.empty_struct()?,
                5 => w.struct_fields(|w, f| match f.id {
                    1 | 2 => w.zigzag().map(|_| true),
                    _ => Ok(false),
                })?,
                7 | 8 => w.struct_fields(|w, f| match f.id {
                    1 => w.bool_field(f, "is_adjusted_to_u_t_c").map(|()| true),
                    2 => w
                        .struct_fields(|w, f| match f.id {
                            1..=3 => w.empty_struct().map(|()| true),
                            _ => Ok(false),
                        })
                        .map(|()| true),
                    _ => Ok(false),
                })?,
                10 => w.struct_fields(|w, f| match f.id {
                    1 => w.byte().map(|_| true),
                    2 => w.bool_field(f, "is_signed").map(|()| true),
                    _ => Ok(false),
                })?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// `RowGroup`.
    fn row_group(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| {
            match f.id {
                1 => w.list_of("a row group's column list", Self::column_chunk)?,
                2 | 3 | 5 | 6 | 7 => {
                    w.vlq()?;
                }
                4 => w.list_of("a row group's sorting columns", Self::sorting_column)?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// `ColumnChunk`.
    fn column_chunk(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| {
            match f.id {
                1 => w.binary(false)?,
                2 | 4 | 5 | 6 | 7 => {
                    w.vlq()?;
                }
                3 => w.column_metadata()?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// `ColumnMetaData`. polars computes each chunk's byte range (its dictionary page's offset,
    /// else its first data page's, plus its compressed size, as unsigned numbers) while decoding
    /// the footer and panics when the sum overflows: that is refused here.
    fn column_metadata(&mut self) -> Result<(), Finding> {
        let (mut size, mut data_page, mut dictionary_page) = (None, None, None);
        let start = self.at;
        self.struct_fields(|w, f| {
            match f.id {
                7 => size = Some(w.zigzag()?),
                9 => data_page = Some(w.zigzag()?),
                11 => dictionary_page = Some(w.zigzag()?),
                1 | 4 | 5 | 6 | 10 | 14 | 15 => {
                    w.vlq()?;
                }
                2 => {
                    let (_, count) = w.list("a column's encodings")?;
                    for _ in 0..count {
                        w.vlq()?;
                    }
                }
                3 => {
                    let (_, count) = w.list("a column's path")?;
                    for _ in 0..count {
                        w.binary(false)?;
                    }
                }
                12 => w.statistics()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        if let (Some(size), Some(data_page)) = (size, data_page) {
            // The offsets and the size as polars casts them (`as u64`, which keeps the bits).
            let offset = dictionary_page.unwrap_or(data_page) as u64;
            if offset.checked_add(size as u64).is_none() {
                self.at = start;
                return Err(self.damaged(format!(
                    "a column chunk's {size} bytes at byte {} run past the largest file offset",
                    dictionary_page.unwrap_or(data_page)
                )));
            }
        }
        Ok(())
    }

    /// `Statistics`.
    fn statistics(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| {
            match f.id {
                1 | 2 => w.binary(false)?,
                3 | 4 => {
                    w.vlq()?;
                }
                5 | 6 => {
                    // polars keeps the low 32 bits of the length.
                    let len = w.vlq()? as u32;
                    w.skip(u64::from(len))?;
                }
                7 => w.bool_field(f, "is_max_value_exact")?,
                8 => w.bool_field(f, "is_min_value_exact")?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// `KeyValue`.
    fn key_value(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| match f.id {
            1 | 2 => w.binary(true).map(|()| true),
            _ => Ok(false),
        })
    }

    /// `SortingColumn`.
    fn sorting_column(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| match f.id {
            1 => w.zigzag().map(|_| true),
            2 => w.bool_field(f, "descending").map(|()| true),
            3 => w.bool_field(f, "nulls_first").map(|()| true),
            _ => Ok(false),
        })
    }

    /// `ColumnOrder` (a union of empty structs).
    fn column_order(&mut self) -> Result<(), Finding> {
        self.struct_fields(|w, f| match f.id {
            1 | 2 => w.empty_struct().map(|()| true),
            _ => Ok(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk_text(bytes: &[u8]) -> Result<(), String> {
        walk(bytes, 100).map_err(|finding| match finding {
            Finding::Damaged { place, problem } => format!("{place}: {problem}"),
            other => format!("{other:?}"),
        })
    }

    #[test]
    fn a_minimal_footer_passes() {
        // version = 1 (i32), schema = [], num_rows = 0 (i64), row_groups = [], stop.
        let footer = [0x15, 0x02, 0x19, 0x0c, 0x16, 0x00, 0x19, 0x0c, 0x00];
        assert_eq!(walk_text(&footer), Ok(()));
    }

    #[test]
    fn a_list_count_beyond_the_footer_is_refused() {
        // row_groups (field 4, a list) with a long count of 2^31 - 1 structs.
        let footer = [0x49, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00];
        let err = walk_text(&footer).unwrap_err();
        assert_eq!(
            err,
            "footer, byte 107: the row group list claims 2147483647 elements, but 1 bytes are left in the footer"
        );
        // polars reads the count as an i32: a negative one is an empty list, as for polars.
        let footer = [0x49, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        assert_eq!(walk_text(&footer), Ok(()));
    }

    #[test]
    fn fields_are_read_by_id_whatever_type_the_bytes_declare() {
        // Field 2 (the schema) declared as an i32: polars reads a list header there all the same,
        // and so does the walk, which then finds the count too large.
        let footer = [0x25, 0xfc, 0x7f, 0x00];
        let err = walk_text(&footer).unwrap_err();
        assert!(err.contains("the schema claims 127 elements"), "{err}");
    }

    #[test]
    fn a_bool_field_of_another_type_is_refused() {
        // row_groups = [RowGroup { sorting_columns = [SortingColumn { descending: an i32 }] }].
        let footer = [
            0x49, 0x1c, 0x49, 0x1c, 0x25, 0x00, 0x15, 0x02, 0x00, 0x00, 0x00,
        ];
        let err = walk_text(&footer).unwrap_err();
        assert!(
            err.contains("`descending` has thrift type 5 instead of a bool"),
            "{err}"
        );
    }

    #[test]
    fn a_column_chunk_range_past_the_largest_offset_is_refused() {
        // row_groups = [RowGroup { columns = [ColumnChunk { meta_data: ColumnMetaData {
        // total_compressed_size (7) = 100, data_page_offset (9) = -1 } }] }].
        let footer = [
            0x49, 0x1c, 0x19, 0x1c, 0x3c, 0x76, 0xc8, 0x01, 0x26, 0x01, 0x00, 0x00, 0x00, 0x00,
        ];
        let err = walk_text(&footer).unwrap_err();
        assert!(
            err.contains("a column chunk's 100 bytes at byte -1 run past the largest file offset"),
            "{err}"
        );
        // At byte 0 the same chunk is fine.
        let footer = [
            0x49, 0x1c, 0x19, 0x1c, 0x3c, 0x76, 0xc8, 0x01, 0x26, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        assert_eq!(walk_text(&footer), Ok(()));
    }

    #[test]
    fn schema_depth_follows_the_children_counts() {
        // root { a, b { c, d { e } }, f }
        let schema = [Some(3), None, Some(2), None, Some(1), None, Some(0)];
        assert_eq!(schema_depth(&schema), 3);
        assert_eq!(schema_depth(&[Some(0)]), 0);
        assert_eq!(schema_depth(&[Some(-4), None]), 0);
        // 100 groups of one child each.
        let chain: Vec<Option<i32>> = std::iter::repeat_n(Some(1), 100).chain([None]).collect();
        assert_eq!(schema_depth(&chain), 100);
        // The same chain in a footer: schema (field 2) = 101 elements, each `num_children` (field 5)
        // = 1 but the last, then stop.
        let mut footer = vec![0x29, 0xfc, 0x65];
        for _ in 0..100 {
            footer.extend_from_slice(&[0x55, 0x02, 0x00]);
        }
        footer.extend_from_slice(&[0x00, 0x00]);
        let err = walk_text(&footer).unwrap_err();
        assert_eq!(
            err,
            "footer, byte 101: the schema nests 100 levels deep; at most 64 are read"
        );
    }

    #[test]
    fn strings_binaries_and_nesting_are_bounded() {
        // created_by (field 6) claiming 100 bytes.
        let err = walk_text(&[0x68, 0x64, b'a', 0x00]).unwrap_err();
        assert!(
            err.contains("a value claims 100 bytes, but 2 are left"),
            "{err}"
        );
        // created_by that is not UTF-8.
        let err = walk_text(&[0x68, 0x01, 0xff, 0x00]).unwrap_err();
        assert!(err.contains("not valid UTF-8"), "{err}");
        // An unknown field (id 20) of 100 nested structs.
        let mut footer = vec![0x0c, 0x28];
        footer.extend(std::iter::repeat_n(0x1c, 100));
        footer.extend(std::iter::repeat_n(0x00, 102));
        let err = walk_text(&footer).unwrap_err();
        assert!(err.contains("nest more than 64 levels"), "{err}");
        // The footer ends inside a value.
        let err = walk_text(&[0x15]).unwrap_err();
        assert!(err.contains("ends inside a value"), "{err}");
    }
}
