//! How an Arrow IPC schema lays its columns out in a record batch, and the check of one batch's
//! field nodes against the sizes of its buffers.
//!
//! Every field takes one field node (its length and null count) and, depending on its type, some
//! buffers, in the order polars-arrow 0.55.2 reads them (`io/ipc/read/deserialize.rs`): a validity
//! bitmap for every type but null and (in V5 metadata) union; then fixed-width values, or offsets
//! and values, or 16-byte views and a variadic number of data buffers; nested types follow with
//! their children. A buffer must be large enough for its node's length exactly where polars
//! requires it, so that no file polars can read is refused, and a node without buffers (a null
//! column) counts its bitmap towards the memory budget.

use std::collections::HashMap;

use polars_arrow::io::ipc::format::ipc;

use super::budget::Need;
use super::{Finding, bitmap_bytes, damaged};

/// Deeper nesting than this is refused before polars converts the schema (recursively).
pub(crate) const MAX_NESTING: usize = 64;

/// The buffers and children of one field, as polars-arrow reads them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Layout {
    /// No buffers.
    Null,
    /// Validity, then one bit per value.
    Boolean,
    /// Validity, then `width` bytes per value (integers, floats, decimals, dates, times,
    /// intervals, fixed-size binary).
    Fixed {
        /// Bytes per value.
        width: u64,
    },
    /// Validity, offsets of `offset_width` bytes (one more than the values), then the data.
    Variable {
        /// 4 (`Binary`, `Utf8`) or 8 (the `Large` types).
        offset_width: u64,
    },
    /// Validity, 16-byte views, then as many data buffers as the batch's variadic count says.
    View,
    /// Validity, offsets, then the child (`List`, `LargeList`, `Map`).
    List {
        /// 4 or 8.
        offset_width: u64,
        /// The values.
        child: Box<Layout>,
    },
    /// Validity, then the child.
    FixedSizeList {
        /// The values.
        child: Box<Layout>,
    },
    /// Validity, then the children.
    Struct {
        /// The fields.
        children: Vec<Layout>,
    },
    /// (Before V5 metadata, a validity buffer,) type ids of 1 byte, for a dense union 4-byte
    /// offsets, then the children.
    Union {
        /// Dense (with offsets) or sparse.
        dense: bool,
        /// The members.
        children: Vec<Layout>,
    },
    /// Validity, then integer keys into a dictionary batch.
    Dictionary {
        /// Bytes per key.
        key_width: u64,
    },
    /// A type polars-arrow 0.55.2 cannot read (run-end encoded, list views, or an unknown width):
    /// the batch is not checked past it (polars refuses the file itself).
    Unchecked,
}

/// The layouts of a schema's columns, and of the values of each dictionary by id.
#[derive(Debug, Default)]
pub(crate) struct SchemaLayout {
    /// One per column, in order.
    pub(crate) columns: Vec<Layout>,
    /// The layout of each dictionary's values, by dictionary id.
    pub(crate) dictionaries: HashMap<i64, Layout>,
}

/// The layouts of `schema`'s columns (`place` names the schema's place in the file).
pub(crate) fn schema_layout(
    schema: ipc::SchemaRef<'_>,
    place: &str,
) -> Result<SchemaLayout, Finding> {
    let flatbuffer = |err: ipc::planus::Error| {
        damaged(
            place,
            format!("the schema is not a valid flatbuffer ({err})"),
        )
    };
    let fields = schema
        .fields()
        .map_err(flatbuffer)?
        .ok_or_else(|| damaged(place, "the schema has no field list"))?;
    let mut layout = SchemaLayout::default();
    for field in fields.iter() {
        let field = field.map_err(flatbuffer)?;
        let column = field_layout(field, 1, &mut layout.dictionaries, place)?;
        layout.columns.push(column);
    }
    Ok(layout)
}

/// The layout of `field` at nesting `depth`; a dictionary-encoded field records its values'
/// layout in `dictionaries`. Reads what polars-arrow reads of a field (its custom metadata, name,
/// nullability, dictionary and type, and the children of nested types only), so that a part polars
/// would fail on is reported here in a sentence and a part it ignores is ignored.
fn field_layout(
    field: ipc::FieldRef<'_>,
    depth: usize,
    dictionaries: &mut HashMap<i64, Layout>,
    place: &str,
) -> Result<Layout, Finding> {
    if depth > MAX_NESTING {
        return Err(damaged(
            place,
            format!("the schema nests fields more than {MAX_NESTING} levels deep"),
        ));
    }
    let flatbuffer = |err: ipc::planus::Error| {
        damaged(
            place,
            format!("the schema is not a valid flatbuffer ({err})"),
        )
    };
    if let Some(metadata) = field.custom_metadata().map_err(flatbuffer)? {
        for pair in metadata.iter() {
            let pair = pair.map_err(flatbuffer)?;
            pair.key().map_err(flatbuffer)?;
            pair.value().map_err(flatbuffer)?;
        }
    }
    if field.name().map_err(flatbuffer)?.is_none() {
        return Err(damaged(place, "a field of the schema has no name"));
    }
    field.nullable().map_err(flatbuffer)?;
    let values = plain_layout(field, depth, dictionaries, place)?;
    let Some(dictionary) = field.dictionary().map_err(flatbuffer)? else {
        return Ok(values);
    };
    let id = dictionary.id().map_err(flatbuffer)?;
    dictionaries.insert(id, values);
    // polars requires the key type; without one it refuses the schema itself.
    let Some(key) = dictionary.index_type().map_err(flatbuffer)? else {
        return Ok(Layout::Unchecked);
    };
    let width = key.bit_width().map_err(flatbuffer)?;
    Ok(match width {
        8 | 16 | 32 | 64 | 128 => Layout::Dictionary {
            key_width: width.unsigned_abs() as u64 / 8,
        },
        _ => Layout::Unchecked,
    })
}

/// The children of a nested field, read as polars reads them: all of them (`all`), or the first
/// (list types). A nested field without them is damaged (polars refuses it).
fn children(
    field: ipc::FieldRef<'_>,
    all: bool,
    depth: usize,
    dictionaries: &mut HashMap<i64, Layout>,
    place: &str,
) -> Result<Vec<Layout>, Finding> {
    let flatbuffer = |err: ipc::planus::Error| {
        damaged(
            place,
            format!("the schema is not a valid flatbuffer ({err})"),
        )
    };
    let Some(list) = field.children().map_err(flatbuffer)? else {
        return Err(damaged(
            place,
            "a nested field of the schema has no children",
        ));
    };
    let mut layouts = Vec::new();
    for child in list.iter().take(if all { usize::MAX } else { 1 }) {
        let child = child.map_err(flatbuffer)?;
        layouts.push(field_layout(child, depth + 1, dictionaries, place)?);
    }
    if layouts.is_empty() && !all {
        return Err(damaged(place, "a list field of the schema has no child"));
    }
    Ok(layouts)
}

/// The layout of `field`'s own type (a dictionary-encoded field: of its values).
fn plain_layout(
    field: ipc::FieldRef<'_>,
    depth: usize,
    dictionaries: &mut HashMap<i64, Layout>,
    place: &str,
) -> Result<Layout, Finding> {
    use ipc::TypeRef;
    let flatbuffer = |err: ipc::planus::Error| {
        damaged(
            place,
            format!("the schema is not a valid flatbuffer ({err})"),
        )
    };
    let Some(type_) = field.type_().map_err(flatbuffer)? else {
        return Err(damaged(place, "a field of the schema has no type"));
    };
    let fixed = |bytes: u64| Layout::Fixed { width: bytes };
    let bits = |bit_width: i32, allowed: &[i32]| {
        if allowed.contains(&bit_width) {
            fixed(bit_width.unsigned_abs() as u64 / 8)
        } else {
            Layout::Unchecked
        }
    };
    let child = |dictionaries: &mut HashMap<i64, Layout>| -> Result<Box<Layout>, Finding> {
        let mut layouts = children(field, false, depth, dictionaries, place)?;
        Ok(Box::new(layouts.pop().unwrap_or(Layout::Unchecked)))
    };
    Ok(match type_ {
        TypeRef::Null(_) => Layout::Null,
        TypeRef::Bool(_) => Layout::Boolean,
        TypeRef::Int(int) => bits(int.bit_width().map_err(flatbuffer)?, &[8, 16, 32, 64, 128]),
        TypeRef::FloatingPoint(float) => match float.precision().map_err(flatbuffer)? {
            ipc::Precision::Half => fixed(2),
            ipc::Precision::Single => fixed(4),
            ipc::Precision::Double => fixed(8),
        },
        TypeRef::Decimal(decimal) => bits(
            decimal.bit_width().map_err(flatbuffer)?,
            &[32, 64, 128, 256],
        ),
        TypeRef::Date(date) => match date.unit().map_err(flatbuffer)? {
            ipc::DateUnit::Day => fixed(4),
            ipc::DateUnit::Millisecond => fixed(8),
        },
        TypeRef::Time(time) => bits(time.bit_width().map_err(flatbuffer)?, &[32, 64]),
        TypeRef::Timestamp(_) | TypeRef::Duration(_) => fixed(8),
        TypeRef::Interval(interval) => match interval.unit().map_err(flatbuffer)? {
            ipc::IntervalUnit::YearMonth => fixed(4),
            ipc::IntervalUnit::DayTime => fixed(8),
            ipc::IntervalUnit::MonthDayNano => fixed(16),
        },
        TypeRef::FixedSizeBinary(binary) => {
            match u64::try_from(binary.byte_width().map_err(flatbuffer)?) {
                Ok(width) => fixed(width),
                Err(_) => Layout::Unchecked,
            }
        }
        TypeRef::Binary(_) | TypeRef::Utf8(_) => Layout::Variable { offset_width: 4 },
        TypeRef::LargeBinary(_) | TypeRef::LargeUtf8(_) => Layout::Variable { offset_width: 8 },
        TypeRef::BinaryView(_) | TypeRef::Utf8View(_) => Layout::View,
        TypeRef::List(_) | TypeRef::Map(_) => Layout::List {
            offset_width: 4,
            child: child(dictionaries)?,
        },
        TypeRef::LargeList(_) => Layout::List {
            offset_width: 8,
            child: child(dictionaries)?,
        },
        TypeRef::FixedSizeList(_) => Layout::FixedSizeList {
            child: child(dictionaries)?,
        },
        TypeRef::Struct(_) => Layout::Struct {
            children: children(field, true, depth, dictionaries, place)?,
        },
        TypeRef::Union(union) => Layout::Union {
            dense: union.mode().map_err(flatbuffer)? == ipc::UnionMode::Dense,
            children: children(field, true, depth, dictionaries, place)?,
        },
        TypeRef::RunEndEncoded(_) | TypeRef::ListView(_) | TypeRef::LargeListView(_) => {
            Layout::Unchecked
        }
    })
}

/// One field node: a length, and whether its null count is positive (polars reads the validity
/// bitmap only then, and uses the count for nothing else).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// Values (or slots) of the field in this batch.
    pub(crate) length: u64,
    /// The null count is above 0.
    pub(crate) has_nulls: bool,
}

/// The pieces of one record batch that the field nodes are checked against.
pub(crate) struct Batch<'a> {
    /// Where the batch is, for messages: `record batch 2 (block at byte 4096)`.
    pub(crate) place: &'a str,
    /// The field nodes, whose lengths are already checked to be non-negative.
    pub(crate) nodes: &'a [Node],
    /// The size of each buffer once decompressed (its length when the batch is not compressed).
    pub(crate) buffer_sizes: &'a [u64],
    /// The variadic buffer counts of the view columns, already checked to be non-negative.
    pub(crate) variadic_counts: &'a [u64],
    /// V5 metadata (a union has no validity buffer).
    pub(crate) v5: bool,
}

/// Whether the walk went through the whole schema or stopped at a type it does not model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walked {
    Done,
    Stopped,
}

/// Walks `batch`'s nodes and buffers along `columns`, checking each column's length against
/// `rows` and each buffer's size against its node; adds the memory of buffer-less nodes to
/// `need`.
pub(crate) fn check_batch(
    batch: &Batch<'_>,
    columns: &[Layout],
    rows: u64,
    need: &mut Need,
) -> Result<(), Finding> {
    let mut walk = Walk {
        batch,
        next_node: 0,
        next_buffer: 0,
        next_variadic: 0,
        need,
    };
    for (index, layout) in columns.iter().enumerate() {
        let node = walk.node()?;
        if node.length != rows {
            return Err(damaged(
                batch.place,
                format!(
                    "column {index} claims {} rows, but the batch has {rows}",
                    node.length
                ),
            ));
        }
        if walk.field(layout, node)? == Walked::Stopped {
            break;
        }
    }
    Ok(())
}

/// The state of one batch's walk.
struct Walk<'a, 'b> {
    batch: &'a Batch<'a>,
    next_node: usize,
    next_buffer: usize,
    next_variadic: usize,
    need: &'b mut Need,
}

impl Walk<'_, '_> {
    /// The next field node.
    fn node(&mut self) -> Result<Node, Finding> {
        let node = self
            .batch
            .nodes
            .get(self.next_node)
            .copied()
            .ok_or_else(|| {
                damaged(
                    self.batch.place,
                    format!(
                        "the schema needs more than the {} field nodes the batch has",
                        self.batch.nodes.len()
                    ),
                )
            })?;
        self.next_node += 1;
        Ok(node)
    }

    /// The next buffer's index and (decompressed) size.
    fn buffer(&mut self) -> Result<(usize, u64), Finding> {
        let index = self.next_buffer;
        let size = self.batch.buffer_sizes.get(index).copied().ok_or_else(|| {
            damaged(
                self.batch.place,
                format!(
                    "the schema needs more than the {} buffers the batch has",
                    self.batch.buffer_sizes.len()
                ),
            )
        })?;
        self.next_buffer += 1;
        Ok((index, size))
    }

    /// The next buffer, which must hold at least `needed` bytes for `what`.
    fn sized_buffer(&mut self, needed: Option<u64>, node: Node, what: &str) -> Result<(), Finding> {
        let (index, size) = self.buffer()?;
        let Some(needed) = needed else {
            return Err(damaged(
                format!("{}, buffer {index}", self.batch.place),
                format!(
                    "the {what} of {} values would need more than 2^64 bytes",
                    node.length
                ),
            ));
        };
        if size < needed {
            return Err(damaged(
                format!("{}, buffer {index}", self.batch.place),
                format!(
                    "the {what} of {} values need {needed} bytes, but the buffer has {size}",
                    node.length
                ),
            ));
        }
        Ok(())
    }

    /// The validity buffer of `node`, read by polars only when the node has nulls.
    fn validity(&mut self, node: Node) -> Result<(), Finding> {
        if node.has_nulls {
            self.sized_buffer(Some(bitmap_bytes(node.length)), node, "validity bitmap")
        } else {
            self.buffer().map(|_| ())
        }
    }

    /// Checks one field (its node already taken) and its children.
    fn field(&mut self, layout: &Layout, node: Node) -> Result<Walked, Finding> {
        let len = node.length;
        match layout {
            Layout::Null => self.need.add(bitmap_bytes(len)),
            Layout::Boolean => {
                self.validity(node)?;
                self.sized_buffer(Some(bitmap_bytes(len)), node, "bits")?;
            }
            Layout::Fixed { width } => {
                self.validity(node)?;
                self.sized_buffer(len.checked_mul(*width), node, "values")?;
            }
            Layout::Variable { offset_width } => {
                self.validity(node)?;
                self.sized_buffer(offsets_bytes(len, *offset_width), node, "offsets")?;
                self.buffer()?;
            }
            Layout::View => {
                self.validity(node)?;
                self.sized_buffer(len.checked_mul(16), node, "views")?;
                let count = self.batch.variadic_counts.get(self.next_variadic).copied().ok_or_else(|| {
                    damaged(
                        self.batch.place,
                        format!(
                            "the schema needs more than the {} variadic buffer counts the batch has",
                            self.batch.variadic_counts.len()
                        ),
                    )
                })?;
                self.next_variadic += 1;
                let left = self
                    .batch
                    .buffer_sizes
                    .len()
                    .saturating_sub(self.next_buffer);
                if count > left as u64 {
                    return Err(damaged(
                        self.batch.place,
                        format!(
                            "a view column claims {count} data buffers, but only {left} buffers are left"
                        ),
                    ));
                }
                for _ in 0..count {
                    self.buffer()?;
                }
            }
            Layout::List {
                offset_width,
                child,
            } => {
                self.validity(node)?;
                self.sized_buffer(offsets_bytes(len, *offset_width), node, "offsets")?;
                let child_node = self.node()?;
                return self.field(child, child_node);
            }
            Layout::FixedSizeList { child } => {
                self.validity(node)?;
                let child_node = self.node()?;
                return self.field(child, child_node);
            }
            Layout::Struct { children } => {
                self.validity(node)?;
                for child in children {
                    let child_node = self.node()?;
                    if self.field(child, child_node)? == Walked::Stopped {
                        return Ok(Walked::Stopped);
                    }
                }
            }
            Layout::Union { dense, children } => {
                if !self.batch.v5 {
                    self.buffer()?;
                }
                self.sized_buffer(Some(len), node, "type ids")?;
                if *dense {
                    self.sized_buffer(len.checked_mul(4), node, "offsets")?;
                }
                for child in children {
                    let child_node = self.node()?;
                    if self.field(child, child_node)? == Walked::Stopped {
                        return Ok(Walked::Stopped);
                    }
                }
            }
            Layout::Dictionary { key_width } => {
                self.validity(node)?;
                self.sized_buffer(len.checked_mul(*key_width), node, "keys")?;
            }
            Layout::Unchecked => return Ok(Walked::Stopped),
        }
        Ok(Walked::Done)
    }
}

/// The bytes of the offsets of `len` values: `len + 1` offsets of `width` bytes.
fn offsets_bytes(len: u64, width: u64) -> Option<u64> {
    len.checked_add(1)?.checked_mul(width)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(length: u64, null_count: u64) -> Node {
        Node {
            length,
            has_nulls: null_count > 0,
        }
    }

    fn check(
        columns: &[Layout],
        nodes: &[Node],
        sizes: &[u64],
        variadic: &[u64],
        rows: u64,
    ) -> Result<Need, String> {
        let batch = Batch {
            place: "record batch 0",
            nodes,
            buffer_sizes: sizes,
            variadic_counts: variadic,
            v5: true,
        };
        let mut need = Need::default();
        match check_batch(&batch, columns, rows, &mut need) {
            Ok(()) => Ok(need),
            Err(Finding::Damaged { place, problem }) => Err(format!("{place}: {problem}")),
            Err(other) => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn buffers_large_enough_for_their_nodes_pass() {
        let columns = [
            Layout::Fixed { width: 8 },
            Layout::Variable { offset_width: 4 },
            Layout::View,
            Layout::Boolean,
        ];
        let nodes = [node(10, 0), node(10, 2), node(10, 0), node(10, 0)];
        // i64: validity (unused), values; utf8: validity, offsets, data; views: validity, views,
        // 2 data buffers; bool: validity, bits.
        let sizes = [0, 80, 2, 44, 100, 0, 160, 30, 40, 0, 2];
        assert!(check(&columns, &nodes, &sizes, &[2], 10).is_ok());
    }

    #[test]
    fn a_buffer_too_small_for_its_node_is_named() {
        let columns = [Layout::Fixed { width: 8 }];
        let err = check(&columns, &[node(10, 0)], &[0, 79], &[], 10).unwrap_err();
        assert_eq!(
            err,
            "record batch 0, buffer 1: the values of 10 values need 80 bytes, but the buffer has 79"
        );
        // A validity bitmap is needed only when the node has nulls.
        let err = check(&columns, &[node(10, 1)], &[1, 80], &[], 10).unwrap_err();
        assert!(
            err.contains("buffer 0: the validity bitmap of 10 values need 2 bytes"),
            "{err}"
        );
        let err = check(
            &[Layout::Variable { offset_width: 8 }],
            &[node(3, 0)],
            &[0, 31, 0],
            &[],
            3,
        )
        .unwrap_err();
        assert!(err.contains("offsets of 3 values need 32 bytes"), "{err}");
    }

    #[test]
    fn a_node_length_beyond_any_buffer_is_refused_without_overflow() {
        let huge = u64::MAX / 2;
        let err = check(
            &[Layout::Fixed { width: 8 }],
            &[node(huge, 0)],
            &[0, 64],
            &[],
            huge,
        )
        .unwrap_err();
        assert!(err.contains("would need more than 2^64 bytes"), "{err}");
        let err = check(
            &[Layout::Variable { offset_width: 4 }],
            &[node(u64::MAX, 0)],
            &[0, 64, 0],
            &[],
            u64::MAX,
        )
        .unwrap_err();
        assert!(err.contains("would need more than 2^64 bytes"), "{err}");
    }

    #[test]
    fn columns_must_have_the_batch_length_and_enough_nodes_and_buffers() {
        let columns = [Layout::Fixed { width: 4 }, Layout::Fixed { width: 4 }];
        let err = check(&columns, &[node(5, 0), node(6, 0)], &[0, 20, 0, 24], &[], 5).unwrap_err();
        assert_eq!(
            err,
            "record batch 0: column 1 claims 6 rows, but the batch has 5"
        );
        let err = check(&columns, &[node(5, 0)], &[0, 20], &[], 5).unwrap_err();
        assert!(err.contains("more than the 1 field nodes"), "{err}");
        let err = check(&columns, &[node(5, 0), node(5, 0)], &[0, 20, 0], &[], 5).unwrap_err();
        assert!(err.contains("more than the 3 buffers"), "{err}");
    }

    #[test]
    fn view_columns_take_their_variadic_count_of_buffers() {
        let err = check(&[Layout::View], &[node(1, 0)], &[0, 16], &[], 1).unwrap_err();
        assert!(err.contains("variadic buffer counts"), "{err}");
        let err = check(&[Layout::View], &[node(1, 0)], &[0, 16, 5], &[1_000_000], 1).unwrap_err();
        assert!(
            err.contains("claims 1000000 data buffers, but only 1 buffers are left"),
            "{err}"
        );
    }

    #[test]
    fn nested_columns_walk_their_children_and_null_columns_count_towards_the_budget() {
        let list = Layout::List {
            offset_width: 4,
            child: Box::new(Layout::Fixed { width: 2 }),
        };
        let strukt = Layout::Struct {
            children: vec![Layout::Null, Layout::Boolean],
        };
        let nodes = [
            node(3, 0),
            node(7, 0),
            node(3, 0),
            node(1 << 20, 1 << 20),
            node(3, 0),
        ];
        let sizes = [0, 16, 0, 14, 0, 0, 1];
        let need =
            check(&[list.clone(), strukt], &nodes, &sizes, &[], 3).map_err(|e| e.to_string());
        assert_eq!(need.map(Need::bytes), Ok((1 << 20) / 8));
        // The child's values are checked against the child's node.
        let err = check(&[list], &[node(3, 0), node(7, 0)], &[0, 16, 0, 13], &[], 3).unwrap_err();
        assert!(
            err.contains("buffer 3: the values of 7 values need 14 bytes"),
            "{err}"
        );
    }

    #[test]
    fn an_unmodelled_type_stops_the_walk() {
        let columns = [Layout::Unchecked, Layout::Fixed { width: 8 }];
        assert!(check(&columns, &[node(4, 0)], &[], &[], 4).is_ok());
    }

    #[test]
    fn unions_have_a_validity_buffer_only_before_v5() {
        let union = Layout::Union {
            dense: true,
            children: vec![Layout::Fixed { width: 1 }],
        };
        let nodes = [node(4, 0), node(4, 0)];
        assert!(check(std::slice::from_ref(&union), &nodes, &[4, 16, 0, 4], &[], 4).is_ok());
        let batch = Batch {
            place: "b",
            nodes: &nodes,
            buffer_sizes: &[0, 4, 16, 0, 4],
            variadic_counts: &[],
            v5: false,
        };
        assert!(check_batch(&batch, &[union], 4, &mut Need::default()).is_ok());
    }
}
