#!/usr/bin/env python3
"""Issue #23: the launch overhead inside `gpu__time_duration` as t0 = a + b / f_sm, fitted jointly
on every export with measured times and cross-validated leave-one-GPU-out (LOGO).

    W=target/debug/warpsight   # from the repository root, after `cargo build --workspace`
    $W --color never analyze -q --per launch --format csv '../shared/traces/ncu-other-gpus/*' \
        'traces/*/*.ncu-raw.csv' 'traces/ncu-rep/*.ncu-rep' \
        ../shared/traces/moeresearch__R_short_decode_ncu_raw_full.csv > /tmp/launches.csv
    python3 docs/model-v2/fit_overhead.py /tmp/launches.csv

warpsight's prediction is t0 + t_core with t0 = `FittedConstants::launch_overhead_s` (2.12 us), so
t_core = predicted - 2120 ns is read back from its output; a candidate overhead gives
t_core + a + b / f, f = `model_sm_clock_hz` (the clock the model times the launch at). Nothing here
reads a launch's measured time to predict it: measured times are only the fit's targets.

Fit set (decided before looking at any held-out GPU): the launches the model itself names
launch-overhead-bound, t_core <= 2.12 us, where the overhead is at least half the predicted time.
Objective: the mean over GPUs of each GPU's mean |ln(predicted / measured)| (each GPU weighs the
same, however many such launches it has); a and b >= 0, a grid of 50 ns (a) and 50 ns*GHz (b)
refined to 5. LOGO: for each GPU, refit without its launches and report its error with that fit.
Standard library only, deterministic.
"""
import csv
import math
import re
import statistics
import sys
from collections import defaultdict

TODAY_NS = 2120.0


def load(path):
    rows = []
    for r in csv.DictReader(open(path, newline="")):
        if not r["predicted_ns"] or not r["duration_ns"] or not r["model_sm_clock_hz"]:
            continue
        rows.append({
            "device": r["device"],
            "set": re.sub(r"/[^/]*$", "", r["file"]),
            "measured": float(r["duration_ns"]),
            "core": float(r["predicted_ns"]) - TODAY_NS,
            "ghz": float(r["model_sm_clock_hz"]) / 1e9,
        })
    return rows


def in_fit_set(r):
    return r["core"] <= TODAY_NS


def objective(rows, a, b):
    by = defaultdict(list)
    for r in rows:
        by[r["device"]].append(abs(math.log((r["core"] + a + b / r["ghz"]) / r["measured"])))
    return statistics.fmean(statistics.fmean(v) for v in by.values())


def fit(rows):
    best = min((objective(rows, a * 50.0, b * 50.0), a * 50.0, b * 50.0)
               for a in range(81) for b in range(121))
    _, a0, b0 = best
    return min((objective(rows, max(0.0, a0 + i * 5.0), max(0.0, b0 + j * 5.0)),
                max(0.0, a0 + i * 5.0), max(0.0, b0 + j * 5.0))
               for i in range(-10, 11) for j in range(-10, 11))


def errors(rows, a, b):
    e = sorted(abs(r["core"] + a + b / r["ghz"] - r["measured"]) / r["measured"] for r in rows)
    return statistics.median(e), e[math.ceil(0.9 * len(e)) - 1]


def main(path):
    rows = load(path)
    fit_set = [r for r in rows if in_fit_set(r)]
    devices = sorted({r["device"] for r in rows})
    _, a, b = fit(fit_set)
    print("Fit set: %s" % ", ".join("%s %d" % (d, sum(r["device"] == d for r in fit_set))
                                    for d in devices))
    print("All GPUs: a = %.0f ns, b = %.0f ns*GHz (%.0f SM cycles); t0 = %.2f us at 2.0 GHz, "
          "%.2f at 1.29, %.2f at 0.93, %.2f at 0.585\n"
          % (a, b, b, (a + b / 2) / 1e3, (a + b / 1.29) / 1e3, (a + b / 0.93) / 1e3,
             (a + b / 0.585) / 1e3))
    print("| GPU | exports | launches | today median / p90 | LOGO a, b | LOGO median / p90 |")
    print("|---|---|---:|---:|---:|---:|")
    for d in devices:
        _, fa, fb = fit([r for r in fit_set if r["device"] != d])
        sets = defaultdict(list)
        for r in rows:
            if r["device"] == d:
                sets[r["set"]].append(r)
        for s, v in sorted(sets.items()):
            t, lo = errors(v, TODAY_NS, 0.0), errors(v, fa, fb)
            print("| %s | `%s` | %d | %.1f / %.1f %% | %.0f ns, %.0f ns*GHz | %.1f / %.1f %% |"
                  % (d, s, len(v), 100 * t[0], 100 * t[1], fa, fb, 100 * lo[0], 100 * lo[1]))


if __name__ == "__main__":
    main(sys.argv[1])
