//! Frames leaving Rust for Python without a copy: a polars [`DataFrame`] held by an
//! [`ArrowStream`] object that implements the Arrow PyCapsule interface (`__arrow_c_stream__`).
//! The Python side builds a `polars.DataFrame` from it (or `pyarrow.table(stream)`), which takes
//! the buffers through the Arrow C stream interface of polars-arrow (the crate polars itself is
//! built on), so no second polars and no serialisation are involved.

use std::ffi::CStr;

use polars::prelude::*;
use polars_arrow::array::{Array, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{ArrowArrayStream, export_iterator};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// The capsule name the Arrow PyCapsule interface requires for a stream.
const STREAM_CAPSULE: &CStr = c"arrow_array_stream";

/// A frame on its way to Python: exported once, by the first `__arrow_c_stream__` call.
#[pyclass(module = "warpsight._warpsight", frozen)]
pub(crate) struct ArrowStream {
    /// The frame, taken by the export.
    frame: std::sync::Mutex<Option<DataFrame>>,
}

impl ArrowStream {
    /// Wraps `frame` for export.
    pub(crate) fn new(frame: DataFrame) -> Self {
        ArrowStream {
            frame: std::sync::Mutex::new(Some(frame)),
        }
    }
}

#[pymethods]
impl ArrowStream {
    /// Exports the frame as an Arrow C stream of struct arrays, one per chunk, in a capsule named
    /// `arrow_array_stream` (the Arrow PyCapsule interface). A requested schema is not applied:
    /// the frame's own types are given. A stream can be exported once.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let frame = self
            .frame
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the frame's lock is poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this Arrow stream was already exported"))?;
        let stream = export_frame(frame);
        PyCapsule::new_with_value(py, OwnedStream(stream), STREAM_CAPSULE)
    }

    /// Number of rows of the frame, or `None` once it was exported.
    fn height(&self) -> Option<usize> {
        self.frame
            .lock()
            .ok()
            .and_then(|frame| frame.as_ref().map(DataFrame::height))
    }
}

/// The frame as an Arrow C stream: each chunk (after aligning the columns' chunks, which copies
/// nothing when they are already aligned, as the analysis leaves them) one struct array.
fn export_frame(mut frame: DataFrame) -> ArrowArrayStream {
    if frame.should_rechunk() {
        frame.align_chunks();
    }
    let fields: Vec<Field> = frame
        .columns()
        .iter()
        .map(|column| column.field().to_arrow(CompatLevel::newest()))
        .collect();
    let dtype = ArrowDataType::Struct(fields);
    let height = frame.height();
    let arrays: Vec<PolarsResult<Box<dyn Array>>> = if frame.width() == 0 {
        vec![Ok(StructArray::new(
            dtype.clone(),
            height,
            Vec::new(),
            None,
        )
        .boxed())]
    } else {
        frame
            .iter_chunks(CompatLevel::newest(), false)
            .map(|batch| {
                let length = batch.height();
                StructArray::try_new(dtype.clone(), length, batch.into_arrays(), None)
                    .map(|array| array.boxed())
            })
            .collect()
    };
    export_iterator(
        Box::new(arrays.into_iter()),
        Field::new("".into(), dtype, false),
    )
}

/// Keeps the stream type named in the module (Python sees `warpsight._warpsight.ArrowStream`).
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ArrowStream>()
}

/// An Arrow C stream owned by a capsule. `#[repr(transparent)]`: the capsule's pointer is the
/// pointer to the `ArrowArrayStream` the consumer reads (and moves out, setting its `release` to
/// null, after which dropping it does nothing).
#[repr(transparent)]
struct OwnedStream(ArrowArrayStream);

// SAFETY: the stream's private data is a boxed iterator over owned arrays (Arc-counted buffers,
// `Send`) and its callbacks have no thread affinity; the C stream interface lets a consumer call
// it from any thread, one call at a time, which the capsule's single owner guarantees.
unsafe impl Send for OwnedStream {}
