//! Which Nsight Compute metric fills which launch-table column, and the parsers for the
//! identification fields (dimensions, compute capability, kernel time, short kernel names).
//!
//! Details metrics are keyed by (Section Name, Metric Name) because labels repeat across sections
//! (`Memory Throughput` is a percentage in the Speed Of Light section and bytes/second in Memory
//! Workload Analysis). Raw-page columns and the `Command line profiler metrics` section use raw
//! metric names. When several metrics can fill one column, the lowest `priority` present in a row
//! wins (raw counters before display labels, which are rounded); see FORMATS.md §2.1.
//!
//! Block and grid dimensions come from the `Block Size` / `Grid Size` identification columns
//! (`(384, 1, 1)`) when present, else from `launch__block_dim_{x,y,z}` /
//! `launch__grid_dim_{x,y,z}`, else from the Launch Statistics `Block Size` / `Grid Size` metric
//! rows (or `launch__block_size` / `launch__grid_size`), which are products: then x = product and
//! y = z = 1.

use crate::launch_table::column_names as lt;

/// How a metric fills a known column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Role {
    /// The launch-table column.
    pub(crate) column: &'static str,
    /// Lower wins when several metrics of a row fill the same column.
    pub(crate) priority: u8,
}

/// Pseudo-columns for dimension sources that need combining (see the module docs).
pub(crate) mod dim {
    /// Block size as a product (x = product, y = z = 1).
    pub(crate) const BLOCK_PRODUCT: &str = "\0block_product";
    /// Grid size as a product.
    pub(crate) const GRID_PRODUCT: &str = "\0grid_product";
    /// `launch__block_dim_x` etc.
    pub(crate) const BLOCK_DIM: [&str; 3] = ["\0block_dim_x", "\0block_dim_y", "\0block_dim_z"];
    /// `launch__grid_dim_x` etc.
    pub(crate) const GRID_DIM: [&str; 3] = ["\0grid_dim_x", "\0grid_dim_y", "\0grid_dim_z"];
    /// `device__attribute_compute_capability_major` / `_minor`.
    pub(crate) const CC: [&str; 2] = ["\0cc_major", "\0cc_minor"];
}

const fn r(column: &'static str, priority: u8) -> Option<Role> {
    Some(Role { column, priority })
}

/// The role of a raw metric name (raw page columns, or the `Command line profiler metrics` rows).
pub(crate) fn raw_role(name: &str) -> Option<Role> {
    match name {
        "launch__registers_per_thread" => r(lt::REGISTERS_PER_THREAD, 0),
        "launch__shared_mem_per_block_static" => r(lt::STATIC_SMEM_BYTES, 0),
        "launch__shared_mem_per_block_dynamic" => r(lt::DYNAMIC_SMEM_BYTES, 0),
        "launch__shared_mem_per_block_driver" => r(lt::DRIVER_SMEM_BYTES, 0),
        "launch__shared_mem_config_size" => r(lt::SMEM_CONFIG_BYTES, 0),
        "device__attribute_multiprocessor_count" => r(lt::SM_COUNT, 0),
        "device__attribute_display_name" => r(lt::DEVICE_NAME, 0),
        "device__attribute_compute_capability_major" => r(dim::CC[0], 0),
        "device__attribute_compute_capability_minor" => r(dim::CC[1], 0),
        "launch__occupancy_limit_blocks" => r(lt::NCU_BLOCK_LIMIT_SM, 0),
        "launch__occupancy_limit_registers" => r(lt::NCU_BLOCK_LIMIT_REGISTERS, 0),
        "launch__occupancy_limit_shared_mem" => r(lt::NCU_BLOCK_LIMIT_SHARED_MEM, 0),
        "launch__occupancy_limit_warps" => r(lt::NCU_BLOCK_LIMIT_WARPS, 0),
        "launch__occupancy_limit_barriers" => r(lt::NCU_BLOCK_LIMIT_BARRIERS, 0),
        "sm__maximum_warps_per_active_cycle_pct" => r(lt::NCU_THEORETICAL_OCCUPANCY, 0),
        "sm__maximum_warps_avg_per_active_cycle" => r(lt::NCU_THEORETICAL_WARPS, 0),
        "sm__warps_active.avg.pct_of_peak_sustained_active" => r(lt::ACHIEVED_OCCUPANCY, 0),
        "gpu__time_duration.sum" => r(lt::DURATION_NS, 0),
        "gpu__time_duration" => r(lt::DURATION_NS, 1),
        "sm__cycles_elapsed.avg" => r(lt::SM_CYCLES_ELAPSED, 0),
        "gpc__cycles_elapsed.max" => r(lt::SM_CYCLES_ELAPSED, 2),
        "sm__cycles_elapsed.avg.per_second" => r(lt::SM_CLOCK_HZ, 0),
        "gpc__cycles_elapsed.avg.per_second" => r(lt::SM_CLOCK_HZ, 1),
        "dram__cycles_elapsed.avg.per_second" => r(lt::DRAM_CLOCK_HZ, 0),
        "dram__bytes_read.sum" => r(lt::DRAM_BYTES_READ, 0),
        "dram__read_bytes" | "dram__read_bytes.sum" => r(lt::DRAM_BYTES_READ, 1),
        "dram__bytes_write.sum" => r(lt::DRAM_BYTES_WRITE, 0),
        "dram__write_bytes" | "dram__write_bytes.sum" => r(lt::DRAM_BYTES_WRITE, 1),
        "lts__t_bytes.sum" => r(lt::L2_BYTES, 0),
        "l1tex__t_bytes.sum" => r(lt::L1_BYTES, 0),
        "sm__sass_thread_inst_executed_op_fadd_pred_on.sum" => r(lt::INST_FADD, 0),
        "sm__sass_thread_inst_executed_op_fmul_pred_on.sum" => r(lt::INST_FMUL, 0),
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum" => r(lt::INST_FFMA, 0),
        "sm__sass_thread_inst_executed_op_dadd_pred_on.sum" => r(lt::INST_DADD, 0),
        "sm__sass_thread_inst_executed_op_dmul_pred_on.sum" => r(lt::INST_DMUL, 0),
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum" => r(lt::INST_DFMA, 0),
        "sm__sass_thread_inst_executed_op_hadd_pred_on.sum" => r(lt::INST_HADD, 0),
        "sm__sass_thread_inst_executed_op_hmul_pred_on.sum" => r(lt::INST_HMUL, 0),
        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum" => r(lt::INST_HFMA, 0),
        "sm__inst_executed_pipe_tensor.sum" => r(lt::INST_TENSOR, 0),
        "sm__inst_executed.sum" => r(lt::INST_EXECUTED, 0),
        "smsp__inst_executed.sum" => r(lt::INST_EXECUTED, 1),
        "launch__block_dim_x" => r(dim::BLOCK_DIM[0], 0),
        "launch__block_dim_y" => r(dim::BLOCK_DIM[1], 0),
        "launch__block_dim_z" => r(dim::BLOCK_DIM[2], 0),
        "launch__grid_dim_x" => r(dim::GRID_DIM[0], 0),
        "launch__grid_dim_y" => r(dim::GRID_DIM[1], 0),
        "launch__grid_dim_z" => r(dim::GRID_DIM[2], 0),
        "launch__block_size" => r(dim::BLOCK_PRODUCT, 0),
        "launch__grid_size" => r(dim::GRID_PRODUCT, 0),
        _ => None,
    }
}

/// The role of a details metric row.
pub(crate) fn details_role(section: &str, metric: &str) -> Option<Role> {
    let sol = section == "GPU Speed Of Light Throughput" || section == "GPU Speed Of Light";
    match (section, metric) {
        ("Launch Statistics", "Registers Per Thread") => r(lt::REGISTERS_PER_THREAD, 1),
        ("Launch Statistics", "Static Shared Memory Per Block") => r(lt::STATIC_SMEM_BYTES, 1),
        ("Launch Statistics", "Dynamic Shared Memory Per Block") => r(lt::DYNAMIC_SMEM_BYTES, 1),
        ("Launch Statistics", "Driver Shared Memory Per Block") => r(lt::DRIVER_SMEM_BYTES, 1),
        ("Launch Statistics", "Shared Memory Configuration Size") => r(lt::SMEM_CONFIG_BYTES, 1),
        ("Launch Statistics", "# SMs") => r(lt::SM_COUNT, 1),
        ("Launch Statistics", "Block Size") => r(dim::BLOCK_PRODUCT, 1),
        ("Launch Statistics", "Grid Size") => r(dim::GRID_PRODUCT, 1),
        ("Occupancy", "Block Limit SM") => r(lt::NCU_BLOCK_LIMIT_SM, 1),
        ("Occupancy", "Block Limit Registers") => r(lt::NCU_BLOCK_LIMIT_REGISTERS, 1),
        ("Occupancy", "Block Limit Shared Mem") => r(lt::NCU_BLOCK_LIMIT_SHARED_MEM, 1),
        ("Occupancy", "Block Limit Warps") => r(lt::NCU_BLOCK_LIMIT_WARPS, 1),
        ("Occupancy", "Block Limit Barriers") => r(lt::NCU_BLOCK_LIMIT_BARRIERS, 1),
        ("Occupancy", "Theoretical Occupancy") => r(lt::NCU_THEORETICAL_OCCUPANCY, 1),
        ("Occupancy", "Theoretical Active Warps per SM") => r(lt::NCU_THEORETICAL_WARPS, 1),
        ("Occupancy", "Achieved Occupancy") => r(lt::ACHIEVED_OCCUPANCY, 1),
        (_, "Duration") if sol => r(lt::DURATION_NS, 2),
        (_, "Elapsed Cycles") if sol => r(lt::SM_CYCLES_ELAPSED, 1),
        (_, "SM Frequency") if sol => r(lt::SM_CLOCK_HZ, 2),
        (_, "DRAM Frequency" | "Memory Frequency") if sol => r(lt::DRAM_CLOCK_HZ, 1),
        _ if metric.contains("__") => raw_role(metric),
        _ => None,
    }
}

/// The fixed identification columns of ncu CSV exports (everything else on the raw page is a
/// metric). Columns not listed here that appear before `Section Name` in a details header (such
/// as the NVTX columns) are identification columns too.
pub(crate) const IDENT_COLUMNS: &[&str] = &[
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// True when a raw-page header name is an identification column (the fixed ones, or an NVTX
/// column such as `thread Domain:Push/Pop_Range:...`).
pub(crate) fn is_raw_ident_column(name: &str) -> bool {
    IDENT_COLUMNS.contains(&name)
        || name.starts_with("thread Domain:")
        || name.starts_with("Id:Domain:")
}

/// Parses a dimension triple written `(384, 1, 1)`.
pub(crate) fn parse_dim3(text: &str) -> Option<[i64; 3]> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut out = [0i64; 3];
    let mut parts = inner.split(',');
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// Parses a compute capability written `8.0` or `12.0` into (major, minor).
pub(crate) fn parse_cc(text: &str) -> Option<(i64, i64)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Parses ncu's `Kernel Time` (`2020-Apr-09 15:38:19`) as Unix-epoch nanoseconds, assuming UTC
/// (the export carries no time zone).
pub(crate) fn parse_kernel_time(text: &str) -> Option<i64> {
    let (date, time) = text.trim().split_once(' ')?;
    let mut d = date.split('-');
    let year: i64 = d.next()?.parse().ok()?;
    let month_name = d.next()?;
    let day: i64 = d.next()?.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(month_name))? as i64
        + 1;
    let mut t = time.split(':');
    let hour: i64 = t.next()?.parse().ok()?;
    let minute: i64 = t.next()?.parse().ok()?;
    let second: i64 = t.next()?.parse().ok()?;
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60 * 1_000_000_000 + second * 1_000_000_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_throughput_is_keyed_by_section() {
        assert_eq!(
            details_role("GPU Speed Of Light Throughput", "Memory Throughput"),
            None
        );
        assert_eq!(
            details_role("Memory Workload Analysis", "Memory Throughput"),
            None
        );
        assert_eq!(
            details_role("GPU Speed Of Light Throughput", "Duration").map(|r| r.column),
            Some(lt::DURATION_NS)
        );
        assert_eq!(details_role("Some Other Section", "Duration"), None);
        assert_eq!(
            details_role("Command line profiler metrics", "dram__bytes_read.sum").map(|r| r.column),
            Some(lt::DRAM_BYTES_READ)
        );
    }

    #[test]
    fn raw_counters_beat_display_labels() -> Result<(), String> {
        let raw = raw_role("gpu__time_duration.sum").ok_or("raw")?;
        let label = details_role("GPU Speed Of Light Throughput", "Duration").ok_or("label")?;
        assert!(raw.priority < label.priority);
        let pascal = raw_role("gpu__time_duration").ok_or("pascal")?;
        assert_eq!(pascal.column, lt::DURATION_NS);
        Ok(())
    }

    #[test]
    fn identification_fields_parse() {
        assert_eq!(parse_dim3("(384, 1, 1)"), Some([384, 1, 1]));
        assert_eq!(parse_dim3("(32, 16, 1)"), Some([32, 16, 1]));
        assert_eq!(parse_dim3("384"), None);
        assert_eq!(parse_cc("12.0"), Some((12, 0)));
        assert_eq!(parse_cc("8.6"), Some((8, 6)));
        // 2020-04-09 15:38:19 UTC is Unix time 1586446699 (independently: 18361 days * 86400 +
        // 15 h 38 min 19 s).
        assert_eq!(
            parse_kernel_time("2020-Apr-09 15:38:19"),
            Some(1_586_446_699_000_000_000)
        );
        assert_eq!(parse_kernel_time("garbage"), None);
    }
}
