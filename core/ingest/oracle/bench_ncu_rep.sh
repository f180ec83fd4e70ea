#!/usr/bin/env bash
# Issue #24 item 8: speed and peak memory of warpsight's .ncu-rep reader beside NVIDIA's
# ncu_report building the same table (ncu_report_to_parquet.py), on the largest .ncu-rep files of
# traces/ and ../shared/traces.
# Usage: bash core/ingest/oracle/bench_ncu_rep.sh [WARPSIGHT [RUNS [COUNT]]]
#   WARPSIGHT: a release build (default target/release/warpsight; cargo build --release -p warpsight)
#   RUNS: timed runs per command, the median is printed (default 3); COUNT: reports (default 3).
# Wall time is measured around the command (date +%s%N); peak memory is /usr/bin/time -v's
# "Maximum resident set size". One untimed run of each command first warms the page cache.
# Needs the venv of run.sh (target/oracle-venv).
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=core/ingest/oracle
ws=${1:-target/release/warpsight}
runs=${2:-3}
count=${3:-3}
py=target/oracle-venv/bin/python
[ -x "$ws" ] || { echo "bench: no warpsight binary at $ws (cargo build --release -p warpsight)" >&2; exit 2; }
[ -x "$py" ] || { echo "bench: no venv at target/oracle-venv (run core/ingest/oracle/run.sh first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (Debian package time)" >&2; exit 2; }

dirs=(traces)
[ -d ../shared/traces ] && dirs+=(../shared/traces)
mapfile -t reports < <(find "${dirs[@]}" -name '*.ncu-rep' -type f -printf '%s %p\n' | sort -rn | head -n "$count" | cut -d' ' -f2-)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk -v f="$1" '{ v[NR] = $1 } END { printf f "\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure CMD...: prints "wall_s rss_mib" medians over $runs runs.
measure() {
    "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; "$@" >&2 || true; exit 1; }
    : >"$tmp/walls"
    : >"$tmp/rss"
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>&1
        t1=$(date +%s%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' >>"$tmp/walls"
        awk -F': ' '/Maximum resident set size/ { printf "%.1f\n", $2 / 1024 }' "$tmp/time" >>"$tmp/rss"
    done
    echo "$(median %.3f <"$tmp/walls") $(median %.1f <"$tmp/rss")"
}

echo "warpsight: $ws ($("$ws" --version 2>/dev/null || echo '?')); ncu_report: $("$py" -c 'from importlib.metadata import version as v; print(v("ncu-report"), "+ pyarrow", v("pyarrow"))')"
echo "median of $runs runs; $(nproc) cores"
printf '%-58s %8s %6s  %-28s %9s %12s\n' report MB launches command "wall (s)" "max RSS (MiB)"
for r in "${reports[@]}"; do
    mb=$(awk -v b="$(stat -c %s "$r")" 'BEGIN { printf "%.1f", b / 1e6 }')
    launches=$("$py" -c 'import sys, ncu_report as n; c = n.load_report(sys.argv[1]); print(sum(c.range_by_idx(i).num_actions() for i in range(c.num_ranges())))' "$r")
    for kind in parquet arrow; do
        read -r wall rss < <(measure "$ws" ingest "$r" -o "$tmp/x.$kind")
        printf '%-58s %8s %6s  %-28s %9s %12s\n' "$r" "$mb" "$launches" "warpsight ingest -o x.$kind" "$wall" "$rss"
    done
    read -r wall rss < <(measure "$py" "$here/ncu_report_to_parquet.py" "$r" "$tmp/y.parquet")
    printf '%-58s %8s %6s  %-28s %9s %12s\n' "$r" "$mb" "$launches" "ncu_report + pyarrow parquet" "$wall" "$rss"
done
