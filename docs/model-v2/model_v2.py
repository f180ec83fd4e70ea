#!/usr/bin/env python3
"""warpsight per-launch time model v2: Python prototype (see MODEL_V2.md for the spec).

    python3 model_v2.py            # tables, accuracy, bottlenecks, LOCO CV, cross-device, checks
    python3 model_v2.py --refit    # also refit the constants on all kit captures and print them
    python3 model_v2.py --quick    # skip the leave-one-case-out refits

Pure standard library, deterministic. Inputs: the kit captures in the repository's traces/
(h100-80gb-hbm3, h200) and the default-set exports in traces/pytorch-layers.
"""
import copy
import glob
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from constants import ARCH, DEVICE, FITTED, PRIOR  # noqa: E402
from ncu_io import load_details, load_raw  # noqa: E402

import os
_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CAPTURES = os.environ.get("WARPSIGHT_CAPTURES", os.path.join(_REPO, "traces"))
KIT = {"h100-80gb-hbm3": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
BASIC = {"NVIDIA H100 80GB HBM3": "pytorch-layers/h100_gpt_layer.ncu-details.csv",
         "NVIDIA H200": "pytorch-layers/h200_gpt_layer.ncu-details.csv"}

PIPES = ("adu", "alu", "cbu", "fma", "fma_type_fp16", "fp64", "ipa", "lsu", "tensor_op_dmma",
         "tensor_op_gmma", "tensor_op_hmma", "tensor_op_imma", "tex", "tma", "uniform", "xu")

# Leakage: no model input may match these (names of raw metrics and of details display names).
LEAK_RE = re.compile(
    r"(gpu__time_duration|cycles_elapsed|cycles_active|per_second|pct_of_peak|per_cycle|throughput"
    r"|achieved|warps_active|issue_active|stall|^Duration$|Frequency|Elapsed Cycles|Active Cycles"
    r"|Throughput|Achieved|Ipc|Busy|Eligible|Issued Warp|Warp Cycles|Bandwidth|pcsamp)", re.I)


# =============================================================================================
# 1. Model inputs
# =============================================================================================
class Recorder(dict):
    """A dict that remembers every key read (used by the leakage test)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.read = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


def _num(rec, *keys):
    for k in keys:
        v = rec.get(k)
        if isinstance(v, float):
            return v
    return None


def _sum(rec, keys):
    vals = [_num(rec, k) for k in keys]
    vals = [v for v in vals if v is not None]
    return sum(vals) if vals else None


def model_inputs(rec, fullset=True):
    """Model input columns of one launch. `rec` is a raw-page or details-page record.

    Details-page records give the Command line profiler metrics by bare metric name, and the
    other sections by (section, display name). `fullset=False` drops the full-set-only counters
    (what the kit's details pages lack).
    """
    x = {"kernel": rec.get("_kernel")}
    grid, block = rec.get("_grid"), rec.get("_block")
    x["blocks"] = float(grid[0] * grid[1] * grid[2]) if grid else _num(rec, "launch__grid_size", ("Launch Statistics", "Grid Size"))
    x["threads_per_block"] = float(block[0] * block[1] * block[2]) if block else _num(rec, "launch__block_size", ("Launch Statistics", "Block Size"))
    x["inst"] = _num(rec, "smsp__inst_executed.sum", ("Instruction Statistics", "Executed Instructions"), "smsp__inst_issued.sum")
    x["warps"] = _num(rec, "sm__warps_launched.sum")
    for p in PIPES:
        x["pipe_" + p] = _num(rec, "sm__inst_executed_pipe_%s.sum" % p)
    x["dram_rd"] = _num(rec, "dram__bytes_read.sum")
    x["dram_wr"] = _num(rec, "dram__bytes_write.sum")
    x["lts_bytes"] = _num(rec, "lts__t_bytes.sum")
    x["l1_bytes"] = _num(rec, "l1tex__t_bytes.sum")
    x["branches"] = _num(rec, "smsp__inst_executed_op_branch.sum", ("Source Counters", "Branch Instructions"))
    x["l1_hit_pct"] = _num(rec, "l1tex__t_sector_hit_rate.pct", ("Memory Workload Analysis", "L1/TEX Hit Rate"))
    lim_names = (("launch__occupancy_limit_blocks", "Block Limit SM", "blocks"),
                 ("launch__occupancy_limit_registers", "Block Limit Registers", "registers"),
                 ("launch__occupancy_limit_shared_mem", "Block Limit Shared Mem", "shared_mem"),
                 ("launch__occupancy_limit_warps", "Block Limit Warps", "warps"),
                 ("launch__occupancy_limit_barriers", "Block Limit Barriers", "barriers"))
    lims = []
    for raw_name, det_name, short in lim_names:
        v = _num(rec, raw_name, ("Occupancy", det_name))
        if v is not None:
            lims.append((v, short))
    x["blocks_per_sm"] = min(v for v, _ in lims) if lims else None
    x["occ_limiter"] = next(n for v, n in lims if v == x["blocks_per_sm"]) if lims else None
    # ---- full-set counters (raw page of `--set full`; not in the kit's --metrics list)
    full = {}
    full["shared_wavefronts"] = _num(rec, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
    full["global_wavefronts"] = _sum(rec, ["l1tex__t_output_wavefronts_pipe_lsu_mem_%s.sum" % m for m in
                                           ("global_op_ld", "global_op_st", "global_op_atom", "global_op_red",
                                            "local_op_ld", "local_op_st")])
    full["shared_inst"] = _sum(rec, ["smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum"])
    full["gld_inst"] = _sum(rec, ["smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_local_ld.sum"])
    full["gld_sectors"] = _num(rec, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    full["gld_hit_pct"] = _num(rec, "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct")
    full["g_sectors"] = _sum(rec, ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"])
    full["g_requests"] = _sum(rec, ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    full["l2_requests"] = _num(rec, "lts__t_requests.sum")
    full["l2_tex_sectors"] = _num(rec, "lts__t_sectors_srcunit_tex.sum")
    full["ldgsts_inst"] = _num(rec, "smsp__inst_executed_op_ldgsts.sum")
    full["tensor_ops"] = {k: _num(rec, "sm__ops_path_tensor_src_%s.sum" % k)
                          for k in ("fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp8_sparsity_off", "int8", "fp64")}
    for k, v in full.items():
        x[k] = v if fullset else (None if not isinstance(v, dict) else {kk: None for kk in v})
    return x


# =============================================================================================
# 2. The model
# =============================================================================================
def _pnorm(a, b, p):
    m = max(a, b)
    if m <= 0:
        return 0.0
    return m * ((a / m) ** p + (b / m) ** p) ** (1.0 / p)


def predict(x, device, C=None):
    """Predicted duration (us), bottleneck and every term of one launch on `device`."""
    C = dict(FITTED if C is None else C)
    dev = DEVICE[device]
    arch = ARCH[dev["cc"]]
    S, f = dev["sm_count"], dev["sm_clock_hz"]
    rate, lat = arch["pipe_rate"], arch["lat"]
    g = lambda k: x.get(k) or 0.0  # noqa: E731

    blocks = x["blocks"] or 1.0
    wpb = math.ceil((x["threads_per_block"] or 32.0) / 32.0)
    warps = x["warps"] or blocks * wpb
    bps = x["blocks_per_sm"] or 1.0
    pipe = {p: g("pipe_" + p) for p in PIPES}
    # Clock (SPEC §2.3): a launch with HMMA/IMMA/wgmma tensor work (a non-FP64 tensor FLOP counter > 0,
    # or wgmma instructions; not the hmma pipe count, which also counts HFMA2.MMA) runs every term at
    # the tensor clock; DMMA-only and non-tensor launches at the SM boost clock.
    _tensor_flop = sum(v for k, v in (x.get("tensor_ops") or {}).items() if v and not k.startswith("fp64"))
    # A launch running wgmma holds a lower clock: the tensor clock x wgmma_clock_fraction (SPEC §2.4).
    _gmma_clock = C["wgmma_clock_fraction"] if pipe["tensor_op_gmma"] > 0 else 1.0
    if _tensor_flop > 0 or pipe["tensor_op_gmma"] > 0:
        f = dev.get("tensor_clock_hz", f) * _gmma_clock
    # Work on the busiest SM: ceil(blocks / SMs) of the launch's blocks (wave quantisation).
    share = math.ceil(blocks / S) / blocks

    # ---- throughput terms, seconds --------------------------------------------------------
    T = {}
    T["issue"] = g("inst") * share / (arch["warp_schedulers"] * arch["issue_per_scheduler"]) / f
    T["fma"] = (pipe["fma"] + pipe["fma_type_fp16"]) * share / rate["fma"] / f  # FP16x2 takes both halves
    for p in ("fp64", "alu", "xu", "adu", "cbu", "uniform", "ipa", "tex", "tma"):
        T[p] = pipe[p] * share / rate[p] / f
    # mma.sync (HMMA/IMMA/DMMA): from the FLOP counters by type at the per-type peaks, at least the
    # minimum cycles per instruction, at the launch's clock (SPEC §3.2). Without the counters, or
    # with wgmma in the launch (the counters then hold its FLOP too): per instruction at the tensor clock.
    ft = dev.get("tensor_clock_hz", dev["sm_clock_hz"]) * _gmma_clock
    ops = x.get("tensor_ops") or {}
    ops_known = any(v is not None for v in ops.values())
    peak, min_cyc = arch["tensor_flop_rate"]["hmma"], arch["mma_min_cycles"]
    for p, kinds, m in (("tensor_op_hmma", ("fp16", "bf16", "tf32", "fp8"), "hmma"),
                        ("tensor_op_imma", ("int8",), "imma"), ("tensor_op_dmma", ("fp64",), "dmma")):
        if ops_known and pipe["tensor_op_gmma"] == 0:
            cyc = sum(v / peak[k.split("_")[0]] for k, v in ops.items() if v and k.split("_")[0] in kinds)
            T[p] = max(cyc, pipe[p] * min_cyc[m]) * share / f
        else:
            T[p] = pipe[p] * share / rate[p] / ft
    if pipe["tensor_op_gmma"] > 0 and any(ops.values()):
        # FLOP counters by source type (full set): exact work, wgmma shape-independent.
        r = arch["tensor_flop_rate"]["gmma"]
        T["tensor_op_gmma"] = sum(v / r[k.split("_")[0]] for k, v in ops.items() if v) * share / ft
    else:
        T["tensor_op_gmma"] = pipe["tensor_op_gmma"] * share / rate["tensor_op_gmma"] / ft
    T["lsu"] = pipe["lsu"] * share / (rate["lsu"] * C["eta_l1"]) / f
    if x.get("shared_wavefronts") is not None or x.get("global_wavefronts") is not None:
        T["l1"] = (g("shared_wavefronts") + g("global_wavefronts")) * share / (arch["l1_wavefronts_per_clk"] * C["eta_l1"]) / f
    # L1<->L2 bytes: L2 sectors requested by L1TEX; without the full set, min(L2 bytes, L1 bytes)
    # (lts__t_bytes also counts the traffic between the two L2 partitions).
    if x.get("l2_tex_sectors") is not None:
        l2_bytes = g("l2_tex_sectors") * 32.0
    elif x.get("l1_bytes") is not None:
        l2_bytes = min(g("lts_bytes"), g("l1_bytes"))
    else:
        l2_bytes = g("lts_bytes")
    T["l2"] = l2_bytes / dev["l2_achievable_Bps"]
    if x.get("l2_requests") is not None:
        T["l2_requests"] = g("l2_requests") / (dev["l2_slices"] * C["l2_req_per_slice_clk"] * f)
    dram_bytes = g("dram_rd") + g("dram_wr")
    T["dram"] = dram_bytes / (dev["dram_peak_Bps"] * dev["dram_achievable_frac"])
    T["blocks"] = blocks / (C["cta_per_clk"] * f)
    top = max(T, key=lambda k: T[k])
    t_tp = T[top]

    # ---- latency term (Little's law per SM) ------------------------------------------------
    # Dependent path of one warp: its instructions at the dependent-issue latency ...
    inst_w = g("inst") / warps
    fp64_w = pipe["fp64"] / warps
    chain = (inst_w - fp64_w) * lat["dep_issue"] + fp64_w * lat["fp64"]
    # ... plus its dependent load round trips: loads of one loop trip are independent, so the
    # rounds are at most the loop trips = branches not spent on divergence guards (CBU).
    if x.get("gld_inst") is not None:
        ld_w = x["gld_inst"] / warps
    else:  # no load count: L1 global requests ~ l1tex__t_bytes / 128 B, half of them loads
        ld_w = min(pipe["lsu"], g("l1_bytes") / 128.0 / 2.0) / warps
    trips_w = max(1.0, (g("branches") - pipe["cbu"]) / warps)
    rounds = min(ld_w, trips_w) if ld_w > 0 else 0.0
    hit = (x["gld_hit_pct"] if x.get("gld_hit_pct") is not None else g("l1_hit_pct")) / 100.0
    l2_rd = (g("gld_sectors") * 32.0 if x.get("gld_sectors") is not None else g("l1_bytes")) * (1.0 - hit)
    dram_share = min(1.0, g("dram_rd") / l2_rd) if l2_rd > 0 else 0.0
    l_mem = hit * lat["l1"] + (1.0 - hit) * ((1.0 - dram_share) * lat["l2"] + dram_share * dev["dram_latency_cycles"])
    chain += rounds * l_mem + lat["l2"]  # + the exit drain: stores acknowledged by L2
    waves = math.ceil(blocks / (S * bps))
    # Loaded DRAM latency: queueing grows with DRAM utilisation u (first-pass estimate).
    u = min(1.0, T["dram"] / max(t_tp, waves * chain / f, 1e-12))
    chain += rounds * (1.0 - hit) * dram_share * dev["dram_latency_cycles"] * C["queue"] * u
    ramp = min(blocks, S * bps) / (C["cta_per_clk"] * f)  # first wave dispatched block by block
    async_copy = pipe["tma"] > 0 or pipe["tensor_op_gmma"] > 0 or g("ldgsts_inst") > 0
    t_lat = ramp + (0.0 if async_copy else waves * chain / f)

    t_core = _pnorm(t_tp, t_lat, C["p"])
    t = C["t_launch_us"] * 1e-6 + t_core
    name, detail = _bottleneck(x, T, top, t_tp, t_lat, t_core, C, wpb, bps, arch, pipe)
    return {"t_us": t * 1e6, "bottleneck": name, "detail": detail, "terms": T, "top": top,
            "t_tp": t_tp, "t_lat": t_lat, "waves": waves, "chain": chain, "rounds": rounds,
            "l_mem": l_mem, "async": async_copy}


def _bottleneck(x, T, top, t_tp, t_lat, t_core, C, wpb, bps, arch, pipe):
    """The resource that sets the time, with a human-readable qualifier."""
    if C["t_launch_us"] * 1e-6 >= t_core:
        return "launch_overhead", "launch overhead %.1f us >= the kernel's own time %.1f us" % (C["t_launch_us"], t_core * 1e6)
    if t_tp < 0.75 * t_lat:
        warps_res = bps * wpb
        if warps_res < arch["max_warps_per_sm"]:
            return "occupancy", "latency not hidden: %d warps/SM (limited by %s)" % (warps_res, x.get("occ_limiter"))
        return "latency", "latency not hidden at full occupancy (few waves or long dependent chain)"
    if top == "issue":
        pipes = {k: T[k] for k in ("fma", "fp64", "alu", "xu", "tensor_op_hmma", "tensor_op_gmma", "tensor_op_imma", "tensor_op_dmma")}
        pk = max(pipes, key=lambda k: pipes[k])
        if pipes[pk] >= 0.85 * T["issue"]:
            top = pk
        else:
            return "issue", "instruction issue (4 warp-inst/clk/SM)"
    spr = None
    if x.get("g_sectors") and x.get("g_requests"):
        spr = x["g_sectors"] / x["g_requests"]
    elif x.get("l1_bytes") and pipe["lsu"] > 0:
        spr = x["l1_bytes"] / 32.0 / pipe["lsu"]
    if top == "fma":
        if pipe["fma_type_fp16"] >= 0.5 * pipe["fma"]:
            return "fp16", "FP16x2 on the FMA pipe (2 warp-inst/clk/SM)"
        return "fma", "FP32 FMA pipe (4 warp-inst/clk/SM)"
    if top in ("l1", "lsu"):
        shw, gwf = x.get("shared_wavefronts") or 0.0, x.get("global_wavefronts") or 0.0
        if shw > gwf:
            per = shw / x["shared_inst"] if x.get("shared_inst") else None
            if per and per >= 2.0:
                return "shared", "shared-memory bank conflicts: %.1f wavefronts per request" % per
            return "shared", "shared-memory wavefronts"
        if spr and spr > 8.0:
            return "uncoalesced_global", "L1 global access %.1f sectors/request" % spr
        return "l1", "L1/LSU (load/store instructions and wavefronts)"
    if top == "l2_requests":
        if spr and spr > 8.0:
            return "uncoalesced_global", "%.1f sectors/request: one L2 request per sector" % spr
        return "l2_requests", "L2 tag lookups"
    if top == "blocks":
        return "blocks", "block launch rate: %d blocks of %d threads; %d resident blocks/SM (limit: %s)" % (
            x["blocks"], x["threads_per_block"], bps, x.get("occ_limiter"))
    names = {"tensor_op_hmma": "tensor_hmma", "tensor_op_gmma": "tensor_gmma", "tensor_op_imma": "tensor_imma",
             "tensor_op_dmma": "tensor_dmma"}
    desc = {"dram": "DRAM bandwidth", "l2": "L2 bandwidth (L1<->L2 bytes)", "fp64": "FP64 pipe (2 warp-inst/clk/SM)",
            "alu": "integer ALU pipe (2 warp-inst/clk/SM)", "xu": "XU/SFU pipe (0.5 warp-inst/clk/SM)"}
    runner = sorted((v, k) for k, v in T.items() if k != top)[-1]
    extra = "; runner-up %s at %.0f%%" % (runner[1], 100 * runner[0] / T[top]) if runner[0] >= 0.9 * T[top] else ""
    return names.get(top, top), desc.get(top, top) + extra


# =============================================================================================
# 3. Data, fitting, statistics
# =============================================================================================
def kit_launches():
    """[(gpu_dir, device, case, index, raw_record, details_record)] for the kit captures."""
    out = []
    for gdir, dev in KIT.items():
        for raw_path in sorted(glob.glob(os.path.join(CAPTURES, gdir, "*.ncu-raw.csv"))):
            case = os.path.basename(raw_path).split(".")[0]
            raws = load_raw(raw_path)
            dets = load_details(raw_path.replace(".ncu-raw.csv", ".ncu-details.csv"))
            for i, r in enumerate(raws):
                out.append((gdir, dev, case, i, r, dets[i] if i < len(dets) else None))
    return out


def measured_us(rec):
    v = rec.get("gpu__time_duration.sum")
    if not isinstance(v, float):
        v = rec.get(("GPU Speed Of Light Throughput", "Duration"))
    return v / 1000.0


def stats(errs):
    a = sorted(abs(e) for e in errs)
    n = len(a)
    if not n:
        return {"n": 0}
    p90 = a[min(n - 1, int(math.ceil(0.9 * n)) - 1)]  # nearest-rank 90th percentile
    return {"n": n, "median": statistics.median(a), "p90": p90, "max": a[-1], "w20": sum(1 for v in a if v <= 0.2)}


def fmt_stats(s):
    if not s["n"]:
        return "n=0"
    return "n=%d median %.1f%%  p90 %.1f%%  max %.1f%%  within 20%% %d/%d" % (
        s["n"], 100 * s["median"], 100 * s["p90"], 100 * s["max"], s["w20"], s["n"])


def nelder_mead(fn, x0, step, iters=500, tol=1e-10):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step[j] if j == i else 0.0) for j in range(n)] for i in range(n)]
    vals = [fn(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: (vals[i], i))
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) < tol:
            break
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [2 * c[j] - pts[-1][j] for j in range(n)]
        fr = fn(xr)
        if fr < vals[0]:
            xe = [3 * c[j] - 2 * pts[-1][j] for j in range(n)]
            fe = fn(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [0.5 * (c[j] + pts[-1][j]) for j in range(n)]
            fc = fn(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [0.5 * (pts[0][j] + pts[i][j]) for j in range(n)]
                    vals[i] = fn(pts[i])
    i = min(range(n + 1), key=lambda i: (vals[i], i))
    return pts[i], vals[i]


FIT_NAMES = ("t_launch_us", "eta_l1", "l2_req_per_slice_clk", "cta_per_clk", "queue")
FIT_STEP = (0.5, 0.1, 0.1, 0.1, 0.3)
BOUNDS = {"t_launch_us": (1.0, 2.5), "eta_l1": (0.3, 1.0), "l2_req_per_slice_clk": (0.1, 2.0),
          "cta_per_clk": (0.1, 4.0), "p": (1.0, 8.0), "queue": (0.0, 3.0)}


def fit_constants(samples):
    """Fit the FIT constants: minimise the mean |log(pred/measured)| over `samples` [(x, dev, meas)]."""
    def objective(v):
        C = dict(FITTED)
        C.update(zip(FIT_NAMES, v))
        for k, (lo, hi) in BOUNDS.items():
            if not lo <= C[k] <= hi:
                return 1e9
        return sum(abs(math.log(predict(x, d, C)["t_us"] / m)) for x, d, m in samples) / len(samples)
    x0 = [PRIOR[k] for k in FIT_NAMES]
    best, val = nelder_mead(objective, x0, FIT_STEP)
    best, val = nelder_mead(objective, best, [s * 0.25 for s in FIT_STEP])
    C = dict(FITTED)
    C.update(zip(FIT_NAMES, best))
    return C, val


# =============================================================================================
# 4. Cross-device schemes
# =============================================================================================
def sol_parts(rec):
    """Speed-of-Light utilisations (fractions of the source device's peaks) of one launch."""
    sec = "GPU Speed Of Light Throughput"
    get = lambda raw, disp: _num(rec, raw, (sec, disp))  # noqa: E731
    return {"dram": (get("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput") or 0.0) / 100.0,
            "l2": (get("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 Cache Throughput") or 0.0) / 100.0,
            "l1": (get("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "L1/TEX Cache Throughput") or 0.0) / 100.0,
            "sm": (get("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput") or 0.0) / 100.0}


def capability(device):
    d = DEVICE[device]
    return {"dram": d["dram_peak_Bps"] * d["dram_achievable_frac"],
            "l2": d["l2_slices"],           # ncu's L2 % is of slices x L2 clock; L2 clock equal on GH100 boards
            "l1": d["sm_count"] * d["sm_clock_hz"],
            "sm": d["sm_count"] * d["sm_clock_hz"]}


def sol_cross(t_src_us, parts, src, tgt, C=None):
    """Default-set scheme: each SOL part scales by source/target capability; the rest of the time
    (latency, idle) is kept. DRAM % is taken relative to the achievable fraction."""
    C = FITTED if C is None else C
    cs, ct = capability(src), capability(tgt)
    u = dict(parts)
    u["dram"] = min(1.0, u["dram"] / DEVICE[src]["dram_achievable_frac"])
    umax = max(u.values())
    scaled = max(u[k] * cs[k] / ct[k] for k in u)
    core = max(0.0, t_src_us - C["t_launch_us"])
    return C["t_launch_us"] + core * (1.0 - umax + scaled)


def align(names_a, names_b):
    """Match launches by kernel name and order: longest common subsequence of the name lists."""
    n, m = len(names_a), len(names_b)
    L = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            L[i][j] = L[i + 1][j + 1] + 1 if names_a[i] == names_b[j] else max(L[i + 1][j], L[i][j + 1])
    i = j = 0
    pairs = []
    while i < n and j < m:
        if names_a[i] == names_b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif L[i + 1][j] >= L[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


# =============================================================================================
# 5. Checks
# =============================================================================================
def check_details_vs_raw(launches):
    """Every Command line profiler metric of the details page equals the raw page's value, and the
    launch statistics / occupancy inputs agree. Returns (compared, mismatches)."""
    compared, bad = 0, []
    pairs = [("launch__registers_per_thread", ("Launch Statistics", "Registers Per Thread")),
             ("launch__occupancy_limit_blocks", ("Occupancy", "Block Limit SM")),
             ("launch__occupancy_limit_registers", ("Occupancy", "Block Limit Registers")),
             ("launch__occupancy_limit_shared_mem", ("Occupancy", "Block Limit Shared Mem")),
             ("launch__occupancy_limit_warps", ("Occupancy", "Block Limit Warps")),
             ("launch__occupancy_limit_barriers", ("Occupancy", "Block Limit Barriers")),
             ("smsp__inst_executed_op_branch.sum", ("Source Counters", "Branch Instructions")),
             ("l1tex__t_sector_hit_rate.pct", ("Memory Workload Analysis", "L1/TEX Hit Rate"))]
    for gdir, dev, case, i, raw, det in launches:
        if det is None or det["_kernel"] != raw["_kernel"]:
            bad.append((gdir, case, i, "launch missing or kernel differs"))
            continue
        keys = [(k, k) for k in det if isinstance(k, str) and not k.startswith("_") and k != "CC"] + pairs
        for rk, dk in keys:
            a, b = raw.get(rk), det.get(dk)
            if not isinstance(a, float) or not isinstance(b, float):
                if isinstance(b, float) != isinstance(a, float):
                    bad.append((gdir, case, i, "%s: raw %r details %r" % (rk, a, b)))
                continue
            compared += 1
            tol = 0.006 * max(abs(a), abs(b)) if rk.endswith(".pct") else 1e-6 * max(abs(a), abs(b), 1.0)
            if abs(a - b) > tol:
                bad.append((gdir, case, i, "%s: raw %g details %g" % (rk, a, b)))
        if raw["_grid"] != det["_grid"] or raw["_block"] != det["_block"]:
            bad.append((gdir, case, i, "grid/block differ"))
    return compared, bad


def check_leakage(launches):
    """(1) no key read by model_inputs is leak-prone; (2) garbage in leak columns changes nothing."""
    read = set()
    max_diff = 0.0
    for gdir, dev, case, i, raw, det in launches:
        for rec, full in ((raw, True), (raw, False), (det, False)):
            r = Recorder(rec)
            model_inputs(r, full)
            read |= {k for k in r.read}
        poisoned = copy.copy(raw)
        for k in list(poisoned):
            if isinstance(k, str) and LEAK_RE.search(k):
                poisoned[k] = 123456789.0
        a = predict(model_inputs(raw), dev)["t_us"]
        b = predict(model_inputs(poisoned), dev)["t_us"]
        max_diff = max(max_diff, abs(a - b))
    leaky = sorted(str(k) for k in read if LEAK_RE.search(k if isinstance(k, str) else " ".join(k)))
    return leaky, max_diff, sorted(str(k) for k in read)


def check_peaks(launches):
    """Plugin rates vs ncu's own *.peak_sustained (device constants) in the full-set raw pages."""
    rows = []
    seen = set()
    for gdir, dev, case, i, raw, det in launches:
        if gdir in seen:
            continue
        seen.add(gdir)
        a = ARCH[DEVICE[dev]["cc"]]
        S = DEVICE[dev]["sm_count"]
        checks = [
            ("sm__sass_thread_inst_executed_op_ffma_pred_on.avg.peak_sustained", a["pipe_rate"]["fma"] * 32, "fma x 32 lanes"),
            ("sm__sass_thread_inst_executed_op_dfma_pred_on.avg.peak_sustained", a["pipe_rate"]["fp64"] * 32, "fp64 x 32"),
            ("sm__sass_thread_inst_executed_op_hfma_pred_on.avg.peak_sustained", a["pipe_rate"]["fma_type_fp16"] * 32, "fma_type_fp16 x 32 (see note)"),
            ("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.avg.peak_sustained", a["pipe_rate"]["tensor_op_hmma"] * 4096, "hmma x 4096 FLOP"),
            ("sm__ops_path_tensor_op_imma_src_int8_sparsity_off.avg.peak_sustained", a["pipe_rate"]["tensor_op_imma"] * 8192, "imma x 8192 OP"),
            ("sm__ops_path_tensor_src_fp64.avg.peak_sustained", a["pipe_rate"]["tensor_op_dmma"] * 512, "dmma x 512 FLOP"),
            ("sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.avg.peak_sustained", a["tensor_flop_rate"]["gmma"]["fp16"], "gmma fp16 FLOP/clk"),
            ("sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.avg.peak_sustained", a["tensor_flop_rate"]["gmma"]["tf32"], "gmma tf32 FLOP/clk"),
            ("sm__ops_path_tensor_op_igmma_src_int8_sparsity_off.avg.peak_sustained", a["tensor_flop_rate"]["gmma"]["int8"], "gmma int8 OP/clk"),
            ("l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained", a["l1_wavefronts_per_clk"] * S, "L1 wavefronts/clk x SMs"),
            ("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained", 128.0 * a["l1_wavefronts_per_clk"] * S, "128 B x SMs"),
            ("smsp__warps_active.avg.peak_sustained", a["max_warps_per_sm"] / a["warp_schedulers"], "warps per scheduler"),
            ("device__attribute_max_ipc_per_multiprocessor", a["warp_schedulers"] * a["issue_per_scheduler"], "issue/SM/clk"),
            ("device__attribute_multiprocessor_count", float(S), "SMs"),
            ("device__attribute_clock_rate", DEVICE[dev]["sm_clock_hz"] / 1e3, "kHz"),
            ("device__attribute_l2s_count", float(DEVICE[dev]["l2_slices"]), "L2 slices"),
            ("dram__bytes.sum.peak_sustained", None, "B per DRAM clock"),
        ]
        for metric, want, what in checks:
            got = raw.get(metric)
            if metric == "dram__bytes.sum.peak_sustained" and isinstance(got, float):
                clk = raw.get("device__attribute_memory_clock_rate")
                rows.append((dev, metric, got, "x mem clock %.0f kHz = %.0f GB/s vs plugin peak %.0f GB/s" % (
                    clk, got * clk * 1e3 / 1e9, DEVICE[dev]["dram_peak_Bps"] / 1e9)))
                continue
            ok = isinstance(got, float) and want is not None and abs(got - want) <= 0.01 * abs(want)
            rows.append((dev, metric, got, "%s: plugin %g -> %s" % (what, want, "OK" if ok else "DIFFERS")))
    return rows


# =============================================================================================
# 6. Report
# =============================================================================================
EXPECTED = {  # issue 11, item 3
    "fma_chain_fp32": {"fma"}, "fma_chain_fp64": {"fp64"}, "fma_chain_fp16x2": {"fp16"},
    "copy_kernel": {"dram"}, "saxpy_kernel": {"dram"}, "sgemm_naive": {"l1"},
    "transpose_naive": {"uncoalesced_global"}, "transpose_tiled": {"shared"},
    "transpose_tiled_padded": {"dram"}, "regs65_kernel": {"occupancy"},
}


def short(name):
    """Kernel base name: drop the return type, template arguments and the parameter list."""
    s = name.replace("(anonymous namespace)", "anon").replace("<unnamed>", "anon")
    s = s[5:] if s.startswith("void ") else s
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            break
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


def expected_for(x):
    k = short(x["kernel"])
    if k == "scale_add_kernel":
        return {"blocks"} if x["threads_per_block"] == 32 else None
    return EXPECTED.get(k)


def size_label(case, rec):
    g, b = rec["_grid"], rec["_block"]
    return "%dx%dx%d/%d" % (g[0], g[1], g[2], b[0] * b[1] * b[2])


def main(argv):
    refit = "--refit" in argv
    quick = "--quick" in argv
    out = []
    P = out.append
    launches = kit_launches()

    P("## 9. Generated output of `python3 model_v2.py --refit`\n")
    P("Constants (FIT): " + ", ".join("%s=%.3g" % (k, FITTED[k]) for k in FIT_NAMES))

    # ---- check: details vs raw inputs
    compared, bad = check_details_vs_raw(launches)
    P("\n### Details page vs raw page inputs\n")
    P("compared %d (metric, launch) values of the Command line profiler metrics section, launch "
      "statistics and occupancy: %d mismatches" % (compared, len(bad)))
    for b in bad[:10]:
        P("  mismatch: %s" % (b,))

    # ---- refit (optional)
    samples = [(model_inputs(raw), dev, measured_us(raw)) for gdir, dev, case, i, raw, det in launches]
    if refit:
        Cfit, val = fit_constants(samples)
        P("\n### Refit on all 86 kit launches\n")
        P("mean |log error| %.4f; " % val + ", ".join("%s=%.4g" % (k, Cfit[k]) for k in FIT_NAMES))

    # ---- per-launch tables
    results = {}
    for gdir, dev, case, i, raw, det in launches:
        x = model_inputs(raw)
        r = predict(x, dev)
        xd = model_inputs(det, fullset=False)
        rd = predict(xd, dev)
        rc = predict(model_inputs(raw, fullset=False), dev)
        results[(gdir, case, i)] = (x, r, measured_us(raw), rd, rc)
    for gdir, dev in KIT.items():
        P("\n### Same-device, %s (raw pages, full set)\n" % dev)
        P("| case | kernel | grid/block | measured us | predicted us | error | bottleneck | detail |")
        P("|---|---|---|---|---|---|---|---|")
        for (gd, case, i), (x, r, m, rd, rc) in sorted(results.items()):
            if gd != gdir:
                continue
            e = (r["t_us"] - m) / m
            rec = [l for l in launches if l[0] == gd and l[2] == case and l[3] == i][0][4]
            P("| %s | %s | %s | %.2f | %.2f | %+.1f%% | %s | %s |" % (case, short(x["kernel"]), size_label(case, rec),
                                                              m, r["t_us"], 100 * e, r["bottleneck"], r["detail"]))
    P("\n### Accuracy summary (same device, per launch)\n")
    P("| GPU | input | %s |" % "statistics")
    P("|---|---|---|")
    for gdir, dev in KIT.items():
        for label, idx in (("raw page, full set", 1), ("details page (cmdline metrics only)", 3), ("raw page, cmdline metrics only", 4)):
            errs = [(v[idx]["t_us"] - v[2]) / v[2] for k, v in results.items() if k[0] == gdir]
            P("| %s | %s | %s |" % (dev, label, fmt_stats(stats(errs))))
    same = all(abs(v[3]["t_us"] - v[4]["t_us"]) < 1e-9 for v in results.values())
    P("\ndetails-page and raw-page predictions from the same (cmdline) inputs identical: %s" % same)

    # ---- bottleneck check
    P("\n### Bottleneck check (issue 11 item 3)\n")
    P("| GPU | kernel | grid/block | expected | named | ok |")
    P("|---|---|---|---|---|---|")
    nok = ntot = 0
    for (gd, case, i), (x, r, m, rd, rc) in sorted(results.items()):
        exp = expected_for(x)
        if not exp:
            continue
        rec = [l for l in launches if l[0] == gd and l[2] == case and l[3] == i][0][4]
        ok = r["bottleneck"] in exp
        nok += ok
        ntot += 1
        P("| %s | %s | %s | %s | %s (%s) | %s |" % (KIT[gd].split()[1], short(x["kernel"]), size_label(case, rec),
                                                 "/".join(sorted(exp)), r["bottleneck"], r["detail"], "yes" if ok else "NO"))
    P("\nnamed as expected: %d of %d launches (raw pages, full set)" % (nok, ntot))
    nd = sum(1 for k, v in results.items() if expected_for(v[0]) and v[3]["bottleneck"] in expected_for(v[0]))
    P("with the details page's inputs only (no full-set counters): %d of %d" % (nd, ntot))
    largest = {}
    for (gd, case, i), (x, r, m, rd, rc) in sorted(results.items()):
        if expected_for(x):
            key = (gd, short(x["kernel"]))
            if key not in largest or m > largest[key][0]:
                largest[key] = (m, r["bottleneck"] in expected_for(x))
    P("per kernel at its largest launch: %d of %d" % (sum(v[1] for v in largest.values()), len(largest)))

    # ---- LOCO
    if not quick:
        P("\n### Leave-one-case-out cross-validation (9 folds, both GPUs pooled in each fit)\n")
        cases = sorted({l[2] for l in launches})
        loco = {}
        P("| held-out case | " + " | ".join(FIT_NAMES) + " | held-out median err | held-out max err |")
        P("|---|" + "---|" * len(FIT_NAMES) + "---|---|")
        for c in cases:
            train = [(model_inputs(raw), dev, measured_us(raw)) for gdir, dev, case, i, raw, det in launches if case != c]
            Cf, _ = fit_constants(train)
            errs = []
            for gdir, dev, case, i, raw, det in launches:
                if case == c:
                    e = (predict(model_inputs(raw), dev, Cf)["t_us"] - measured_us(raw)) / measured_us(raw)
                    loco[(gdir, case, i)] = e
                    errs.append(e)
            s = stats(errs)
            P("| %s | %s | %.1f%% | %.1f%% |" % (c, " | ".join("%.3g" % Cf[k] for k in FIT_NAMES), 100 * s["median"], 100 * s["max"]))
        P("")
        for gdir, dev in KIT.items():
            P("LOCO %s: %s" % (dev, fmt_stats(stats([e for k, e in loco.items() if k[0] == gdir]))))
        worst = sorted(loco.items(), key=lambda kv: -abs(kv[1]))[:8]
        P("largest held-out errors: " + "; ".join("%s %s #%d %+.1f%%" % (KIT[g].split()[1], c, i, 100 * e) for (g, c, i), e in worst))
        P("(in-sample with the shipped constants: %s)" % "; ".join(
            "%s %s" % (dev.split()[1], fmt_stats(stats([(v[1]["t_us"] - v[2]) / v[2] for k, v in results.items() if k[0] == g])))
            for g, dev in KIT.items()))

    # ---- cross-device, kit
    P("\n### Cross-device, kit captures (per launch, matched by case and launch order)\n")
    gdirs = list(KIT)
    for src, tgt in ((gdirs[0], gdirs[1]), (gdirs[1], gdirs[0])):
        e_ratio, e_sol, e_pure = [], [], []
        rows = []
        for (gd, case, i), (x, r, m, rd, rc) in sorted(results.items()):
            if gd != src or (tgt, case, i) not in results:
                continue
            xt, rt, mt, _, _ = results[(tgt, case, i)]
            if short(xt["kernel"]) != short(x["kernel"]):
                continue
            pred_src_on_tgt = predict(x, KIT[tgt])["t_us"]
            t_ratio = m * pred_src_on_tgt / r["t_us"]
            rec = [l for l in launches if l[0] == gd and l[2] == case and l[3] == i][0][4]
            t_sol = sol_cross(m, sol_parts(rec), KIT[src], KIT[tgt])
            e_ratio.append((t_ratio - mt) / mt)
            e_sol.append((t_sol - mt) / mt)
            e_pure.append((pred_src_on_tgt - mt) / mt)
            rows.append((case, short(x["kernel"]), size_label(case, rec), m, mt, t_ratio, t_sol))
        P("#### %s -> %s\n" % (KIT[src], KIT[tgt]))
        P("| case | kernel | grid/block | measured src us | measured tgt us | model-ratio us | err | SOL-scaled us | err |")
        P("|---|---|---|---|---|---|---|---|---|")
        for case, k, sz, m, mt, tr, ts in rows:
            P("| %s | %s | %s | %.2f | %.2f | %.2f | %+.1f%% | %.2f | %+.1f%% |" % (case, k, sz, m, mt, tr, 100 * (tr - mt) / mt, ts, 100 * (ts - mt) / mt))
        P("\nmodel ratio (measured src x model(tgt)/model(src)): %s" % fmt_stats(stats(e_ratio)))
        P("SOL scaling (default-set scheme):                     %s" % fmt_stats(stats(e_sol)))
        P("model alone on the target (src counters, no time):     %s\n" % fmt_stats(stats(e_pure)))

    # ---- cross-device, basic/ (default set)
    P("\n### Cross-device, basic/ PyTorch GPT layer (ncu default set: SOL scaling)\n")
    bas = {dev: load_details(os.path.join(CAPTURES, p)) for dev, p in BASIC.items()}
    devs = list(BASIC)
    for src, tgt in ((devs[0], devs[1]), (devs[1], devs[0])):
        A, B = bas[src], bas[tgt]
        pairs = align([r["_kernel"] for r in A], [r["_kernel"] for r in B])
        errs, keep = [], []
        P("#### %s -> %s\n" % (src, tgt))
        P("| src ID | kernel | measured src us | measured tgt us | predicted us | error | SOL parts (dram, l2, l1, sm) |")
        P("|---|---|---|---|---|---|---|")
        for i, j in pairs:
            ts, tt = measured_us(A[i]), measured_us(B[j])
            parts = sol_parts(A[i])
            tp = sol_cross(ts, parts, src, tgt)
            e = (tp - tt) / tt
            errs.append(e)
            P("| %d | %s | %.2f | %.2f | %.2f | %+.1f%% | %.2f, %.2f, %.2f, %.2f |" % (
                A[i]["_id"], short(A[i]["_kernel"])[:70], ts, tt, tp, 100 * e, parts["dram"], parts["l2"], parts["l1"], parts["sm"]))
            keep.append(e)
        matched = {i for i, j in pairs}
        unmatched = [r for k, r in enumerate(A) if k not in matched]
        P("\nmatched %d of %d launches; %s" % (len(pairs), len(A), fmt_stats(stats(errs))))
        naive = [(measured_us(A[i]) - measured_us(B[j])) / measured_us(B[j]) for i, j in pairs]
        P("(no-scaling baseline, target = source time: %s)" % fmt_stats(stats(naive)))
        for r in unmatched:
            k = r["_id"]
            msg = ""
            if k < len(B):
                ts, tt = measured_us(r), measured_us(B[k])
                tp = sol_cross(ts, sol_parts(r), src, tgt)
                msg = "; same position on the target: %s %.2f us, SOL-scaled %.2f us (%+.1f%%)" % (
                    short(B[k]["_kernel"])[:50], tt, tp, 100 * (tp - tt) / tt)
            P("unmatched (library picked another kernel on the target): ID %d %s%s" % (k, short(r["_kernel"])[:60], msg))
        P("")
    P("No same-device prediction for basic/: the default set lacks smsp__inst_executed.sum, "
      "sm__inst_executed_pipe_*.sum, dram__bytes_*.sum, lts__t_bytes.sum (add them with --metrics, or "
      "--set full).")

    # ---- checks
    leaky, max_diff, read = check_leakage(launches)
    P("\n### Leakage test\n")
    P("keys read by model_inputs: %d; leak-prone among them: %s" % (len(read), leaky or "none"))
    P("max change of any prediction after overwriting every leak-prone column with garbage: %.3g us" % max_diff)
    P("\n### Plugin rates vs ncu peak_sustained (device constants in the full-set raw pages)\n")
    for dev, metric, got, msg in check_peaks(launches):
        P("- %s `%s` = %s; %s" % (dev.split()[1], metric, "%g" % got if isinstance(got, float) else got, msg))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
