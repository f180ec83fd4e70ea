"""Type stubs of ``warpsight.dask``: batch analysis on Dask, tasks of consecutive input files.

With ``compute=True`` (the default) each function returns a ``polars.DataFrame``; with
``compute=False`` a ``dask.dataframe.DataFrame`` that nothing has computed yet.
"""

from typing import List, Literal, Optional, Tuple, Union, overload

import dask.dataframe as dd
import polars as pl
from distributed import Client

from . import Error, Paths

__all__ = ["analyze", "read", "predict", "BatchError"]

class BatchError(Error):
    """Some files of a Dask batch failed; the others completed.

    Attributes:
      failures  [(path, error text)] of the files that failed.
      partial   The result of the other files (a polars frame), or None when none completed.
    """

    failures: List[Tuple[str, str]]
    partial: Optional[pl.DataFrame]
    def __init__(self, failures: List[Tuple[str, str]], partial: Optional[pl.DataFrame]) -> None: ...

@overload
def analyze(
    paths: Paths,
    client: Optional[Client] = None,
    per: str = "kernel",
    compute: Literal[True] = True,
    *,
    partitions: Optional[int] = None,
    device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> pl.DataFrame:
    """``warpsight.analyze`` on a Dask cluster: tasks of consecutive files, a distributed per-kernel group-by.

    Arguments:
      paths       Files, directories or globs (expanded here; consecutive small files make one
                  task, about two tasks per worker; each file is read by one task).
      client      A ``distributed.Client`` (default: the current one, else dask's local scheduler).
      per         "kernel" or "launch", as ``warpsight.analyze``.
      compute     True: a polars frame. False: a dask DataFrame (nothing runs until computed).
      partitions  Partitions of the per-kernel shuffle (default: the number of tasks, at most 64).
      Other arguments as ``warpsight.analyze``.

    Raises ``BatchError`` naming each failing file with its error; the others complete and their
    result is in ``BatchError.partial``.
    """
@overload
def analyze(
    paths: Paths,
    client: Optional[Client] = None,
    per: str = "kernel",
    *,
    compute: Literal[False],
    partitions: Optional[int] = None,
    device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> dd.DataFrame: ...
@overload
def analyze(
    paths: Paths,
    client: Optional[Client],
    per: str,
    compute: Literal[False],
    *,
    partitions: Optional[int] = None,
    device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> dd.DataFrame: ...

@overload
def read(
    paths: Paths,
    client: Optional[Client] = None,
    compute: Literal[True] = True,
    *,
    input_format: Optional[str] = None,
    strict: bool = False,
    filter: Optional[str] = None,
) -> pl.DataFrame:
    """``warpsight.read`` on a Dask cluster: one task per file, the launch tables in file order.

    Returns a polars frame, or with ``compute=False`` a dask DataFrame of one partition per file.
    A failing file raises ``BatchError`` after the others completed.
    """
@overload
def read(
    paths: Paths,
    client: Optional[Client] = None,
    *,
    compute: Literal[False],
    input_format: Optional[str] = None,
    strict: bool = False,
    filter: Optional[str] = None,
) -> dd.DataFrame: ...
@overload
def read(
    paths: Paths,
    client: Optional[Client],
    compute: Literal[False],
    *,
    input_format: Optional[str] = None,
    strict: bool = False,
    filter: Optional[str] = None,
) -> dd.DataFrame: ...

@overload
def predict(
    paths: Paths,
    on: str,
    client: Optional[Client] = None,
    compute: Literal[True] = True,
    *,
    partitions: Optional[int] = None,
    from_device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> pl.DataFrame:
    """``warpsight.predict`` on a Dask cluster: the same per-kernel rows, one task per file.

    Arguments:
      paths       Files, directories or globs (expanded here; each file is one task, read once).
      on          The target device, as ``warpsight.devices()`` lists it.
      client      A ``distributed.Client`` (default: the current one, else dask's local scheduler).
      compute     True: a polars frame. False: a dask DataFrame (nothing runs until computed).
      partitions  Partitions of the kernel-name shuffle (default: the number of files, at most 64).
      Other arguments as ``warpsight.predict``.

    Raises ``BatchError`` naming each failing file with its error; the others complete and their
    result is in ``BatchError.partial``.
    """
@overload
def predict(
    paths: Paths,
    on: str,
    client: Optional[Client] = None,
    *,
    compute: Literal[False],
    partitions: Optional[int] = None,
    from_device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> dd.DataFrame: ...
@overload
def predict(
    paths: Paths,
    on: str,
    client: Optional[Client],
    compute: Literal[False],
    *,
    partitions: Optional[int] = None,
    from_device: Optional[str] = None,
    sm_clock: Union[str, int, float, None] = "export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs: Optional[Paths] = None,
) -> dd.DataFrame: ...
