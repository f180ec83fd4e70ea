"""Scale benchmark of the Python package (issue #25): many per-rank Nsight Systems exports.

Writes N per-rank ``cuda_gpu_trace`` CSV exports (default 1,000 files, 2 M launches in all) from
the test-support generator (``examples/synthetic_gpu_trace.rs`` writes one CSV of all the
launches, which is cut into consecutive per-rank files, each with the export's preamble and
header), then times, in interleaved rounds, each in a process of its own:

- the CLI: ``warpsight -q analyze --format csv -o OUT DIR``;
- ``warpsight.analyze(DIR)`` in Python;
- ``warpsight.dask.analyze(DIR, client)`` on a ``LocalCluster`` of 2 worker processes (the
  cluster is started before the clock starts).

It prints, per tool, the median wall time over the rounds and the largest peak RSS: of the
process (``ru_maxrss`` from ``wait4``, or the process's own ``getrusage``), and for Dask of each
worker (``getrusage`` in the worker) and of the client process.

Usage (from the repository root, after ``pip install ./core/python[dask]``):

    python core/python/benches/scale.py [--files 1000] [--launches 2000000] [--rounds 3]
        [--dir DIR] [--cli target/release/warpsight] [--workers 2]

``--files 10,100,1000`` measures each count in turn (the same launches in all: growth with the
number of files). After the rounds it checks that the Python and Dask frames are equal, that the
CLI's CSV lists the same kernels in the same order, and that every file was read by exactly one
Dask task (the task stream).

``--dir`` keeps the generated inputs between runs (default: a temporary directory). The CLI is
``--cli``, else ``WARPSIGHT_CLI``, else target/release/warpsight, else target/debug/warpsight.
For figures to publish, build the CLI and the package with the release profile
(``WARPSIGHT_BUILD_PROFILE=release pip install ./core/python``) on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

#: The child that times ``warpsight.analyze``: prints {"wall_s", "rss_mb", "rows"}.
PYTHON_CHILD = """
import json, resource, sys, time
import warpsight
start = time.perf_counter()
frame = warpsight.analyze(sys.argv[1])
wall = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if len(sys.argv) > 2:
    frame.write_parquet(sys.argv[2])
print(json.dumps({"wall_s": wall, "rss_mb": rss, "rows": frame.height}))
"""

#: The child that times ``warpsight.dask.analyze`` on a LocalCluster: also each worker's peak RSS.
DASK_CHILD = """
import json, resource, sys, time
import distributed
import warpsight, warpsight.dask

def peak_rss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

if __name__ == "__main__":
    workers = int(sys.argv[2])
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(workers)
        with distributed.get_task_stream(client) as stream:
            start = time.perf_counter()
            frame = warpsight.dask.analyze(sys.argv[1], client=client)
            wall = time.perf_counter() - start
        per_worker = sorted(client.run(peak_rss_mb).values())
    # Every run of a task of files `warpsight-files-FIRST-END-TOKEN` (a task that ran twice read its
    # files twice): the file indices each run read.
    file_tasks = [str(task["key"]) for task in stream.data if str(task["key"]).startswith("warpsight-files-")]
    read = [i for key in file_tasks for i in range(*map(int, key.split("-")[2:4]))]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if len(sys.argv) > 3:
        frame.write_parquet(sys.argv[3])
    print(json.dumps({"wall_s": wall, "rss_mb": rss, "worker_rss_mb": per_worker, "rows": frame.height,
                      "file_tasks": len(file_tasks), "files_read": len(read), "distinct_files_read": len(set(read))}))
"""


def find_cli(given: str | None) -> Path:
    for candidate in (given, os.environ.get("WARPSIGHT_CLI"), REPO / "target" / "release" / "warpsight",
                      REPO / "target" / "debug" / "warpsight"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    sys.exit("error: no warpsight binary found\nhint: build it (cargo build --release) or pass --cli")


def generate(directory: Path, files: int, launches: int) -> Path:
    """Writes the per-rank exports into directory/ranks (unless they are there) and returns it."""
    ranks = directory / f"ranks_{files}x{launches}"
    if ranks.is_dir() and len(list(ranks.glob("*.csv"))) == files:
        return ranks
    ranks.mkdir(parents=True, exist_ok=True)
    whole = directory / f"cuda_gpu_trace_{launches}.csv"
    if not whole.is_file():
        print(f"generating {whole}", file=sys.stderr)
        subprocess.run(["cargo", "run", "-q", "-p", "warpsight-python", "--example", "synthetic_gpu_trace", "--",
                        str(whole), str(launches)], cwd=REPO, check=True)
    with whole.open("rb") as source:
        preamble = source.readline()
        header = source.readline()
        rows = source.readlines()
    print(f"splitting {len(rows)} rows into {files} files", file=sys.stderr)
    for rank in range(files):
        begin, end = rank * len(rows) // files, (rank + 1) * len(rows) // files
        with (ranks / f"rank_{rank:05d}.cuda_gpu_trace.csv").open("wb") as out:
            out.write(preamble)
            out.write(header)
            out.writelines(rows[begin:end])
    return ranks


def run_child(command: list[str]) -> tuple[float, float, str]:
    """Runs a command; its wall time (s), peak RSS (MiB, ``ru_maxrss`` from ``wait4``) and stdout."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        child.stdout.close()
        if child.returncode:
            err.seek(0)
            sys.exit(f"error: `{' '.join(command)}` failed:\n{err.read().decode(errors='replace')}")
    return wall, usage.ru_maxrss / 1024, out.decode()


def measure(args, cli: Path, directory: Path, scratch: Path, files: int) -> None:
    """Generates `files` per-rank exports, runs the rounds, prints the table and the checks."""
    ranks = generate(directory, files, args.launches)
    out_csv = scratch / "cli.csv"
    py_frame, dask_frame = scratch / "python.parquet", scratch / "dask.parquet"
    tools = {
        "CLI (one process)": lambda: cli_run(cli, ranks, out_csv),
        "warpsight.analyze": lambda: child_json([sys.executable, "-c", PYTHON_CHILD, str(ranks), str(py_frame)]),
        f"warpsight.dask.analyze ({args.workers} workers)": lambda: child_json(
            [sys.executable, "-c", DASK_CHILD, str(ranks), str(args.workers), str(dask_frame)]),
    }
    results: dict[str, list[dict]] = {name: [] for name in tools}
    for round_ in range(args.rounds):
        for name, run in tools.items():
            result = run()
            print(f"{files} files, round {round_ + 1}, {name}: {result['wall_s']:.2f} s", file=sys.stderr)
            results[name].append(result)
    print(f"### {files} files, {args.launches} launches in all")
    print()
    print(f"{args.rounds} rounds, interleaved: the median wall time and the largest peak RSS. CLI: `{cli}`.")
    print()
    print("| tool | wall (s) | peak RSS of the process (MiB) | peak RSS per worker (MiB) | rows |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in results.items():
        wall = statistics.median(r["wall_s"] for r in runs)
        rss = max(r["rss_mb"] for r in runs)
        workers = [max(w) for w in zip(*(r["worker_rss_mb"] for r in runs))] if "worker_rss_mb" in runs[0] else []
        per_worker = ", ".join(f"{w:.0f}" for w in workers) or "-"
        print(f"| {name} | {wall:.2f} | {rss:.0f} | {per_worker} | {runs[0]['rows']} |")
    names = list(results)
    cli_wall = statistics.median(r["wall_s"] for r in results[names[0]])
    py_wall = statistics.median(r["wall_s"] for r in results[names[1]])
    print()
    print(f"- warpsight.analyze / CLI wall time: {py_wall / cli_wall:.2f}x")
    dask_runs = results[names[2]]
    once = all(r["files_read"] == r["distinct_files_read"] == files for r in dask_runs)
    print(f"- every file read by exactly one Dask task in every round: {'yes' if once else 'NO'} "
          f"({dask_runs[-1]['file_tasks']} tasks of consecutive files for {files} files)")
    print(f"- Python and Dask frames equal, and the CLI's kernels in the same order: {check_equal(out_csv, py_frame, dask_frame)}")
    print()


def check_equal(out_csv: Path, py_frame: Path, dask_frame: Path) -> str:
    """The last round's results compared: Python with Dask (every value), the CLI with Python (the
    kernels and their order)."""
    import polars as pl
    from polars.testing import assert_frame_equal

    python, dask = pl.read_parquet(py_frame), pl.read_parquet(dask_frame)
    try:
        assert_frame_equal(dask, python, check_exact=False)
    except AssertionError as error:
        return f"NO (Dask differs from Python: {str(error).splitlines()[0]})"
    cli = pl.read_csv(out_csv, infer_schema_length=0)
    if "kernel" in cli.columns and cli["kernel"].to_list() != python["kernel"].cast(pl.Utf8).to_list():
        return "NO (the CLI's kernels differ from Python's)"
    return "yes"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", default="1000", help="files, or a comma-separated list of counts (growth)")
    parser.add_argument("--launches", type=int, default=2_000_000, help="launches in all the files")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", help="keep the inputs here (default: a temporary directory)")
    parser.add_argument("--cli", help="the warpsight binary to measure")
    args = parser.parse_args()
    try:
        counts = [int(count) for count in args.files.split(",")]
    except ValueError:
        sys.exit(f"error: --files must be a number or a comma-separated list of numbers, not `{args.files}`")
    cli = find_cli(args.cli)
    with tempfile.TemporaryDirectory(prefix="warpsight-py-scale-") as scratch:
        directory = Path(args.dir) if args.dir else Path(scratch)
        for files in counts:
            measure(args, cli, directory, Path(scratch), files)


def cli_run(cli: Path, ranks: Path, out_csv: Path) -> dict:
    wall, rss, _ = run_child([str(cli), "-q", "analyze", "--format", "csv", "-o", str(out_csv), str(ranks)])
    import polars as pl

    count = pl.read_csv(out_csv, infer_schema_length=0).height
    return {"wall_s": wall, "rss_mb": rss, "rows": count}


def child_json(command: list[str]) -> dict:
    _, _, out = run_child(command)
    return json.loads(out.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
