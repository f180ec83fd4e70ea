//! warpsight's own rules, one per file. Each implements [`super::findings::Rule`]: a polars
//! predicate selecting the launches it applies to and a message with numbers (from the model's
//! columns and the what-if engine's `whatif_*` columns). `docs/findings.md` documents each rule.

pub mod achieved_gap;
pub mod block_size;
pub mod compute_bound;
pub mod latency_bound;
pub mod memory_bound;
pub mod not_launchable;
pub mod register_limit;
pub mod shared_memory_limit;
pub mod tail_effect;

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

/// The ids of every warpsight rule.
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|rule| rule.id()).collect()
}

/// The fraction of time saved if time scaled inversely with occupancy, from `before` to `after`
/// (an optimistic bound: the what-if engine's estimate when ncu gives none).
pub fn occupancy_gain(before: f64, after: f64) -> Option<f64> {
    (before > 0.0 && after > before).then(|| 1.0 - before / after)
}
