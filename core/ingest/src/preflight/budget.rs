//! The memory a file's declared lengths may ask for: this machine's physical memory plus swap.
//!
//! A Parquet or IPC file whose lengths are consistent can still declare more rows than fit in
//! memory (a column of nulls or of one repeated value takes a few bytes on disk for any number of
//! rows). polars would then ask for an allocation the system refuses, and Rust aborts the process;
//! a file whose least possible need exceeds this budget is refused with an error instead. Linux
//! gives the figures in `/proc/meminfo`; elsewhere there is no budget and only the lengths are
//! checked.

use std::sync::OnceLock;

/// This machine's physical memory plus swap, in bytes, read once; `None` where unknown.
pub(crate) fn available_memory() -> Option<u64> {
    static BUDGET: OnceLock<Option<u64>> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_meminfo(&text)
    })
}

/// `MemTotal` plus `SwapTotal` (0 when absent) of a `/proc/meminfo` text, in bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let kib = |name: &str| -> Option<u64> {
        let line = text.lines().find(|line| line.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    let total = kib("MemTotal:")?;
    let swap = kib("SwapTotal:").unwrap_or(0);
    total.checked_add(swap)?.checked_mul(1024)
}

/// A running sum of the bytes a file's declared lengths need, which saturates instead of
/// overflowing (a sum past `u64::MAX` is over any budget anyway).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Need(u64);

impl Need {
    /// Adds `bytes`.
    pub(crate) fn add(&mut self, bytes: u64) {
        self.0 = self.0.saturating_add(bytes);
    }

    /// Adds `count` items of `width` bytes each.
    pub(crate) fn add_items(&mut self, count: u64, width: u64) {
        self.add(count.saturating_mul(width));
    }

    /// The bytes needed.
    #[cfg(test)]
    pub(crate) fn bytes(self) -> u64 {
        self.0
    }

    /// `Err(needs, available)` when the need exceeds `budget`.
    pub(crate) fn within(self, budget: Option<u64>) -> Result<(), (u64, u64)> {
        match budget {
            Some(available) if self.0 > available => Err((self.0, available)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_physical_memory_plus_swap() {
        let text = "MemTotal:       24684092 kB\nMemFree:        17045528 kB\nSwapTotal:       1048576 kB\n";
        assert_eq!(parse_meminfo(text), Some((24_684_092 + 1_048_576) * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1000 kB\n"), Some(1_024_000));
        assert_eq!(parse_meminfo("SwapTotal: 1000 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn the_need_saturates_and_is_compared_with_the_budget() {
        let mut need = Need::default();
        need.add_items(u64::MAX, 16);
        need.add(1);
        assert_eq!(need.bytes(), u64::MAX);
        assert_eq!(need.within(Some(1 << 40)), Err((u64::MAX, 1 << 40)));
        assert_eq!(need.within(None), Ok(()));
        let mut small = Need::default();
        small.add_items(1000, 8);
        assert_eq!(small.within(Some(8000)), Ok(()));
        assert_eq!(small.within(Some(7999)), Err((8000, 7999)));
    }
}
