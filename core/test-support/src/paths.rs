//! Where the tests find the repository's files and the shared data beside the checkout.

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate: `core/test-support`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// `../shared` beside the checkout (real exports and reference tables; read in place).
pub fn shared_dir() -> PathBuf {
    workspace_root().join("../shared")
}

/// `../shared/traces`: real exports from public repositories.
pub fn shared_traces() -> PathBuf {
    shared_dir().join("traces")
}

/// `../shared/reference`: the project's reference tables.
pub fn shared_reference() -> PathBuf {
    shared_dir().join("reference")
}

/// The project's own `traces/` folder.
pub fn traces_dir() -> PathBuf {
    workspace_root().join("traces")
}
