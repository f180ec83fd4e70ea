//! Allocator tuning: handing the memory freed by one input back to the system before the next is
//! read, and leaving a command's large results unfreed when the process is about to exit.

/// Ends a command's ownership of `value` (its analysis, its tables) without freeing it: the command
/// returns and the process exits right after, and the system takes the memory back at once, where
/// freeing the analysis of a 500 MB ncu page (60 000 findings, the launch and group frames) took
/// 30 ms of the 0.25 s the analysis adds to reading it (docs/performance.md, "Scale").
pub(crate) fn keep_until_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Hands the memory freed by the previous file back to the system before the next one is read.
/// glibc keeps freed blocks in its per-thread arenas, and without this a batch read one file at a
/// time grew to 2.3× one file's peak (docs/performance.md, "Scale"); elsewhere it does nothing.
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator's own arenas; it takes no
    // pointer and is safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}
