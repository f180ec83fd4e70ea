#!/bin/sh
# Runs the ingest fuzz campaign of docs/reliability.md: each target named on the command line is
# run until it has executed $RUNS inputs (default 1 000 000), one process on one core, and a line
# of figures per target is appended to $OUT/summary.tsv.
#
# A target that crashes (a panic outside polars, an abort, a signal), times out (-timeout) or goes
# above the memory limit (-rss_limit_mb, 1 GiB) stops; its input is kept under
# $OUT/artifacts/<target>/ and the run is started again for the executions still owed, so every
# target reaches $RUNS and every crash is counted. The corpus of each target lives in
# $OUT/corpus/<target>, seeded from $SEEDS/<target> (made by seeds.sh).
#
# The campaign resumes: $OUT/<target>.progress keeps the executions, seconds, crashes, timeouts,
# out-of-memory stops and peak RSS so far, updated after every attempt, so a campaign cut off (the
# session ended, the machine was needed) goes on from its corpus and counts where it stopped.
# A target already at $RUNS is skipped. Do not pause a running target (SIGSTOP): libFuzzer's
# -timeout counts wall time, and a pause longer than it is reported as a timeout.
#
# Usage, from the repository root, after `cargo +nightly fuzz build -s none` in core/ingest:
#   sh core/ingest/fuzz/seeds.sh /tmp/ingest-fuzz/seeds
#   BIN=<target dir>/x86_64-unknown-linux-gnu/release OUT=/tmp/ingest-fuzz/campaign \
#     sh core/ingest/fuzz/campaign.sh parquet_ipc nsys_gpu_trace ...
set -u
BIN=${BIN:-core/ingest/fuzz/target/x86_64-unknown-linux-gnu/release}
OUT=${OUT:-/tmp/ingest-fuzz/campaign}
SEEDS=${SEEDS:-/tmp/ingest-fuzz/seeds}
RUNS=${RUNS:-1000000}
mkdir -p "$OUT"
[ -f "$OUT/summary.tsv" ] || printf 'target\texecutions\tseconds\tedges\tfeatures\tcorpus\tcrashes\ttimeouts\tooms\tpeak_rss_mb\n' > "$OUT/summary.tsv"

# The longest input libFuzzer makes: the SQLite seed is 104 KiB, the .ncu-rep one 160 KiB.
max_len_of() {
    case "$1" in
        nsys_sqlite) echo 131072 ;;
        ncu_rep) echo 262144 ;;
        *) echo 65536 ;;
    esac
}

for target in "$@"; do
    corpus="$OUT/corpus/$target"
    artifacts="$OUT/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    cp -n "$SEEDS/$target"/* "$corpus/" 2>/dev/null
    progress="$OUT/$target.progress"
    done_runs=0 spent=0 crashes=0 timeouts=0 ooms=0 peak=0 attempt=0
    last_log="$OUT/$target.$attempt.log"
    # shellcheck disable=SC1090
    [ -f "$progress" ] && . "$progress"
    [ "$done_runs" -ge "$RUNS" ] && continue
    started=$(($(date +%s) - spent))
    tries=0
    while [ "$done_runs" -lt "$RUNS" ] && [ "$tries" -lt 50 ]; do
        tries=$((tries + 1))
        attempt=$((attempt + 1))
        log="$OUT/$target.$attempt.log"
        # Logs of attempts cut off before they were recorded (the campaign was stopped): their
        # last status line counts the executions they made.
        while [ -e "$log" ]; do
            cut_off=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
            done_runs=$((done_runs + ${cut_off:-0}))
            last_log=$log
            attempt=$((attempt + 1))
            log="$OUT/$target.$attempt.log"
        done
        [ "$done_runs" -ge "$RUNS" ] && break
        # One polars thread: the campaign runs one process per core.
        POLARS_MAX_THREADS=1 "$BIN/$target" "$corpus" -runs=$((RUNS - done_runs)) \
            -max_len="$(max_len_of "$target")" -rss_limit_mb=1024 -timeout=10 \
            -artifact_prefix="$artifacts/" -print_final_stats=1 > "$log" 2>&1
        status=$?
        last_log=$log
        ran=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        if [ -z "$ran" ]; then
            # A crash leaves no final stats: the last status line has the count so far.
            ran=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
        fi
        done_runs=$((done_runs + ${ran:-0}))
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
        [ -z "$rss" ] && rss=$(grep -o 'rss: [0-9]*Mb' "$log" | tail -n 1 | tr -dc 0-9)
        [ "${rss:-0}" -gt "$peak" ] && peak=${rss:-0}
        if [ "$status" -ne 0 ]; then
            if grep -q 'ERROR: libFuzzer: timeout' "$log"; then timeouts=$((timeouts + 1))
            elif grep -q -e 'out-of-memory' -e 'malloc limit' "$log"; then ooms=$((ooms + 1))
            else crashes=$((crashes + 1)); fi
            echo "$target: attempt $attempt stopped (exit $status), see $log" >&2
        fi
        printf 'done_runs=%s\nspent=%s\ncrashes=%s\ntimeouts=%s\nooms=%s\npeak=%s\nattempt=%s\n' \
            "$done_runs" "$(($(date +%s) - started))" "$crashes" "$timeouts" "$ooms" "$peak" "$attempt" > "$progress"
    done
    seconds=$(($(date +%s) - started))
    stats=$(grep -E '^#[0-9]+' "$last_log" | tail -n 1)
    edges=$(echo "$stats" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    features=$(echo "$stats" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corpus_size=$(ls "$corpus" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$done_runs" "$seconds" "${edges:-?}" \
        "${features:-?}" "$corpus_size" "$crashes" "$timeouts" "$ooms" "$peak" >> "$OUT/summary.tsv"
done
