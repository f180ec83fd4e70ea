#!/usr/bin/env python3
"""NVIDIA's own `.ncu-rep` reader (`ncu_report`, PyPI `ncu-report`) as the test oracle for
warpsight's `ncu-rep` reader (issue #24 item 7).

For every `.ncu-rep` under `<repo>/traces/` (recursively) and `<repo>/../shared/traces/ncu-other-gpus/`
it runs `warpsight ingest REPORT -o TMP.arrow` (or `.parquet`), reads the launch table back with
pyarrow, and compares it with what `ncu_report` reads from the same report:

- one launch per kernel result, in report order; warpsight's `launch_id` is the report's ID (the
  0-based index of the result over all ranges);
- every metric of a launch, found in warpsight's table under its native ncu name, after the
  conversions docs/trace-schema.md ("Nsight Compute reports (`.ncu-rep`)", "Units and nulls")
  documents, and nothing else:
    * metrics whose name contains `pct` and which the raw page prints in `%`, `%/register` or
      `%/byte` become ratios (value / 100). The metrics that the raw page prints without a
      percent unit (`derived__pct_occupancy_per_barrier_count`) are read from the units row of
      the kit's own raw pages (`traces/**/*.ncu-raw.csv`), not from `ncu_report`'s
      `IMetric.unit()`, whose answer depends on the order the metrics are asked in (2026.3.1);
    * `breakdown:*` and `group:*` helper metrics are dropped (counted, not compared);
    * a metric with instances keeps its aggregate; one with instances but no aggregate, or with
      no value at all, is null (or has no column);
    * an empty string is null (`Units and nulls`: empty cells are null);
    * a numeric string metric becomes a number (a metric column is Float64 when every value
      is a number);
  Numbers are equal when they are equal exactly, or, for the `/ 100` conversion only, within a
  relative 1e-12 (division vs multiplication by 0.01). Strings are equal when equal exactly.
- the kernel name (`kernel_name`): the demangled name, else the function name, else the mangled
  name (`ncu_report` has no accessor for a renamed kernel);
- the per-opcode columns (issue #23; docs/trace-schema.md, "Per-opcode instruction counts"): the
  instances of `sass__inst_executed_per_opcode` whose correlation id is a string
  (`correlation_ids().as_string(i)`, stripped, not empty) are one column each,
  `sass__inst_executed_per_opcode[OPCODE]`, equal exactly to the instance's value (summed when an
  opcode repeats), 0 for an opcode of the report the launch has no instance of, and null in every
  such column of a launch that has no such instance; there is a column for every opcode of the
  report and for no other.

Known today (issue #24) and reported under their own class rather than hidden:
  (a) reports warpsight cannot decode (an ingest failure: counts as a failure);
  (b) a native metric whose name is a launch-table column name (`inst_executed`), shadowed by
      the known column (a difference: counts as a failure);
  (c) NaN written as the text `nan` (column turned String): a NaN in ncu_report equals a float NaN
      or the text `nan`, and a number in such a String column is compared as the number it
      spells; both are counted apart, not failures;
  (d) launches that warpsight leaves out: explained (not a failure) only when ncu_report's values
      make it a launch "ncu failed to profile" (no grid, NaN duration) or break a range of
      docs/trace-schema.md "Validated ranges", and warpsight's stderr says so; otherwise a failure.

Exit status: 0 when every report was ingested and every difference is explained, 1 otherwise,
2 on a usage / environment error.
"""

from __future__ import annotations

import argparse
import collections
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import ncu_report
except ImportError as e:  # pragma: no cover - environment error
    sys.exit(f"ncu_report_conformance: cannot import ncu_report ({e}); pip install -r requirements.txt")
try:
    import pyarrow.feather as feather
    import pyarrow.parquet as pq
except ImportError as e:  # pragma: no cover - environment error
    sys.exit(f"ncu_report_conformance: cannot import pyarrow ({e}); pip install -r requirements.txt")

REPO = Path(__file__).resolve().parents[3]
SHARED_NCU = "../shared/traces/ncu-other-gpus"
REL_TOL = 1e-12
PCT_UNITS = {"%", "%/register", "%/byte"}
# docs/trace-schema.md, "Extra columns": ncu identification columns without a known column.
IDENTIFICATION_COLUMNS = {"Host Name"}
# Columns warpsight adds from parts of a report that NVIDIA's Python reader does not expose, with
# the values they may hold: `ncu_clocks_locked` is the launch's ClockStatus ExecutedLocked
# (docs/trace-schema.md; 1, 0 or null), checked against the decoder's own tests.
UNREADABLE_COLUMNS = {"ncu_clocks_locked": {0.0, 1.0, None}}

# docs/trace-schema.md, "Per-opcode instruction counts": the metric whose instances are columns.
OPCODE_METRIC = "sass__inst_executed_per_opcode"
OPCODE_PREFIX, OPCODE_SUFFIX = OPCODE_METRIC + "[", "]"
# docs/trace-schema.md, "Launches ncu failed to profile": the warning warpsight prints for them.
PROFILING_FAILED = "profiling failed in ncu (grid (0, 0, 0), no counter values)"


def truthy_env(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


# ---------------------------------------------------------------------------------------------
# What the documentation says


def known_columns(doc: Path) -> set[str]:
    """The known launch-table columns: the first cell of each row of the table under
    `## The launch table` in docs/trace-schema.md (`a`, `b` lists and `x_y` / `_z` suffixes)."""
    cols: set[str] = set()
    in_table = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_table = line.strip() == "## The launch table"
            continue
        if in_table and line.startswith("### "):
            break
        if not (in_table and line.startswith("| `")):
            continue
        cell = line.split("|")[1]
        prefix = None
        for tok in re.findall(r"`([^`]+)`", cell):
            if tok.startswith("_") and prefix:
                cols.add(prefix + tok)
            else:
                cols.add(tok)
                prefix = tok.rsplit("_", 1)[0]
    return cols


def pct_printed_without_percent(repo: Path) -> dict[str, str]:
    """`pct` metrics that ncu's raw page prints with a unit other than `%`, `%/register`,
    `%/byte`, read from the units row of every `*.ncu-raw.csv` under traces/ (ncu's own page)."""
    found: dict[str, str] = {}
    for path in sorted((repo / "traces").rglob("*.ncu-raw.csv")):
        with path.open(newline="", encoding="utf-8", errors="replace") as f:
            rows = csv.reader(f)
            for row in rows:
                if row[:2] == ["ID", "Process ID"]:
                    units = next(rows, [])
                    for name, unit in zip(row, units):
                        if "pct" in name and unit not in PCT_UNITS:
                            found[name] = unit
                    break
    return found


# ---------------------------------------------------------------------------------------------
# The two readers


def run_warpsight(binary: str, report: Path, out: Path):
    """Runs `warpsight ingest`; returns (table or None, stderr text, seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [binary, "ingest", str(report), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    secs = time.perf_counter() - t0
    err = (proc.stderr or "") + (proc.stdout or "")
    if proc.returncode != 0:
        return None, f"exit {proc.returncode}: {err.strip()}", secs
    table = pq.read_table(out) if out.suffix == ".parquet" else feather.read_table(out)
    return table, err, secs


def opcode_of_column(name: str) -> str | None:
    """The opcode of a per-opcode column (`sass__inst_executed_per_opcode[FFMA]` -> `FFMA`)."""
    if name.startswith(OPCODE_PREFIX) and name.endswith(OPCODE_SUFFIX):
        opcode = name[len(OPCODE_PREFIX) : -len(OPCODE_SUFFIX)]
        return opcode or None
    return None


def per_opcode_counts(metric) -> dict[str, float] | None:
    """{opcode: count} of the instances of `sass__inst_executed_per_opcode` whose correlation id
    is a non-empty string, or None when no instance has one."""
    ids = metric.correlation_ids()
    if ids is None:
        return None
    integer = metric.kind() in (metric.ValueKind_UINT32, metric.ValueKind_UINT64)
    counts: dict[str, float] = {}
    for i in range(metric.num_instances()):
        opcode = ids.as_string(i)
        opcode = opcode.strip() if opcode is not None else ""
        if not opcode:
            continue
        value = float(metric.as_uint64(i)) if integer else metric.as_double(i)
        counts[opcode] = counts.get(opcode, 0.0) + value
    return counts or None


def kernel_name(action) -> str:
    for base in (action.NameBase_DEMANGLED, action.NameBase_FUNCTION, action.NameBase_MANGLED):
        name = action.name(base)
        if name:
            return name
    return ""


def ncu_launches(report: Path):
    """[(launch id, kernel name, {metric: (has_value, value, num_instances)}, per-opcode counts or
    None)] in report order, plus the number of non-kernel results skipped."""
    ctx = ncu_report.load_report(str(report))
    launches, skipped, idx = [], 0, 0
    for r in range(ctx.num_ranges()):
        rg = ctx.range_by_idx(r)
        for a in range(rg.num_actions()):
            act = rg.action_by_idx(a)
            this_id = idx
            idx += 1
            if act.workload_type() != act.WorkloadType_KERNEL:
                skipped += 1
                continue
            metrics = {}
            per_opcode = None
            for name in act.metric_names():
                m = act.metric_by_name(name)
                has = m.has_value()
                metrics[name] = (has, m.value() if has else None, m.num_instances())
                if name == OPCODE_METRIC and m.num_instances():
                    per_opcode = per_opcode_counts(m)
            launches.append((this_id, kernel_name(act), metrics, per_opcode))
    return launches, skipped


# ---------------------------------------------------------------------------------------------
# Validated ranges (docs/trace-schema.md): why a launch may be absent from warpsight's table


def out_of_range(metrics) -> str | None:
    def num(name):
        has, v, _ = metrics.get(name, (False, None, 0))
        return v if has and isinstance(v, (int, float)) else None

    # "Launches ncu failed to profile": no grid (ncu's grid (0, 0, 0)) and no duration.
    duration = num("gpu__time_duration.sum")
    if (
        all(num(f"launch__grid_dim_{a}") in (None, 0) for a in "xyz")
        and num("launch__grid_size") in (None, 0)
        and (duration is None or math.isnan(duration))
    ):
        return "profiling failed in ncu: no grid, duration NaN"
    for axis, hi in (("x", 2**31 - 1), ("y", 65535), ("z", 65535)):
        v = num(f"launch__grid_dim_{axis}")
        if v is not None and not (1 <= v <= hi):
            return f"grid_{axis} = {v} (valid 1-{hi})"
    for axis, hi in (("x", 1024), ("y", 1024), ("z", 64)):
        v = num(f"launch__block_dim_{axis}")
        if v is not None and not (1 <= v <= hi):
            return f"block_{axis} = {v} (valid 1-{hi})"
    v = num("launch__registers_per_thread")
    if v is not None and not (0 <= v <= 255):
        return f"registers_per_thread = {v} (valid 0-255)"
    v = num("gpu__time_duration.sum")
    if v is not None and not (math.isfinite(v) and v >= 0):
        return f"duration_ns = {v} (must be finite, >= 0)"
    return None


# ---------------------------------------------------------------------------------------------
# Comparison


def is_nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def as_number(s: str):
    try:
        return float(s.replace(",", "")) if s.strip() else None
    except ValueError:
        return None


def num_equal(expected: float, got: float, converted: bool) -> bool:
    if expected == got:
        return True
    if converted and math.isfinite(expected) and math.isfinite(got):
        return abs(expected - got) <= REL_TOL * max(abs(expected), abs(got))
    return False


def pattern(name: str) -> str:
    """A metric-name pattern to group differences: `unit__*.suffix`."""
    if name.startswith("derived__"):
        return "derived__*"
    if "__" not in name:
        return name
    head = name.split("__", 1)[0]
    head = head.split(".")[-1]  # `SM_A.TriageCompute.l1tex__…` → `l1tex`
    tail = name.rsplit(".", 1)[1] if "." in name.split("__", 1)[1] else ""
    return f"{head}__*" + (f".{tail}" if tail else "")


class Stats:
    KEYS = ("compared", "equal", "different", "missing")

    def __init__(self):
        self.c = collections.Counter()
        self.examples = collections.defaultdict(list)  # kind -> [str]
        self.classes = collections.Counter()  # (kind, class, pattern) -> n
        self.class_example = {}
        self.unexplained = 0
        self.failed_reports: list[tuple[str, str]] = []

    def add(self, other: "Stats"):
        self.c.update(other.c)
        self.classes.update(other.classes)
        for k, v in other.class_example.items():
            self.class_example.setdefault(k, v)
        self.unexplained += other.unexplained

    def note(self, kind, cls, name, text, explained, max_examples):
        """kind: `different` or `missing`; cls: the cause."""
        self.c[kind] += 1
        key = (kind, cls, pattern(name))
        self.classes[key] += 1
        self.class_example.setdefault(key, text)
        if len(self.examples[kind]) < max_examples:
            self.examples[kind].append(text)
        if not explained:
            self.unexplained += 1


def fmt(v) -> str:
    s = repr(v)
    return s if len(s) <= 90 else s[:87] + "..."


def compare_report(report: Path, args, known: set[str], pct_plain: dict[str, str], tmp: Path):
    st = Stats()
    rel = os.path.relpath(report, REPO)
    out = tmp / (report.stem + "." + args.format)
    table, err, wsecs = run_warpsight(args.warpsight, report, out)
    t0 = time.perf_counter()
    try:
        launches, skipped = ncu_launches(report)
    except Exception as e:  # ncu_report raises on a report it cannot read
        print(f"== {rel}: FAIL: ncu_report cannot read it: {e}")
        key = ("oracle-failed", "ncu_report cannot read the report", "")
        st.classes[key] += 1
        st.class_example.setdefault(key, f"{rel}: {e}")
        st.unexplained += 1
        st.failed_reports = [(rel, f"ncu_report: {e}")]
        return st
    nsecs = time.perf_counter() - t0
    if table is None:
        print(f"== {rel}: FAIL: warpsight cannot ingest it ({len(launches)} launches in ncu_report)")
        for line in err.splitlines()[:6]:
            print(f"   | {line}")
        st.c["ingest_failed"] += 1
        msg = " / ".join(l.strip() for l in err.splitlines()[:2]) or "?"
        key = ("ingest-failed", "(a) warpsight ingest fails", "")
        st.classes[key] += 1
        st.class_example.setdefault(key, f"{rel}: {msg[:200]}")
        st.unexplained += 1
        st.failed_reports = [(rel, msg)]
        return st
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    dup = [n for n, k in collections.Counter(table.column_names).items() if k > 1]
    rows = cols.get("launch_id", [])
    print(
        f"== {rel}: {len(launches)} launches in ncu_report, {table.num_rows} rows from warpsight "
        f"({table.num_columns} columns; ingest {wsecs:.2f} s, ncu_report {nsecs:.2f} s)"
    )
    for name in dup:
        st.note("different", "duplicate column name (only the last one is compared)", name,
                f"{name}: {collections.Counter(table.column_names)[name]} columns", False, args.max_examples)
    if skipped:
        print(f"   note: {skipped} non-kernel results (range / command list / graph) not compared")
    warn = [l for l in err.splitlines() if l.strip()]
    for line in warn[: args.max_examples]:
        print(f"   warpsight: {line}")
    if len(warn) > args.max_examples:
        print(f"   warpsight: ... {len(warn) - args.max_examples} more lines")

    # Row order = report order.
    if rows != sorted(rows) or len(set(rows)) != len(rows):
        st.note("different", "rows not in report order", "launch_id", f"launch_id column = {rows}", False, args.max_examples)
    row_of = {lid: i for i, lid in enumerate(rows)}
    ids = {lid for lid, _, _, _ in launches}
    for lid in rows:
        if lid not in ids:
            st.note("different", "row with a launch id ncu_report does not have", "launch_id",
                    f"launch_id {lid} in warpsight's table only", False, args.max_examples)

    all_metric_names = set()
    all_opcodes = set()
    for _, _, metrics, per_opcode in launches:
        all_metric_names.update(metrics)
        all_opcodes.update(per_opcode or ())
    opcode_columns = {op: name for name in cols if (op := opcode_of_column(name)) is not None}

    for lid, kname, metrics, per_opcode in launches:
        if lid not in row_of:
            why = out_of_range(metrics)
            n = sum(1 for m in metrics if not m.startswith(("breakdown:", "group:")))
            said = PROFILING_FAILED in err if why and why.startswith("profiling failed") else (
                "not used" in err or "rejected" in err)
            if why and not said:
                st.note("missing", "launch absent without the warning docs/trace-schema.md promises", "(launch)",
                        f"launch {lid} `{kname[:60]}`: {why}; warpsight's stderr does not say so", False, args.max_examples)
            elif why:
                st.c["launches_rejected_documented"] += 1
                cls = ("(d) launch ncu failed to profile (documented: warning on stderr)" if why.startswith("profiling failed")
                       else "(d) rejected by validation (documented: Validated ranges)")
                key = ("launch-absent", cls, why.split(" =")[0].split(":")[0])
                st.classes[key] += 1
                st.class_example.setdefault(key, f"{rel} launch {lid} `{kname[:60]}`: {why}")
                if len(st.examples["launch-absent"]) < args.max_examples:
                    st.examples["launch-absent"].append(f"launch {lid} `{kname[:60]}`: {why} ({n} metrics not compared)")
            else:
                st.note("missing", "launch absent, no documented reason", "(launch)",
                        f"launch {lid} `{kname[:60]}`: absent from warpsight's table", False, args.max_examples)
            continue
        row = row_of[lid]

        # Kernel name.
        st.c["compared"] += 1
        got = cols.get("kernel_name", [None] * len(rows))[row]
        if got == kname:
            st.c["equal"] += 1
        elif got is None:
            st.note("missing", "kernel_name null", "kernel_name", f"launch {lid} kernel_name: ncu {fmt(kname)} warpsight null", False, args.max_examples)
        else:
            st.note("different", "kernel_name differs", "kernel_name",
                    f"launch {lid} kernel_name: ncu {fmt(kname)} warpsight {fmt(got)}", False, args.max_examples)

        for name, (has, value, ninst) in sorted(metrics.items()):
            if name.startswith(("breakdown:", "group:")):
                st.c["dropped_helper"] += 1
                continue
            col = cols.get(name)
            cell = col[row] if col is not None else None
            shadow = name in known
            ex = f"launch {lid} {name}"
            if not has or value == "":
                # Instances without an aggregate, no value, or an empty string: null (or no column).
                st.c["expected_null"] += 1
                if cell is None:
                    st.c["expected_null_ok"] += 1
                elif shadow:
                    st.note("different", "(b) native metric shadowed by a known column", name,
                            f"{ex}: ncu has no value ({ninst} instances), warpsight {fmt(cell)} (the known column)", False, args.max_examples)
                else:
                    st.note("different", "value where ncu_report has none", name,
                            f"{ex}: ncu has no value ({ninst} instances), warpsight {fmt(cell)}", False, args.max_examples)
                continue
            st.c["compared"] += 1
            if ninst:
                st.c["compared_instanced_aggregate"] += 1
            if col is None:
                st.note("missing", "column absent", name, f"{ex}: ncu {fmt(value)}, no such column", False, args.max_examples)
                continue
            if cell is None:
                cls = "(b) native metric shadowed by a known column" if shadow else "null where ncu_report has a value"
                st.note("missing", cls, name, f"{ex}: ncu {fmt(value)}, warpsight null", False, args.max_examples)
                continue

            converted = isinstance(value, (int, float)) and "pct" in name and name not in pct_plain
            if isinstance(value, str):
                if isinstance(cell, str):
                    ok = cell == value
                else:
                    num = as_number(value)
                    ok = num is not None and isinstance(cell, (int, float)) and num_equal(num, cell, False)
                    if ok:
                        st.c["equal_numeric_string"] += 1
            elif is_nan(value):
                if is_nan(cell):
                    st.c["nan_as_float"] += 1
                    ok = True
                elif cell == "nan":
                    st.c["nan_as_text"] += 1
                    ok = True
                else:
                    ok = False
            else:
                expected = value / 100 if converted else value
                if isinstance(cell, str):
                    num = as_number(cell)
                    ok = num is not None and num_equal(expected, num, converted)
                    if ok:
                        st.c["equal_number_in_string_column"] += 1
                elif isinstance(cell, (int, float)) and not isinstance(cell, bool):
                    if isinstance(expected, int) and isinstance(cell, int):
                        ok = expected == cell
                    else:
                        ok = num_equal(float(expected), float(cell), converted)
                else:
                    ok = False
            if ok:
                st.c["equal"] += 1
                continue

            # Classify the difference.
            if shadow:
                cls = "(b) native metric shadowed by a known column"
            elif isinstance(value, (int, float)) and isinstance(cell, (int, float)) and not is_nan(value):
                if converted and num_equal(float(value), float(cell), False):
                    cls = "pct metric not converted to a ratio"
                elif not converted and value != 0 and num_equal(float(value) / 100, float(cell), True):
                    cls = "converted to a ratio although not a documented pct metric"
                else:
                    cls = "numeric value differs"
            elif isinstance(value, str) != isinstance(cell, str):
                cls = "type differs (string vs number)"
            else:
                cls = "value differs"
            extra = f" (expected {fmt(value / 100)} after / 100)" if converted else ""
            st.note("different", cls, name,
                    f"{ex}: ncu {fmt(value)}{extra}, warpsight {fmt(cell)}", False, args.max_examples)

        # Per-opcode columns: the launch's count, 0 for another opcode of the report, all null for a
        # launch without per-opcode instances.
        for opcode in sorted(set(opcode_columns) | set(per_opcode or ())):
            name = opcode_columns.get(opcode, OPCODE_PREFIX + opcode + OPCODE_SUFFIX)
            col = cols.get(name)
            cell = col[row] if col is not None else None
            ex = f"launch {lid} {name}"
            if per_opcode is None:
                st.c["expected_null"] += 1
                if cell is None:
                    st.c["expected_null_ok"] += 1
                else:
                    st.note("different", "per-opcode value for a launch without per-opcode instances", name,
                            f"{ex}: ncu has no per-opcode instances, warpsight {fmt(cell)}", False, args.max_examples)
                continue
            expected = per_opcode.get(opcode, 0.0)
            st.c["compared"] += 1
            st.c["compared_per_opcode"] += 1
            if col is None:
                st.note("missing", "per-opcode column absent", name, f"{ex}: ncu {fmt(expected)}, no such column", False, args.max_examples)
            elif cell is None:
                st.note("missing", "per-opcode count null where ncu_report has instances", name,
                        f"{ex}: ncu {fmt(expected)}, warpsight null", False, args.max_examples)
            elif isinstance(cell, (int, float)) and not isinstance(cell, bool) and (
                float(cell) == expected or (is_nan(expected) and is_nan(cell))
            ):
                st.c["equal"] += 1
            else:
                cls = ("per-opcode count not 0 for an opcode the launch has no instance of"
                       if opcode not in per_opcode else "per-opcode count differs")
                st.note("different", cls, name, f"{ex}: ncu {fmt(expected)}, warpsight {fmt(cell)}", False, args.max_examples)

        # Values warpsight has for metrics this launch does not have.
        for name, col in cols.items():
            if name in known or name in metrics or col[row] is None:
                continue
            if name in all_metric_names:
                st.note("different", "value for a metric this launch does not have", name,
                        f"launch {lid} {name}: warpsight {fmt(col[row])}, ncu has no such metric", False, args.max_examples)

    # Every known column is in every reader's table (`launch_table::conform`); besides the known
    # columns and the metrics, only identification columns without a known column (`Host Name`,
    # NVTX `thread Domain:…`) may appear.
    for name in sorted(known - set(cols)):
        st.note("missing", "known column (docs/trace-schema.md) absent from the table", name,
                f"{name}: no such column", False, args.max_examples)
    for name in sorted(n for n in cols if n not in known and n not in all_metric_names):
        if name in IDENTIFICATION_COLUMNS or name.startswith("thread Domain:"):
            continue
        if opcode_of_column(name) in all_opcodes:
            continue
        if name in UNREADABLE_COLUMNS:
            # Documented, and not exposed by NVIDIA's reader: checked by the Rust tests instead.
            values = set(cols[name])
            if values <= UNREADABLE_COLUMNS[name]:
                st.c["documented_unreadable"] += 1
                continue
        st.note("different", "column that is neither a known column nor an ncu metric", name,
                f"{name}: {fmt(cols[name][:3])}", False, args.max_examples)
    line = "   " + "  ".join(f"{k} {st.c[k]}" for k in Stats.KEYS)
    print(line + f"  | unexplained {st.unexplained}")
    print(
        f"   (also: nan as float {st.c['nan_as_float']}, nan as text {st.c['nan_as_text']}, "
        f"number in a String column {st.c['equal_number_in_string_column']}, "
        f"aggregates of instanced metrics {st.c['compared_instanced_aggregate']}, "
        f"per-opcode counts {st.c['compared_per_opcode']}, "
        f"expected null {st.c['expected_null_ok']}/{st.c['expected_null']}, "
        f"breakdown:/group: dropped {st.c['dropped_helper']}, "
        f"launches rejected (documented) {st.c['launches_rejected_documented']})"
    )
    for kind in ("different", "missing", "launch-absent"):
        for e in st.examples.get(kind, []):
            print(f"   {kind}: {e}")
    return st


def find_reports(args) -> tuple[list[Path], bool]:
    reports = sorted((REPO / "traces").rglob("*.ncu-rep"))
    shared = (REPO / SHARED_NCU).resolve()
    ok = True
    if shared.is_dir():
        reports += sorted(shared.rglob("*.ncu-rep"))
    else:
        strict = truthy_env("CI") or truthy_env("WARPSIGHT_REQUIRE_SHARED")
        if strict or not args.allow_missing_shared:
            why = "CI is set" if truthy_env("CI") else ("WARPSIGHT_REQUIRE_SHARED is set" if strict else "no --allow-missing-shared")
            print(f"FAIL: {shared} is absent ({why}); checking only traces/")
            ok = False
        else:
            print(f"note: {shared} is absent; checking only traces/ (--allow-missing-shared)")
    return reports, ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--warpsight", default="target/debug/warpsight", help="warpsight binary (default: target/debug/warpsight, relative to the repository)")
    p.add_argument("--format", choices=("arrow", "parquet"), default="arrow", help="the file warpsight writes (default arrow)")
    p.add_argument("--allow-missing-shared", action="store_true",
                   help="if ../shared/traces/ncu-other-gpus is absent, say so and check only traces/ (ignored when CI or WARPSIGHT_REQUIRE_SHARED is set: the absence is a failure there)")
    p.add_argument("--max-examples", type=int, default=5, help="differences printed per kind per report (default 5)")
    p.add_argument("reports", nargs="*", type=Path, help="check these reports only (default: every .ncu-rep under traces/ and ../shared/traces/ncu-other-gpus)")
    args = p.parse_args()

    binary = Path(args.warpsight)
    if not binary.is_absolute() and not binary.exists():
        binary = REPO / binary
    if not binary.exists():
        print(f"ncu_report_conformance: no warpsight binary at {args.warpsight} (build it: cargo build -p warpsight)")
        return 2
    args.warpsight = str(binary.resolve())

    known = known_columns(REPO / "docs/trace-schema.md")
    if not known:
        print("ncu_report_conformance: no launch-table columns found in docs/trace-schema.md")
        return 2
    pct_plain = pct_printed_without_percent(REPO)
    print(f"ncu_report {getattr(ncu_report, '__version__', '') or pkg_version('ncu_report')}, "
          f"pyarrow {pkg_version('pyarrow')}, warpsight {args.warpsight}")
    print(f"documented conversions: `pct` metrics / 100 except those the raw page prints without %: "
          f"{sorted(pct_plain) or 'none'}; `breakdown:`/`group:` dropped; {len(known)} known columns from docs/trace-schema.md")

    if args.reports:
        reports, shared_ok = [r.resolve() for r in args.reports], True
    else:
        reports, shared_ok = find_reports(args)
    total = Stats()
    failed = []
    with tempfile.TemporaryDirectory(prefix="ncu-oracle-") as tmp:
        for report in reports:
            st = compare_report(report, args, known, pct_plain, Path(tmp))
            total.add(st)
            failed += st.failed_reports

    print()
    print(f"== TOTAL over {len(reports)} reports ({len(failed)} not ingested)")
    print("   " + "  ".join(f"{k} {total.c[k]}" for k in Stats.KEYS) + f"  | unexplained {total.unexplained}")
    print(
        f"   equal includes: nan as float {total.c['nan_as_float']}, nan as text {total.c['nan_as_text']} (c), "
        f"number in a String column {total.c['equal_number_in_string_column']} (c), "
        f"numeric string -> number {total.c['equal_numeric_string']}; "
        f"aggregates of instanced metrics compared {total.c['compared_instanced_aggregate']}, "
        f"per-opcode counts compared {total.c['compared_per_opcode']}"
    )
    print(
        f"   not compared: expected null {total.c['expected_null']} ({total.c['expected_null_ok']} null as expected), "
        f"breakdown:/group: dropped {total.c['dropped_helper']}, "
        f"launches left out as documented ((d): failed profiling, validation) {total.c['launches_rejected_documented']}"
    )
    if total.classes:
        print("== classified differences (kind | cause | metric pattern: count, first example)")
        for (kind, cls, pat), n in sorted(total.classes.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[1])):
            print(f"   {kind} | {cls} | {pat or '-'}: {n}   e.g. {total.class_example[(kind, cls, pat)]}")
    for rel, msg in failed:
        print(f"   not ingested: {rel}: {msg[:200]}")
    if not shared_ok:
        print("FAIL: ../shared/traces/ncu-other-gpus is missing")
    bad = total.unexplained > 0 or not shared_ok
    print("RESULT: " + ("FAIL (unexplained differences or failures above)" if bad else "OK (every difference explained)"))
    return 1 if bad else 0


def pkg_version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
