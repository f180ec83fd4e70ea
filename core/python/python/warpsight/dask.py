"""Batch analysis on Dask: tasks of consecutive input files, and a distributed per-kernel group-by.

``warpsight.dask.analyze(paths, client=None, per="kernel")`` gives the same rows as
``warpsight.analyze(paths)``:

1. one task per run of consecutive files (about two tasks per worker, of equal bytes; a large
   file alone) runs the Rust analysis in its worker exactly as a single process does, part by
   part (one part's launches in memory, small files analysed together: the analysis has a fixed
   cost per run), and returns the files' launch groups as Arrow IPC (each file is read once, by
   one task; when a task fails, its files are analysed one by one to name the failing one);
2. each task's groups are split by a stable hash of the kernel name into ``partitions`` pieces
   (the shuffle);
3. one task per partition stacks its pieces from every file and applies the same Rust per-kernel
   aggregation as a single process: all of a kernel's groups meet in one partition, so every row
   is exact;
4. the per-kernel rows are gathered, time shares taken over all kernels, and sorted as a single
   process sorts them.

``predict(paths, on=DEVICE)`` is exact the same way: each file's task splits its launches by the
kernel-name hash as it reads them, one task per partition predicts and combines all of its
kernels' launches (in file order) with the single-process Rust code, and the rows are sorted as
``warpsight.predict`` sorts them.

``per="launch"`` returns each file's per-launch rows in file order. A file that fails is
reported with its path and error (``BatchError``, which also holds the others' result) while
the other files complete.

A cluster: pass any ``distributed.Client`` (``Client("tcp://scheduler:8786")``), or one on SLURM
with dask-jobqueue (``SLURMCluster(cores=8, memory="16GB")``, ``cluster.scale(jobs=10)``,
``Client(cluster)``). Every worker needs the ``warpsight`` package and read access to the files.
With ``client=None`` the current default client is used, or dask's local scheduler.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import polars as pl

from . import PACKAGE_DIR, Error, _dirs, _paths, _sm_clock, _warpsight

__all__ = ["analyze", "read", "predict", "BatchError"]


class BatchError(Error):
    """Some files of a Dask batch failed; the others completed.

    Attributes:
      failures  [(path, error text)] of the files that failed.
      partial   The result of the other files (a polars frame), or None when none completed.
    """

    def __init__(self, failures: List[Tuple[str, str]], partial: Optional[pl.DataFrame]):
        self.failures = failures
        self.partial = partial
        lines = [f"error: {len(failures)} of the batch's files failed (the others completed)"]
        for path, text in failures:
            lines.append(f"  {path}: " + text.replace("\n", "\n    "))
        super().__init__("\n".join(lines))


def _analyze_files(paths: List[str], first: int, per: str, options: Dict[str, Any]):
    """The task of consecutive files: [('ok', main, summary, launches) or ('error', path, text)].

    The files are analysed together, as a single process analyses them. When that fails, each
    file is analysed alone, so that the failing file is named and the others still complete
    (only then is a file of the task read a second time).
    """
    try:
        main, summary, launches = _warpsight.dask_analyze_files(paths, first, per=per, **options)
        return [("ok", main, summary, launches)]
    except Error as error:
        if len(paths) == 1:
            return [("error", paths[0], str(error))]
    results = []
    for index, path in enumerate(paths, start=first):
        results.extend(_analyze_files([path], index, per, options))
    return results


#: The fewest bytes of input a task of several files is given (about 23,000 launches of an nsys
#: CSV export): below it, the analysis's fixed cost per run would outweigh the parallelism.
_MIN_TASK_BYTES = 4 << 20


def _tasks(files: Sequence[str], workers: int) -> List[Tuple[int, List[str]]]:
    """Consecutive files grouped into tasks: (index of the first file, files).

    The analysis has a fixed cost per run (query planning), so small files are analysed together
    as a single process does. A task takes files until the next would take it past its share of
    the bytes, the larger of ``_MIN_TASK_BYTES`` and the total over twice the workers (about two
    tasks per worker); a file larger than the share is a task of its own (it is read part by
    part in any case).
    """
    sizes = []
    for path in files:
        try:
            sizes.append(os.path.getsize(path))
        except OSError:
            sizes.append(0)
    goal = 2 * max(1, workers)
    share = max(_MIN_TASK_BYTES, -(-sum(sizes) // goal), 1)
    tasks: List[Tuple[int, List[str]]] = []
    held = 0
    for index, (path, size) in enumerate(zip(files, sizes)):
        if not tasks or held + size > share:
            tasks.append((index, []))
            held = 0
        tasks[-1][1].append(path)
        held += size
    return tasks


def _workers(client) -> int:
    """The threads that run tasks: the client's workers', else this machine's cores."""
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a client without workers yet: this machine's count.
            pass
    return max(1, os.cpu_count() or 1)


def _read_file(path: str, options: Dict[str, Any]):
    """The task of one file of ``read``: ('ok', ipc) or ('error', path, text)."""
    try:
        frame = pl.DataFrame(_warpsight.read([path], **options))
        return ("ok", frame)
    except Error as error:
        return ("error", path, str(error))


def _partition(results, partitions: int) -> List[Optional[bytes]]:
    """A task's groups split by the kernel-name hash (a task that fell back to one file at a
    time has several frames; they are split in order)."""
    pieces: List[List[bytes]] = [[] for _ in range(partitions)]
    for result in results:
        if result[0] == "ok" and result[1] is not None:
            for slot, piece in zip(pieces, _warpsight.dask_partition(result[1], partitions)):
                if piece is not None:
                    slot.append(piece)
    return pieces


def _flatten(tasks) -> list:
    """The outcomes of all the tasks, in file order."""
    return [result for task in tasks for result in task]


def _reduce(pieces: Sequence[List[bytes]]) -> Optional[bytes]:
    present = [piece for task in pieces for piece in task]
    if not present:
        return None
    return _warpsight.dask_per_kernel(present)


def _finish_kernel(tables, tasks, sort, top) -> Tuple[pl.DataFrame, List[Tuple[str, str]], int]:
    results = _flatten(tasks)
    failures = [(r[1], r[2]) for r in results if r[0] == "error"]
    summaries = [r[2] for r in results if r[0] == "ok" and r[2] is not None]
    launches = sum(r[3] for r in results if r[0] == "ok")
    frame = pl.DataFrame(
        _warpsight.dask_finish_per_kernel([t for t in tables if t is not None], summaries, sort=sort, top=top)
    )
    return frame, failures, launches + len(summaries)


def _client(client):
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _compute(client, *values):
    import dask

    if client is None:
        return dask.compute(*values)
    return client.compute(list(values), sync=True)


def _options(device, sm_clock, filter, strict, input_format, plugin_dirs) -> Dict[str, Any]:
    return dict(
        device=device,
        sm_clock=_sm_clock(sm_clock),
        filter=filter,
        strict=bool(strict),
        input_format=input_format,
        plugin_dirs=_dirs(plugin_dirs),
        package_dir=PACKAGE_DIR,
    )


def _raise_or_return(frame, failures):
    if failures:
        raise BatchError(failures, frame)
    return frame


def analyze(
    paths,
    client=None,
    per: str = "kernel",
    compute: bool = True,
    *,
    partitions: Optional[int] = None,
    device: Optional[str] = None,
    sm_clock="export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs=None,
):
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
    from dask import delayed
    from dask.base import tokenize

    if per not in ("kernel", "launch"):
        raise _warpsight.InputError(f'error: unknown per="{per}"\nhint: use one of: kernel, launch')
    files = _warpsight.expand(_paths(paths))
    options = _options(device, sm_clock, filter, strict, input_format, plugin_dirs)
    client = _client(client)
    results = [
        # The key names the files' indices (the benchmark checks from them that every file was
        # read by one task) and a token of the arguments (keys name results in a cluster).
        delayed(_analyze_files, pure=True)(
            chunk, first, per, options,
            dask_key_name=f"warpsight-files-{first}-{first + len(chunk)}-{tokenize(chunk, first, per, options)}",
        )
        for first, chunk in _tasks(files, _workers(client))
    ]
    if per == "launch":
        if not compute:
            import dask.dataframe as dd

            parts = [delayed(_launch_rows_pandas)(r) for r in results]
            return dd.from_delayed(parts, verify_meta=False)
        (computed,) = _compute(client, results)
        computed = _flatten(computed)
        failures = [(r[1], r[2]) for r in computed if r[0] == "error"]
        rows = [r[1] for r in computed if r[0] == "ok" and r[1] is not None]
        extra = {k: options[k] for k in ("device", "sm_clock", "plugin_dirs", "package_dir")}
        frame = pl.DataFrame(_warpsight.dask_finish_launches(rows, sort=sort, top=top, **extra))
        return _raise_or_return(frame, failures)
    count = partitions or max(1, min(len(results), 64))
    pieces = [delayed(_partition, nout=count)(r, count) for r in results]
    tables = [delayed(_reduce)([p[j] for p in pieces]) for j in range(count)]
    final = delayed(_finish_kernel)(tables, results, sort, top)
    if not compute:
        import dask.dataframe as dd

        return dd.from_delayed([delayed(_kernel_pandas)(final)], verify_meta=False)
    (frame, failures, _), = _compute(client, final)
    return _raise_or_return(frame, failures)


def _kernel_pandas(final):
    frame, failures, _ = final
    if failures:
        raise BatchError(failures, frame)
    return frame.to_pandas(use_pyarrow_extension_array=True)


def _launch_rows_pandas(results):
    failures = [(r[1], r[2]) for r in results if r[0] == "error"]
    if failures:
        raise BatchError(failures, None)
    frames = [pl.DataFrame(_warpsight.dask_ipc_to_stream(r[1])) for r in results if r[1] is not None]
    if not frames:
        return pl.DataFrame().to_pandas()
    return pl.concat(frames, how="diagonal_relaxed").to_pandas(use_pyarrow_extension_array=True)


def read(
    paths,
    client=None,
    compute: bool = True,
    *,
    input_format: Optional[str] = None,
    strict: bool = False,
    filter: Optional[str] = None,
):
    """``warpsight.read`` on a Dask cluster: one task per file, the launch tables in file order.

    Returns a polars frame, or with ``compute=False`` a dask DataFrame of one partition per file.
    A failing file raises ``BatchError`` after the others completed.
    """
    from dask import delayed

    files = _warpsight.expand(_paths(paths))
    options = dict(input_format=input_format, strict=bool(strict), filter=filter, progress=False)
    results = [delayed(_read_file, pure=True)(path, options) for path in files]
    if not compute:
        import dask.dataframe as dd

        def to_pandas(result):
            if result[0] == "error":
                raise BatchError([(result[1], result[2])], None)
            return result[1].to_pandas(use_pyarrow_extension_array=True)

        return dd.from_delayed([delayed(to_pandas)(r) for r in results], verify_meta=False)
    (computed,) = _compute(_client(client), results)
    failures = [(r[1], r[2]) for r in computed if r[0] == "error"]
    frames = [r[1] for r in computed if r[0] == "ok"]
    frame = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
    return _raise_or_return(frame, failures)


def _predict_file(path: str, partitions: int, options: Dict[str, Any]):
    """The task of one file of ``predict``: ('ok', [pieces], launches) or ('error', path, text)."""
    try:
        pieces, launches = _warpsight.dask_predict_file(path, partitions, **options)
        return ("ok", pieces, launches)
    except Error as error:
        return ("error", path, str(error))


def _predict_partition(results, index: int, options: Dict[str, Any]):
    """The task of one partition of ``predict``: ('ok', table or None) or ('error', kind, text)."""
    pieces = [r[1][index] for r in results if r[0] == "ok" and r[1][index] is not None]
    if not pieces:
        return ("ok", None)
    try:
        return ("ok", _warpsight.dask_predict_partition(pieces, **options))
    except Error as error:
        return ("error", type(error).__name__, str(error))


def _predict_finish(tables, results, files, filter, sort, top):
    failures = [(r[1], r[2]) for r in results if r[0] == "error"]
    for table in tables:
        if table[0] == "error":
            return ("raise", table[1], table[2])
    present = [t[1] for t in tables if t[1] is not None]
    if not present and failures:
        return ("ok", None, failures)
    frame = pl.DataFrame(_warpsight.dask_predict_finish(present, files, filter=filter, sort=sort, top=top))
    return ("ok", frame, failures)


def predict(
    paths,
    on: str,
    client=None,
    compute: bool = True,
    *,
    partitions: Optional[int] = None,
    from_device: Optional[str] = None,
    sm_clock="export",
    top: Optional[int] = None,
    sort: Optional[str] = None,
    filter: Optional[str] = None,
    strict: bool = False,
    input_format: Optional[str] = None,
    plugin_dirs=None,
):
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
    from dask import delayed

    if not isinstance(on, str):
        raise _warpsight.InputError(f"error: on must be a device name, not {type(on).__name__}")
    files = _warpsight.expand(_paths(paths))
    count = partitions or max(1, min(len(files), 64))
    read_options = dict(filter=filter, strict=bool(strict), input_format=input_format)
    model_options = dict(
        on=on, from_device=from_device, sm_clock=_sm_clock(sm_clock), plugin_dirs=_dirs(plugin_dirs),
        package_dir=PACKAGE_DIR,
    )
    results = [
        delayed(_predict_file, pure=True, name=f"warpsight-predict-file-{i}")(path, count, read_options)
        for i, path in enumerate(files)
    ]
    tables = [delayed(_predict_partition)(results, j, model_options) for j in range(count)]
    final = delayed(_predict_finish)(tables, results, files, filter, sort, top)
    if not compute:
        import dask.dataframe as dd

        return dd.from_delayed([delayed(_predict_pandas)(final)], verify_meta=False)
    (outcome,) = _compute(_client(client), final)
    return _predict_result(outcome)


def _predict_result(outcome) -> pl.DataFrame:
    if outcome[0] == "raise":
        kinds = {"InputError": _warpsight.InputError, "DeviceError": _warpsight.DeviceError}
        raise kinds.get(outcome[1], Error)(outcome[2])
    _, frame, failures = outcome
    return _raise_or_return(frame, failures)


def _predict_pandas(outcome):
    return _predict_result(outcome).to_pandas(use_pyarrow_extension_array=True)
