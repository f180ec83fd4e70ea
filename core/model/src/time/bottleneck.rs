//! Which resource sets the predicted time, named as a performance engineer would name it
//! (docs/model-v2/SPEC.md §3.5), with a one-line detail carrying the number behind the name.
//!
//! In this order: `launch_overhead` when the fixed cost exceeds the kernel's own time; `occupancy`
//! or `latency` when latency, not throughput, dominates (occupancy when fewer warps are resident
//! than the SM holds); otherwise the largest throughput term. An `issue`-bound launch is named after
//! the pipe whose instructions fill the issue slots (≥ 85 % of them); the FMA pipe is `fp16` when
//! half or more of its instructions are FP16x2; L1/LSU-bound launches are `shared` (more shared than
//! global wavefronts; bank conflicts when ≥ 2 wavefronts per shared instruction),
//! `uncoalesced_global` (more than 8 sectors per global request) or `l1`.

use polars::prelude::*;

use super::inputs::{self as i, Inputs};
use super::latency::T_LATENCY;
use super::throughput::{BLOCKS_PER_SM, T_THROUGHPUT, TOP, WARPS_PER_BLOCK, term};
use crate::columns as out;
use crate::params as p;

/// The smooth maximum of the throughput and latency times, seconds.
pub(crate) const T_CORE: &str = "__tm_t_core";
const SECTORS_PER_REQUEST: &str = "__tm_sectors_per_request";
const TOP_RESOLVED: &str = "__tm_top_resolved";

/// The pipes an issue-bound launch may be named after.
const ISSUE_PIPES: &[&str] = &[
    "fma",
    "fp64",
    "alu",
    "xu",
    "tensor_hmma",
    "tensor_gmma",
    "tensor_imma",
    "tensor_dmma",
];

/// Adds [`out::BOTTLENECK`] and [`out::BOTTLENECK_DETAIL`]; needs [`T_CORE`] and the terms.
pub(crate) fn add_columns(
    frame: LazyFrame,
    inputs: &Inputs,
    launch_overhead_s: f64,
) -> PolarsResult<LazyFrame> {
    let sectors = inputs.sum(i::GLOBAL_SECTORS);
    let requests = inputs.sum(i::GLOBAL_REQUESTS);
    let l1_bytes = inputs.l1_bytes().fill_null(lit(0.0));
    let lsu = inputs.pipe("lsu");
    let spr = when(
        sectors
            .clone()
            .gt(lit(0.0))
            .and(requests.clone().gt(lit(0.0))),
    )
    .then(sectors / requests)
    .when(l1_bytes.clone().gt(lit(0.0)).and(lsu.clone().gt(lit(0.0))))
    .then(l1_bytes / lit(32.0) / lsu)
    .otherwise(lit(NULL).cast(DataType::Float64));
    let largest_pipe = polars::lazy::dsl::max_horizontal(
        ISSUE_PIPES.iter().map(|r| col(term(r))).collect::<Vec<_>>(),
    )?;
    let mut busiest = lit(NULL).cast(DataType::String);
    for resource in ISSUE_PIPES.iter().rev() {
        busiest = when(col(term(resource)).eq(largest_pipe.clone()))
            .then(lit(*resource))
            .otherwise(busiest);
    }
    let resolved = when(col(TOP).eq(lit("issue")))
        .then(
            when(largest_pipe.gt_eq(lit(0.85) * col(term("issue"))))
                .then(busiest)
                .otherwise(lit("issue")),
        )
        .otherwise(col(TOP));
    let frame = frame.with_columns([spr.alias(SECTORS_PER_REQUEST), resolved.alias(TOP_RESOLVED)]);
    let shared = inputs.or_zero(i::SHARED_WAVEFRONTS);
    let global = inputs.sum(i::GLOBAL_WAVEFRONTS).fill_null(lit(0.0));
    let shared_inst = inputs.sum(i::SHARED_INST).fill_null(lit(0.0));
    let per_shared = when(shared_inst.clone().gt(lit(0.0)))
        .then(shared.clone() / shared_inst)
        .otherwise(lit(NULL).cast(DataType::Float64));
    let resident_warps = col(BLOCKS_PER_SM) * col(WARPS_PER_BLOCK);
    let t_lat = || col(T_LATENCY).fill_null(lit(0.0));
    let top = || col(TOP_RESOLVED);
    let uncoalesced = || col(SECTORS_PER_REQUEST).gt(lit(8.0));
    let name = when(lit(launch_overhead_s).gt_eq(col(T_CORE)))
        .then(lit("launch_overhead"))
        .when(col(T_THROUGHPUT).lt(lit(0.75) * t_lat()))
        .then(
            when(
                resident_warps
                    .clone()
                    .lt(col(p::MAX_WARPS).cast(DataType::Float64)),
            )
            .then(lit("occupancy"))
            .otherwise(lit("latency")),
        )
        .when(top().eq(lit("fma")))
        .then(
            when(
                inputs
                    .pipe("fma_type_fp16")
                    .gt_eq(lit(0.5) * inputs.pipe("fma")),
            )
            .then(lit("fp16"))
            .otherwise(lit("fma")),
        )
        .when(top().eq(lit("l1")).or(top().eq(lit("lsu"))))
        .then(
            when(shared.clone().gt(global))
                .then(lit("shared"))
                .when(uncoalesced())
                .then(lit("uncoalesced_global"))
                .otherwise(lit("l1")),
        )
        .when(top().eq(lit("l2_requests")))
        .then(
            when(uncoalesced())
                .then(lit("uncoalesced_global"))
                .otherwise(lit("l2_requests")),
        )
        .otherwise(top());
    let frame = frame.with_columns([name.alias(out::BOTTLENECK)]);
    // Every number of a detail, rounded as it is shown (whole numbers through an integer).
    let whole = |value: Expr| {
        value
            .cast(DataType::Float64)
            .round(0, RoundMode::HalfToEven)
            .cast(DataType::Int64)
    };
    let inputs = vec![
        col(out::BOTTLENECK),
        (col(T_CORE) * lit(1e6)).round(2, RoundMode::HalfToEven),
        whole(resident_warps),
        col(out::LIMITER).fill_null(lit("unknown")),
        per_shared.clone().gt_eq(lit(2.0)),
        per_shared.round(1, RoundMode::HalfToEven),
        col(SECTORS_PER_REQUEST).round(1, RoundMode::HalfToEven),
        whole(col(BLOCKS_PER_SM)),
    ];
    let detail = crate::text::text_column(out::BOTTLENECK_DETAIL, inputs, write_detail);
    Ok(frame.with_columns([detail.alias(out::BOTTLENECK_DETAIL)]))
}

/// Writes the detail of a launch's bottleneck from the inputs [`add_columns`] passes: the
/// bottleneck (0), the kernel's own time in µs (1), the resident warps (2), the occupancy limiter
/// (3), whether shared-memory bank conflicts reach 2 wavefronts per instruction (4), the wavefronts
/// per shared instruction (5), the sectors per global request (6) and the resident blocks (7). A
/// detail that needs a number the launch lacks is null.
fn write_detail(inputs: &crate::text::TextInputs<'_>, row: usize, text: &mut String) -> bool {
    let Some(name) = inputs.text(0, row) else {
        return false;
    };
    // "<before><number><after>", the limiter and `)` after the number where `limited` is set.
    let with_number =
        |text: &mut String, before: &str, index: usize, after: &str, limited: bool| {
            text.push_str(before);
            let known = inputs.write_number(index, row, text);
            text.push_str(after);
            if limited {
                text.push_str(" (limited by ");
                text.push_str(inputs.text(3, row).unwrap_or("unknown"));
                text.push(')');
            }
            known
        };
    let fixed = match name {
        "launch_overhead" => {
            let before = "launch overhead exceeds the kernel's own time of ";
            return with_number(text, before, 1, " µs", false);
        }
        "occupancy" => {
            return with_number(text, "latency not hidden: ", 2, " warps per SM", true);
        }
        "shared" if inputs.flag(4, row) == Some(true) => {
            let after = " wavefronts per shared instruction";
            return with_number(text, "shared-memory bank conflicts: ", 5, after, false);
        }
        "uncoalesced_global" => {
            let after = " sectors per request";
            return with_number(text, "uncoalesced global access: ", 6, after, false);
        }
        "blocks" => {
            let after = " resident blocks per SM";
            return with_number(text, "block launch rate: ", 7, after, true);
        }
        "latency" => "latency not hidden at full occupancy (few waves or a long dependent chain)",
        "shared" => "shared-memory wavefronts",
        "l1" => "L1/LSU: load/store instructions and wavefronts",
        "dram" => "DRAM bandwidth",
        "l2" => "L2 bandwidth (L1 to L2 bytes)",
        "l2_requests" => "L2 tag lookups",
        "issue" => "instruction issue",
        "fp16" => "FP16x2 instructions on the FMA pipe",
        "fma" => "FP32 FMA pipe",
        other => {
            text.push_str(other);
            text.push_str(" pipe");
            return true;
        }
    };
    text.push_str(fixed);
    true
}

/// The coarse class of a bottleneck, as the rules and charts group them: `compute`,
/// `memory-dram`, `memory-l2`, `memory-l1`, `latency` or `launch-overhead`.
pub(crate) fn class(bottleneck: Expr) -> Expr {
    let is = |names: &[&str]| {
        names
            .iter()
            .map(|n| bottleneck.clone().eq(lit(*n)))
            .reduce(|a, b| a.or(b))
            .unwrap_or(lit(false))
    };
    when(bottleneck.clone().is_null())
        .then(lit("unknown"))
        .when(is(&["launch_overhead"]))
        .then(lit("launch-overhead"))
        .when(is(&["occupancy", "latency", "blocks"]))
        .then(lit("latency"))
        .when(is(&["dram"]))
        .then(lit("memory-dram"))
        .when(is(&["l2", "l2_requests"]))
        .then(lit("memory-l2"))
        .when(is(&["l1", "lsu", "shared", "uncoalesced_global"]))
        .then(lit("memory-l1"))
        .otherwise(lit("compute"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every detail, with its numbers written as polars writes them and null where a number the
    /// detail needs is missing.
    #[test]
    fn details_name_the_number_behind_the_bottleneck() -> PolarsResult<()> {
        let frame = df!(
            "bottleneck" => [
                Some("launch_overhead"), Some("occupancy"), Some("shared"), Some("shared"),
                Some("uncoalesced_global"), Some("blocks"), Some("dram"), Some("tensor_gmma"),
                Some("launch_overhead"), None,
            ],
            "core_us" => [
                Some(1.25), None, None, None, None, None, None, None, None, None,
            ],
            "warps" => [None, Some(16i64), None, None, None, None, None, None, None, None],
            "limiter" => ["registers"; 10],
            "conflicts" => [false, false, true, false, false, false, false, false, false, false],
            "per_shared" => [
                None, None, Some(4.5), Some(1.0), None, None, None, None, None, None,
            ],
            "sectors" => [None, None, None, None, Some(32.0), None, None, None, None, None],
            "blocks" => [None, None, None, None, None, Some(8i64), None, None, None, None],
        )?;
        let inputs = frame
            .get_column_names()
            .into_iter()
            .map(|name| col(name.clone()))
            .collect();
        let details = frame
            .lazy()
            .select([crate::text::text_column("detail", inputs, write_detail)])
            .collect()?;
        let texts: Vec<Option<&str>> = details.column("detail")?.str()?.iter().collect();
        assert_eq!(
            texts,
            [
                Some("launch overhead exceeds the kernel's own time of 1.25 µs"),
                Some("latency not hidden: 16 warps per SM (limited by registers)"),
                Some("shared-memory bank conflicts: 4.5 wavefronts per shared instruction"),
                Some("shared-memory wavefronts"),
                Some("uncoalesced global access: 32.0 sectors per request"),
                Some("block launch rate: 8 resident blocks per SM (limited by registers)"),
                Some("DRAM bandwidth"),
                Some("tensor_gmma pipe"),
                None,
                None,
            ]
        );
        Ok(())
    }
}
