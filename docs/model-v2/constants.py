"""Per-CC and per-device constants of model v2: what the plugins must provide.

Every number carries its source. Abbreviations:
  PG-T   CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table (results per clock
         cycle per multiprocessor), column 9.0.
  PG-mp  CUDA C++ Programming Guide, "Multiprocessor Level": 4 warp schedulers per SM, each issues
         one instruction per clock; arithmetic dependent-issue latency "typically 4 clock cycles".
  PG-sm  CUDA C++ Programming Guide, shared memory: 32 banks, 32 bits per bank per clock.
  NCU-PK ncu `*.peak_sustained` metrics of the kit's full-set raw pages (device constants; used
         only to VERIFY the rates, see check_peaks() in model_v2.py).
  NV-FRM NVIDIA developer forum, "Separate CUDA Core pipeline for FP16 and FP32?" (NVIDIA staff:
         on GA10x and GH100 an FP16x2 instruction is dual-issued to the FMAheavy and FMAlite pipes).
  WP     NVIDIA H100 Tensor Core GPU Architecture whitepaper, SM diagram (per SM sub-partition:
         16 INT32, 32 FP32, 16 FP64 lanes, 8 LD/ST units, 4 SFUs, 1 tensor core).
  LAT5   shared/reference/LATENCIES.md §5 (measured on the kit's own H100 and H200).
  ARCHS  shared/reference/ARCHS.csv; DEV shared/reference/DEVICES.csv.
  ATTR   device__attribute_* columns of the exports (driver-reported device constants).
  FIT    fitted on the kit captures (MODEL_V2.md §6, with leave-one-case-out cross-validation).
"""

# ---------------------------------------------------------------------------------------------
# Per compute capability
# ---------------------------------------------------------------------------------------------
ARCH = {
    "9.0": {
        "warp_schedulers": 4,          # PG-mp; ARCHS 9.0; ATTR num_schedulers_per_multiprocessor
        "issue_per_scheduler": 1.0,    # PG-mp; ATTR max_ipc_per_scheduler = 1
        "max_warps_per_sm": 64,        # ARCHS 9.0
        # Pipe issue rates, warp instructions per SM per cycle (thread results/clk/SM / 32).
        "pipe_rate": {
            "fma": 4.0,            # PG-T FP32 add/mul/fma 128; WP 32 FP32 lanes/SMSP; NCU-PK ffma 128
            "fma_type_fp16": 2.0,  # NV-FRM (HFMA2 takes FMAheavy+FMAlite); kit fma_chain_fp16x2 runs
                                   # at 0.98 of 2.0. PG-T's 256 FP16 results/clk (= 4.0) and NCU-PK
                                   # hfma 128/clk are not reached on GH100.
            "fp64": 2.0,           # PG-T FP64 64; WP 16 FP64 lanes/SMSP; NCU-PK dfma 64
            "alu": 2.0,            # PG-T 32-bit integer add/logical/shift/compare 64; WP 16 INT32/SMSP
            "xu": 0.5,             # PG-T reciprocal/rsqrt/log2/exp2/sin/cos 16; WP 4 SFU/SMSP
            "lsu": 1.0,            # WP 8 LD/ST/SMSP = 32 lanes/SM; NCU-PK l1tex writeback 1/SM/clk
            "adu": 1.0,            # UNCERTAIN (no public number); never near-limiting on the kit
            "cbu": 2.0,            # UNCERTAIN (no public number); never near-limiting on the kit
            "uniform": 4.0,        # UNCERTAIN: one uniform datapath per SMSP, 1 inst/clk
            "ipa": 0.5,            # UNCERTAIN: graphics interpolation; compute kernels issue none
            "tex": 0.25,           # UNCERTAIN: ATTR num_tex_per_multiprocessor = 1, 4 threads/clk
            "tma": 0.5,            # UNCERTAIN: TMA issue is never the limiter in practice
            # Tensor pipes, instructions per SM per cycle for the usual SASS shapes:
            "tensor_op_hmma": 2730.67 / 4096.0,  # NCU-PK hmma fp16 2730.67 FLOP/clk/SM; HMMA.16816 = 4096 FLOP
            "tensor_op_imma": 5461.33 / 8192.0,  # NCU-PK imma int8 5461.33 OP/clk/SM; IMMA.16832 = 8192 OP
            "tensor_op_dmma": 256.0 / 512.0,     # NCU-PK fp64 tensor 256 FLOP/clk/SM; DMMA.884 = 512 FLOP
            "tensor_op_gmma": 4096.0 / 65536.0,  # fallback only (see tensor_flop_rate): one warp's share of
                                                 # wgmma m64n128k16 = 2*64*128*16/4 = 65536 FLOP; NCU-PK 4096/clk
        },
        # Tensor FLOP (or OP) per SM per cycle by source type, dense (NCU-PK sm__ops_path_tensor_op_*).
        "tensor_flop_rate": {
            "gmma": {"fp16": 4096.0, "bf16": 4096.0, "tf32": 2048.0, "fp8": 8192.0, "int8": 8192.0, "fp64": 256.0},
            # mma.sync (HMMA/IMMA/DMMA) path, NCU-HO: the *.peak_sustained values of the holdout
            # captures traces/*-holdout/tensor_peak.ncu-raw.csv (8192/3, 8192/3, 4096/3, 16384/3, 256;
            # fp8 UNCERTAIN: ncu lists no HMMA FP8 peak on 9.0, the FP16 rate is used).
            "hmma": {"fp16": 8192 / 3, "bf16": 8192 / 3, "tf32": 4096 / 3, "fp8": 8192 / 3, "int8": 16384 / 3, "fp64": 256.0},
        },
        # Fewest SM cycles one mma.sync warp instruction holds the tensor pipe (holdout tensor_peak
        # chains, pipe >= 92 % busy: HMMA.1684.TF32 and HMMA.1688.F32 at ~1/clk, IMMA.16816 at 0.97/clk,
        # DMMA.884 at 0.247/clk). SPEC §3.2: T = max(sum FLOP_type / peak_type, inst * min cycles).
        "mma_min_cycles": {"hmma": 1.0, "imma": 1.0, "dmma": 4.0},
        # L1TEX data stage: 128 B per clock per SM = one wavefront (PG-sm 32 banks x 4 B;
        # NCU-PK derived__l1tex__lsu_writeback_bytes_mem_lgds 16896 B/clk = 128 B x 132 SMs).
        "l1_wavefronts_per_clk": 1.0,
        # Latencies, SM cycles.
        "lat": {
            "dep_issue": 4.0,   # PG-mp "typically 4 clock cycles"; LAT5 FFMA 4.44 incl. loop overhead
            "fp64": 8.0,        # LAT5 DFMA 8.19
            "shared": 28.7,     # LAT5
            "l1": 39.0,         # LAT5
            "l2": 290.0,        # LAT5 286-295 (near/far partitions averaged)
        },
    },
}

# ---------------------------------------------------------------------------------------------
# Per device
# ---------------------------------------------------------------------------------------------
DEVICE = {
    "NVIDIA H100 80GB HBM3": {
        "cc": "9.0",
        "sm_count": 132,                 # DEV, LAT5, ATTR multiprocessor_count
        "sm_clock_hz": 1.98e9,           # DEV max boost = ATTR clock_rate / max_gpu_frequency_khz
        "dram_peak_Bps": 3.35e12,        # DEV
        "dram_achievable_frac": 0.85,    # LAT5 copy 2832 GB/s of 3350
        "dram_latency_cycles": 690.0,    # LAT5
        "l2_achievable_Bps": 6.6e12,     # LAT5 L2 read bandwidth
        "l2_slices": 80,                 # ATTR l2s_count (10 FBPs x 8)
        "tensor_clock_hz": 1.83e9,       # DEV note: datasheet tensor peaks (989.4 TF fp16 dense =
                                         # 4096 FLOP/clk/SM x 132) correspond to ~1830 MHz
    },
    "NVIDIA H200": {
        "cc": "9.0",
        "sm_count": 132,                 # DEV, LAT5, ATTR
        "sm_clock_hz": 1.98e9,           # DEV, LAT5, ATTR
        "dram_peak_Bps": 4.8e12,         # DEV
        "dram_achievable_frac": 0.82,    # LAT5 copy 3956 GB/s of 4800
        "dram_latency_cycles": 666.0,    # LAT5
        "l2_achievable_Bps": 7.0e12,     # LAT5
        "l2_slices": 96,                 # ATTR l2s_count (12 FBPs x 8)
        "tensor_clock_hz": 1.83e9,       # DEV (same GH100 SXM tensor peaks)
    },
}

# ---------------------------------------------------------------------------------------------
# Fitted constants (FIT): the only numbers not taken from documentation or measurement sheets.
# Refit with `python3 model_v2.py --refit`; MODEL_V2.md §6 has the leave-one-case-out table.
# ---------------------------------------------------------------------------------------------
PRIOR = {  # starting point of the fit and the value a fold keeps when it holds no evidence
    "t_launch_us": 2.0,        # ~2 us: ncu gpu__time_duration of a near-empty launch
    "eta_l1": 1.0,             # L1 data stage / LSU at its full rate
    "l2_req_per_slice_clk": 0.86,  # one tag lookup per slice per L2 clock (~1.7 GHz / 1.98 GHz)
    "cta_per_clk": 1.0,        # one block dispatched per SM clock, GPU-wide
    "p": 2.0,                  # Euclidean blend of throughput and latency time
    "queue": 0.0,              # no loaded-latency growth
    "wgmma_clock_fraction": 1.0,  # wgmma launches at the tensor clock
}
FITTED = {
    "t_launch_us": 2.12,           # launch overhead inside gpu__time_duration
    "eta_l1": 0.907,               # achievable fraction of the L1TEX data stage / LSU rate
    "l2_req_per_slice_clk": 0.560, # L2 tag requests per slice per SM clock (~0.65 per L2 clock)
    "cta_per_clk": 0.864,          # blocks dispatched per SM clock, whole GPU (1.71 blocks/ns)
    "queue": 0.395,                # loaded-DRAM-latency growth per unit of DRAM utilisation
    "p": 2.0,                      # NOT fitted: Euclidean blend of throughput and latency time
    # NOT refit (the kit has no wgmma): median SM clock ncu measured over the 18 cuBLAS wgmma GEMMs
    # of traces/*-wgmma (1.604 GHz) / the 1.83 GHz tensor clock; validated on the 20 wgmma launches
    # of traces/pytorch-layers/ (median 1.627 GHz). SPEC §2.4.
    "wgmma_clock_fraction": 0.876,
}
