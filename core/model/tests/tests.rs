//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the model against independent references (OCCUPANCY.md test vectors, ncu's own numbers, NVIDIA documentation) with the shipped plugins' data.

mod littles_law;
mod distinct_evaluation;
mod model_corpus;
mod occupancy_properties;
mod occupancy_vectors;
mod time_model;
mod resolve;
mod roofline;
mod waves;
