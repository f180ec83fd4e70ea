//! Analysis on top of the model: findings, what-if suggestions, per-kernel aggregation, predict
//! and diff. Placeholder: being written by the analyze work.
