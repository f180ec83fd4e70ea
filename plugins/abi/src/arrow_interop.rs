//! With the `arrow` feature: reads the rules hook's batch as an arrow-rs `StructArray`, for plugins
//! whose rules need more than the numeric columns [`crate::LaunchBatch`] reads.

use arrow_array::StructArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
use arrow_schema::ArrowError;

use crate::arrow_c::{ArrowArray, ArrowSchema};

/// Imports the host's batch without taking ownership: the returned array borrows the host's
/// buffers and must be dropped before the rules hook returns.
///
/// # Safety
/// `array` and `schema` are the valid, unreleased pointers the host passed to the rules hook.
pub unsafe fn import_batch(
    array: *const ArrowArray,
    schema: *const ArrowSchema,
) -> Result<StructArray, ArrowError> {
    if array.is_null() || schema.is_null() {
        return Err(ArrowError::CDataInterface("null batch pointer".to_string()));
    }
    // SAFETY: `array` is valid; the copy is shallow and its release callback is cleared so that
    // arrow-rs never releases the host's array (the host keeps ownership).
    let mut shallow = unsafe { std::ptr::read(array) };
    shallow.release = None;
    // SAFETY: `ArrowArray` and `FFI_ArrowArray` are both the C `struct ArrowArray`, same layout.
    let ffi_array: FFI_ArrowArray =
        unsafe { std::mem::transmute::<ArrowArray, FFI_ArrowArray>(shallow) };
    // SAFETY: same layout as the C `struct ArrowSchema`; only borrowed.
    let ffi_schema: &FFI_ArrowSchema = unsafe { &*schema.cast::<FFI_ArrowSchema>() };
    // SAFETY: the structs are valid for the duration of the call.
    let data = unsafe { from_ffi(ffi_array, ffi_schema) }?;
    Ok(StructArray::from(data))
}

#[cfg(test)]
mod tests {
    use arrow_array::{Array, Float64Array, Int64Array};

    use super::*;
    use crate::batch::fixture;

    #[test]
    fn imports_the_batch_without_taking_ownership() -> Result<(), Box<dyn std::error::Error>> {
        let data = fixture::batch();
        // SAFETY: the fixture owns valid structs for the whole test.
        let batch = unsafe { import_batch(&data.array, &data.schema) }?;
        assert_eq!(batch.len(), 3);
        let ids = batch.column_by_name("launch_id").ok_or("no launch_id")?;
        let ids = ids
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or("not int64")?;
        assert_eq!(ids.iter().collect::<Vec<_>>(), vec![Some(7), None, Some(9)]);
        let durations = batch.column_by_name("duration_ns").ok_or("no duration")?;
        let durations = durations
            .as_any()
            .downcast_ref::<Float64Array>()
            .ok_or("not float64")?;
        assert_eq!(durations.value(2), 3.5);
        drop(batch);
        // The host's struct is untouched: arrow-rs did not release it.
        assert_eq!(data.array.length, 3);
        Ok(())
    }
}
