#!/usr/bin/env bash
# Captures the warpsight test exports on the GPU at hand: builds the suite (build.sh), profiles
# every case with Nsight Compute (`--set full` plus the model's metrics, exported once to a
# .ncu-rep and then printed as the CSV details and raw pages of the same launches), profiles one
# run of all the cases with Nsight Systems when nsys is installed, and writes everything to
# traces/<gpu-slug>/ with a generated README.md (GPU, driver, tool versions, the exact commands,
# the date). The .ncu-rep/.nsys-rep reports stay in build/<gpu-slug>/ (not committed).
#
# Usage: capture.sh [options]
#   --dry-run             print every command without running anything
#   --case NAME           capture only this case (repeatable); default: every case
#   --list                list the cases with their arguments and kernel filters, then exit
#   --slug SLUG           name of the output folder (default: from nvidia-smi's GPU name)
#   --out DIR             parent of the output folder (default: traces/ of this repository)
#   --clock-control MODE  ncu --clock-control: none (default: the GPU runs at its own clocks,
#                         as in production) or base (ncu locks the base clock)
#   --no-nsys             skip Nsight Systems even when nsys is installed
#   --skip-build          use the binaries already in build/bin
#   --run-only            run the selected cases without any profiler (what nsys profiles)
#   -h, --help            this text
# Environment: NCU, NSYS, NVIDIA_SMI (tool paths); NVCC, CUDA_ARCH, NVCC_FLAGS (see build.sh).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
traces_dir="$(cd "$script_dir/.." && pwd)"
build_dir="${BUILD_DIR:-$script_dir/build}"
bin_dir="$build_dir/bin"
ncu_bin="${NCU:-ncu}"
nsys_bin="${NSYS:-nsys}"
smi_bin="${NVIDIA_SMI:-nvidia-smi}"

# The marker the tests (core/cli/tests/captured_traces.rs, core/ingest/tests/kit_pages.rs) look for in a capture folder's README.md.
readonly kit_marker='<!-- warpsight-capture-kit v1 -->'

# Metrics added to `--set full` with `--metrics`. ncu prints each of them on both CSV pages: as a
# raw-page column and as a details-page row of the section "Command line profiler metrics", both
# under the native name, so the details page alone carries every model input (docs/model-v2/SPEC.md
# section 1; core/ingest/tests/kit_pages.rs checks that both pages agree). One name per line.
readonly kit_metric_names=(
    # Roofline: FP32 / FP64 / FP16 thread instructions, tensor pipe, memory traffic, time.
    sm__sass_thread_inst_executed_op_fadd_pred_on.sum
    sm__sass_thread_inst_executed_op_fmul_pred_on.sum
    sm__sass_thread_inst_executed_op_ffma_pred_on.sum
    sm__sass_thread_inst_executed_op_dadd_pred_on.sum
    sm__sass_thread_inst_executed_op_dmul_pred_on.sum
    sm__sass_thread_inst_executed_op_dfma_pred_on.sum
    sm__sass_thread_inst_executed_op_hadd_pred_on.sum
    sm__sass_thread_inst_executed_op_hmul_pred_on.sum
    sm__sass_thread_inst_executed_op_hfma_pred_on.sum
    sm__inst_executed_pipe_tensor.sum
    dram__bytes_read.sum
    dram__bytes_write.sum
    lts__t_bytes.sum
    l1tex__t_bytes.sum
    sm__cycles_elapsed.avg
    sm__cycles_elapsed.avg.per_second
    gpu__time_duration.sum
    # Time model v2 (SPEC.md section 1.1, "cmd"): instructions, warps, per-pipe instructions.
    smsp__inst_executed.sum
    smsp__inst_issued.sum
    sm__warps_launched.sum
    sm__inst_executed_pipe_adu.sum
    sm__inst_executed_pipe_alu.sum
    sm__inst_executed_pipe_cbu.sum
    sm__inst_executed_pipe_fma.sum
    sm__inst_executed_pipe_fma_type_fp16.sum
    sm__inst_executed_pipe_fp64.sum
    sm__inst_executed_pipe_ipa.sum
    sm__inst_executed_pipe_lsu.sum
    sm__inst_executed_pipe_tensor_op_dmma.sum
    sm__inst_executed_pipe_tensor_op_gmma.sum
    sm__inst_executed_pipe_tensor_op_hmma.sum
    sm__inst_executed_pipe_tensor_op_imma.sum
    sm__inst_executed_pipe_tex.sum
    sm__inst_executed_pipe_tma.sum
    sm__inst_executed_pipe_uniform.sum
    sm__inst_executed_pipe_xu.sum
    # Time model v2 (SPEC.md section 1.2): the full-set counters, so that the details page has them.
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_st.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_atom.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_red.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_local_op_ld.sum
    l1tex__t_output_wavefronts_pipe_lsu_mem_local_op_st.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
    l1tex__t_sector_hit_rate.pct
    smsp__sass_inst_executed_op_global_ld.sum
    smsp__sass_inst_executed_op_local_ld.sum
    smsp__sass_inst_executed_op_shared_ld.sum
    smsp__sass_inst_executed_op_shared_st.sum
    smsp__inst_executed_op_branch.sum
    smsp__inst_executed_op_ldgsts.sum
    lts__t_requests.sum
    lts__t_sectors_srcunit_tex.sum
    sm__ops_path_tensor_src_fp16.sum
    sm__ops_path_tensor_src_bf16_dst_fp32.sum
    sm__ops_path_tensor_src_tf32_dst_fp32.sum
    sm__ops_path_tensor_src_fp8_sparsity_off.sum
    sm__ops_path_tensor_src_int8.sum
    sm__ops_path_tensor_src_fp64.sum
)
# The same list as ncu's comma-separated `--metrics` argument.
kit_metrics="$(IFS=,; printf '%s' "${kit_metric_names[*]}")"
readonly kit_metrics

# How the raw page is printed: base units, and every instanced metric as its aggregate followed by
# its per-instance values (`186,449,920 (67,108,864; ...)`; warpsight reads the aggregate).
readonly raw_page_options=(--csv --print-units base --print-metric-instances values --page raw)

# The cases, `;`-separated: name; program arguments; ncu kernel filter; launches the program makes (the
# --launch-count cap, which also keeps the exports small: about 60 KB per launch for both pages).
readonly case_table=(
    "copy_saxpy;1048576 16777216 67108864;regex:(copy|saxpy)_kernel;6"
    "transpose;2048 4096;regex:transpose_(naive|tiled);6"
    "outer_product;4096 8192;regex:outer_product_ilp;4"
    "sgemm;1024 2048;regex:sgemm_(naive|tiled);4"
    "reduction;16777216 67108864;regex:reduce_sum;4"
    "regs_64_65;2097152;regex:regs6[45]_kernel;2"
    "smem_limited;24576 40960 65536 102400;regex:smem_reverse_kernel;4"
    "block_sweep;32 33 64 96 128 192 256 512 768 1024;regex:scale_add_kernel;10"
    "precision;4194304;regex:fma_chain_fp;3"
    "tensor_gemm;1024 1024 4096 4096 8192 64;regex:wmma_gemm_(naive|tiled);6"
    "tensor_peak;270336;regex:(wmma|mma)_chain_;9"
    "strided_store;4194304 16777216 67108864;regex:strided_store_kernel;3"
    "cublas_gemm;4096 4096 4096 8192 8192 8192 8192 8192 128;regex:(nvjet|xmma|gemm|cutlass);9"
)

dry_run=0
list_only=0
run_only=0
use_nsys=1
skip_build=0
clock_control="none"
slug=""
out_parent="$traces_dir"
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

note() {
    printf '%s\n' "$*" >&2
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) dry_run=1 ;;
        --list) list_only=1 ;;
        --run-only) run_only=1 ;;
        --no-nsys) use_nsys=0 ;;
        --skip-build) skip_build=1 ;;
        --case)
            [[ $# -ge 2 ]] || die "--case needs a case name"
            selected+=("$2")
            shift
            ;;
        --slug)
            [[ $# -ge 2 ]] || die "--slug needs a folder name"
            slug="$2"
            shift
            ;;
        --out)
            [[ $# -ge 2 ]] || die "--out needs a directory"
            out_parent="$2"
            shift
            ;;
        --clock-control)
            [[ $# -ge 2 ]] || die "--clock-control needs none or base"
            clock_control="$2"
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

[[ "$clock_control" == none || "$clock_control" == base ]] ||
    die "--clock-control must be none or base, not \`$clock_control\`"

# Field `index` (0-based) of the case table row for `name`.
case_field() {
    local name="$1" index="$2" row fields
    for row in "${case_table[@]}"; do
        IFS=';' read -r -a fields <<<"$row"
        if [[ "${fields[0]}" == "$name" ]]; then
            printf '%s\n' "${fields[$index]}"
            return 0
        fi
    done
    return 1
}

all_cases() {
    local row
    for row in "${case_table[@]}"; do
        printf '%s\n' "${row%%;*}"
    done
}

cases=()
if [[ ${#selected[@]} -gt 0 ]]; then
    for name in "${selected[@]}"; do
        case_field "$name" 0 >/dev/null ||
            die "no case \`$name\`" "cases: $(all_cases | tr '\n' ' ')"
        cases+=("$name")
    done
else
    mapfile -t cases < <(all_cases)
fi

if [[ $list_only -eq 1 ]]; then
    printf '%-14s %-44s %-30s %s\n' case arguments "ncu --kernel-name" launches
    for name in "${cases[@]}"; do
        printf '%-14s %-44s %-30s %s\n' "$name" "$(case_field "$name" 1)" "$(case_field "$name" 2)" "$(case_field "$name" 3)"
    done
    exit 0
fi

# Prints a command (shell-quoted) and runs it unless this is a dry run.
run() {
    printf '+'
    printf ' %q' "$@"
    printf '\n'
    if [[ $dry_run -eq 0 ]]; then
        "$@" || die "\`$*\` failed (exit status $?)"
    fi
}

# Like `run`, with stdout sent to the file given first.
run_to() {
    local target="$1"
    shift
    printf '+'
    printf ' %q' "$@"
    printf ' > %q\n' "$target"
    if [[ $dry_run -eq 0 ]]; then
        "$@" >"$target" || die "\`$*\` failed (exit status $?)"
    fi
}

if [[ $run_only -eq 1 ]]; then
    for name in "${cases[@]}"; do
        [[ -x "$bin_dir/$name" || $dry_run -eq 1 ]] ||
            die "$bin_dir/$name is missing" "build first: $script_dir/build.sh"
        read -r -a program_args <<<"$(case_field "$name" 1)"
        run "$bin_dir/$name" "${program_args[@]}"
    done
    exit 0
fi

# The output folder name: lower-case GPU name without the vendor, e.g. `h100-80gb-hbm3`.
gpu_slug() {
    local name="$1"
    name="$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')"
    name="${name#nvidia }"
    printf '%s' "$name" | tr -c 'a-z0-9' '-' | tr -s '-' | sed -e 's/^-//' -e 's/-$//'
}

# One nvidia-smi query field of GPU 0 (the device the programs use).
smi_query() {
    "$smi_bin" --id=0 --query-gpu="$1" --format=csv,noheader 2>/dev/null | head -n 1
}

gpu_name="unknown GPU"
if command -v "$smi_bin" >/dev/null 2>&1 && smi_query name >/dev/null; then
    gpu_name="$(smi_query name)"
elif [[ $dry_run -eq 0 ]]; then
    die "\`$smi_bin\` was not found or saw no GPU" \
        "run this on a machine with an NVIDIA GPU and driver (or set NVIDIA_SMI=/path/to/nvidia-smi)"
fi
if [[ -z "$slug" ]]; then
    if [[ "$gpu_name" == "unknown GPU" ]]; then
        slug="unknown-gpu"
        note "note: no GPU seen; the dry run writes to the placeholder folder $slug"
    else
        slug="$(gpu_slug "$gpu_name")"
    fi
fi
[[ "$slug" =~ ^[a-z0-9][a-z0-9._-]*$ ]] || die "folder name \`$slug\` must be lower-case letters, digits, '.', '_' or '-'"
[[ "$slug" != capture && "$slug" != synthetic ]] ||
    die "\`$slug\` is reserved in traces/ (the kit itself / the synthetic sample)" "pass --slug with another name"
out_dir="$out_parent/$slug"
rep_dir="$build_dir/$slug"

if ! command -v "$ncu_bin" >/dev/null 2>&1; then
    if [[ $dry_run -eq 1 ]]; then
        note "note: $ncu_bin (Nsight Compute) is not installed here; printing the commands anyway"
    else
        die "\`$ncu_bin\` (Nsight Compute) was not found" \
            "install Nsight Compute (it ships with the CUDA toolkit under nsight-compute-*/) and put it on PATH, or set NCU=/path/to/ncu"
    fi
fi
if [[ $use_nsys -eq 1 ]] && ! command -v "$nsys_bin" >/dev/null 2>&1; then
    if [[ $dry_run -eq 1 ]]; then
        note "note: $nsys_bin (Nsight Systems) is not installed here; a real run would skip the nsys commands shown"
    else
        note "note: $nsys_bin (Nsight Systems) is not installed; skipping the nsys exports"
        use_nsys=0
    fi
fi

if [[ $skip_build -eq 0 ]]; then
    build_args=()
    [[ $dry_run -eq 1 ]] && build_args+=(--dry-run)
    for name in "${cases[@]}"; do
        build_args+=(--case "$name")
    done
    "$script_dir/build.sh" "${build_args[@]}"
fi

run mkdir -p "$out_dir" "$rep_dir"

# Profiles one case and writes its two CSV pages.
capture_case() {
    local name="$1" filter launches log rep program_args
    filter="$(case_field "$name" 2)"
    launches="$(case_field "$name" 3)"
    read -r -a program_args <<<"$(case_field "$name" 1)"
    rep="$rep_dir/$name"
    log="$rep_dir/$name.ncu.log"
    printf '\n== %s\n' "$name"
    printf '+'
    printf ' %q' "$ncu_bin" --set full --metrics "$kit_metrics" --kernel-name "$filter" \
        --launch-count "$launches" --clock-control "$clock_control" --target-processes all \
        --export "$rep" --force-overwrite "$bin_dir/$name" "${program_args[@]}"
    printf ' > %q 2>&1\n' "$log"
    if [[ $dry_run -eq 0 ]]; then
        if ! "$ncu_bin" --set full --metrics "$kit_metrics" --kernel-name "$filter" \
            --launch-count "$launches" --clock-control "$clock_control" --target-processes all \
            --export "$rep" --force-overwrite "$bin_dir/$name" "${program_args[@]}" >"$log" 2>&1 ||
            grep -q '^==ERROR==' "$log"; then
            tail -n 20 "$log" >&2
            if grep -q 'ERR_NVGPUCTRPERM' "$log"; then
                die "ncu may not read the GPU performance counters for $name" \
                    "run as root, or allow counters for all users (NVreg_RestrictProfilingToAdminUsers=0)"
            fi
            die "profiling $name with ncu failed (full log: $log)"
        fi
        [[ -f "$rep.ncu-rep" ]] || die "ncu wrote no report $rep.ncu-rep (log: $log)"
    fi
    run_to "$out_dir/$name.ncu-details.csv" "$ncu_bin" --import "$rep.ncu-rep" --csv --print-units base --page details
    run_to "$out_dir/$name.ncu-raw.csv" "$ncu_bin" --import "$rep.ncu-rep" "${raw_page_options[@]}"
    if [[ $dry_run -eq 0 ]]; then
        # The raw page has a header row and a units row before one row per launch.
        local rows
        rows=$(($(wc -l <"$out_dir/$name.ncu-raw.csv") - 2))
        if [[ $rows -ne $launches ]]; then
            note "warning: $name: expected $launches launches, the raw page has $rows rows"
        fi
    fi
}

for name in "${cases[@]}"; do
    capture_case "$name"
done

if [[ $use_nsys -eq 1 ]]; then
    printf '\n== nsys (one run of the selected cases)\n'
    nsys_rep="$rep_dir/all"
    run_args=(--run-only --skip-build)
    for name in "${cases[@]}"; do
        run_args+=(--case "$name")
    done
    run "$nsys_bin" profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true \
        --output "$nsys_rep" bash "$script_dir/capture.sh" "${run_args[@]}"
    run "$nsys_bin" stats --report cuda_gpu_trace,cuda_gpu_kern_sum --format csv --force-export=true \
        --output "$nsys_rep" "$nsys_rep.nsys-rep"
    run "$nsys_bin" export --type sqlite --force-overwrite=true --output "$out_dir/all.nsys.sqlite" "$nsys_rep.nsys-rep"
    if [[ $dry_run -eq 0 ]]; then
        for report in cuda_gpu_trace:nsys-gpu-trace cuda_gpu_kern_sum:nsys-kern-sum; do
            found="$(find "$rep_dir" -maxdepth 1 -name "all*${report%%:*}*.csv" | head -n 1)"
            [[ -n "$found" ]] || die "nsys stats wrote no ${report%%:*} CSV in $rep_dir"
            run cp "$found" "$out_dir/all.${report#*:}.csv"
        done
    else
        printf '+ cp %q %q\n' "${nsys_rep}_cuda_gpu_trace.csv" "$out_dir/all.nsys-gpu-trace.csv"
        printf '+ cp %q %q\n' "${nsys_rep}_cuda_gpu_kern_sum.csv" "$out_dir/all.nsys-kern-sum.csv"
    fi
fi

# First line of a tool's version output that mentions a version, or "not installed".
tool_version() {
    local tool="$1"
    if command -v "$tool" >/dev/null 2>&1; then
        "$tool" --version 2>/dev/null | grep -iE 'version|release' | tail -n 1
    else
        printf 'not installed'
    fi
}

# The README of the capture folder; regenerated on every run from the case table and the files
# present, so that captures of single cases at different times still describe every file.
# Backticks inside its printf formats are Markdown code spans, not command substitutions.
# shellcheck disable=SC2016
write_readme() {
    local readme="$out_dir/README.md" name file driver cuda_version
    driver="$(smi_query driver_version || true)"
    cuda_version="$("$smi_bin" 2>/dev/null | grep -oE 'CUDA Version: *[0-9.]+' | head -n 1 || true)"
    {
        printf '%s\n' "$kit_marker"
        printf '# Exports captured on %s\n\n' "$gpu_name"
        printf 'Made by `traces/capture/capture.sh` (the warpsight capture kit); do not edit by hand:\n'
        printf 're-run the kit instead. The tests in `core/cli/tests/captured_traces.rs` and\n'
        printf '`core/ingest/tests/kit_pages.rs` read every folder of `traces/` whose README.md starts\n'
        printf 'with the marker line above.\n\n'
        printf '| what | value |\n|---|---|\n'
        printf '| GPU | %s (compute capability %s) |\n' "$gpu_name" "$(smi_query compute_cap || true)"
        printf '| driver | %s (%s) |\n' "${driver:-unknown}" "${cuda_version:-CUDA version unknown}"
        printf '| nvcc | %s |\n' "$(tool_version "${NVCC:-nvcc}")"
        printf '| ncu | %s |\n' "$(tool_version "$ncu_bin")"
        printf '| nsys | %s |\n' "$(tool_version "$nsys_bin")"
        printf '| ncu clock control | %s |\n' "$clock_control"
        printf '| date (UTC) | %s |\n\n' "$(date -u '+%Y-%m-%d %H:%M')"
        printf '## Files\n\n'
        printf '| file | what |\n|---|---|\n'
        for file in "$out_dir"/*; do
            file="$(basename "$file")"
            case "$file" in
                README.md) ;;
                *.ncu-details.csv) printf '| `%s` | ncu details page (`--page details`), case `%s` |\n' "$file" "${file%.ncu-details.csv}" ;;
                *.ncu-raw.csv) printf '| `%s` | ncu raw page (`--page raw`) of the same launches, case `%s` |\n' "$file" "${file%.ncu-raw.csv}" ;;
                all.nsys-gpu-trace.csv) printf '| `%s` | nsys `cuda_gpu_trace` of one run of the cases |\n' "$file" ;;
                all.nsys-kern-sum.csv) printf '| `%s` | nsys `cuda_gpu_kern_sum` of the same run |\n' "$file" ;;
                all.nsys.sqlite) printf '| `%s` | nsys SQLite export of the same run |\n' "$file" ;;
                *) printf '| `%s` | (not written by the kit) |\n' "$file" ;;
            esac
        done
        printf '\n## Commands\n\n'
        printf 'Built with `traces/capture/build.sh` (nvcc `-std=c++17 -O3 -lineinfo -arch=native`, or\n'
        printf '`-arch=sm_XY` from `nvidia-smi --query-gpu=compute_cap`; `regs_64_65` also with\n'
        printf '`-maxrregcount=65`, `cublas_gemm` also with `-lcublas`). For each case `C` with arguments\n'
        printf '`ARGS`, kernel filter `F` and `N` launches (run from `traces/capture/`):\n\n'
        printf '```sh\n'
        printf 'ncu --set full --metrics %s \\\n' "$kit_metrics"
        printf '    --kernel-name F --launch-count N --clock-control %s --target-processes all \\\n' "$clock_control"
        printf '    --export build/%s/C --force-overwrite build/bin/C ARGS\n' "$slug"
        printf 'ncu --import build/%s/C.ncu-rep --csv --print-units base --page details > C.ncu-details.csv\n' "$slug"
        printf 'ncu --import build/%s/C.ncu-rep %s > C.ncu-raw.csv\n' "$slug" "${raw_page_options[*]}"
        printf '```\n\n'
        printf 'Every `--metrics` name is a column of the raw page and a row of the details page'"'"'s section\n'
        printf '"Command line profiler metrics"; warpsight reads both under the native name.\n\n'
        printf '| case `C` | `ARGS` | `F` | `N` |\n|---|---|---|---|\n'
        for name in $(all_cases); do
            # A `|` inside a Markdown table cell must be escaped.
            printf '| %s | %s | `%s` | %s |\n' "$name" "$(case_field "$name" 1)" "$(case_field "$name" 2 | sed 's/|/\\|/g')" "$(case_field "$name" 3)"
        done
        if [[ -f "$out_dir/all.nsys.sqlite" ]]; then
            printf '\nNsight Systems, one run of the captured cases:\n\n```sh\n'
            printf 'nsys profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true \\\n'
            printf '    --output build/%s/all bash capture.sh --run-only --skip-build --case C ...\n' "$slug"
            printf 'nsys stats --report cuda_gpu_trace,cuda_gpu_kern_sum --format csv --force-export=true \\\n'
            printf '    --output build/%s/all build/%s/all.nsys-rep\n' "$slug" "$slug"
            printf 'nsys export --type sqlite --force-overwrite=true --output all.nsys.sqlite build/%s/all.nsys-rep\n' "$slug"
            printf '```\n'
        fi
    } >"$readme"
}

if [[ $dry_run -eq 0 ]]; then
    write_readme
    printf '\ncaptured %d case(s) into %s\n' "${#cases[@]}" "$out_dir"
    du -sh "$out_dir"
else
    printf '+ write %q (GPU, driver, tool versions, commands, date)\n' "$out_dir/README.md"
fi
