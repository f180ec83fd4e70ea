//! The result of the analysis pipeline: [`Analysis`], the launch groups with their findings and
//! counts, and the per-launch rows it gathers on demand (`--per launch`) from the model's
//! evaluation, the groups' `whatif_*` columns and the findings' texts.

use std::sync::OnceLock;

use polars::prelude::*;

use super::finding_texts::{
    GROUP_FINDINGS, GROUP_MESSAGES, add_row_columns, finding_texts, launch_texts,
};
use super::findings::{FINDING_MESSAGES, FINDINGS, Finding, launch_findings_in_order};
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::Evaluation;

/// The analysed launches with their findings.
///
/// The model ran once per distinct model input and the analysis once per launch group
/// ([`super::groups`]); [`Analysis::launches`] gathers every column onto every launch only when
/// an output asks for it (`--per launch`).
#[derive(Debug, Clone)]
pub struct Analysis {
    /// One row per launch group: its first launch with the model's columns, the `whatif_*`
    /// columns and `findings`, then the group statistics of `super::groups::group_col`.
    pub groups: DataFrame,
    /// Every finding (warpsight's, ncu's, the plugins'), most severe first. warpsight's own are
    /// given once per launch group, with the group's launch count.
    pub findings: Vec<Finding>,
    /// Launches the model could not evaluate, per reason.
    pub unmodelled: Vec<(String, usize)>,
    /// Launches with occupancy but no predicted time: the export has no counters the time model
    /// reads (ncu's default set, nsys traces) and no cross-device scaling applied.
    pub unpredicted: usize,
    /// Launches whose export names no device, per device the model inferred from their compute
    /// capability, SM count and memory clock.
    pub inferred_devices: Vec<(String, usize)>,
    /// Number of launches analysed.
    pub(super) launch_count: usize,
    /// Total measured time of the launches, ns (the denominator of the findings' time shares).
    pub(super) total_ns: f64,
    /// The per-launch rows, when kept (not after [`Analysis::merge`]).
    pub(super) per_launch: Option<PerLaunch>,
}

/// What [`Analysis::launches`] gathers the per-launch rows from.
#[derive(Debug, Clone)]
pub(super) struct PerLaunch {
    /// The model's evaluation (launch table, per-input model columns).
    pub(super) evaluation: Evaluation,
    /// Each launch's row in `groups`.
    pub(super) group_ids: IdxCa,
    /// The ids and messages of the findings given per launch (ncu's, the plugins'), keyed by
    /// file and launch id ([`launch_texts`]): built from [`Analysis::findings`] at the first
    /// call that needs them. Per-kernel outputs never do; on a large ncu page they are tens of
    /// megabytes of text.
    pub(super) launch_texts: OnceLock<DataFrame>,
}

impl Analysis {
    /// Number of launches the model could not evaluate.
    pub fn unmodelled_count(&self) -> usize {
        self.unmodelled.iter().map(|(_, n)| n).sum()
    }

    /// Number of launches analysed.
    pub fn launch_count(&self) -> usize {
        self.launch_count
    }

    /// Drops the per-launch rows (the launch table and the per-input model columns), keeping the
    /// groups, findings and counts: what a batch keeps of each file's analysis until
    /// [`Self::merge`].
    pub fn drop_launches(&mut self) {
        self.per_launch = None;
    }

    /// The per-launch rows, or why there are none.
    fn per_launch(&self) -> PolarsResult<&PerLaunch> {
        self.per_launch.as_ref().ok_or_else(|| {
            polars_err!(ComputeError: "the per-launch rows of inputs analysed one file at a time are not kept")
        })
    }

    /// Every launch with every column: the launch table, the model's columns, the `whatif_*`
    /// columns and the findings (those of its group and its own). This materialises every column
    /// for every launch; per-kernel outputs use [`Self::groups`], and large per-launch outputs
    /// [`Self::launch_batches`].
    pub fn launches(&self) -> PolarsResult<DataFrame> {
        self.launch_rows(0, self.launch_count())
    }

    /// The frame of [`Self::launches`] in batches of at most `rows` launches, in launch order: a
    /// per-launch output is written batch by batch and never held whole.
    pub fn launch_batches(
        &self,
        rows: usize,
    ) -> impl Iterator<Item = PolarsResult<DataFrame>> + '_ {
        let rows = rows.max(1);
        let total = self.launch_count();
        (0..total.div_ceil(rows)).map(move |batch| {
            let offset = batch * rows;
            self.launch_rows(offset, rows.min(total - offset))
        })
    }

    /// The texts of the findings given per launch ([`PerLaunch::launch_texts`]), in the order
    /// they were made, built at the first call from those in [`Self::findings`].
    fn launch_texts<'a>(&self, per_launch: &'a PerLaunch) -> PolarsResult<&'a DataFrame> {
        if let Some(texts) = per_launch.launch_texts.get() {
            return Ok(texts);
        }
        let built = launch_texts(&launch_findings_in_order(&self.findings))?;
        // A call on another thread may have built them first: the same frame, kept once.
        Ok(per_launch.launch_texts.get_or_init(|| built))
    }

    /// [`Self::launches`] for the `len` launches from `offset`.
    fn launch_rows(&self, offset: usize, len: usize) -> PolarsResult<DataFrame> {
        let per_launch = self.per_launch()?;
        let mut frame = per_launch.evaluation.per_launch_slice(offset, len)?;
        let per_group: Vec<PlSmallStr> = self
            .groups
            .get_column_names()
            .into_iter()
            .filter(|name| {
                name.starts_with("whatif_")
                    || name.as_str() == GROUP_FINDINGS
                    || name.as_str() == GROUP_MESSAGES
            })
            .cloned()
            .collect();
        let offset =
            i64::try_from(offset).map_err(|_| polars_err!(ComputeError: "offset too large"))?;
        let ids = per_launch.group_ids.slice(offset, len);
        let gathered = self.groups.select(per_group)?.take(&ids)?;
        for column in gathered.columns() {
            frame.with_column(column.clone())?;
        }
        let keys = frame.select([
            lt::SOURCE_FILE,
            lt::LAUNCH_ID,
            GROUP_FINDINGS,
            GROUP_MESSAGES,
        ])?;
        let texts = finding_texts(&keys, self.launch_texts(per_launch)?)?
            .select([FINDINGS, FINDING_MESSAGES])?;
        let mut frame = frame.drop_many([GROUP_FINDINGS, GROUP_MESSAGES]);
        add_row_columns(&mut frame, texts)?;
        Ok(frame)
    }
}
