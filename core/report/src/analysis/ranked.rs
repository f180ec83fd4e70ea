//! Findings as a person reads them below a table: the same advice on many launches of one kernel
//! said once with the count, ranked by the estimated time saved (time share × estimated speedup),
//! and Nsight Compute's rule text shortened to its first sentence. The full text stays in the
//! findings themselves (the HTML report and the machine formats).

use std::sync::Arc;

use super::findings::{Finding, Severity};

/// One piece of advice about one kernel, over every launch it was given for.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedFinding {
    /// The kernel name.
    pub(crate) kernel: Arc<str>,
    /// Who produced it: `warpsight`, `ncu`, or `plugin:<name>`.
    pub source: Arc<str>,
    /// The rule's stable id.
    pub rule_id: Arc<str>,
    /// The most serious severity over the launches.
    pub severity: Severity,
    /// The message of the launch it saves most on (ncu's: its first sentence only).
    pub message: String,
    /// How many launches it was given for.
    pub launches: usize,
    /// Those launches' share (0–1) of the measured time, when known.
    pub(crate) time_share: Option<f64>,
    /// The estimated fraction (0–1) of the total time saved, summed over the launches.
    pub saving: Option<f64>,
}

/// Groups `findings` per (kernel, source, rule) and ranks the groups: errors first, then by
/// estimated saving, severity and time share, most first.
pub fn rank<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<RankedFinding> {
    use polars::prelude::PlHashMap as HashMap;
    // Per group: the finding, the best saving of one launch, and per distinct launch its time
    // share, best saving and the launches it stands for (ncu may give one rule several rows on
    // one launch). Hash maps keep this linear in the number of findings.
    // (The vector keeps the launches in order, so that sums are the same on every run.)
    type Launches<'a> = (
        HashMap<(&'a str, Option<i64>), usize>,
        Vec<(Option<f64>, Option<f64>, usize)>,
    );
    let mut groups: Vec<(RankedFinding, f64, Launches)> = Vec::new();
    let mut index: HashMap<(&str, &str, &str), usize> = HashMap::default();
    for finding in findings {
        let saving = finding.estimated_saving();
        let key = (&*finding.kernel, &*finding.source, &*finding.rule_id);
        let position = *index.entry(key).or_insert_with(|| {
            groups.push((
                RankedFinding {
                    kernel: Arc::clone(&finding.kernel),
                    source: Arc::clone(&finding.source),
                    rule_id: Arc::clone(&finding.rule_id),
                    severity: finding.severity,
                    message: short_message(finding),
                    launches: 0,
                    time_share: None,
                    saving: None,
                },
                saving.unwrap_or(-1.0),
                (HashMap::default(), Vec::new()),
            ));
            groups.len() - 1
        });
        let (group, best, launches) = &mut groups[position];
        group.severity = group.severity.max(finding.severity);
        if saving.unwrap_or(-1.0) > *best {
            *best = saving.unwrap_or(-1.0);
            group.message = short_message(finding);
        }
        let (seen, list) = launches;
        match seen.get(&(&*finding.file, finding.launch_id)) {
            Some(&slot) => {
                let known = &mut list[slot].1;
                if saving.unwrap_or(-1.0) > known.unwrap_or(-1.0) {
                    *known = saving;
                }
            }
            None => {
                seen.insert((&*finding.file, finding.launch_id), list.len());
                list.push((finding.time_share, saving, finding.launches));
            }
        }
    }
    let mut ranked: Vec<RankedFinding> = groups
        .into_iter()
        .map(|(mut group, _, (_, launches))| {
            group.launches = launches.iter().map(|l| l.2).sum();
            group.time_share = launches.iter().fold(None, |sum, l| add(sum, l.0));
            group.saving = launches.iter().fold(None, |sum, l| add(sum, l.1));
            group
        })
        .collect();
    ranked.sort_by(|a, b| {
        (b.severity == Severity::Error)
            .cmp(&(a.severity == Severity::Error))
            .then(b.saving.unwrap_or(0.0).total_cmp(&a.saving.unwrap_or(0.0)))
            .then(b.severity.cmp(&a.severity))
            .then(
                b.time_share
                    .unwrap_or(0.0)
                    .total_cmp(&a.time_share.unwrap_or(0.0)),
            )
    });
    ranked
}

/// The sum of two optional numbers (`None` only when both are).
fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        _ => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// The message shown: ncu's rule text cut to its first sentence, anything else whole.
fn short_message(finding: &Finding) -> String {
    if &*finding.source == "ncu" {
        first_sentence(&finding.message).to_string()
    } else {
        finding.message.clone()
    }
}

/// The first sentence of `text`: up to the first `.`, `!` or `?` followed by a space (so that
/// `50.00%` does not end it), or the whole text.
pub(crate) fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?')
            && chars.peek().is_some_and(|(_, next)| next.is_whitespace())
        {
            return &text[..i + c.len_utf8()];
        }
    }
    text
}

/// The first `limit` ranked findings (all when `None`) grouped per kernel, kernels in the order of
/// their best-ranked finding.
pub fn per_kernel(
    ranked: &[RankedFinding],
    limit: Option<usize>,
) -> Vec<(&str, Vec<&RankedFinding>)> {
    let mut kernels: Vec<(&str, Vec<&RankedFinding>)> = Vec::new();
    for finding in ranked.iter().take(limit.unwrap_or(usize::MAX)) {
        match kernels
            .iter_mut()
            .find(|(kernel, _)| *kernel == &*finding.kernel)
        {
            Some((_, list)) => list.push(finding),
            None => kernels.push((&finding.kernel, vec![finding])),
        }
    }
    kernels
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(kernel: &str, launch: i64, rule: &str, share: f64, speedup: Option<f64>) -> Finding {
        Finding {
            file: "a.csv".into(),
            launch_id: Some(launch),
            kernel: kernel.into(),
            source: if rule.starts_with("ncu:") {
                "ncu"
            } else {
                "warpsight"
            }
            .into(),
            rule_id: rule.into(),
            severity: Severity::Warning,
            message: format!("{rule} on {launch}. More text."),
            estimated_speedup: speedup,
            time_share: Some(share),
            launches: 1,
            launch_order: None,
        }
    }

    #[test]
    fn repeated_advice_is_said_once_and_ranked_by_time_saved() {
        let findings = [
            finding("small", 1, "ncu:Occupancy", 0.1, Some(0.9)),
            finding("big", 2, "ncu:Occupancy", 0.4, Some(0.5)),
            finding("big", 3, "ncu:Occupancy", 0.4, Some(0.25)),
            finding("big", 2, "compute-bound", 0.4, None),
            // A second row of the same rule on the same launch counts once.
            finding("big", 3, "ncu:Occupancy", 0.4, Some(0.1)),
        ];
        let ranked = rank(&findings);
        assert_eq!(ranked.len(), 3);
        assert_eq!((&*ranked[0].kernel, ranked[0].launches), ("big", 2));
        assert!((ranked[0].saving.unwrap_or(0.0) - 0.3).abs() < 1e-12);
        // The message of the launch it saves most on, ncu's cut to its first sentence.
        assert_eq!(ranked[0].message, "ncu:Occupancy on 2.");
        assert_eq!(&*ranked[1].kernel, "small");
        assert_eq!(&*ranked[2].rule_id, "compute-bound");
        assert_eq!(ranked[2].message, "compute-bound on 2. More text.");
        let kernels = per_kernel(&ranked, Some(2));
        assert_eq!(kernels.len(), 2);
        assert_eq!(per_kernel(&ranked, None)[0].1.len(), 2);
    }

    #[test]
    fn first_sentences_do_not_stop_inside_numbers() {
        assert_eq!(
            first_sentence("The 50.00% occupancy is low. Try this."),
            "The 50.00% occupancy is low."
        );
        assert_eq!(first_sentence("No full stop"), "No full stop");
    }
}
