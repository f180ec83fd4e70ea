//! The two structs of the Arrow C Data Interface (<https://arrow.apache.org/docs/format/CDataInterface.html>),
//! defined here with their exact C layout so that every plugin compiles without an Arrow library.
//! With the `arrow` feature, `crate::arrow_interop` converts them to arrow-rs arrays.

use std::ffi::{c_char, c_void};

/// `struct ArrowSchema` of the Arrow C Data Interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    /// Format string, e.g. "l" (int64), "g" (float64), "u" (utf8), "+s" (struct).
    pub format: *const c_char,
    /// Field name (NUL-terminated), may be null.
    pub name: *const c_char,
    /// Metadata, may be null.
    pub metadata: *const c_char,
    /// Flags (bit 2: nullable).
    pub flags: i64,
    /// Number of children.
    pub n_children: i64,
    /// Children schemas.
    pub children: *mut *mut ArrowSchema,
    /// Dictionary schema, may be null.
    pub dictionary: *mut ArrowSchema,
    /// Release callback; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    /// Producer-private data.
    pub private_data: *mut c_void,
}

/// `struct ArrowArray` of the Arrow C Data Interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    /// Number of logical elements.
    pub length: i64,
    /// Number of nulls, or -1 when not computed.
    pub null_count: i64,
    /// Logical offset into the buffers.
    pub offset: i64,
    /// Number of buffers.
    pub n_buffers: i64,
    /// Number of children.
    pub n_children: i64,
    /// Buffers (validity first for most layouts).
    pub buffers: *mut *const c_void,
    /// Children arrays.
    pub children: *mut *mut ArrowArray,
    /// Dictionary array, may be null.
    pub dictionary: *mut ArrowArray,
    /// Release callback; null once released.
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    /// Producer-private data.
    pub private_data: *mut c_void,
}
