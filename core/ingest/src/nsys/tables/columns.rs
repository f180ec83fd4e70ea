//! Which nsys kernel and GPU columns fill which launch-table columns, the documented enum labels
//! used when an export lacks its enum tables, and the names of the extra `nsys_*` columns.

use crate::launch_table::column_names as lt;

/// Kernel columns that fill launch-table columns (or are consumed as lookup keys).
pub(crate) const MAPPED_KERNEL_COLUMNS: &[&str] = &[
    "start",
    "end",
    "deviceId",
    "contextId",
    "streamId",
    "correlationId",
    "globalPid",
    "demangledName",
    "shortName",
    "mangledName",
    "registersPerThread",
    "gridX",
    "gridY",
    "gridZ",
    "blockX",
    "blockY",
    "blockZ",
    "staticSharedMemory",
    "dynamicSharedMemory",
    "sharedMemoryExecuted",
];

/// Extra launch-table column with the mangled kernel name (`mangledName` through `StringIds`).
pub(crate) const MANGLED_NAME_COLUMN: &str = "nsys_mangled_name";

/// Kernel columns without which a row is not a usable launch.
pub(crate) const REQUIRED_KERNEL_COLUMNS: &[&str] = &[
    "start", "end", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
];

/// `TARGET_INFO_GPU` columns copied onto launches: (nsys column, launch-table column, is text).
pub(crate) const GPU_COLUMNS: &[(&str, &str, bool)] = &[
    ("name", lt::DEVICE_NAME, true),
    ("smCount", lt::SM_COUNT, false),
    ("computeMajor", lt::CC_MAJOR, false),
    ("computeMinor", lt::CC_MINOR, false),
    ("chipName", "device_chip_name", true),
    ("maxShmemPerSm", "device_max_shmem_per_sm", false),
    ("maxShmemPerBlock", "device_max_shmem_per_block", false),
    (
        "maxShmemPerBlockOptin",
        "device_max_shmem_per_block_optin",
        false,
    ),
    ("maxRegistersPerSm", "device_max_registers_per_sm", false),
    (
        "maxRegistersPerBlock",
        "device_max_registers_per_block",
        false,
    ),
    ("maxWarpsPerSm", "device_max_warps_per_sm", false),
    ("maxBlocksPerSm", "device_max_blocks_per_sm", false),
    ("maxThreadsPerBlock", "device_max_threads_per_block", false),
    ("threadsPerWarp", "device_threads_per_warp", false),
    ("l2CacheSize", "device_l2_cache_bytes", false),
    ("totalMemory", "device_memory_bytes", false),
    (
        "memoryBandwidth",
        "device_memory_bandwidth_bytes_per_s",
        false,
    ),
];

/// The documented `ENUM_CUDA_MEMCPY_OPER` labels, used when the export lacks that table.
pub(crate) const MEMCPY_OPER_LABELS: &[(i64, &str)] = &[
    (0, "Unknown"),
    (1, "Host-to-Device"),
    (2, "Device-to-Host"),
    (3, "Host-to-Array"),
    (4, "Array-to-Host"),
    (5, "Array-to-Array"),
    (6, "Array-to-Device"),
    (7, "Device-to-Array"),
    (8, "Device-to-Device"),
    (9, "Host-to-Host"),
    (10, "Peer-to-Peer"),
];

/// The documented `ENUM_CUDA_MEM_KIND` labels, used when the export lacks that table.
pub(crate) const MEM_KIND_LABELS: &[(i64, &str)] = &[
    (0, "Pageable"),
    (1, "Pinned"),
    (2, "Device"),
    (3, "Array"),
    (4, "Managed"),
    (5, "Device Static"),
    (6, "Managed Static"),
    (7, "Unknown"),
];

/// `camelCase` to `snake_case` (`sharedMemoryLimitConfig` -> `shared_memory_limit_config`).
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The extra launch-table column name of an nsys kernel column that has no launch-table column.
pub(crate) fn extra_kernel_column(name: &str) -> String {
    format!("nsys_{}", snake_case(name))
}
