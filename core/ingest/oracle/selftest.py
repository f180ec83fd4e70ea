#!/usr/bin/env python3
"""Checks that ncu_report_conformance.py is not vacuous: it runs it on traces/ncu-rep/regs_64_65.ncu-rep
with a stand-in for warpsight that runs the real binary and then alters the table it wrote in one
way, and expects each alteration to be caught (exit 1 and its class in the output), or, for the
tolerated ones, to pass and be counted.

Usage (in the oracle venv): selftest.py [--warpsight target/debug/warpsight]
"""

import argparse
import math
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
REPORT = REPO / "traces/ncu-rep/regs_64_65.ncu-rep"

# mode -> (expected exit status, text expected in the output)
CASES = {
    "none": (0, "RESULT: OK"),
    "pct-not-scaled": (1, "pct metric not converted to a ratio"),
    "one-ulp": (1, "numeric value differs"),
    "kernel-name": (1, "kernel_name differs"),
    "drop-row": (1, "launch absent, no documented reason"),
    "drop-column": (1, "column absent"),
    "null-cell": (1, "null where ncu_report has a value"),
    "string-cell": (1, "value differs"),
    "extra-column": (1, "neither a known column nor an ncu metric"),
    "swap-rows": (1, "rows not in report order"),
    "nan-as-text": (0, "nan as text 1"),
    "opcode-count": (1, "per-opcode count differs"),
    "opcode-zero-as-null": (1, "per-opcode count null where ncu_report has instances"),
    "opcode-drop-column": (1, "per-opcode column absent"),
}


def tamper(mode: str, out: Path):
    t = feather.read_table(out)
    names = t.column_names
    cols = {n: t.column(n).to_pylist() for n in names}

    def put(name, values, typ=None):
        i = names.index(name)
        return t.set_column(i, name, pa.array(values, typ or t.schema.field(name).type))

    if mode == "pct-not-scaled":
        t = put("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                [v * 100 for v in cols["sm__throughput.avg.pct_of_peak_sustained_elapsed"]])
    elif mode == "one-ulp":
        t = put("dram__bytes_read.sum", [math.nextafter(v, math.inf) for v in cols["dram__bytes_read.sum"]])
    elif mode == "kernel-name":
        t = put("kernel_name", [v + " " for v in cols["kernel_name"]])
    elif mode == "drop-row":
        t = t.slice(0, t.num_rows - 1)
    elif mode == "drop-column":
        t = t.remove_column(names.index("lts__t_bytes.sum"))
    elif mode == "null-cell":
        t = put("launch__grid_size", [None] + cols["launch__grid_size"][1:])
    elif mode == "string-cell":
        t = put("device__attribute_display_name", ["NVIDIA H100"] * t.num_rows)
    elif mode == "extra-column":
        t = t.append_column("made_up__metric.sum", pa.array([1.0] * t.num_rows))
    elif mode == "swap-rows":
        # (`take` has no kernel for warpsight's string_view columns: cast them to string first.)
        plain = pa.schema([f.with_type(pa.string()) if f.type == pa.string_view() else f for f in t.schema])
        t = t.cast(plain).take(list(reversed(range(t.num_rows))))
    elif mode == "opcode-count":
        name = "sass__inst_executed_per_opcode[FFMA]"
        t = put(name, [cols[name][0] + 1] + cols[name][1:])
    elif mode == "opcode-zero-as-null":
        # regs65_kernel (launch 1) executes no `LDL`: 0 in its row, not null.
        name = "sass__inst_executed_per_opcode[LDL]"
        t = put(name, cols[name][:1] + [None])
    elif mode == "opcode-drop-column":
        t = t.remove_column(names.index("sass__inst_executed_per_opcode[IMAD]"))
    elif mode == "nan-as-text":
        name = next(n for n in names if any(isinstance(v, float) and math.isnan(v) for v in cols[n]))
        t = put(name, [None if v is None else ("nan" if math.isnan(v) else repr(v)) for v in cols[name]], pa.string())
    feather.write_feather(t, out)


def stand_in():
    """Invoked as warpsight: `ingest REPORT -o OUT`; runs the real one, then tampers."""
    real, mode = os.environ["SELFTEST_REAL_WARPSIGHT"], os.environ["SELFTEST_MODE"]
    rc = subprocess.run([real] + sys.argv[2:]).returncode
    if rc == 0 and mode != "none":
        tamper(mode, Path(sys.argv[sys.argv.index("-o") + 1]))
    return rc


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--stand-in":
        return stand_in()
    p = argparse.ArgumentParser()
    p.add_argument("--warpsight", default="target/debug/warpsight")
    args = p.parse_args()
    real = Path(args.warpsight)
    real = (real if real.is_absolute() or real.exists() else REPO / real).resolve()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ncu-oracle-selftest-") as tmp:
        wrapper = Path(tmp) / "warpsight"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" --stand-in "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
        for mode, (want_rc, want_text) in CASES.items():
            env = dict(os.environ, SELFTEST_REAL_WARPSIGHT=str(real), SELFTEST_MODE=mode)
            proc = subprocess.run(
                [sys.executable, str(HERE / "ncu_report_conformance.py"), "--warpsight", str(wrapper), str(REPORT)],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )
            ok = proc.returncode == want_rc and want_text in proc.stdout
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {mode}: exit {proc.returncode} (want {want_rc}), "
                  f"{'found' if want_text in proc.stdout else 'missing'} `{want_text}`")
            if not ok:
                print(proc.stdout[-3000:])
    print("selftest: " + ("OK" if not failures else f"{failures} FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
