//! Per-pipe instruction counts from the per-opcode counts, for exports without ncu's pipe
//! counters (issue #23: "any full-set export, any ncu version").
//!
//! A `--set full` report of an older ncu, or of another architecture, has no
//! `sm__inst_executed_pipe_<p>.sum`, but its `sass__inst_executed_per_opcode` instances (the
//! ingest's `sass__inst_executed_per_opcode[OPCODE]` columns) count the warp instructions of every
//! SASS opcode. The plugin of the launch's architecture says which pipe executes each opcode
//! (`ArchSpec::sass_pipes`, ABI minor 3); summing the counts by pipe gives the pipe counters'
//! values. The table of the launch's **own** compute capability is used, also when the launch is
//! modelled on another device: the opcodes are those of the binary that ran. Opcodes the table
//! does not list count only in the total instructions.

use polars::prelude::*;
use warpsight_ingest::launch_table::{self as lt, column_names as ltc};

use crate::arch::Registry;
use warpsight_plugin::Pipe;

/// The internal column holding a pipe's count from the opcodes (`pipe` is ncu's suffix, e.g.
/// `fma`, `tensor_op_hmma`).
pub fn pipe_column(pipe: &str) -> String {
    format!("__s_pipe_{pipe}")
}

/// Adds [`pipe_column`] for every pipe that some architecture's table maps an opcode of the frame
/// to: per launch, the sum of its opcode columns of that pipe under the table of its compute
/// capability (0 when the launch has opcode counts but none of that pipe, null when it has none or
/// its architecture has no table). A frame without opcode columns is returned unchanged.
pub fn add_columns(frame: LazyFrame, registry: &Registry) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let opcodes: Vec<(&str, &str)> = schema
        .iter_names()
        .filter_map(|name| lt::sass_opcode_of_column(name).map(|op| (name.as_str(), op)))
        .collect();
    if opcodes.is_empty() {
        return Ok(frame);
    }
    let has_counts = opcodes
        .iter()
        .map(|(name, _)| col(*name).is_not_null())
        .reduce(|a, b| a.or(b))
        .unwrap_or(lit(false));
    // Per architecture with a table: the frame's opcode columns of each pipe (one lookup per
    // architecture and opcode).
    let by_arch: Vec<(Expr, [Vec<&str>; Pipe::ALL.len()])> = registry
        .archs
        .iter()
        .map(|(arch, _)| arch)
        .filter(|arch| !arch.sass_pipes.is_empty())
        .map(|arch| {
            let mut columns: [Vec<&str>; Pipe::ALL.len()] = Default::default();
            for (name, opcode) in &opcodes {
                if let Some(pipe) = arch.sass_pipe(opcode) {
                    columns[pipe.code() as usize].push(name);
                }
            }
            let this_arch = col(ltc::CC_MAJOR)
                .eq(lit(i64::from(arch.cc.major)))
                .and(col(ltc::CC_MINOR).eq(lit(i64::from(arch.cc.minor))));
            (this_arch, columns)
        })
        .collect();
    let mut exprs = Vec::new();
    for pipe in Pipe::ALL {
        let index = pipe.code() as usize;
        if by_arch.iter().all(|(_, columns)| columns[index].is_empty()) {
            continue;
        }
        let expr = by_arch.iter().fold(
            lit(NULL).cast(DataType::Float64),
            |rest, (this_arch, columns)| {
                let sum = columns[index]
                    .iter()
                    .map(|name| col(*name).cast(DataType::Float64).fill_null(lit(0.0)))
                    .reduce(|a, b| a + b)
                    .unwrap_or(lit(0.0));
                when(this_arch.clone().and(has_counts.clone()))
                    .then(sum)
                    .otherwise(rest)
            },
        );
        exprs.push(expr.alias(pipe_column(pipe.ncu_name())));
    }
    Ok(frame.with_columns(exprs))
}
