//! The tables of one nsys export that warpsight reads, by name, as lazy polars frames.

use polars::prelude::*;

use super::narrow::ConstantColumns;

/// Table names of the nsys export that warpsight reads.
pub mod table {
    /// Kernel launches.
    pub const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
    /// memcpy activity.
    pub const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
    /// memset activity.
    pub const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
    /// Interned strings (`id`, `value`).
    pub const STRING_IDS: &str = "StringIds";
    /// Per-GPU properties and limits.
    pub const TARGET_INFO_GPU: &str = "TARGET_INFO_GPU";
    /// Process names (`globalPid`, `pid`, `name`).
    pub const PROCESSES: &str = "PROCESSES";
    /// memcpy direction labels.
    pub const ENUM_MEMCPY_OPER: &str = "ENUM_CUDA_MEMCPY_OPER";
    /// Memory kind labels.
    pub const ENUM_MEM_KIND: &str = "ENUM_CUDA_MEM_KIND";
    /// Every table the readers load, in loading order.
    pub(crate) const ALL: &[&str] = &[
        KERNEL,
        MEMCPY,
        MEMSET,
        STRING_IDS,
        TARGET_INFO_GPU,
        PROCESSES,
        ENUM_MEMCPY_OPER,
        ENUM_MEM_KIND,
    ];
}

/// The tables of one export; a missing table is `None`.
#[derive(Default, Clone)]
pub struct NsysTables {
    /// `CUPTI_ACTIVITY_KIND_KERNEL`.
    pub(crate) kernels: Option<LazyFrame>,
    /// `CUPTI_ACTIVITY_KIND_MEMCPY`.
    pub(crate) memcpy: Option<LazyFrame>,
    /// `CUPTI_ACTIVITY_KIND_MEMSET`.
    pub(crate) memset: Option<LazyFrame>,
    /// `StringIds` (may be limited to the ids the other tables reference).
    pub(crate) string_ids: Option<LazyFrame>,
    /// `TARGET_INFO_GPU`.
    pub(crate) gpus: Option<LazyFrame>,
    /// `PROCESSES`.
    pub(crate) processes: Option<LazyFrame>,
    /// `ENUM_CUDA_MEMCPY_OPER`.
    pub(crate) memcpy_oper: Option<LazyFrame>,
    /// `ENUM_CUDA_MEM_KIND`.
    pub(crate) mem_kind: Option<LazyFrame>,
    /// Whether the launch table keeps constant columns as scalar columns (the default).
    pub(crate) constants: ConstantColumns,
}

impl NsysTables {
    /// Stores `frame` as the table called `name` (ignored when warpsight does not read it).
    pub(crate) fn set(&mut self, name: &str, frame: LazyFrame) {
        let slot = match name {
            table::KERNEL => &mut self.kernels,
            table::MEMCPY => &mut self.memcpy,
            table::MEMSET => &mut self.memset,
            table::STRING_IDS => &mut self.string_ids,
            table::TARGET_INFO_GPU => &mut self.gpus,
            table::PROCESSES => &mut self.processes,
            table::ENUM_MEMCPY_OPER => &mut self.memcpy_oper,
            table::ENUM_MEM_KIND => &mut self.mem_kind,
            _ => return,
        };
        *slot = Some(frame);
    }
}
