//! warpsight-report: everything above the model. Findings and what-if suggestions, per-kernel
//! aggregation, cross-device prediction and diffs ([`analysis`]), and their rendering as SVG charts,
//! markdown and the self-contained HTML review ([`render`]). [`units`] is the leaf both use to
//! print base units as people read them.
//!
//! The dependency order is strict: `units` ← `analysis` ← `render`; analysis computes every number
//! (sweeps, ceilings, findings) and render only draws.

pub mod analysis;
pub mod render;
pub mod units;
