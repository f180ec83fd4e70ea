//! A small read-only view of the launch batch a rules hook receives (a struct array of launch-table
//! columns through the Arrow C Data Interface), for plugins built without the `arrow` feature.
//! It reads primitive numeric columns only; strings and nested columns need the `arrow` feature.

use std::ffi::CStr;

use crate::arrow_c::{ArrowArray, ArrowSchema};

/// A borrowed batch of launches: one row per launch, one child per column.
#[derive(Debug, Clone, Copy)]
pub struct LaunchBatch<'a> {
    array: &'a ArrowArray,
    schema: &'a ArrowSchema,
}

/// Why a batch or a column cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchError {
    /// The top-level array is not a struct array (`+s`).
    NotAStruct(String),
    /// A pointer in the C structs is null where the interface requires one.
    NullPointer(&'static str),
    /// A column exists but has a format this view does not read.
    UnsupportedFormat {
        /// Column name.
        column: String,
        /// Arrow format string.
        format: String,
    },
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchError::NotAStruct(format) => {
                write!(f, "the batch is not a struct array (format {format:?})")
            }
            BatchError::NullPointer(what) => write!(f, "null pointer in the batch: {what}"),
            BatchError::UnsupportedFormat { column, format } => {
                write!(
                    f,
                    "column {column:?} has Arrow format {format:?}, which this reader does not read"
                )
            }
        }
    }
}

impl std::error::Error for BatchError {}

/// Reads a NUL-terminated C string, or `""` when null or not UTF-8.
///
/// # Safety
/// `ptr` is null or points at a NUL-terminated string valid for `'a`.
unsafe fn c_str<'a>(ptr: *const std::ffi::c_char) -> &'a str {
    if ptr.is_null() {
        return "";
    }
    // SAFETY: the caller guarantees a valid NUL-terminated string.
    unsafe { CStr::from_ptr(ptr) }.to_str().unwrap_or("")
}

impl<'a> LaunchBatch<'a> {
    /// Wraps the host's array and schema after checking that they describe a struct array.
    ///
    /// # Safety
    /// Both pointers must be valid, unreleased Arrow C Data Interface structs (as the host passes to
    /// a rules hook) that outlive `'a`.
    pub unsafe fn from_raw(
        array: *const ArrowArray,
        schema: *const ArrowSchema,
    ) -> Result<Self, BatchError> {
        if array.is_null() {
            return Err(BatchError::NullPointer("array"));
        }
        if schema.is_null() {
            return Err(BatchError::NullPointer("schema"));
        }
        // SAFETY: both pointers are non-null and valid for `'a` by the caller's guarantee.
        let (array, schema) = unsafe { (&*array, &*schema) };
        // SAFETY: `format` is a NUL-terminated string owned by the schema.
        let format = unsafe { c_str(schema.format) };
        if format != "+s" {
            return Err(BatchError::NotAStruct(format.to_string()));
        }
        if array.n_children != schema.n_children {
            return Err(BatchError::NullPointer(
                "children (array and schema disagree)",
            ));
        }
        if array.n_children > 0 && (array.children.is_null() || schema.children.is_null()) {
            return Err(BatchError::NullPointer("children"));
        }
        Ok(LaunchBatch { array, schema })
    }

    /// Number of launches (rows).
    pub fn len(&self) -> usize {
        usize::try_from(self.array.length).unwrap_or(0)
    }

    /// Whether the batch has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Column names, in order.
    pub fn column_names(&self) -> Vec<&'a str> {
        (0..self.n_children())
            .map(|i| {
                // SAFETY: `i` < n_children and `children` was checked non-null in `from_raw`.
                let child = unsafe { &**self.schema.children.add(i) };
                // SAFETY: the child's name is a NUL-terminated string owned by the schema.
                unsafe { c_str(child.name) }
            })
            .collect()
    }

    fn n_children(&self) -> usize {
        usize::try_from(self.schema.n_children).unwrap_or(0)
    }

    /// A numeric column as `f64` values (`None` for nulls), or `Ok(None)` when the column is absent.
    /// Reads int8..int64, uint8..uint64, float32 and float64 columns.
    pub fn column_f64(&self, name: &str) -> Result<Option<Vec<Option<f64>>>, BatchError> {
        let Some(index) = self.column_names().iter().position(|n| *n == name) else {
            return Ok(None);
        };
        // SAFETY: `index` < n_children; the pointers were checked in `from_raw`.
        let (child, child_schema) = unsafe {
            (
                &**self.array.children.add(index),
                &**self.schema.children.add(index),
            )
        };
        // SAFETY: the format is a NUL-terminated string owned by the schema.
        let format = unsafe { c_str(child_schema.format) };
        let width = match format {
            "c" | "C" => 1,
            "s" | "S" => 2,
            "i" | "I" | "f" => 4,
            "l" | "L" | "g" => 8,
            _ => {
                return Err(BatchError::UnsupportedFormat {
                    column: name.to_string(),
                    format: format.to_string(),
                });
            }
        };
        if child.n_buffers < 2 || child.buffers.is_null() {
            return Err(BatchError::NullPointer("column buffers"));
        }
        let length = usize::try_from(child.length).unwrap_or(0);
        let offset = usize::try_from(child.offset).unwrap_or(0);
        // SAFETY: a primitive array has two buffers: validity (may be null) and values.
        let (validity, values) = unsafe {
            (
                *child.buffers as *const u8,
                *child.buffers.add(1) as *const u8,
            )
        };
        if values.is_null() && length > 0 {
            return Err(BatchError::NullPointer("column values"));
        }
        let mut out = Vec::with_capacity(length);
        for row in 0..length {
            let at = offset + row;
            let valid = validity.is_null() || {
                // SAFETY: the validity bitmap holds at least offset + length bits.
                let byte = unsafe { *validity.add(at / 8) };
                byte & (1 << (at % 8)) != 0
            };
            if !valid {
                out.push(None);
                continue;
            }
            // SAFETY: the values buffer holds at least offset + length elements of `width` bytes;
            // unaligned reads are used because the interface only recommends alignment.
            let value = unsafe {
                let p = values.add(at * width);
                match format {
                    "c" => f64::from(p.cast::<i8>().read_unaligned()),
                    "C" => f64::from(p.read_unaligned()),
                    "s" => f64::from(p.cast::<i16>().read_unaligned()),
                    "S" => f64::from(p.cast::<u16>().read_unaligned()),
                    "i" => f64::from(p.cast::<i32>().read_unaligned()),
                    "I" => f64::from(p.cast::<u32>().read_unaligned()),
                    "f" => f64::from(p.cast::<f32>().read_unaligned()),
                    "l" => p.cast::<i64>().read_unaligned() as f64,
                    "L" => p.cast::<u64>().read_unaligned() as f64,
                    _ => p.cast::<f64>().read_unaligned(),
                }
            };
            out.push(Some(value));
        }
        Ok(Some(out))
    }

    /// An integer column (e.g. `launch_id`) as `i64` values, `Ok(None)` when absent. Float columns
    /// are truncated.
    pub fn column_i64(&self, name: &str) -> Result<Option<Vec<Option<i64>>>, BatchError> {
        Ok(self
            .column_f64(name)?
            .map(|col| col.into_iter().map(|v| v.map(|v| v as i64)).collect()))
    }

    /// The raw C structs, for plugins that read other column types themselves.
    pub fn raw(&self) -> (&'a ArrowArray, &'a ArrowSchema) {
        (self.array, self.schema)
    }
}

/// A hand-built two-column batch (`launch_id` int64 with one null, `duration_ns` float64), the
/// way a producer of the Arrow C Data Interface lays it out.
#[cfg(test)]
pub(crate) mod fixture {
    use std::ffi::c_void;

    use crate::arrow_c::{ArrowArray, ArrowSchema};

    /// Owns every buffer the C structs point at.
    pub struct Batch {
        pub array: ArrowArray,
        pub schema: ArrowSchema,
        _children: Vec<ArrowArray>,
        _child_schemas: Vec<ArrowSchema>,
        _array_ptrs: Vec<*mut ArrowArray>,
        _schema_ptrs: Vec<*mut ArrowSchema>,
        _buffers: Vec<Vec<*const c_void>>,
        _ids: Vec<i64>,
        _durations: Vec<f64>,
        _validity: Vec<u8>,
    }

    fn schema(format: &'static [u8], name: &'static [u8]) -> ArrowSchema {
        ArrowSchema {
            format: format.as_ptr().cast(),
            name: name.as_ptr().cast(),
            metadata: std::ptr::null(),
            flags: 2,
            n_children: 0,
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: None,
            private_data: std::ptr::null_mut(),
        }
    }

    fn array(length: i64, buffers: &mut Vec<*const c_void>) -> ArrowArray {
        ArrowArray {
            length,
            null_count: -1,
            offset: 0,
            n_buffers: buffers.len() as i64,
            n_children: 0,
            buffers: buffers.as_mut_ptr(),
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: None,
            private_data: std::ptr::null_mut(),
        }
    }

    /// Launches 7, null, 9 with durations 1.5, 2.5, 3.5.
    pub fn batch() -> Batch {
        let ids = vec![7i64, 0, 9];
        let durations = vec![1.5f64, 2.5, 3.5];
        let validity = vec![0b101u8];
        let mut buffers = vec![
            vec![validity.as_ptr().cast::<c_void>(), ids.as_ptr().cast()],
            vec![std::ptr::null(), durations.as_ptr().cast()],
            vec![std::ptr::null()],
        ];
        let mut children = vec![array(3, &mut buffers[0]), array(3, &mut buffers[1])];
        let mut child_schemas = vec![
            schema(b"l\0", b"launch_id\0"),
            schema(b"g\0", b"duration_ns\0"),
        ];
        let mut array_ptrs: Vec<*mut ArrowArray> =
            children.iter_mut().map(|c| c as *mut _).collect();
        let mut schema_ptrs: Vec<*mut ArrowSchema> =
            child_schemas.iter_mut().map(|c| c as *mut _).collect();
        let mut parent = array(3, &mut buffers[2]);
        parent.n_children = 2;
        parent.children = array_ptrs.as_mut_ptr();
        let mut parent_schema = schema(b"+s\0", b"launches\0");
        parent_schema.n_children = 2;
        parent_schema.children = schema_ptrs.as_mut_ptr();
        Batch {
            array: parent,
            schema: parent_schema,
            _children: children,
            _child_schemas: child_schemas,
            _array_ptrs: array_ptrs,
            _schema_ptrs: schema_ptrs,
            _buffers: buffers,
            _ids: ids,
            _durations: durations,
            _validity: validity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numeric_columns_with_nulls() -> Result<(), BatchError> {
        let data = fixture::batch();
        // SAFETY: the fixture owns valid structs for the whole test.
        let batch = unsafe { LaunchBatch::from_raw(&data.array, &data.schema) }?;
        assert_eq!(batch.len(), 3);
        assert_eq!(batch.column_names(), vec!["launch_id", "duration_ns"]);
        assert_eq!(
            batch.column_i64("launch_id")?,
            Some(vec![Some(7), None, Some(9)])
        );
        assert_eq!(
            batch.column_f64("duration_ns")?,
            Some(vec![Some(1.5), Some(2.5), Some(3.5)])
        );
        assert_eq!(batch.column_f64("absent")?, None);
        Ok(())
    }

    #[test]
    fn rejects_a_batch_that_is_not_a_struct() {
        let data = fixture::batch();
        let child_schema = data.schema.children;
        // SAFETY: the first child schema and array are valid non-struct ("l") structs.
        let result = unsafe { LaunchBatch::from_raw(*data.array.children, *child_schema) };
        assert_eq!(result.err(), Some(BatchError::NotAStruct("l".to_string())));
    }
}
