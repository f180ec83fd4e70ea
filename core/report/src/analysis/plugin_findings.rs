//! The findings of the plugins' rules hooks: each hook runs on the launches of one input file, and
//! what it returns becomes [`Finding`]s labelled `plugin:<name>`, on the kernel of the launch named.

use std::sync::Arc;

use polars::prelude::*;

use super::findings::{self, Finding, Severity};
use super::load::Loaded;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_plugin_host::{FindingSeverity, RulesHook};

/// Runs every plugin rules hook on the launches of each input file (launch ids are per file). A
/// hook that fails is reported in the log and skipped: one plugin never stops the analysis.
pub(super) fn plugin_findings(loaded: &Loaded, hooks: &[RulesHook]) -> PolarsResult<Vec<Finding>> {
    let mut out = Vec::new();
    if hooks.is_empty() || loaded.launches.height() == 0 {
        return Ok(out);
    }
    for file in &loaded.files {
        let name = file.display().to_string();
        let launches = loaded
            .launches
            .clone()
            .lazy()
            .filter(col(lt::SOURCE_FILE).eq(lit(name.clone())))
            .collect()?;
        if launches.height() == 0 {
            continue;
        }
        let mut found = Vec::new();
        for hook in hooks {
            match hook.run(&launches) {
                Ok(list) => found.extend(list),
                Err(err) => tracing::warn!(
                    "plugin {} rules hook failed on {name}: {err}",
                    hook.plugin()
                ),
            }
        }
        if found.is_empty() {
            continue;
        }
        // The kernel of each launch a hook named (its first row), looked up for those launches
        // only.
        let mut ids: Vec<i64> = found.iter().map(|f| f.launch_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let named = launches
            .lazy()
            .select([col(lt::LAUNCH_ID), col(lt::KERNEL_NAME)])
            .filter(
                col(lt::LAUNCH_ID).is_in(lit(Series::new("ids".into(), ids)).implode(false), false),
            )
            .unique_stable(Some(cols([lt::LAUNCH_ID])), UniqueKeepStrategy::First)
            .collect()?;
        let mut cells = super::frame_access::Cells::new(&named);
        let mut pool = findings::TextPool::default();
        let mut kernels: PlHashMap<i64, Arc<str>> = PlHashMap::with_capacity(named.height());
        for row in 0..named.height() {
            if let Some(id) = cells.i64(lt::LAUNCH_ID, row) {
                kernels.insert(
                    id,
                    pool.get(cells.text(lt::KERNEL_NAME, row).unwrap_or_default()),
                );
            }
        }
        let file = pool.get(&name);
        out.extend(found.into_iter().map(|f| {
            Finding {
                file: Arc::clone(&file),
                launch_id: Some(f.launch_id),
                kernel: kernels
                    .get(&f.launch_id)
                    .cloned()
                    .unwrap_or_else(|| pool.get("")),
                source: pool.get(&format!("plugin:{}", f.plugin)),
                rule_id: pool.get(&f.rule_id),
                severity: match f.severity {
                    FindingSeverity::Info => Severity::Info,
                    FindingSeverity::Warning | FindingSeverity::Severe => Severity::Warning,
                },
                message: f.message,
                estimated_speedup: None,
                time_share: None,
                launches: 1,
                launch_order: None,
            }
        }));
    }
    Ok(out)
}
