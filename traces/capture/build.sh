#!/usr/bin/env bash
# Builds the capture suite: every `*.cu` case beside this script becomes `build/bin/<case>`,
# compiled with nvcc for the GPU at hand (-arch=native when nvcc supports it and a GPU answers,
# else sm_XY from `nvidia-smi --query-gpu=compute_cap`), with -lineinfo so Nsight Compute can map
# metrics to source lines (`cublas_gemm`, the one case that calls a library, is also linked with
# -lcublas). After building `regs_64_65` it checks that its two kernels really got 64 and 65
# registers per thread and fails loudly when they did not.
#
# Usage: build.sh [--dry-run] [--case NAME]... [--arch sm_XY] [--help]
#   --dry-run     print the commands without running them
#   --case NAME   build only this case (repeatable); default: every case
#   --arch ARCH   compile for ARCH (e.g. sm_90) instead of detecting the GPU
# Environment: NVCC (default nvcc), CUDA_ARCH (same as --arch), NVCC_FLAGS (extra flags),
#   BUILD_DIR (default: build/ beside this script).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${BUILD_DIR:-$script_dir/build}"
nvcc_bin="${NVCC:-nvcc}"
arch="${CUDA_ARCH:-}"
dry_run=0
selected=()

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() {
    printf 'error: %s\n' "$1" >&2
    if [[ $# -ge 2 ]]; then
        printf 'hint: %s\n' "$2" >&2
    fi
    exit 1
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) dry_run=1 ;;
        --case)
            [[ $# -ge 2 ]] || die "--case needs a case name"
            selected+=("$2")
            shift
            ;;
        --arch)
            [[ $# -ge 2 ]] || die "--arch needs a value such as sm_90"
            arch="$2"
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown argument \`$1\`" "run \`$0 --help\` for the options" ;;
    esac
    shift
done

# Prints a command (shell-quoted) and runs it unless this is a dry run.
run() {
    printf '+'
    printf ' %q' "$@"
    printf '\n'
    if [[ $dry_run -eq 0 ]]; then
        "$@"
    fi
}

# Every case, from the file names: one `.cu` per case.
all_cases() {
    local file
    for file in "$script_dir"/*.cu; do
        basename "$file" .cu
    done
}

# Picks the -arch value: explicit, else native when it works, else nvidia-smi's compute capability.
detect_arch() {
    if [[ -n "$arch" ]]; then
        printf '%s\n' "$arch"
        return
    fi
    local probe_dir
    probe_dir="$(mktemp -d)"
    printf '__global__ void probe() {}\nint main() { return 0; }\n' >"$probe_dir/probe.cu"
    # nvcc without a visible GPU only warns ("Cannot find valid GPU") and falls back to its default
    # architecture, so the probe also fails on that warning.
    if "$nvcc_bin" -arch=native -o "$probe_dir/probe" "$probe_dir/probe.cu" >"$probe_dir/log" 2>&1 &&
        ! grep -qi 'cannot find valid gpu' "$probe_dir/log"; then
        rm -rf "$probe_dir"
        printf 'native\n'
        return
    fi
    rm -rf "$probe_dir"
    if command -v nvidia-smi >/dev/null 2>&1; then
        local cap
        cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')"
        if [[ "$cap" =~ ^[0-9]+$ ]]; then
            printf 'sm_%s\n' "$cap"
            return
        fi
    fi
    return 1
}

# Registers per thread of `kernel` in `binary`: from cuobjdump when it is installed, else from the
# ptxas -v log written during the build.
registers_of() {
    local binary="$1" log="$2" kernel="$3" count=""
    if command -v cuobjdump >/dev/null 2>&1; then
        count="$(cuobjdump --dump-resource-usage "$binary" 2>/dev/null |
            awk -v k="$kernel" '$0 ~ "Function .*" k { found = 1; next }
                found && match($0, /REG:[0-9]+/) { print substr($0, RSTART + 4, RLENGTH - 4); exit }')"
    fi
    if [[ -z "$count" ]]; then
        count="$(awk -v k="$kernel" '/Compiling entry function/ { found = ($0 ~ k) }
            found && match($0, /Used [0-9]+ registers/) { split(substr($0, RSTART, RLENGTH), w, " "); print w[2]; exit }' "$log")"
    fi
    printf '%s\n' "$count"
}

# Fails unless regs64_kernel has 64 and regs65_kernel 65 registers per thread.
check_register_counts() {
    local binary="$1" log="$2" kernel expected actual failed=0
    for kernel in regs64_kernel:64 regs65_kernel:65; do
        expected="${kernel#*:}"
        kernel="${kernel%%:*}"
        actual="$(registers_of "$binary" "$log" "$kernel")"
        if [[ "$actual" != "$expected" ]]; then
            printf 'error: %s has %s registers per thread, expected %s\n' "$kernel" "${actual:-no count found}" "$expected" >&2
            failed=1
        else
            printf 'register check: %s uses %s registers per thread (ok)\n' "$kernel" "$actual"
        fi
    done
    if [[ $failed -ne 0 ]]; then
        printf 'hint: the ptxas log is %s; raise or lower the live values with NVCC_FLAGS=-DREG_PRESSURE_VALUES=N (default 58) until ptxas allocates 64 and 65\n' "$log" >&2
        exit 1
    fi
}

cases=()
if [[ ${#selected[@]} -gt 0 ]]; then
    for name in "${selected[@]}"; do
        [[ -f "$script_dir/$name.cu" ]] || die "no case \`$name\` (no $script_dir/$name.cu)" "cases: $(all_cases | tr '\n' ' ')"
        cases+=("$name")
    done
else
    mapfile -t cases < <(all_cases)
fi

if ! command -v "$nvcc_bin" >/dev/null 2>&1; then
    if [[ $dry_run -eq 1 ]]; then
        printf 'note: %s is not installed here; printing the commands anyway\n' "$nvcc_bin" >&2
    else
        die "\`$nvcc_bin\` (the CUDA compiler) was not found" \
            "install the CUDA toolkit and put its bin/ on PATH, or set NVCC=/path/to/nvcc"
    fi
fi

if ! arch_value="$(detect_arch)"; then
    if [[ $dry_run -eq 1 ]]; then
        arch_value="native"
        printf 'note: no GPU detected; the dry run shows -arch=native\n' >&2
    else
        die "cannot tell which GPU to compile for: -arch=native failed and nvidia-smi gave no compute capability" \
            "pass --arch sm_XY (e.g. --arch sm_90) or set CUDA_ARCH"
    fi
fi

read -r -a extra_flags <<<"${NVCC_FLAGS:-}"
run mkdir -p "$build_dir/bin"
for name in "${cases[@]}"; do
    flags=(-std=c++17 -O3 -lineinfo "-arch=$arch_value" -Xptxas -v)
    libs=()
    if [[ "$name" == regs_64_65 ]]; then
        # Caps kernels without launch bounds at 65 registers on toolkits without __maxnreg__.
        flags+=(-maxrregcount=65)
    fi
    if [[ "$name" == cublas_gemm ]]; then
        # The only case that calls a library (cuBLAS, part of the CUDA toolkit).
        libs+=(-lcublas)
    fi
    log="$build_dir/bin/$name.ptxas.log"
    printf '+'
    printf ' %q' "$nvcc_bin" "${flags[@]}" "${extra_flags[@]}" -o "$build_dir/bin/$name" "$script_dir/$name.cu" "${libs[@]}"
    printf ' 2> %q\n' "$log"
    if [[ $dry_run -eq 0 ]]; then
        if ! "$nvcc_bin" "${flags[@]}" "${extra_flags[@]}" -o "$build_dir/bin/$name" "$script_dir/$name.cu" "${libs[@]}" 2>"$log"; then
            grep -v 'ptxas info' "$log" >&2 || true
            die "compiling $name.cu failed (full log: $log)"
        fi
    fi
    if [[ "$name" == regs_64_65 ]]; then
        if [[ $dry_run -eq 0 ]]; then
            check_register_counts "$build_dir/bin/$name" "$log"
        else
            printf '+ check that regs64_kernel/regs65_kernel use 64/65 registers (cuobjdump --dump-resource-usage, else %q)\n' "$log"
        fi
    fi
done
printf 'built %d case(s) for -arch=%s into %s\n' "${#cases[@]}" "$arch_value" "$build_dir/bin"
