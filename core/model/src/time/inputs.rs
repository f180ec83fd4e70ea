//! The time model's inputs: which launch-table column (or native ncu metric column) each one is,
//! with the documented fallbacks when an export lacks it (docs/model-v2/SPEC.md §1.1).
//!
//! Only counts, launch configuration and ratios of counts are read. Nothing derived from the
//! launch's measured time is (`gpu__time_duration`, cycles elapsed or active, per-second rates,
//! percentages of peak, IPC, achieved occupancy): a same-device prediction stays independent of
//! the duration it predicts.

use polars::prelude::*;

use crate::empty_columns::EmptyColumns;
use warpsight_ingest::launch_table::column_names as lt;

/// The ncu pipes the model reads by their counter `sm__inst_executed_pipe_<pipe>.sum`.
pub(crate) const PIPES: &[&str] = &[
    "adu",
    "alu",
    "cbu",
    "fma",
    "fma_type_fp16",
    "fp64",
    "ipa",
    "lsu",
    "tensor_op_dmma",
    "tensor_op_gmma",
    "tensor_op_hmma",
    "tensor_op_imma",
    "tex",
    "tma",
    "uniform",
    "xu",
];

/// The native name of a pipe's instruction counter.
pub(crate) fn pipe_metric(pipe: &str) -> String {
    format!("sm__inst_executed_pipe_{pipe}.sum")
}

/// The wgmma FLOP counters by source type (full set), with the key of their rate.
pub(crate) const TENSOR_OPS: &[(&str, &str)] = &[
    ("sm__ops_path_tensor_src_fp16.sum", "fp16"),
    ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "bf16"),
    ("sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tf32"),
    ("sm__ops_path_tensor_src_fp8_sparsity_off.sum", "fp8"),
    ("sm__ops_path_tensor_src_int8.sum", "int8"),
    ("sm__ops_path_tensor_src_fp64.sum", "fp64"),
];

/// ncu's thread-level FP32, FP64 and FP16 instruction counts (`smsp__sass_thread_inst_executed_op_*`).
const THREAD_LEVEL_FP: [&str; 9] = [
    lt::INST_FADD,
    lt::INST_FMUL,
    lt::INST_FFMA,
    lt::INST_DADD,
    lt::INST_DMUL,
    lt::INST_DFMA,
    lt::INST_HADD,
    lt::INST_HMUL,
    lt::INST_HFMA,
];

/// Warp-level instructions issued, the fallback when executed instructions are missing.
pub(crate) const INST_ISSUED: &str = "smsp__inst_issued.sum";
/// Warps launched.
pub(crate) const WARPS_LAUNCHED: &str = "sm__warps_launched.sum";
/// Warp-level instructions executed as ncu before 2020 names them.
pub(crate) const INST_EXECUTED_OLD: &str = "inst_executed";
/// Executed warp instructions on the details page of the full set.
pub(crate) const INST_EXECUTED_LABEL: &str = "Instruction Statistics/Executed Instructions";
/// The total of the per-opcode instruction counts (the same count as executed instructions).
pub(crate) const SASS_INST_EXECUTED: &str = "sass__inst_executed_per_opcode";
/// L2 sectors of every source (× 32 B: the L2 bytes).
pub(crate) const L2_SECTORS: &str = "lts__t_sectors.sum";
/// L1TEX sectors (× 32 B: the L1 bytes).
pub(crate) const L1_SECTORS: &str = "l1tex__t_sectors.sum";
/// L1TEX ↔ L2 sectors of global and local loads and stores (older ncu's memory chart).
pub(crate) const L1_L2_SECTORS: &[&str] = &[
    "l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum",
    "l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum",
];
/// DRAM sectors read (× 32 B).
pub(crate) const DRAM_SECTORS_READ: &str = "dram__sectors_read.sum";
/// DRAM sectors written (× 32 B).
pub(crate) const DRAM_SECTORS_WRITE: &str = "dram__sectors_write.sum";
/// Branch instructions (loop trips = branches − CBU instructions).
pub(crate) const BRANCHES: &str = "smsp__inst_executed_op_branch.sum";
/// The same on the details page of the full set.
pub(crate) const BRANCHES_LABEL: &str = "Source Counters/Branch Instructions";
/// L1 sector hit rate (a ratio of counts; 0–1 after ingest).
pub(crate) const L1_HIT_RATE: &str = "l1tex__t_sector_hit_rate.pct";
/// The same on the details page of the full set.
pub(crate) const L1_HIT_RATE_LABEL: &str = "Memory Workload Analysis/L1/TEX Hit Rate";
/// Shared-memory wavefronts, including bank-conflict replays.
pub(crate) const SHARED_WAVEFRONTS: &str = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";
/// Global and local wavefronts of the L1TEX data stage.
pub(crate) const GLOBAL_WAVEFRONTS: &[&str] = &[
    "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_local_op_st.sum",
];
/// Shared-memory load and store instructions.
pub(crate) const SHARED_INST: &[&str] = &[
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
];
/// Global and local load instructions.
pub(crate) const LOAD_INST: &[&str] = &[
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_local_ld.sum",
];
/// L1 sectors of global loads.
pub(crate) const LOAD_SECTORS: &str = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
/// L1 hit rate of global-load sectors (0–1 after ingest).
pub(crate) const LOAD_HIT_RATE: &str = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct";
/// L1 sectors of global loads and stores.
pub(crate) const GLOBAL_SECTORS: &[&str] = &[
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
];
/// L1 requests of global loads and stores.
pub(crate) const GLOBAL_REQUESTS: &[&str] = &[
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
];
/// L2 tag requests from every source.
pub(crate) const L2_REQUESTS: &str = "lts__t_requests.sum";
/// L2 sectors requested by L1TEX.
pub(crate) const L2_TEX_SECTORS: &str = "lts__t_sectors_srcunit_tex.sum";
/// `cp.async` (LDGSTS) instructions.
pub(crate) const LDGSTS: &str = "smsp__inst_executed_op_ldgsts.sum";

/// Reads launch-frame columns as `Float64`, giving null for columns the export does not have.
pub(crate) struct Inputs {
    schema: SchemaRef,
    /// Columns of the schema known to be null on every row, planned as absent.
    empty: EmptyColumns,
}

impl Inputs {
    /// Inputs over a frame with this schema whose `empty` columns are null on every row: they
    /// are planned as absent, which gives the same values with a smaller plan
    /// ([`crate::empty_columns`]).
    pub(crate) fn planned_without(schema: SchemaRef, empty: EmptyColumns) -> Self {
        Inputs { schema, empty }
    }

    /// Whether the export has the column with a value on some row (as far as is known when
    /// planning).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.schema.contains(name) && !self.empty.contains(name)
    }

    /// The column as `Float64`, or null when the export lacks it.
    pub(crate) fn get(&self, name: &str) -> Expr {
        if self.has(name) {
            col(name).cast(DataType::Float64)
        } else {
            lit(NULL).cast(DataType::Float64)
        }
    }

    /// The first of the columns the export has a value in (raw-page name, then details label).
    pub(crate) fn first(&self, names: &[&str]) -> Expr {
        names
            .iter()
            .map(|n| self.get(n))
            .reduce(|a, b| a.fill_null(b))
            .unwrap_or(lit(NULL).cast(DataType::Float64))
    }

    /// The column, 0 where it is missing or null (SPEC's `g(c)`).
    pub(crate) fn or_zero(&self, name: &str) -> Expr {
        self.get(name).fill_null(lit(0.0))
    }

    /// The sum of the columns that exist (missing ones count 0); null when none exists or all
    /// are null on the row.
    pub(crate) fn sum(&self, names: &[&str]) -> Expr {
        let present: Vec<&str> = names.iter().copied().filter(|n| self.has(n)).collect();
        if present.is_empty() {
            return lit(NULL).cast(DataType::Float64);
        }
        let any = present
            .iter()
            .map(|n| col(*n).is_not_null())
            .reduce(|a, b| a.or(b))
            .unwrap_or(lit(false));
        let total = present
            .iter()
            .map(|n| self.or_zero(n))
            .reduce(|a, b| a + b)
            .unwrap_or(lit(0.0));
        when(any)
            .then(total)
            .otherwise(lit(NULL).cast(DataType::Float64))
    }

    /// Warp-level instructions executed; else issued; else an older ncu's `inst_executed`; else
    /// the total of the per-opcode counts (`sass__inst_executed_per_opcode`, the same count).
    pub(crate) fn instructions(&self) -> Expr {
        self.get(lt::INST_EXECUTED)
            .fill_null(self.get(INST_ISSUED))
            .fill_null(self.get(INST_EXECUTED_OLD))
            .fill_null(self.get(SASS_INST_EXECUTED))
            .fill_null(self.get(INST_EXECUTED_LABEL))
    }

    /// Per launch: whether an instruction count is known: all instructions, a pipe's counter, the
    /// per-opcode counts or ncu's thread-level FP32/FP64/FP16 counts.
    pub(crate) fn any_instruction_count(&self) -> Expr {
        PIPES
            .iter()
            .map(|p| self.get(&pipe_metric(p)))
            .chain(THREAD_LEVEL_FP.iter().map(|c| self.get(c)))
            .chain([self.instructions()])
            .map(|e| e.is_not_null())
            .reduce(|a, b| a.or(b))
            .unwrap_or(lit(false))
    }

    /// Per launch: whether a byte or sector count of some memory level (DRAM, L2, L1) is known.
    pub(crate) fn any_memory_count(&self) -> Expr {
        [
            self.dram_read(),
            self.dram_write(),
            self.l2_bytes(),
            self.l1_bytes(),
            self.get(L2_TEX_SECTORS),
        ]
        .into_iter()
        .map(|e| e.is_not_null())
        .reduce(|a, b| a.or(b))
        .unwrap_or(lit(false))
    }

    /// L2 bytes (`lts__t_bytes`); else L2 sectors × 32 B (`lts__t_sectors.sum`, in every ncu
    /// version's full set); else the L1TEX ↔ L2 sectors of global and local accesses × 32 B
    /// (`l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld` + `l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st`,
    /// the Memory Workload Analysis chart of older ncu versions: the L2 traffic of the SMs' loads
    /// and stores, without other units').
    pub(crate) fn l2_bytes(&self) -> Expr {
        self.get(lt::L2_BYTES)
            .fill_null(self.get(L2_SECTORS) * lit(32.0))
            .fill_null(self.sum(L1_L2_SECTORS) * lit(32.0))
    }

    /// L1TEX bytes (`l1tex__t_bytes`); else L1TEX sectors × 32 B (`l1tex__t_sectors.sum`); else
    /// the global load and store sectors × 32 B.
    pub(crate) fn l1_bytes(&self) -> Expr {
        self.get(lt::L1_BYTES)
            .fill_null(self.get(L1_SECTORS) * lit(32.0))
            .fill_null(self.sum(GLOBAL_SECTORS) * lit(32.0))
    }

    /// DRAM bytes read (`dram__bytes_read.sum`), else DRAM read sectors × 32 B
    /// (`dram__sectors_read.sum`).
    pub(crate) fn dram_read(&self) -> Expr {
        self.get(lt::DRAM_BYTES_READ)
            .fill_null(self.get(DRAM_SECTORS_READ) * lit(32.0))
    }

    /// DRAM bytes written, else DRAM write sectors × 32 B.
    pub(crate) fn dram_write(&self) -> Expr {
        self.get(lt::DRAM_BYTES_WRITE)
            .fill_null(self.get(DRAM_SECTORS_WRITE) * lit(32.0))
    }

    /// A pipe's instruction count, 0 when missing. Without the pipe counters (exports that
    /// predate them, or made without the kit's `--metrics`), the FP32, FP64 and FP16 pipes fall
    /// back to the thread-level instruction counts of ncu's `smsp__sass_thread_inst_executed_op_*`
    /// divided by 32: the warp instructions of full warps (a lower bound when warps are partial).
    ///
    /// Per launch, the first of: ncu's pipe counter; the per-opcode counts summed by the plugin's
    /// opcode → pipe table ([`super::sass_pipes`]); the thread-level counts / 32; 0.
    pub(crate) fn pipe(&self, pipe: &str) -> Expr {
        let metric = pipe_metric(pipe);
        let thread_level: &[&str] = match pipe {
            "fma" => &[lt::INST_FADD, lt::INST_FMUL, lt::INST_FFMA],
            "fp64" => &[lt::INST_DADD, lt::INST_DMUL, lt::INST_DFMA],
            "fma_type_fp16" => &[lt::INST_HADD, lt::INST_HMUL, lt::INST_HFMA],
            _ => &[],
        };
        self.get(&metric)
            .fill_null(self.get(&super::sass_pipes::pipe_column(pipe)))
            .fill_null(self.sum(thread_level) / lit(32.0))
            .fill_null(lit(0.0))
    }

    /// The counter columns the time model can predict from that the export has: instructions, a
    /// pipe's instructions (or the thread-level FLOP instruction counts), or bytes at a memory
    /// level. (`dram_bytes`, which the roofline stage always adds, counts only where the export
    /// has DRAM counters behind it, so it is not listed.)
    fn counter_columns(&self) -> Vec<String> {
        [
            lt::INST_EXECUTED,
            INST_ISSUED,
            lt::DRAM_BYTES_READ,
            lt::DRAM_BYTES_WRITE,
            lt::L2_BYTES,
            lt::L1_BYTES,
            INST_EXECUTED_OLD,
            SASS_INST_EXECUTED,
            L2_SECTORS,
            L1_SECTORS,
            DRAM_SECTORS_READ,
            DRAM_SECTORS_WRITE,
        ]
        .iter()
        .chain(THREAD_LEVEL_FP.iter())
        .map(|n| n.to_string())
        .chain(PIPES.iter().map(|p| pipe_metric(p)))
        .filter(|n| self.has(n))
        .collect()
    }

    /// Whether the export has any counter column at all (a schema-level check: without one, the
    /// time stage adds null columns and computes nothing per launch).
    pub(crate) fn has_any_counter_column(&self) -> bool {
        !self.counter_columns().is_empty()
    }

    /// Whether the export has a column that [`Inputs::any_instruction_count`] reads. Without one,
    /// that expression is a null literal tested for null on every launch (false), so no launch
    /// can get a prediction (a schema-level check, like [`Inputs::has_any_counter_column`]).
    pub(crate) fn has_any_instruction_column(&self) -> bool {
        reads_a_column(&self.any_instruction_count())
    }

    /// Whether the export has a column that [`Inputs::any_memory_count`] reads (see
    /// [`Inputs::has_any_instruction_column`]).
    pub(crate) fn has_any_memory_column(&self) -> bool {
        reads_a_column(&self.any_memory_count())
    }

    /// Per launch: whether any counter column has a value.
    pub(crate) fn any_counter(&self) -> Expr {
        self.counter_columns()
            .iter()
            .map(|n| col(n.as_str()).is_not_null())
            .reduce(|a, b| a.or(b))
            .unwrap_or(lit(false))
    }
}

/// Whether `expr` reads any column. [`Inputs::get`] puts a typed null literal where the export
/// lacks a column, so an expression of the inputs that reads none is the same on every launch.
fn reads_a_column(expr: &Expr) -> bool {
    expr.into_iter().any(|node| matches!(node, Expr::Column(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A conformed frame's instruction count that is null on every launch is planned as absent:
    /// no expression reads it, and the time model can tell that no launch has an instruction
    /// count. Its values are those of the column read as it is.
    #[test]
    fn a_counter_null_on_every_row_is_planned_as_absent_with_the_same_values() -> PolarsResult<()> {
        let frame = df!(
            lt::INST_EXECUTED => [None::<f64>, None],
            lt::DRAM_BYTES_READ => [Some(64.0), None],
        )?;
        let schema = frame.schema().clone();
        let general = Inputs::planned_without(schema.clone(), EmptyColumns::none());
        let planned = Inputs::planned_without(schema, EmptyColumns::of(&frame));
        assert!(general.has(lt::INST_EXECUTED));
        assert!(!planned.has(lt::INST_EXECUTED));
        assert!(planned.has(lt::DRAM_BYTES_READ));
        assert!(general.has_any_instruction_column());
        assert!(!planned.has_any_instruction_column());
        assert!(!reads_a_column(&planned.instructions()));
        assert!(planned.has_any_memory_column());
        let values = |inputs: &Inputs| -> PolarsResult<DataFrame> {
            frame
                .clone()
                .lazy()
                .select([
                    inputs.instructions().alias("instructions"),
                    inputs.any_instruction_count().alias("any_instructions"),
                    inputs.any_memory_count().alias("any_memory"),
                    inputs.dram_read().alias("dram_read"),
                ])
                .collect()
        };
        let (general, planned) = (values(&general)?, values(&planned)?);
        assert!(general.equals_missing(&planned), "{general} vs {planned}");
        assert_eq!(
            planned
                .column("any_memory")?
                .bool()?
                .iter()
                .collect::<Vec<_>>(),
            [Some(true), Some(false)]
        );
        Ok(())
    }
}
