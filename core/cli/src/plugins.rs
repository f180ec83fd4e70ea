//! `warpsight plugins`: lists the plugins loaded (with what each provides), the files rejected with
//! the reason, the entries ignored because an earlier plugin provided them, and the directories
//! searched. Also home of [`load_plugins`], the one way subcommands get a registry.

use std::process::ExitCode;

use anyhow::Context;
use comfy_table::{Table, presets};
use serde_json::json;

use super::GlobalArgs;
use super::errors::CliError;
use warpsight_model::arch::Registry;
use warpsight_plugin_host::{self as plugin_host, LoadReport, PluginConfig};

/// Output format of the listing subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ListFormat {
    /// A table for people.
    #[default]
    Table,
    /// JSON for programs.
    Json,
}

/// Arguments of `warpsight plugins`.
#[derive(Debug, clap::Args)]
pub struct PluginsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

/// A compact table for the listing subcommands.
pub(crate) fn new_table() -> Table {
    let mut table = Table::new();
    table.load_preset(presets::ASCII_BORDERS_ONLY_CONDENSED);
    table
}

/// Writes data to stdout with a final newline. A closed pipe (`warpsight archs | head`) ends the
/// command quietly (see `main`); another failure is an error.
pub(crate) fn print_data(text: &str) -> anyhow::Result<()> {
    crate::output_file::print_stdout(&format!("{text}\n")).context("cannot write to stdout")
}

/// The hint printed when no plugin could be loaded.
pub const NO_PLUGIN_HINT: &str = "build the plugins with `cargo build --release --workspace` (they land beside the \
warpsight binary in target/release/), or point to their directory with `--plugin-dir DIR` or WARPSIGHT_PLUGIN_PATH";

/// Loads the plugins for a subcommand. Fails with a hint when no plugin at all was loaded; rejected
/// plugins and duplicates are only logged (see `warpsight plugins`).
pub fn load_plugins(global: &GlobalArgs) -> anyhow::Result<(Registry, LoadReport)> {
    let (registry, report) =
        plugin_host::load_registry(&PluginConfig::from_environment(&global.plugin_dirs));
    if report.loaded.is_empty() {
        return Err(no_plugin_error(&report));
    }
    Ok((registry, report))
}

/// The error for "no plugin loaded", naming the directories searched and the rejections.
fn no_plugin_error(report: &LoadReport) -> anyhow::Error {
    let searched: Vec<String> = report
        .searched
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let mut message = format!(
        "no architecture plugin could be loaded (searched: {})",
        searched.join(", ")
    );
    for rejected in &report.rejected {
        message.push_str(&format!("\n  rejected {rejected}"));
    }
    anyhow::Error::new(CliError::new(message, NO_PLUGIN_HINT))
}

/// The report as JSON.
fn report_json(report: &LoadReport) -> serde_json::Value {
    json!({
        "searched": report.searched.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
        "loaded": report.loaded.iter().map(|p| json!({
            "name": p.name,
            "version": p.version,
            "abi_minor": p.abi_minor,
            "file": p.file.display().to_string(),
            "archs": p.archs.iter().map(|a| a.cc.to_string()).collect::<Vec<_>>(),
            "devices": p.devices.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
            "rules_hook": p.rules.is_some(),
        })).collect::<Vec<_>>(),
        "rejected": report.rejected.iter().map(|r| json!({
            "file": r.file.display().to_string(),
            "reason": r.error.to_string(),
        })).collect::<Vec<_>>(),
        "overridden": report.overridden.iter().map(|o| json!({
            "item": o.item,
            "kept": o.kept.display().to_string(),
            "ignored": o.ignored.display().to_string(),
        })).collect::<Vec<_>>(),
    })
}

/// The report as tables.
fn report_text(report: &LoadReport) -> String {
    let mut out = String::new();
    let mut loaded = new_table();
    loaded.set_header([
        "plugin",
        "version",
        "archs",
        "devices",
        "rules hook",
        "file",
    ]);
    for p in &report.loaded {
        loaded.add_row([
            p.name.clone(),
            p.version.clone(),
            p.archs
                .iter()
                .map(|a| a.cc.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            p.devices.len().to_string(),
            if p.rules.is_some() { "yes" } else { "no" }.to_string(),
            p.file.display().to_string(),
        ]);
    }
    out.push_str(&format!(
        "Loaded plugins ({}):\n{loaded}\n",
        report.loaded.len()
    ));
    if !report.rejected.is_empty() {
        let mut rejected = new_table();
        rejected.set_header(["file", "reason"]);
        for r in &report.rejected {
            rejected.add_row([r.file.display().to_string(), r.error.to_string()]);
        }
        out.push_str(&format!(
            "\nRejected plugins ({}):\n{rejected}\n",
            report.rejected.len()
        ));
    }
    if !report.overridden.is_empty() {
        let mut overridden = new_table();
        overridden.set_header(["entry", "used from", "ignored in"]);
        for o in &report.overridden {
            overridden.add_row([
                o.item.clone(),
                o.kept.display().to_string(),
                o.ignored.display().to_string(),
            ]);
        }
        out.push_str(&format!(
            "\nOverridden duplicates ({}):\n{overridden}\n",
            report.overridden.len()
        ));
    }
    out.push_str("\nSearched, in order:\n");
    for dir in &report.searched {
        out.push_str(&format!("  {}\n", dir.display()));
    }
    out
}

/// Runs `warpsight plugins`.
pub fn run(args: PluginsArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (_, report) =
        plugin_host::load_registry(&PluginConfig::from_environment(&global.plugin_dirs));
    let text = match args.format {
        ListFormat::Json => serde_json::to_string_pretty(&report_json(&report))
            .context("cannot format the report")?,
        ListFormat::Table => report_text(&report),
    };
    print_data(&text)?;
    if report.loaded.is_empty() {
        return Err(no_plugin_error(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads the plugins and says on stderr when none provides any architecture.
pub fn load_registry(global: &GlobalArgs) -> Registry {
    load_plugins_and_rules(global).0
}

/// Loads the plugins for the analysis commands: the registry and the plugins' rules hooks. Unlike
/// [`load_plugins`], finding no plugin is only a warning: the launches are then read and listed,
/// each with the reason it could not be modelled.
pub fn load_plugins_and_rules(global: &GlobalArgs) -> (Registry, Vec<plugin_host::RulesHook>) {
    let (registry, report) =
        plugin_host::load_registry(&PluginConfig::from_environment(&global.plugin_dirs));
    let hooks: Vec<plugin_host::RulesHook> = report
        .loaded
        .iter()
        .filter_map(|p| p.rules.clone())
        .collect();
    if registry.archs.is_empty() && !global.quiet {
        let searched: Vec<String> = report
            .searched
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        crate::output_file::eprint(&format!(
            "warning: no architecture plugin was loaded (searched: {}); launches cannot be modelled\n\
             hint: pass --plugin-dir DIR or set {}\n",
            if searched.is_empty() {
                "nothing".to_string()
            } else {
                searched.join(", ")
            },
            plugin_host::PLUGIN_PATH_ENV
        ));
    }
    (registry, hooks)
}
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::errors::format_error;

    #[test]
    fn no_plugin_error_names_the_search_path_and_hints_at_building() {
        let report = LoadReport {
            searched: vec![PathBuf::from("/nowhere")],
            ..LoadReport::default()
        };
        let text = format_error(&no_plugin_error(&report), false);
        assert!(
            text.starts_with(
                "error: no architecture plugin could be loaded (searched: /nowhere)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("hint: build the plugins with `cargo build --release --workspace`"),
            "{text}"
        );
        assert!(text.contains("--plugin-dir"), "{text}");
    }
}
