#!/usr/bin/env bash
# Runs the ncu_report conformance check (issue #24 item 7): NVIDIA's own reader of .ncu-rep files
# (PyPI `ncu-report`) as the oracle for warpsight's ncu-rep reader. See README.md here.
# Usage: bash core/ingest/oracle/run.sh [--warpsight target/debug/warpsight] [other options of
# ncu_report_conformance.py], or run.sh --selftest [--warpsight ...] (selftest.py). The venv lives
# in target/oracle-venv (ignored by git) and is reused while requirements.txt is unchanged.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=core/ingest/oracle
venv=target/oracle-venv

is_set() { case "${1:-}" in "" | 0 | false | no) return 1 ;; *) return 0 ;; esac; }

# PyPI unreachable: one line; a failure in CI, a warning elsewhere.
no_pypi() {
    if is_set "${CI:-}"; then
        echo "oracle: error: $1; the ncu_report conformance check cannot run (CI is set)" >&2
        exit 1
    fi
    echo "oracle: warning: $1; the ncu_report conformance check is skipped" >&2
    exit 0
}

if ! cmp -s "$here/requirements.txt" "$venv/requirements.installed" 2>/dev/null; then
    index="${PIP_INDEX_URL:-https://pypi.org/simple}"
    if ! python3 - "${index%/}/ncu-report/" <<'PY' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=20).read(1)
PY
    then
        no_pypi "PyPI (${index}) is unreachable, so ncu-report and pyarrow cannot be installed"
    fi
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        echo "oracle: error: \`python3 -m venv $venv\` failed (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
    log="$venv/pip-install.log"
    if ! "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >"$log" 2>&1; then
        echo "oracle: error: pip install -r $here/requirements.txt failed (log: $log):" >&2
        tail -5 "$log" >&2
        exit 1
    fi
    cp "$here/requirements.txt" "$venv/requirements.installed"
fi

if [ "${1:-}" = --selftest ]; then
    # Checks that the oracle catches alterations of warpsight's table (see selftest.py).
    shift
    exec "$venv/bin/python" "$here/selftest.py" "$@"
fi

args=()
# Outside CI a checkout without ../shared beside it checks traces/ only (in CI that is a failure).
if ! is_set "${CI:-}" && ! is_set "${WARPSIGHT_REQUIRE_SHARED:-}"; then
    args+=(--allow-missing-shared)
fi
exec "$venv/bin/python" "$here/ncu_report_conformance.py" "${args[@]}" "$@"
