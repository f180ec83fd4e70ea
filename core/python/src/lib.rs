//! warpsight-python: the `warpsight._warpsight` extension module behind the `warpsight` Python
//! package (core/python/python/warpsight). Each function mirrors a command of the `warpsight`
//! binary (`read` ~ `ingest`, `analyze`, `predict`, `findings`, `accuracy`, `occupancy`,
//! `devices`, `archs`) on the library crates' public API and returns its table as an Arrow C
//! stream (`arrow_stream::ArrowStream`), which Python turns into a `polars.DataFrame` without a
//! copy.
//! The Python package adds the docstrings, argument checks and the Dask batch layer
//! (`warpsight.dask`), whose tasks of consecutive files and distributed per-kernel group-by call the
//! `dask_*` functions here.
//!
//! Modules:
//! - `arrow_stream`: frames out through the Arrow PyCapsule interface;
//! - `errors`: `warpsight.Error` and its subclasses, the CLI's error text, the panic boundary;
//! - `inputs`: reading and analysing inputs as the binary does (an adapter over
//!   `warpsight_report::analysis`);
//! - `commands`: the single-process functions;
//! - `distributed`: the pieces of the Dask path (tasks of files, hash partitions by kernel name,
//!   per-kernel reduction, the final table);
//! - `plugins`: the registry from the bundled plugins, `plugin_dirs=` and
//!   `WARPSIGHT_PLUGIN_PATH`.

mod arrow_stream;
mod commands;
mod distributed;
mod errors;
mod inputs;
mod plugins;

use pyo3::prelude::*;

/// The extension module `warpsight._warpsight`.
#[pymodule]
fn _warpsight(module: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(module)?;
    arrow_stream::register(module)?;
    commands::register(module)?;
    distributed::register(module)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
