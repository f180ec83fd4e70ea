//! warpsight's own rules, one per file. Each implements [`super::findings::Rule`]: a polars
//! predicate selecting the launches it applies to and a message with numbers (from the model's
//! columns and the what-if engine's `whatif_*` columns). `docs/findings.md` documents each rule.

pub(crate) mod achieved_gap;
pub(crate) mod block_size;
pub(crate) mod compute_bound;
pub(crate) mod latency_bound;
pub(crate) mod memory_bound;
pub(crate) mod not_launchable;
pub(crate) mod register_limit;
pub(crate) mod shared_memory_limit;
pub(crate) mod tail_effect;

use super::findings::Rule;

/// Every warpsight rule, in the order their findings are listed.
pub fn all() -> Vec<&'static dyn Rule> {
    vec![
        &not_launchable::NotLaunchable,
        &register_limit::RegisterLimit,
        &shared_memory_limit::SharedMemoryLimit,
        &block_size::BlockSize,
        &tail_effect::TailEffect,
        &achieved_gap::AchievedGap,
        &latency_bound::LatencyBound,
        &memory_bound::MemoryBound,
        &compute_bound::ComputeBound,
    ]
}

/// The fraction of time saved if time scaled inversely with occupancy, from `before` to `after`
/// (an optimistic bound: the what-if engine's estimate when ncu gives none).
pub(crate) fn occupancy_gain(before: f64, after: f64) -> Option<f64> {
    (before > 0.0 && after > before).then(|| 1.0 - before / after)
}
