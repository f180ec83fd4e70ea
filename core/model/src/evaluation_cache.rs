//! The model's outputs for distinct inputs already evaluated, kept across evaluations: one large
//! export is analysed a part at a time, and its parts share the few dozen launch configurations of
//! a training run, so every part after the first finds its inputs here instead of running the
//! model's query again (its plan alone costs tens of milliseconds, whatever the number of rows).
//!
//! An input is found by the same exact numbering that finds distinct inputs within one evaluation
//! ([`crate::distinct::number_rows`]) over the cached inputs stacked with the new ones, so two
//! inputs are the same exactly when one evaluation would treat them as one. The cache is keyed by
//! everything in [`crate::ModelConfig`] that changes a result (the device override and the
//! carveout policy); the registry is the caller's, the same for the whole command.

use std::sync::Mutex;

use polars::prelude::*;

/// The most inputs an entry keeps: an export whose launches all differ (an ncu page, one input per
/// launch) would otherwise keep a second copy of every output; past this, an evaluation replaces
/// the entry with its own inputs, or removes it when they are more than this.
const MAX_ROWS: usize = 16_384;

/// Model outputs of distinct inputs, shared by the evaluations of one command through
/// [`crate::ModelConfig::cache`].
#[derive(Default)]
pub struct EvaluationCache {
    entries: Mutex<Vec<(String, Cached)>>,
    /// Per entry, the names of the model's columns (the plan that gives them costs as much as an
    /// evaluation of a few dozen inputs).
    columns: Mutex<Vec<(String, Vec<PlSmallStr>)>>,
}

impl std::fmt::Debug for EvaluationCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EvaluationCache({} inputs)", self.inputs())
    }
}

/// The inputs evaluated for one configuration, and the model's rows for them, row for row.
struct Cached {
    keys: DataFrame,
    outputs: DataFrame,
}

impl EvaluationCache {
    /// The number of inputs kept, over every entry.
    pub fn inputs(&self) -> usize {
        self.entries
            .lock()
            .map(|entries| entries.iter().map(|(_, c)| c.keys.height()).sum())
            .unwrap_or(0)
    }

    /// Finds the model's column names under `config` now (a plan of tens of milliseconds), so
    /// that a caller can do it while the launches are still being read. An evaluation that asks
    /// for them meanwhile waits for this one.
    pub fn prepare(
        &self,
        registry: &crate::arch::Registry,
        config: &crate::ModelConfig,
    ) -> Result<(), crate::ModelError> {
        let entry = crate::evaluation::cache_entry(config);
        self.model_columns(&entry, || {
            crate::evaluation::model_column_names(registry, config)
        })
        .map(drop)
    }

    /// A new cache with this cache's column names (found once per command) and no outputs (kept
    /// per file).
    pub fn with_columns_of(&self) -> EvaluationCache {
        let columns = self
            .columns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        EvaluationCache {
            entries: Mutex::default(),
            columns: Mutex::new(columns),
        }
    }

    /// The model's column names under the entry `config`, from `names` the first time.
    pub(crate) fn model_columns<E>(
        &self,
        config: &str,
        names: impl FnOnce() -> Result<Vec<PlSmallStr>, E>,
    ) -> Result<Vec<PlSmallStr>, E> {
        let mut columns = self
            .columns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, known)) = columns.iter().find(|(name, _)| name == config) {
            return Ok(known.clone());
        }
        let known = names()?;
        columns.push((config.to_string(), known.clone()));
        Ok(known)
    }

    /// The model's outputs for the distinct inputs `keys` (one row each, in order) under the
    /// entry `config`: the cached rows for the inputs the entry has, and for the others the rows
    /// `evaluate` gives for them (it gets the rows of `keys` to evaluate, `None` for all of them,
    /// and returns their outputs in that order); those are added to the entry. The entry is
    /// locked meanwhile, so two evaluations of one configuration never interleave.
    pub(crate) fn outputs<E: From<PolarsError>>(
        &self,
        config: &str,
        keys: &DataFrame,
        evaluate: impl FnOnce(Option<&IdxCa>) -> Result<DataFrame, E>,
    ) -> Result<DataFrame, E> {
        let mut entries = self
            .entries
            .lock()
            // A panic while the lock was held leaves at worst an entry whose keys are one batch
            // ahead of its outputs, which the height check below turns into a fresh entry.
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let position = entries.iter().position(|(name, _)| name == config);
        let usable = position.and_then(|position| {
            let cached = &entries[position].1;
            (cached.keys.schema() == keys.schema()
                && cached.keys.height() > 0
                && cached.keys.height() == cached.outputs.height()
                && cached.keys.height() + keys.height() <= MAX_ROWS)
                .then_some(position)
        });
        let Some(position) = usable else {
            let outputs = evaluate(None)?;
            // Inputs too many to keep (an export whose launches all differ) leave no entry.
            let entry = (keys.height() <= MAX_ROWS).then(|| Cached {
                keys: keys.clone(),
                outputs: outputs.clone(),
            });
            match (position, entry) {
                (Some(position), Some(entry)) => entries[position].1 = entry,
                (Some(position), None) => {
                    entries.remove(position);
                }
                (None, Some(entry)) => entries.push((config.to_string(), entry)),
                (None, None) => {}
            }
            return Ok(outputs);
        };
        let cached = &mut entries[position].1;
        let known = cached.keys.height();
        let mut stacked = cached.keys.clone();
        stacked.vstack_mut(keys)?;
        let (first_rows, ids) = crate::distinct::number_rows(&stacked)?;
        drop(stacked);
        let first_rows: Vec<IdxSize> = first_rows.into_no_null_iter().collect();
        // Per new input, the cached row with its outputs; the misses numbered after them.
        let mut misses: Vec<IdxSize> = Vec::new();
        let mut next_miss = known as IdxSize;
        let rows: Vec<IdxSize> = ids
            .into_no_null_iter()
            .skip(known)
            .enumerate()
            .map(|(row, id)| {
                let first = first_rows[id as usize];
                if (first as usize) < known {
                    first
                } else {
                    misses.push(row as IdxSize);
                    next_miss += 1;
                    next_miss - 1
                }
            })
            .collect();
        if !misses.is_empty() {
            let misses = IdxCa::from_vec("misses".into(), misses);
            let evaluated = evaluate(Some(&misses))?;
            if evaluated.height() != misses.len() {
                return Err(PolarsError::ComputeError(
                    "the model gave another number of rows than it was given inputs".into(),
                )
                .into());
            }
            cached.keys.vstack_mut_owned(keys.take(&misses)?)?;
            cached.outputs.vstack_mut_owned(evaluated)?;
            cached.keys.rechunk_mut();
            cached.outputs.rechunk_mut();
        }
        Ok(cached.outputs.take(&IdxCa::from_vec("rows".into(), rows))?)
    }
}
