//! Merging the analyses of separate inputs, or of the parts of one input read part by part
//! ([`super::read_parts`]), into one [`Analysis`]: groups stacked, counts summed, time shares
//! rescaled, and the findings of a launch group split over parts of one file made one again
//! ([`SameFindings`]).

use std::collections::HashMap;
use std::sync::Arc;

use polars::prelude::*;

use super::analysed::Analysis;
use super::findings::{Finding, Severity, sort_findings};
use super::groups::group_col as g;
use warpsight_ingest::launch_table::column_names as lt;

impl Analysis {
    /// Merges the analyses of separate inputs, or of the parts of one input (a batch analysed one
    /// file at a time and each file part by part, so that only one part's launches are held at
    /// once): the groups stacked, the findings and counts combined, the findings' time shares
    /// rescaled to the total time of all inputs. A launch group split over parts of one file
    /// gives the same finding in each part (same file, kernel, rule, severity, message, estimate
    /// and launch configuration); those become one finding, on the first part's launch, with the
    /// launches and time shares summed, as analysing the file whole gives. The merged analysis keeps no per-launch
    /// rows: [`Self::launches`] is then an error.
    pub fn merge(mut parts: Vec<Analysis>) -> PolarsResult<Analysis> {
        if parts.len() == 1
            && let Some(mut only) = parts.pop()
        {
            // One input in one part: already what merging gives (shares of its own total).
            only.per_launch = None;
            sort_findings(&mut only.findings);
            return Ok(only);
        }
        // Only a file analysed in several parts can have findings to merge.
        let mut parts_per_file: HashMap<Arc<str>, usize> = HashMap::new();
        for part in &parts {
            let mut files: Vec<&Arc<str>> = part.findings.iter().map(|f| &f.file).collect();
            files.sort_unstable();
            files.dedup();
            for file in files {
                *parts_per_file.entry(Arc::clone(file)).or_default() += 1;
            }
        }
        let total_ns: f64 = parts.iter().map(|p| p.total_ns).sum();
        let launch_count = parts.iter().map(|p| p.launch_count).sum();
        let mut unmodelled: Vec<(String, usize)> = Vec::new();
        let mut inferred_devices: Vec<(String, usize)> = Vec::new();
        let add = |list: &mut Vec<(String, usize)>, (name, count): &(String, usize)| match list
            .iter_mut()
            .find(|(n, _)| n == name)
        {
            Some((_, total)) => *total += count,
            None => list.push((name.clone(), *count)),
        };
        let mut findings = Vec::new();
        let mut same_findings = SameFindings::default();
        let mut frames = Vec::new();
        let mut unpredicted = 0;
        let mut offset = 0usize;
        for (part_number, part) in parts.into_iter().enumerate() {
            for entry in &part.unmodelled {
                add(&mut unmodelled, entry);
            }
            for entry in &part.inferred_devices {
                add(&mut inferred_devices, entry);
            }
            unpredicted += part.unpredicted;
            let scale = if total_ns > 0.0 {
                part.total_ns / total_ns
            } else {
                0.0
            };
            let split = |finding: &Finding| parts_per_file.get(&finding.file).copied() > Some(1);
            let configs = if part.findings.iter().any(split) {
                group_configs(&part.groups)?
            } else {
                HashMap::new()
            };
            for mut finding in part.findings {
                finding.time_share = finding.time_share.map(|share| share * scale);
                if split(&finding) {
                    let config = finding.launch_id.and_then(|id| configs.get(&id).cloned());
                    same_findings.add(&mut findings, finding, config, part_number);
                } else {
                    findings.push(finding);
                }
            }
            if part.groups.height() > 0 {
                // The first-launch rows become rows of the inputs taken together.
                let offset = i64::try_from(offset).unwrap_or(i64::MAX);
                let groups = part
                    .groups
                    .lazy()
                    .with_column(col(g::FIRST_ROW) + lit(offset))
                    .collect()?;
                frames.push(groups);
            }
            offset += part.launch_count;
        }
        sort_findings(&mut findings);
        let groups = match frames.len() {
            0 => DataFrame::empty(),
            1 => frames.into_iter().next().unwrap_or_default(),
            _ => polars::functions::concat_df_diagonal(&super::load::harmonize(frames)?)?,
        };
        Ok(Analysis {
            groups,
            findings,
            unmodelled,
            unpredicted,
            inferred_devices,
            launch_count,
            total_ns,
            per_launch: None,
        })
    }
}

/// The findings of earlier parts, by what makes two findings of parts of one file the same one.
#[derive(Default)]
struct SameFindings {
    /// Per key, the findings with it: their place in the merged list and the last part whose
    /// finding was merged into it.
    places: HashMap<FindingKey, Vec<(usize, usize)>>,
}

/// What identifies a finding of a launch group across the parts of one file: the file, kernel,
/// source, rule, severity, message, estimated speedup (its bits) and the group's launch
/// configuration ([`group_configs`]).
type FindingKey = (
    Arc<str>,
    Arc<str>,
    Arc<str>,
    Arc<str>,
    Severity,
    String,
    Option<u64>,
    Option<String>,
);

/// Each launch group's configuration as text, by the launch id of its first launch: the grid,
/// block, registers, shared memory and device (the what-if's configuration columns and the
/// grid). A launch group of an export without counters is one configuration, so that two
/// findings of parts of one file with the same configuration are one group's; exports with
/// counters are read as one part.
fn group_configs(groups: &DataFrame) -> PolarsResult<HashMap<i64, String>> {
    let mut configs = HashMap::new();
    let Ok(ids) = groups.column(lt::LAUNCH_ID) else {
        return Ok(configs);
    };
    let ids = ids.cast(&DataType::Int64)?;
    let columns: Vec<&Column> = [lt::GRID_X, lt::GRID_Y, lt::GRID_Z]
        .iter()
        .chain(super::variants::CONFIG_COLUMNS)
        .filter_map(|name| groups.column(name).ok())
        .collect();
    for (row, id) in ids.i64()?.iter().enumerate() {
        let Some(id) = id else { continue };
        let mut text = String::new();
        for column in &columns {
            text.push_str(&format!("{}|", column.get(row)?));
        }
        configs.insert(id, text);
    }
    Ok(configs)
}

impl SameFindings {
    /// Adds `finding` of part `part`, about a group of configuration `config`, to `merged`: into an
    /// equal finding of an earlier part that no
    /// finding of this part was merged into yet (its launches and time share summed), or as a
    /// finding of its own.
    fn add(
        &mut self,
        merged: &mut Vec<Finding>,
        finding: Finding,
        config: Option<String>,
        part: usize,
    ) {
        let key: FindingKey = (
            Arc::clone(&finding.file),
            Arc::clone(&finding.kernel),
            Arc::clone(&finding.source),
            Arc::clone(&finding.rule_id),
            finding.severity,
            finding.message.clone(),
            finding.estimated_speedup.map(f64::to_bits),
            config,
        );
        let places = self.places.entry(key).or_default();
        let earlier = places
            .iter_mut()
            .find(|(place, last_part)| *last_part < part && merged[*place].launch_id.is_some());
        match earlier {
            Some((place, last_part)) if finding.launch_id.is_some() => {
                let into = &mut merged[*place];
                into.launches += finding.launches;
                into.time_share = match (into.time_share, finding.time_share) {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
                };
                *last_part = part;
            }
            _ => {
                places.push((merged.len(), part));
                merged.push(finding);
            }
        }
    }
}
