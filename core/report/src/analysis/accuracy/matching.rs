//! Cross-device matching of `warpsight accuracy`: input files paired with `--against` files, and
//! launches matched in order per kernel name within a pair.

use std::collections::HashMap;
use std::path::Path;

use polars::prelude::*;

use super::super::frame_access::Cells;
use super::*;
use warpsight_ingest::launch_table::column_names as lt;

/// Matches the launches of `predicted` (file column `predicted_file`) with those of `measured`
/// (file column `measured_file`): files paired by file name, then leftovers in order; within a
/// pair, the k-th launch of a kernel name with the k-th of the same name. Both frames need
/// [`ac::KERNEL_NAME`]; `measured` needs [`ac::MEASURED_LAUNCH_ID`] and [`ac::KERNEL`] too, and
/// its other columns (except the file, name and kernel) are carried into the matched rows.
pub(crate) fn match_launches(
    predicted: &DataFrame,
    predicted_file: &str,
    measured: &DataFrame,
    measured_file: &str,
) -> PolarsResult<Matched> {
    let left_files = distinct_strings(predicted, predicted_file)?;
    let right_files = distinct_strings(measured, measured_file)?;
    let (left_pairs, right_pairs) = pair_files(&left_files, &right_files);
    let left = with_pair_and_occurrence(predicted, predicted_file, &left_pairs)?;
    let right = with_pair_and_occurrence(measured, measured_file, &right_pairs)?;
    let keys = [col(PAIR), col(ac::KERNEL_NAME), col(OCCURRENCE)];
    let join = |how: JoinType| JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(how)
    };
    let right_carried = right.clone().lazy().drop(cols([ac::KERNEL]));
    let joined = left
        .clone()
        .lazy()
        .join(
            right_carried.with_column(lit(true).alias("__found")),
            keys.clone(),
            keys.clone(),
            join(JoinType::Left),
        )
        .with_column(col("__found").fill_null(lit(false)));
    let matched = joined
        .clone()
        .filter(col("__found"))
        .drop(cols(["__found", PAIR, OCCURRENCE]))
        .collect()?;
    let unmatched_left = joined.filter(col("__found").not()).select([
        lit("input").alias(ac::SIDE),
        col(predicted_file).alias(ac::FILE),
        col(lt::LAUNCH_ID).alias(ac::LAUNCH_ID),
        col(ac::KERNEL),
    ]);
    let unmatched_right = right
        .lazy()
        .join(
            left.lazy()
                .select(keys.clone())
                .with_column(lit(true).alias("__found")),
            keys.clone(),
            keys,
            join(JoinType::Left),
        )
        .filter(col("__found").is_null())
        .select([
            lit("against").alias(ac::SIDE),
            col(measured_file).alias(ac::FILE),
            col(ac::MEASURED_LAUNCH_ID).alias(ac::LAUNCH_ID),
            col(ac::KERNEL),
        ]);
    let unmatched = concat(
        [unmatched_left, unmatched_right],
        UnionArgs {
            to_supertypes: true,
            ..UnionArgs::default()
        },
    )?
    .collect()?;
    Ok(Matched { matched, unmatched })
}

/// The distinct non-null values of a text column, in order of first appearance.
pub(crate) fn distinct_strings(frame: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    let mut seen: Vec<String> = Vec::new();
    if !frame.schema().contains(name) {
        return Ok(seen);
    }
    let mut cells = Cells::new(frame);
    for row in 0..frame.height() {
        if let Some(value) = cells.str(name, row)
            && !seen.contains(&value)
        {
            seen.push(value);
        }
    }
    Ok(seen)
}

/// Pairs two lists of files: same file name first (each file at most once), then the files left
/// on both sides in order. Returns the pair id of every file of each side (unpaired files get none).
pub(crate) fn pair_files(
    left: &[String],
    right: &[String],
) -> (HashMap<String, i64>, HashMap<String, i64>) {
    let name = |path: &String| {
        Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.clone())
    };
    let mut left_pairs = HashMap::new();
    let mut right_pairs = HashMap::new();
    let mut next = 0i64;
    for file in left {
        if let Some(partner) = right
            .iter()
            .find(|r| !right_pairs.contains_key(*r) && name(r) == name(file))
        {
            left_pairs.insert(file.clone(), next);
            right_pairs.insert(partner.clone(), next);
            next += 1;
        }
    }
    let left_rest: Vec<&String> = left
        .iter()
        .filter(|f| !left_pairs.contains_key(*f))
        .collect();
    let right_rest: Vec<&String> = right
        .iter()
        .filter(|f| !right_pairs.contains_key(*f))
        .collect();
    for (file, partner) in left_rest.into_iter().zip(right_rest) {
        left_pairs.insert(file.clone(), next);
        right_pairs.insert(partner.clone(), next);
        next += 1;
    }
    (left_pairs, right_pairs)
}

/// Adds [`PAIR`] (null for an unpaired file) and [`OCCURRENCE`] (0 for the first launch of a
/// kernel name in its file, 1 for the second, …, in row order).
fn with_pair_and_occurrence(
    frame: &DataFrame,
    file: &str,
    pairs: &HashMap<String, i64>,
) -> PolarsResult<DataFrame> {
    let mut cells = Cells::new(frame);
    let mut seen: HashMap<(Option<String>, Option<String>), i64> = HashMap::new();
    let mut pair_ids = Vec::with_capacity(frame.height());
    let mut occurrences = Vec::with_capacity(frame.height());
    for row in 0..frame.height() {
        let path = cells.str(file, row);
        let kernel = cells.str(ac::KERNEL_NAME, row);
        pair_ids.push(path.as_ref().and_then(|p| pairs.get(p).copied()));
        let count = seen.entry((path, kernel)).or_insert(0);
        occurrences.push(*count);
        *count += 1;
    }
    let mut out = frame.clone();
    out.with_column(Column::new(PAIR.into(), pair_ids))?;
    out.with_column(Column::new(OCCURRENCE.into(), occurrences))?;
    Ok(out)
}

/// The launches of a cross-device comparison, matched and not.
#[derive(Debug, Clone)]
pub(crate) struct Matched {
    /// The predicted launches joined with their measured partner (columns of both frames).
    pub(crate) matched: DataFrame,
    /// Launches without a partner: [`ac::SIDE`] (`input` or `against`), [`ac::FILE`],
    /// [`ac::LAUNCH_ID`], [`ac::KERNEL`].
    pub(crate) unmatched: DataFrame,
}
