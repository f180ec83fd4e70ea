//! Analysis on top of the model: findings, what-if suggestions, per-kernel aggregation, predict
//! and diff.
//!
//! - [`accuracy`]: predicted against measured time, same device or across devices;
//! - [`load`]: read and stack the command-line inputs;
//! - [`read_parts`]: read one input part by part (a reader thread a few batches ahead);
//! - [`batch`]: many inputs read and analysed one after the other, small parts together, with
//!   one part's launches in memory (the binary's and the Python package's batch loop);
//! - [`pipeline`]: model → what-if → rules → findings, shared by every command, giving an
//!   [`analysed::Analysis`]; the analyses of parts and files are merged by `merge`, the plugins'
//!   rules hooks' findings converted by `plugin_findings`, and the findings' text columns joined
//!   by `finding_texts`;
//! - `variants`: modified configurations evaluated by the model (what-if and sweeps);
//! - [`what_if`]: the suggestions engine (fewer registers, other block sizes, less shared memory);
//! - [`findings`] and [`rules`]: the rule engine and warpsight's rules, one per file (launches
//!   keyed by `file_numbers`);
//! - [`report_columns`]: the stable output columns of `analyze`;
//! - [`aggregate`]: per-kernel grouping and the transfers footer;
//! - [`sweep`]: occupancy against block size, registers and shared memory;
//! - [`predict`]: the same launches on another device;
//! - [`diff`]: two traces compared per kernel name;
//! - [`ordering`]: `--sort` and `--top` on a result table.

pub mod accuracy;
pub mod aggregate;
pub(crate) mod analysed;
pub mod batch;
pub mod diff;
pub(crate) mod error;
mod file_numbers;
mod finding_texts;
pub mod findings;
pub mod frame_access;
pub mod groups;
pub mod load;
mod merge;
pub mod ordering;
pub mod pipeline;
mod plugin_findings;
pub mod predict;
pub mod ranked;
pub mod read_parts;
pub mod report_columns;
pub mod rules;
pub mod sweep;
pub(crate) mod variants;
pub mod what_if;

pub use error::AnalysisError;

/// A left join that keeps the left rows in order and matches null keys to null keys: the join
/// that adds columns looked up by key to a frame's own rows.
pub(crate) fn left_join_in_order() -> polars::prelude::JoinArgs {
    use polars::prelude::{JoinArgs, JoinType, MaintainOrderJoin};
    JoinArgs {
        nulls_equal: true,
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(JoinType::Left)
    }
}
