//! The host side of a plugin's rules hook: passes a frame of launches to the plugin through the
//! Arrow C Data Interface, copies the findings out, checks them (known launch ids, severity in
//! range, UTF-8) and hands the plugin's array back to its free function.

use std::collections::HashSet;
use std::sync::Arc;

use libloading::Library;
use polars::prelude::{CompatLevel, DataFrame};
use polars_arrow::array::{Array, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use warpsight_plugin::{
    Findings, FreeFindingsFn, RulesFn, SEVERITY_INFO, SEVERITY_SEVERE, SEVERITY_WARNING, STATUS_OK,
    STATUS_PANIC,
};

use crate::convert::copy_str;
use crate::error_buffer::HostErrorBuffer;
use crate::errors::PluginError;
use warpsight_ingest::launch_table::column_names as lt;

/// How serious a plugin finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FindingSeverity {
    /// Information.
    Info,
    /// A likely performance problem.
    Warning,
    /// The launch is dominated by the problem.
    Severe,
}

/// One checked finding of a plugin's rules hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFinding {
    /// The plugin that produced it.
    pub plugin: String,
    /// The launch it is about (a `launch_id` of the frame passed in).
    pub launch_id: i64,
    /// The rule's identifier.
    pub rule_id: String,
    /// Severity.
    pub severity: FindingSeverity,
    /// Message.
    pub message: String,
}

/// A plugin's rules hook together with the library that must stay loaded while it is used.
#[derive(Clone)]
pub struct RulesHook {
    plugin: String,
    _library: Arc<Library>,
    rules: RulesFn,
    free: FreeFindingsFn,
}

impl std::fmt::Debug for RulesHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RulesHook")
            .field("plugin", &self.plugin)
            .finish_non_exhaustive()
    }
}

/// The frame as one Arrow struct array (one child per column), exported to the C interface.
fn export_frame(
    launches: &DataFrame,
) -> Result<
    (
        polars_arrow::ffi::ArrowArray,
        polars_arrow::ffi::ArrowSchema,
    ),
    PluginError,
> {
    let mut fields = Vec::with_capacity(launches.width());
    let mut values: Vec<Box<dyn Array>> = Vec::with_capacity(launches.width());
    for column in launches.columns() {
        let series = column.as_materialized_series().rechunk();
        let field = series.field().to_arrow(CompatLevel::oldest());
        let array = if series.is_empty() {
            polars_arrow::array::new_empty_array(field.dtype.clone())
        } else {
            series.to_arrow(0, CompatLevel::oldest())
        };
        fields.push(field);
        values.push(array);
    }
    let dtype = ArrowDataType::Struct(fields);
    let array = StructArray::try_new(dtype.clone(), launches.height(), values, None)
        .map_err(|e| PluginError::Export(e.to_string()))?;
    let schema =
        polars_arrow::ffi::export_field_to_c(&ArrowField::new("launches".into(), dtype, false));
    Ok((
        polars_arrow::ffi::export_array_to_c(Box::new(array)),
        schema,
    ))
}

impl RulesHook {
    /// Wraps a plugin's hook functions.
    pub(crate) fn new(
        plugin: String,
        library: Arc<Library>,
        rules: RulesFn,
        free: FreeFindingsFn,
    ) -> Self {
        RulesHook {
            plugin,
            _library: library,
            rules,
            free,
        }
    }

    /// The plugin's name.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// Runs the hook on `launches` (launch-table columns) and returns its checked findings.
    pub fn run(&self, launches: &DataFrame) -> Result<Vec<PluginFinding>, PluginError> {
        let known: HashSet<i64> = match launches.column(lt::LAUNCH_ID) {
            Ok(ids) => ids
                .as_materialized_series()
                .cast(&polars::prelude::DataType::Int64)
                .map_err(|e| PluginError::Export(e.to_string()))?
                .i64()
                .map_err(|e| PluginError::Export(e.to_string()))?
                .iter()
                .flatten()
                .collect(),
            Err(_) => HashSet::new(),
        };
        let (array, schema) = export_frame(launches)?;
        let mut findings = Findings::EMPTY;
        let mut error = HostErrorBuffer::new();
        // SAFETY: polars' ArrowArray/ArrowSchema are the C Data Interface structs, the same layout
        // as the ABI's; they stay alive (and owned by us) for the whole call. The plugin catches its
        // panics.
        let status = unsafe {
            (self.rules)(
                std::ptr::addr_of!(array).cast(),
                std::ptr::addr_of!(schema).cast(),
                &mut findings,
                &mut error.raw,
            )
        };
        drop(array);
        drop(schema);
        if status == STATUS_PANIC {
            return Err(PluginError::HookPanicked {
                plugin: self.plugin.clone(),
                message: error.message(),
            });
        }
        if status != STATUS_OK {
            return Err(PluginError::HookFailed {
                plugin: self.plugin.clone(),
                status,
                message: error.message(),
            });
        }
        let result = self.copy_findings(&findings, &known);
        // SAFETY: `findings` came from this plugin's hook and is freed exactly once, here.
        unsafe { (self.free)(&mut findings) };
        result
    }

    /// Copies and checks the plugin's findings (before they are freed).
    fn copy_findings(
        &self,
        findings: &Findings,
        known: &HashSet<i64>,
    ) -> Result<Vec<PluginFinding>, PluginError> {
        let invalid = |message: String| PluginError::InvalidFindings {
            plugin: self.plugin.clone(),
            message,
        };
        // SAFETY: the plugin returned `len` findings at `ptr`, valid until freed.
        let raw =
            unsafe { crate::convert::copy_array(findings.ptr, findings.len, "the findings") }?;
        let mut out = Vec::with_capacity(raw.len());
        for (i, finding) in raw.iter().enumerate() {
            if !known.contains(&finding.launch_id) {
                return Err(invalid(format!(
                    "finding #{i} names launch_id {}, which is not in the batch",
                    finding.launch_id
                )));
            }
            let severity = match finding.severity {
                SEVERITY_INFO => FindingSeverity::Info,
                SEVERITY_WARNING => FindingSeverity::Warning,
                SEVERITY_SEVERE => FindingSeverity::Severe,
                other => {
                    return Err(invalid(format!(
                        "finding #{i} has severity {other}; expected 0, 1 or 2"
                    )));
                }
            };
            // SAFETY: the strings live in plugin memory until the findings are freed.
            let rule_id =
                unsafe { copy_str(finding.rule_id, || format!("the rule id of finding #{i}")) }
                    .map_err(|e| invalid(e.to_string()))?;
            // SAFETY: as above.
            let message =
                unsafe { copy_str(finding.message, || format!("the message of finding #{i}")) }
                    .map_err(|e| invalid(e.to_string()))?;
            if rule_id.is_empty() {
                return Err(invalid(format!("finding #{i} has an empty rule id")));
            }
            out.push(PluginFinding {
                plugin: self.plugin.clone(),
                launch_id: finding.launch_id,
                rule_id,
                severity,
                message,
            });
        }
        Ok(out)
    }
}
