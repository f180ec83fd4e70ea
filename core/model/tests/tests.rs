//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the model against independent references (OCCUPANCY.md test vectors, ncu's own numbers, NVIDIA documentation) with the shipped plugins' data.

mod distinct_evaluation;
mod littles_law;
mod model_corpus;
mod occupancy_properties;
mod occupancy_vectors;
mod resolve;
mod roofline;
mod sass_pipes;
mod target_support;
mod tensor_pipe;
mod time_model;
mod waves;
