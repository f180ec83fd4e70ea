"""The python-polars side of the `cores` benchmark (core/cli/benches/cores.rs): the least a
user's script does with the same files warpsight reads.

    python cores_polars.py details PAGE.csv   # read an ncu details page, pivot five metrics
    python cores_polars.py nsys TRACE.csv     # read an nsys cuda_gpu_trace CSV, group by kernel

The thread count is polars' own (`POLARS_MAX_THREADS`, set by the benchmark before polars is
imported). Prints one line (rows and columns of the result) so that the work cannot be skipped.
"""

import sys

import polars as pl

# The five metrics of the pivot: a launch's registers, waves and occupancy (rows of the Launch
# Statistics and Occupancy sections, which both the amplified A100 page and the synthetic page have).
DETAILS_METRICS = [
    "Registers Per Thread",
    "Waves Per SM",
    "Block Limit Registers",
    "Theoretical Occupancy",
    "Achieved Occupancy",
]


def lines_before(path, start):
    """The number of lines before the first line that starts with `start` (the header: ncu and
    nsys write application output and banners before it)."""
    with open(path, "rb") as file:
        for number, line in enumerate(file):
            if line.startswith(start):
                return number
    sys.exit(f"{path}: no line starts with {start!r}")


def details(path):
    """Reads a details page (every column as text, as ncu writes thousands separators), keeps the
    five metrics, turns their values into numbers and pivots them to one row per launch."""
    skip = lines_before(path, b'"ID","Process ID"')
    frame = pl.read_csv(path, infer_schema=False, skip_rows=skip)
    long = frame.filter(pl.col("Metric Name").is_in(DETAILS_METRICS)).select(
        pl.col("ID").cast(pl.Int64),
        pl.col("Kernel Name"),
        pl.col("Metric Name"),
        pl.col("Metric Value").str.replace_all(",", "").cast(pl.Float64, strict=False),
    )
    return long.pivot(
        on="Metric Name",
        index=["ID", "Kernel Name"],
        values="Metric Value",
        aggregate_function="first",
    )


def nsys(path):
    """Reads a `cuda_gpu_trace` CSV and sums, averages and counts the kernel durations by name."""
    frame = pl.read_csv(path, skip_rows=lines_before(path, b"Start (ns),"))
    return (
        frame.filter(pl.col("GrdX").is_not_null())
        .group_by("Name")
        .agg(
            pl.col("Duration (ns)").sum().alias("total_ns"),
            pl.col("Duration (ns)").mean().alias("mean_ns"),
            pl.len().alias("launches"),
        )
    )


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("details", "nsys"):
        sys.exit("usage: cores_polars.py details|nsys FILE")
    result = details(sys.argv[2]) if sys.argv[1] == "details" else nsys(sys.argv[2])
    print(f"{result.height} rows, {result.width} columns")


if __name__ == "__main__":
    main()
