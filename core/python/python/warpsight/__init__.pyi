"""Type stubs of ``warpsight``: the functions mirror the ``warpsight`` command line and return polars frames.

The signatures and docstrings are those of ``__init__.py`` (``help(warpsight.analyze)`` shows the
same text).
"""

import os
from typing import Any, Dict, Optional, Sequence, Union

import polars as pl

__all__ = [
    "Error",
    "InputError",
    "DeviceError",
    "read",
    "analyze",
    "predict",
    "findings",
    "accuracy",
    "occupancy",
    "devices",
    "archs",
    "plugin_report",
    "PACKAGE_DIR",
]

__version__: str

#: The package's directory: the bundled plugins are in its ``plugins/`` folder.
PACKAGE_DIR: str

PathLike = Union[str, os.PathLike[str]]
Paths = Union[PathLike, Sequence[PathLike]]

class Error(Exception):
    """A warpsight command failed; the message holds the CLI's ``error:`` / ``Caused by:`` / ``hint:`` lines."""

class InputError(Error):
    """An input could not be used: a missing or unreadable file, an unknown format, a bad argument."""

class DeviceError(Error):
    """A device was asked for that no loaded plugin provides, or a launch names no device."""

def read(
    paths: Paths,
    *,
    input_format: Optional[str] = None,
    strict: bool = False,
    filter: Optional[str] = None,
    progress: bool = False,
) -> pl.DataFrame:
    """Read profiler exports into one launch table (what ``warpsight ingest`` writes).

    Arguments:
      paths         Profiler exports: a file, a directory or a glob pattern, or a list of them.
      input_format  Read every input as this format instead of detecting it: ncu-rep,
                    ncu-details, ncu-raw, nsys-gpu-trace, nsys-kern-sum, nsys-sqlite,
                    nsys-parquet, nsys-arrow, warpsight-parquet, warpsight-ipc, warpsight-csv.
      strict        Rows that cannot be used are errors instead of being counted.
      filter        Keep only kernels whose name matches this regular expression.
      progress      Show a progress bar on stderr while the files are read.

    Returns one row per kernel launch (columns in docs/trace-schema.md).

    Example:
      warpsight.read("traces/h100-80gb-hbm3/sgemm.ncu-raw.csv")
    """

def analyze(
    paths: Paths,
    *,
    per: str = "kernel",
    device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
    progress: bool = False,
) -> pl.DataFrame:
    """The per-kernel (default) or per-launch analysis table, as ``warpsight analyze``.

    Occupancy and its limiter, latency hiding, roofline, waves, measured and predicted time,
    bottleneck and findings (columns in docs/report-columns.md). The rows equal those of
    ``warpsight analyze --format csv`` with the same options.

    Arguments:
      paths         Profiler exports: a file, a directory or a glob pattern, or a list of them.
      per           "kernel": one row per kernel name (figures of its dominant configuration);
                    "launch": one row per launch.
      device        Model every launch on this device instead of the one it ran on.
      sm_clock      The SM clock the launches are modelled at: "export" (default), "base",
                    "boost", or a clock in MHz.
      top           Only the first N rows (after sorting).
      sort          Sort by this column, descending ("COLUMN:asc" for ascending). Default:
                    total time per kernel, input order per launch.
      filter        Keep only kernels whose name matches this regular expression.
      strict        Rows that cannot be used are errors.
      input_format  Read every input as this format (see ``read``).
      plugin_dirs   More plugin directories, searched before WARPSIGHT_PLUGIN_PATH and the
                    plugins bundled with the package.
      progress      Show a progress bar on stderr while the files are read.

    Example:
      warpsight.analyze("traces/h100-80gb-hbm3/*.ncu-raw.csv", top=5)
    """

def predict(
    paths: Paths,
    on: str,
    *,
    from_device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
    progress: bool = False,
) -> pl.DataFrame:
    """The same launches on another GPU, per kernel, as ``warpsight predict --on DEVICE``.

    Arguments:
      paths        Profiler exports: a file, a directory or a glob pattern, or a list of them.
      on           The target device, as ``devices()`` lists it.
      from_device  The device the launches ran on, where the export does not say.
      sm_clock     The SM clock: "export" (the target's boost clock), "base", "boost" or MHz.
      top, sort, filter, strict, input_format, plugin_dirs, progress: as for ``analyze``.

    Example:
      warpsight.predict("traces/h100-80gb-hbm3/sgemm.ncu-raw.csv", on="A100 SXM4 80GB")
    """

def findings(
    paths: Paths,
    *,
    ranked: bool = True,
    device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
    progress: bool = False,
) -> pl.DataFrame:
    """One row per finding of the analysis (docs/findings.md).

    Arguments:
      ranked  True (default): as listed under ``warpsight analyze``'s table, the same advice on
              many launches of a kernel once, ranked by estimated time saved (columns kernel,
              severity, source, rule_id, message, launches, saving). False: every finding of
              every launch group (file, launch_id, kernel, severity, source, rule_id, message,
              time_share, launches).
      Other arguments as for ``analyze``.
    """

def accuracy(
    paths: Paths,
    *,
    per: str = "summary",
    on: Optional[str] = None,
    against: Optional[Paths] = None,
    from_device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
    progress: bool = False,
) -> pl.DataFrame:
    """Predicted against measured time, as ``warpsight accuracy`` (docs/accuracy.md).

    Arguments:
      per          "summary" (per device: median / p90 / worst error), "kernel", "launch", or
                   "unmatched" (cross-device launches without a partner).
      on, against  Cross-device: predict the launches of ``paths`` on device ``on`` and compare
                   with the exports ``against`` measured there.
      from_device  Cross-device: the device ``paths`` ran on, where the export does not say.
      Other arguments as for ``analyze``.
    """

def occupancy(
    *,
    block_size: int,
    registers: int,
    cc: Optional[str] = None,
    device: Optional[str] = None,
    static_smem: int = 0,
    dynamic_smem: int = 0,
    smem_config: Optional[int] = None,
    carveout: Optional[int] = None,
    barriers: int = 1,
    plugin_dirs: Optional[Paths] = None,
) -> Dict[str, Any]:
    """The CUDA occupancy calculator for one launch configuration (``warpsight occupancy``).

    Arguments:
      block_size    Threads per block.
      registers     Registers per thread.
      cc            Compute capability, e.g. "8.0", "9.0", "sm_120" (or give ``device``).
      device        A device the loaded plugins provide, e.g. "NVIDIA H100 80GB HBM3".
      static_smem, dynamic_smem  Shared memory per block, bytes.
      smem_config   The SM shared-memory carveout the driver chose, bytes (default: largest).
      carveout      Carveout preference in percent.
      barriers      Named barriers per block.

    Returns the dict ``warpsight occupancy --format json`` prints: limits, active_blocks,
    active_warps, occupancy (0-1), limiters, not_launchable, ...
    """

def devices(
    *,
    plugin_dirs: Optional[Paths] = None,
) -> pl.DataFrame:
    """The GPU products the loaded plugins provide, one row each: the records of
    ``warpsight devices --format json`` (base units; ``peak_flops`` a struct, ``aliases`` a list)."""

def archs(
    *,
    plugin_dirs: Optional[Paths] = None,
) -> pl.DataFrame:
    """The architectures (compute capabilities) the loaded plugins provide, one row each: the
    records of ``warpsight archs --format json`` (latencies, rates and SASS pipes as structs)."""

def plugin_report(
    *,
    plugin_dirs: Optional[Paths] = None,
) -> Dict[str, Any]:
    """What plugin loading found: the directories searched, the plugins loaded and rejected."""

