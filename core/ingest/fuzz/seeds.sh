#!/bin/sh
# Makes the seed folders of the ingest fuzz targets: one folder per target under $1 (default
# /tmp/ingest-fuzz/seeds), with small real exports from ../shared/traces, traces/ and the nsys test fixtures (the first 40 lines of each CSV, which keep its header and
# several launches; the first 4 of a raw page: header, units and two launches), a copy of the nsys
# SQLite export shrunk to the tables the reader reads and 20 rows each (python3's sqlite3), and a
# warpsight Parquet and Arrow IPC launch table written by `warpsight ingest -o` ($WARPSIGHT,
# default target/debug/warpsight).
#
# Run from the repository root: sh core/ingest/fuzz/seeds.sh [folder]
set -eu
out=${1:-/tmp/ingest-fuzz/seeds}
shared=../shared
warpsight=${WARPSIGHT:-target/debug/warpsight}
for target in ncu_details ncu_raw ncu_rep nsys_gpu_trace nsys_kern_sum nsys_sqlite parquet_ipc; do
    mkdir -p "$out/$target"
done

# CSV exports: the head of each file, named after it.
# A seed above 64 KiB (the raw pages of the kit captures have thousands of columns) is dropped:
# libFuzzer mutates small inputs much faster.
head_of() { # folder, file, lines
    seed="$out/$1/$(basename "$2")"
    head -n "${3:-40}" "$2" > "$seed"
    [ "$(wc -c < "$seed")" -le 65536 ] || rm "$seed"
}
for f in "$shared"/traces/*details*.csv traces/*/*.ncu-details.csv; do
    [ -f "$f" ] && head_of ncu_details "$f"
done
for f in "$shared"/traces/*raw*.csv traces/*/*.ncu-raw.csv; do
    [ -f "$f" ] && head_of ncu_raw "$f" 4
done
for f in "$shared"/traces/*cuda_gpu_trace*.csv core/ingest/tests/fixtures/nsys/gpu_trace*.csv; do
    [ -f "$f" ] && head_of nsys_gpu_trace "$f"
done
for f in "$shared"/traces/*kern_sum*.csv core/ingest/tests/fixtures/nsys/kern_sum*.csv; do
    [ -f "$f" ] && head_of nsys_kern_sum "$f"
done
cp traces/ncu-rep/copy_basic.ncu-rep "$out/ncu_rep/"

# The SQLite export with only the tables the reader reads (and the export's metadata), 20 rows each.
sqlite_seed="$out/nsys_sqlite/report1_small.sqlite"
cp "$shared"/traces/cuda-perf-sandbox__report1.sqlite "$sqlite_seed"
chmod u+w "$sqlite_seed"
python3 - "$sqlite_seed" <<'PY'
import sqlite3, sys
keep = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
        "StringIds", "TARGET_INFO_GPU", "PROCESSES", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND",
        "META_DATA_EXPORT", "EXPORT_META_DATA"}
db = sqlite3.connect(sys.argv[1])
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
for table in tables:
    if table not in keep:
        db.execute(f'DROP TABLE "{table}"')
    elif table.startswith("CUPTI_ACTIVITY_KIND_"):
        db.execute(f'DELETE FROM "{table}" WHERE rowid NOT IN (SELECT rowid FROM "{table}" ORDER BY rowid LIMIT 20)')
db.commit()
db.execute("VACUUM")
db.close()
PY

# warpsight's own launch table, as Parquet and as Arrow IPC.
if [ -x "$warpsight" ]; then
    # An nsys trace (about 40 columns); an ncu page gives hundreds of columns and a large file.
    "$warpsight" ingest -o "$out/parquet_ipc/launches.parquet" "$shared"/traces/tornadovm__chains_after_cuda_gpu_trace.csv
    "$warpsight" ingest -o "$out/parquet_ipc/launches.arrow" "$shared"/traces/tornadovm__chains_after_cuda_gpu_trace.csv
else
    echo "no $warpsight: build it (cargo build --workspace) for the Parquet/IPC seeds" >&2
fi
du -b "$out"/*/*
