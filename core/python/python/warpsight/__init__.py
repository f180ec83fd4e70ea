"""warpsight: explain and predict GPU kernel performance from Nsight exports, as polars frames.

The functions mirror the `warpsight` command line and return ``polars.DataFrame``s that share
their buffers with the Rust analysis (through the Arrow C stream interface):

- ``read(paths)``: the launch table (``warpsight ingest``);
- ``analyze(paths, per="kernel"|"launch")``: the analysis table (``warpsight analyze``);
- ``predict(paths, on=DEVICE)``: the same launches on another GPU (``warpsight predict``);
- ``findings(paths)``: one row per finding;
- ``accuracy(paths)``: predicted against measured time (``warpsight accuracy``);
- ``occupancy(cc=..., block_size=..., registers=...)``: the occupancy calculator, a dict;
- ``devices()``, ``archs()``: what the loaded plugins provide.

Paths may be files, directories or glob patterns, one or a list. The architecture plugins are
bundled in the package (``warpsight/plugins``); ``plugin_dirs=`` and ``WARPSIGHT_PLUGIN_PATH``
add more (searched first). Failures raise ``warpsight.Error`` (``InputError`` for bad input,
``DeviceError`` for an unknown device) with the command line's ``error:`` / ``hint:`` text.
Batch analysis across a cluster: ``warpsight.dask``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import polars as pl

from . import _warpsight
from ._warpsight import DeviceError, Error, InputError

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

__version__: str = _warpsight.__version__

# The exceptions are defined by the extension; naming them after this package lets them be
# pickled (a Dask worker's error reaches the client as the same class) and print as
# ``warpsight.Error``.
for _exception in (Error, InputError, DeviceError):
    _exception.__module__ = "warpsight"
del _exception

#: The package's directory: the bundled plugins are in its ``plugins/`` folder.
PACKAGE_DIR = str(Path(__file__).resolve().parent)

PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Sequence[PathLike]]


def _paths(paths: Any, name: str = "paths") -> List[str]:
    """`paths` as a list of strings: one path or a sequence of them (files, directories, globs)."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    if isinstance(paths, (bytes, bytearray)) or not isinstance(paths, Iterable):
        raise InputError(
            f"error: {name} must be a path or a list of paths, not {type(paths).__name__}\n"
            "hint: pass a file, a directory or a glob pattern, or a list of them"
        )
    out = []
    for item in paths:
        if not isinstance(item, (str, os.PathLike)):
            raise InputError(
                f"error: {name} must hold paths, not {type(item).__name__}\n"
                "hint: pass a file, a directory or a glob pattern, or a list of them"
            )
        out.append(os.fspath(item))
    if not out:
        raise InputError(f"error: no input given in {name}\nhint: pass at least one file, directory or glob")
    return out


def _dirs(plugin_dirs: Optional[Paths]) -> List[str]:
    if plugin_dirs is None:
        return []
    return _paths(plugin_dirs, "plugin_dirs")


def _sm_clock(sm_clock: Union[str, int, float, None]) -> str:
    if sm_clock is None:
        return "export"
    if isinstance(sm_clock, bool) or not isinstance(sm_clock, (str, int, float)):
        raise InputError(
            f"error: sm_clock must be a word or a clock in MHz, not {type(sm_clock).__name__}\n"
            'hint: use "export", "base", "boost" or a clock in MHz'
        )
    return str(sm_clock)


def _check(value: Any, kinds: tuple, name: str, what: str) -> None:
    if value is not None and (isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds)):
        raise InputError(f"error: {name} must be {what}, not {type(value).__name__}")


def _frame(stream: Any) -> pl.DataFrame:
    """A polars frame from the extension's Arrow C stream (no copy of the buffers)."""
    return pl.DataFrame(stream)


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
    _check(input_format, (str,), "input_format", "a format name")
    return _frame(
        _warpsight.read(_paths(paths), input_format=input_format, strict=bool(strict), filter=filter, progress=bool(progress))
    )


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
    _check(top, (int,), "top", "an integer")
    _check(device, (str,), "device", "a device name")
    return _frame(
        _warpsight.analyze(
            _paths(paths),
            per=str(per),
            device=device,
            sm_clock=_sm_clock(sm_clock),
            top=top,
            sort=sort,
            filter=filter,
            strict=bool(strict),
            input_format=input_format,
            plugin_dirs=_dirs(plugin_dirs),
            package_dir=PACKAGE_DIR,
            progress=bool(progress),
        )
    )


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
    _check(on, (str,), "on", "a device name")
    return _frame(
        _warpsight.predict(
            _paths(paths),
            on=on,
            from_device=from_device,
            sm_clock=_sm_clock(sm_clock),
            top=top,
            sort=sort,
            filter=filter,
            strict=bool(strict),
            input_format=input_format,
            plugin_dirs=_dirs(plugin_dirs),
            package_dir=PACKAGE_DIR,
            progress=bool(progress),
        )
    )


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
    return _frame(
        _warpsight.findings(
            _paths(paths),
            ranked=bool(ranked),
            device=device,
            sm_clock=_sm_clock(sm_clock),
            filter=filter,
            strict=bool(strict),
            input_format=input_format,
            plugin_dirs=_dirs(plugin_dirs),
            package_dir=PACKAGE_DIR,
            progress=bool(progress),
        )
    )


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
    return _frame(
        _warpsight.accuracy(
            _paths(paths),
            per=str(per),
            on=on,
            against=[] if against is None else _paths(against, "against"),
            from_device=from_device,
            sm_clock=_sm_clock(sm_clock),
            filter=filter,
            strict=bool(strict),
            input_format=input_format,
            plugin_dirs=_dirs(plugin_dirs),
            package_dir=PACKAGE_DIR,
            progress=bool(progress),
        )
    )


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
    for name, value in (("block_size", block_size), ("registers", registers), ("static_smem", static_smem),
                        ("dynamic_smem", dynamic_smem), ("barriers", barriers)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"error: {name} must be a non-negative integer, not {value!r}")
    if cc is not None and not isinstance(cc, str):
        cc = str(cc)
    return json.loads(
        _warpsight.occupancy(
            block_size=block_size,
            registers=registers,
            cc=cc,
            device=device,
            static_smem=static_smem,
            dynamic_smem=dynamic_smem,
            smem_config=smem_config,
            carveout=carveout,
            barriers=barriers,
            plugin_dirs=_dirs(plugin_dirs),
            package_dir=PACKAGE_DIR,
        )
    )


def devices(*, plugin_dirs: Optional[Paths] = None) -> pl.DataFrame:
    """The GPU products the loaded plugins provide, one row each: the records of
    ``warpsight devices --format json`` (base units; ``peak_flops`` a struct, ``aliases`` a list)."""
    rows = json.loads(_warpsight.devices(plugin_dirs=_dirs(plugin_dirs), package_dir=PACKAGE_DIR))
    return pl.DataFrame(rows, infer_schema_length=None)


def archs(*, plugin_dirs: Optional[Paths] = None) -> pl.DataFrame:
    """The architectures (compute capabilities) the loaded plugins provide, one row each: the
    records of ``warpsight archs --format json`` (latencies, rates and SASS pipes as structs)."""
    rows = json.loads(_warpsight.archs(plugin_dirs=_dirs(plugin_dirs), package_dir=PACKAGE_DIR))
    return pl.DataFrame(rows, infer_schema_length=None)


def plugin_report(*, plugin_dirs: Optional[Paths] = None) -> Dict[str, Any]:
    """What plugin loading found: the directories searched, the plugins loaded and rejected."""
    return json.loads(_warpsight.plugin_report(plugin_dirs=_dirs(plugin_dirs), package_dir=PACKAGE_DIR))
