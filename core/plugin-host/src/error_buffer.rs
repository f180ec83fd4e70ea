//! The buffer the host hands to a plugin's entry symbol and rules hook for an error message: owned
//! storage of a fixed size and its C view (`warpsight_plugin::ErrorBuffer`). Used by both the loader
//! and the rules hook, so it lives in neither.

use warpsight_plugin::ErrorBuffer;

/// Bytes the host offers plugins for error messages.
pub(crate) const ERROR_BUFFER_BYTES: usize = 4096;

/// The host's error buffer with its storage.
pub(crate) struct HostErrorBuffer {
    storage: Vec<u8>,
    /// The C view handed to the plugin.
    pub(crate) raw: ErrorBuffer,
}

impl HostErrorBuffer {
    /// An empty buffer of [`ERROR_BUFFER_BYTES`].
    pub(crate) fn new() -> Self {
        let mut storage = vec![0u8; ERROR_BUFFER_BYTES];
        let raw = ErrorBuffer {
            ptr: storage.as_mut_ptr(),
            capacity: storage.len(),
            len: 0,
        };
        HostErrorBuffer { storage, raw }
    }

    /// The message the plugin wrote (lossy UTF-8, never more than the buffer holds).
    pub(crate) fn message(&self) -> String {
        let len = self.raw.len.min(self.storage.len());
        String::from_utf8_lossy(&self.storage[..len]).into_owned()
    }
}

impl Default for HostErrorBuffer {
    fn default() -> Self {
        Self::new()
    }
}
