//! Names of the columns the model adds to the launch table. Everything downstream (analyze,
//! reports, predict, diff) uses these constants. Units: base units, ratios in 0–1.
//! `docs/report-columns.md` documents each one; keep the two in step.

// Occupancy (`occupancy.rs`).
/// Threads per block (block_x × block_y × block_z).
pub const THREADS_PER_BLOCK: &str = "threads_per_block";
/// Warps per block (partial warps count whole).
pub const WARPS_PER_BLOCK: &str = "warps_per_block";
/// Total blocks in the grid.
pub const GRID_BLOCKS: &str = "grid_blocks";
/// Registers allocated per warp (after the allocation unit).
pub const REGS_PER_WARP: &str = "regs_per_warp";
/// Shared memory allocated per block, bytes (static + dynamic + reserved, rounded to the unit).
pub const SMEM_PER_BLOCK: &str = "smem_alloc_per_block";
/// SM shared-memory capacity (carveout) used for the shared-memory limit, bytes.
pub const SMEM_CAPACITY: &str = "smem_capacity";
/// Where `smem_capacity` came from: `export` (ncu's Shared Memory Configuration Size / nsys
/// sharedMemoryExecuted), `policy` (the maximum carveout, documented in docs/model.md),
/// `preference` (a carveout percentage given to `warpsight occupancy`) or `fixed` (CC < 7.0, where
/// the capacity cannot be configured).
pub const SMEM_CAPACITY_SOURCE: &str = "smem_capacity_source";
/// Block limit by registers (null = unlimited).
pub const LIMIT_REGISTERS: &str = "limit_registers";
/// Block limit by shared memory (null = unlimited).
pub const LIMIT_SHARED_MEM: &str = "limit_shared_mem";
/// Block limit by warps.
pub const LIMIT_WARPS: &str = "limit_warps";
/// Block limit by block slots.
pub const LIMIT_BLOCKS: &str = "limit_blocks";
/// Block limit by named barriers (null below CC 9.0).
pub const LIMIT_BARRIERS: &str = "limit_barriers";
/// Active blocks per SM.
pub const ACTIVE_BLOCKS: &str = "active_blocks_per_sm";
/// Active warps per SM.
pub const ACTIVE_WARPS: &str = "active_warps_per_sm";
/// Theoretical occupancy, 0–1.
pub const THEORETICAL_OCCUPANCY: &str = "theoretical_occupancy";
/// The limiting factor(s), `+`-joined in the order registers, shared_memory, warps, blocks,
/// barriers (e.g. `warps+blocks`).
pub const LIMITER: &str = "limiter";
/// Why the launch cannot run as configured (null when it can), e.g. "block of 2048 threads > 1024".
pub const NOT_LAUNCHABLE: &str = "not_launchable";

// Little's law (`littles_law.rs`).
/// Warps per SM needed to hide the FP32 ALU latency without ILP.
pub const WARPS_NEEDED_ALU: &str = "warps_needed_alu";
/// Warps per SM needed to hide the ALU latency given the estimated ILP.
pub const WARPS_NEEDED_ALU_ILP: &str = "warps_needed_alu_ilp";
/// Estimated instruction-level parallelism (1 when the counters do not allow an estimate).
pub const ILP_ESTIMATE: &str = "ilp_estimate";
/// Bytes in flight per SM needed to saturate DRAM (DRAM latency × bandwidth per SM).
pub const BYTES_IN_FLIGHT_NEEDED: &str = "bytes_in_flight_needed";
/// Bytes in flight per SM the launch provides (active warps × bytes per warp-load estimate).
pub const BYTES_IN_FLIGHT_PROVIDED: &str = "bytes_in_flight_provided";
/// Latency-hiding ratio: provided / needed parallelism (min over ALU and memory), capped at 1.
pub const LATENCY_HIDING: &str = "latency_hiding";
/// True when the launch cannot hide latency (ratio below 1 on the binding side).
pub const LATENCY_BOUND: &str = "latency_bound";

// Roofline (`roofline.rs`).
/// FP64 FLOP (2·dfma + dadd + dmul).
pub const FLOP_FP64: &str = "flop_fp64";
/// FP32 FLOP (2·ffma + fadd + fmul).
pub const FLOP_FP32: &str = "flop_fp32";
/// FP16 FLOP (2·hfma + hadd + hmul).
pub const FLOP_FP16: &str = "flop_fp16";
/// Tensor FLOP (tensor instructions × FLOP per instruction).
pub const FLOP_TENSOR: &str = "flop_tensor";
/// Sum of all FLOP.
pub const FLOP_TOTAL: &str = "flop_total";
/// DRAM bytes (read + write).
pub const DRAM_BYTES: &str = "dram_bytes";
/// Arithmetic intensity at DRAM, FLOP/byte.
pub const AI_DRAM: &str = "ai_dram";
/// Arithmetic intensity at L2, FLOP/byte.
pub const AI_L2: &str = "ai_l2";
/// Arithmetic intensity at L1, FLOP/byte.
pub const AI_L1: &str = "ai_l1";
/// The binding ceiling, e.g. `dram`, `l2`, `l1`, `fp32`, `fp64`, `fp16`, `tensor`.
pub const BINDING_CEILING: &str = "binding_ceiling";
/// Attainable FLOP/s under the binding ceiling.
pub const ATTAINABLE_FLOPS: &str = "attainable_flops";
/// Compute ceiling for this launch's instruction mix, FLOP/s: total FLOP over the time the mix
/// takes at each precision's peak (equals the single peak when one precision is used).
pub const COMPUTE_CEILING: &str = "compute_ceiling_flops";
/// Ridge point at DRAM, FLOP/byte: compute ceiling / DRAM bandwidth.
pub const RIDGE_AI_DRAM: &str = "ridge_ai_dram";
/// Achieved FLOP/s (FLOP / measured duration).
pub const ACHIEVED_FLOPS: &str = "achieved_flops";
/// Achieved performance as a fraction of the binding roof, 0–1.
pub const PCT_OF_ROOF: &str = "pct_of_roof";

// Waves (`waves.rs`).
/// Blocks per full wave (active blocks per SM × SMs).
pub const BLOCKS_PER_WAVE: &str = "blocks_per_wave";
/// Waves (grid blocks / blocks per wave, fractional).
pub const WAVES: &str = "waves";
/// Tail efficiency: waves / ceil(waves), 0–1.
pub const TAIL_EFFICIENCY: &str = "tail_efficiency";

/// The resource that sets the predicted time (`fma`, `fp64`, `fp16`, `dram`, `l1`, `shared`,
/// `uncoalesced_global`, `l2`, `l2_requests`, `blocks`, `occupancy`, `latency`,
/// `launch_overhead`, `issue`, `alu`, `xu`, `tensor_hmma`, `tensor_gmma`, …); null without
/// counters.
pub const BOTTLENECK: &str = "bottleneck";
/// The number behind the bottleneck, in words (e.g. "shared-memory bank conflicts: 17.0
/// wavefronts per shared instruction").
pub const BOTTLENECK_DETAIL: &str = "bottleneck_detail";
/// The largest throughput term of the time model, ns.
pub(crate) const THROUGHPUT_TIME_NS: &str = "throughput_time_ns";
/// The latency term of the time model (Little's law), ns.
pub(crate) const LATENCY_TIME_NS: &str = "latency_time_ns";
// Predicted time (`predicted_time.rs`).
/// The bottleneck: `compute`, `memory-dram`, `memory-l2`, `memory-l1`, `latency`, `tail`,
/// `launch-overhead`, or `unknown` when counters are missing.
pub const BOUND: &str = "bound";
/// Predicted duration, ns.
pub const PREDICTED_NS: &str = "predicted_ns";
/// (predicted − measured) / measured, when a measured duration exists.
pub const PREDICTION_ERROR: &str = "prediction_error";
/// How `predicted_ns` was obtained: `model` (the model's own time) or `measured-scaled`
/// (cross-device: measured × predicted_target / predicted_source); null when there is none.
pub const PREDICTION_METHOD: &str = "prediction_method";
/// The SM clock the launch is modelled at, Hz (docs/model.md §6, "Clock").
pub const MODEL_SM_CLOCK_HZ: &str = "model_sm_clock_hz";
/// Where [`MODEL_SM_CLOCK_HZ`] came from: `export` (ncu's SM frequency reading), `base (ncu
/// locked the clocks)`, `boost (the export has no clock)`, `base`, `boost`, `boost (target
/// device)`, `base (target device)` or `fixed (--sm-clock)`.
pub const MODEL_SM_CLOCK_SOURCE: &str = "model_sm_clock_source";
/// The device whose parameters were used (the launch's own, or `--device`/`--on`); null when no
/// registry device matched (the architecture alone was used).
pub const MODEL_DEVICE: &str = "model_device";
/// Why the launch is not (fully) modelled, e.g. an unknown compute capability or device; null
/// when every input was found.
pub const MODEL_REASON: &str = "model_reason";
