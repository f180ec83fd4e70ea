#!/usr/bin/env python3
"""The baseline of bench_ncu_rep.sh: builds the launch table of a `.ncu-rep` with NVIDIA's
`ncu_report` (one row per launch, one column per metric with a value, `launch_id` and
`kernel_name` first) and writes it to Parquet with pyarrow, as close to what
`warpsight ingest REPORT -o OUT.parquet` does as a plain script gets: the documented conversions
(`pct` metrics / 100, `breakdown:` / `group:` dropped, instances-only metrics null) and a column
type per metric (float64 when every value is a number, else string). No known columns, no
validation, no rules table.

Usage: ncu_report_to_parquet.py REPORT OUT.parquet
"""

import sys

import ncu_report
import pyarrow as pa
import pyarrow.parquet as pq

# Printed without a percent unit on the raw page (see ncu_report_conformance.py).
PCT_PLAIN = {"derived__pct_occupancy_per_barrier_count"}


def main() -> int:
    report, out = sys.argv[1], sys.argv[2]
    ctx = ncu_report.load_report(report)
    rows = []
    names = {}
    lid = 0
    for r in range(ctx.num_ranges()):
        rg = ctx.range_by_idx(r)
        for a in range(rg.num_actions()):
            act = rg.action_by_idx(a)
            kname = (
                act.name(act.NameBase_DEMANGLED)
                or act.name(act.NameBase_FUNCTION)
                or act.name(act.NameBase_MANGLED)
            )
            row = {"launch_id": lid, "kernel_name": kname}
            lid += 1
            for name in act.metric_names():
                if name.startswith(("breakdown:", "group:")):
                    continue
                names[name] = None
                m = act.metric_by_name(name)
                if not m.has_value():
                    continue
                v = m.value()
                if isinstance(v, (int, float)) and "pct" in name and name not in PCT_PLAIN:
                    v = v / 100
                row[name] = None if v == "" else v
            rows.append(row)
    columns = {"launch_id": pa.array([r["launch_id"] for r in rows], pa.int64()),
               "kernel_name": pa.array([r["kernel_name"] for r in rows], pa.string())}
    for name in sorted(names):
        values = [r.get(name) for r in rows]
        if all(v is None or isinstance(v, (int, float)) for v in values):
            columns[name] = pa.array([None if v is None else float(v) for v in values], pa.float64())
        else:
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
    pq.write_table(pa.table(columns), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
