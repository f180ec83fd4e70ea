//! Which ncu pipe executes each SASS opcode on Pascal (`ArchSpec::sass_pipes`, ABI minor 3): no
//! table. ncu's per-pipe instruction counters (`sm__inst_executed_pipe_<pipe>.sum`) start with
//! Volta (CC 7.0), and no export of this family with per-opcode counts
//! (`sass__inst_executed_per_opcode`) and pipe counters is known to check a table against, so the
//! table is left empty on purpose: the model then counts every opcode only in the total
//! instructions.

use warpsight_plugin::Pipe;

/// The family's SASS opcode → ncu pipe table: empty (see the module documentation).
pub(crate) fn table() -> Vec<(String, Pipe)> {
    Vec::new()
}
