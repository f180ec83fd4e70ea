#!/usr/bin/env python3
"""Checks the plugins' SASS opcode -> ncu pipe tables (`ArchSpec::sass_pipes`, ABI minor 3)
against Nsight Compute reports that hold both the per-opcode counts
(`sass__inst_executed_per_opcode`) and ncu's pipe counters.

For every launch with per-opcode counts it sums the counts by the table of the launch's compute
capability (read from `plugins/<family>/src/sass_pipes.rs`) and prints, per pipe:

- `ncu`: ncu's own count, `sm__inst_executed_pipe_<p>.sum`, where the report has it, and the
  table's sum beside it (`table`), with their ratio;
- otherwise `rate`: the table's sum / (`sm__inst_executed_pipe_<p>.*.pct_of_peak_sustained_active`
  / 100 x active SM cycles). ncu's percentage is the pipe's instructions / (its rate x active
  cycles), so when the table counts what ncu counts, this is the pipe's rate in warp instructions
  per SM per cycle: the same number on every launch of a GPU (2.0, 0.5, ...). A rate that differs
  between launches means the table misses or adds instructions of that pipe.

It also prints the opcodes the table leaves out and their share of the launch's instructions.

Usage (NVIDIA's reader `ncu_report` is needed; `core/ingest/oracle/run.sh` installs it in
`target/oracle-venv`):

    target/oracle-venv/bin/python plugins/tools/check_sass_pipes.py [REPORT.ncu-rep ...]

Without arguments it reads `traces/**/*.ncu-rep` and `../shared/traces/ncu-other-gpus/*.ncu-rep`
(relative to the repository root). The results of 2026-11 are in docs/plugins.md, "SASS opcode
tables".
"""

import glob
import os
import re
import sys
from collections import defaultdict

import ncu_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The family plugin that provides each compute capability (docs/plugins.md, first table).
FAMILY_OF_CC = {
    (5, 0): "maxwell", (5, 2): "maxwell", (5, 3): "maxwell",
    (6, 0): "pascal", (6, 1): "pascal", (6, 2): "pascal",
    (7, 0): "volta", (7, 2): "volta", (7, 5): "turing",
    (8, 0): "ampere", (8, 6): "ampere", (8, 7): "ampere", (8, 9): "ada", (9, 0): "hopper",
    (10, 0): "blackwell", (10, 3): "blackwell", (12, 0): "blackwell", (12, 1): "blackwell",
}

# `Pipe` variant -> ncu pipe names to look for, first found wins (the FP16x2 pipe is `fp16` on
# 7.x and GA100, `fma_type_fp16` from GA10x on).
NCU_NAMES = {
    "Fma": ["fma"], "FmaFp16": ["fma_type_fp16", "fp16"], "Fp64": ["fp64"], "Alu": ["alu"],
    "Xu": ["xu"], "Lsu": ["lsu"], "Adu": ["adu"], "Cbu": ["cbu"], "Uniform": ["uniform"],
    "Ipa": ["ipa"], "Tex": ["tex"], "Tma": ["tma"], "TensorHmma": ["tensor_op_hmma"],
    "TensorImma": ["tensor_op_imma"], "TensorDmma": ["tensor_op_dmma"],
    "TensorGmma": ["tensor_op_gmma"],
}

ENTRY = re.compile(r'\(\s*"([A-Z][A-Z0-9_]*)"\s*,\s*Pipe::(\w+)\s*\)')


def read_table(family):
    """The opcode -> `Pipe` variant pairs of `const TABLE` in the family's sass_pipes.rs."""
    path = os.path.join(ROOT, "plugins", family, "src", "sass_pipes.rs")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find("const TABLE")
    if start < 0:
        return {}
    end = text.find("];", start)
    return {op: pipe for op, pipe in ENTRY.findall(text[start:end])}


def value(action, name):
    metric = action.metric_by_name(name)
    if metric is None:
        return None
    try:
        return metric.as_double()
    except Exception:  # a string-valued metric
        return None


def active_cycles(action):
    total = value(action, "sm__cycles_active.sum")
    if total is not None:
        return total
    avg = value(action, "sm__cycles_active.avg")
    sms = value(action, "device__attribute_multiprocessor_count")
    return avg * sms if avg is not None and sms is not None else None


def check_action(action, tables, unmapped_total, summary):
    names = set(action.metric_names())
    if "sass__inst_executed_per_opcode" not in names:
        return False
    metric = action.metric_by_name("sass__inst_executed_per_opcode")
    ids = metric.correlation_ids()
    counts = {ids.as_string(i): metric.as_double(i) for i in range(metric.num_instances())}
    cc = (int(value(action, "device__attribute_compute_capability_major")),
          int(value(action, "device__attribute_compute_capability_minor")))
    family = FAMILY_OF_CC.get(cc)
    table = tables.setdefault(family, read_table(family)) if family else {}
    device = action.metric_by_name("device__attribute_display_name")
    device = device.as_string() if device else "?"
    print(f"\n{action.name()[:60]}  [{device}, CC {cc[0]}.{cc[1]}, "
          f"plugin {family}]")
    if not table:
        print("  the plugin has no table for this CC")
        return True
    sums = defaultdict(float)
    unmapped = {}
    for opcode, count in counts.items():
        pipe = table.get(opcode.split(".")[0].upper())
        if pipe is None:
            unmapped[opcode] = count
        else:
            sums[pipe] += count
    cycles = active_cycles(action)
    for pipe, ncu_names in NCU_NAMES.items():
        ours = sums.get(pipe, 0.0)
        for ncu_name in ncu_names:
            absolute = value(action, f"sm__inst_executed_pipe_{ncu_name}.sum")
            pct = None
            for suffix in ("sum.pct_of_peak_sustained_active", "avg.pct_of_peak_sustained_active"):
                pct = value(action, f"sm__inst_executed_pipe_{ncu_name}.{suffix}")
                if pct is not None:
                    break
            if absolute is None and pct is None:
                continue
            if absolute is not None:
                ratio = f"{ours / absolute:.4f}" if absolute else ("1" if ours == 0 else "inf")
                print(f"  {ncu_name:15s} ncu {absolute:16,.0f}  table {ours:16,.0f}  ratio {ratio}")
                if absolute:
                    summary[(device, ncu_name, "ratio")].append(ours / absolute)
            elif pct and cycles:
                rate = ours / (pct / 100 * cycles)
                print(f"  {ncu_name:15s} pct {pct:9.4f}  table {ours:16,.0f}  rate {rate:.4f}")
                summary[(device, ncu_name, "rate")].append(rate)
            else:
                print(f"  {ncu_name:15s} pct {pct if pct is not None else '-'}  table {ours:16,.0f}")
            break
    total = sum(counts.values())
    left = sum(unmapped.values())
    listed = ", ".join(f"{op} {n:,.0f}" for op, n in sorted(unmapped.items(), key=lambda kv: -kv[1]))
    print(f"  not in the table: {left / total:.2%} of {total:,.0f} ({listed or 'none'})")
    for opcode, count in unmapped.items():
        unmapped_total[(family, opcode)] += count
    return True


def main(files):
    if not files:
        files = sorted(glob.glob(os.path.join(ROOT, "traces", "**", "*.ncu-rep"), recursive=True))
        files += sorted(glob.glob(os.path.join(ROOT, "..", "shared", "traces", "ncu-other-gpus",
                                               "*.ncu-rep")))
    tables = {}
    unmapped_total = defaultdict(float)
    summary = defaultdict(list)
    checked = 0
    for path in files:
        report = ncu_report.load_report(path)
        for r in range(report.num_ranges()):
            launches = report.range_by_idx(r)
            for a in range(launches.num_actions()):
                action = launches.action_by_idx(a)
                checked += check_action(action, tables, unmapped_total, summary)
    print(f"\n{checked} launches with per-opcode counts in {len(files)} reports")
    print("\nSummary: per GPU and pipe, the table's rate (or ratio to ncu's count) over the launches "
          "where ncu counts some: min .. max (launches)")
    for (device, pipe, kind), values in sorted(summary.items()):
        print(f"  {device:36s} {pipe:15s} {kind:5s} {min(values):8.4f} .. {max(values):8.4f} "
              f"({len(values)})")
    if unmapped_total:
        print("opcodes not in the tables, by family:",
              ", ".join(f"{fam}:{op}" for fam, op in sorted(unmapped_total)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
