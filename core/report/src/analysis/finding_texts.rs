//! The `findings` and `finding_messages` columns of the launch groups and of the launches: the ids
//! and messages of a group's findings (warpsight's rules, run once per group) joined, row by row,
//! with those of the launch itself (ncu's rule rows, the plugins' hooks), matched on the file and
//! launch id.

use polars::prelude::*;

use super::findings::{FINDING_MESSAGES, FINDINGS};
use warpsight_ingest::launch_table::column_names as lt;

/// Internal group column: the ids of warpsight's findings on the group.
pub(super) const GROUP_FINDINGS: &str = "__g_findings";
/// Internal group column: their messages.
pub(super) const GROUP_MESSAGES: &str = "__g_finding_messages";
/// Internal: the ids of a launch's own findings.
pub(super) const LAUNCH_FINDINGS: &str = "__l_findings";
/// Internal: their messages.
pub(super) const LAUNCH_MESSAGES: &str = "__l_finding_messages";

/// [`FINDINGS`] and [`FINDING_MESSAGES`] of launches `keys` (file, launch id and the group's
/// finding columns): the group's findings, then the launch's own (matched on file and launch id).
///
/// Only these narrow key columns are read, and the result is one row per key row in order
/// (each launch has one row of `launch_findings` at most), so callers add the two columns to
/// their wide frames without a join gathering every column.
pub(super) fn finding_texts(
    keys: &DataFrame,
    launch_findings: &DataFrame,
) -> PolarsResult<DataFrame> {
    let mut joined = keys.clone();
    add_matching(
        &mut joined,
        launch_findings,
        [LAUNCH_FINDINGS, LAUNCH_MESSAGES],
    )?;
    let text = |name: &str| -> PolarsResult<StringChunked> {
        Ok(joined.column(name)?.as_materialized_series().str()?.clone())
    };
    let ids = join_present(
        FINDINGS,
        &text(GROUP_FINDINGS)?,
        &text(LAUNCH_FINDINGS)?,
        "; ",
    );
    let messages = join_present(
        FINDING_MESSAGES,
        &text(GROUP_MESSAGES)?,
        &text(LAUNCH_MESSAGES)?,
        " | ",
    );
    DataFrame::new(
        joined.height(),
        vec![
            joined.column(GROUP_FINDINGS)?.clone(),
            joined.column(GROUP_MESSAGES)?.clone(),
            ids.into_column(),
            messages.into_column(),
        ],
    )
}

/// Adds to `keys` the `columns` of `table`'s row with the same file and launch id as each row
/// ([`matching_rows`]; null where `table` has none): a left join of two narrow frames.
pub(super) fn add_matching(
    keys: &mut DataFrame,
    table: &DataFrame,
    columns: [&str; 2],
) -> PolarsResult<()> {
    let rows = matching_rows(keys, table)?;
    for column in table.select(columns)?.take(&rows)?.into_columns() {
        keys.with_column(column)?;
    }
    Ok(())
}

/// For each row of `keys`, the row of `table` with the same file and launch id (a null id matches
/// a null id, as in [`super::left_join_in_order`]), or null: a left join's row mapping, built in
/// one pass over the two narrow key columns instead of polars' row-encoded join of every key. An
/// error if `table` has a key twice.
fn matching_rows(keys: &DataFrame, table: &DataFrame) -> PolarsResult<IdxCa> {
    // Each frame's files and launch ids.
    let key = |frame: &DataFrame| -> PolarsResult<(StringChunked, Int64Chunked)> {
        let file = frame.column(lt::SOURCE_FILE)?.cast(&DataType::String)?;
        let id = frame.column(lt::LAUNCH_ID)?.cast(&DataType::Int64)?;
        Ok((file.str()?.clone(), id.i64()?.clone()))
    };
    let (table_files, table_ids) = key(table)?;
    let mut index: PlHashMap<(Option<&str>, Option<i64>), IdxSize> =
        PlHashMap::with_capacity(table.height());
    for (row, key) in table_files.iter().zip(table_ids.iter()).enumerate() {
        let row = IdxSize::try_from(row)
            .map_err(|_| polars_err!(ComputeError: "too many launches with findings"))?;
        if index.insert(key, row).is_some() {
            polars_bail!(ComputeError: "finding texts: launch {:?} of `{}` has two rows",
                key.1, key.0.unwrap_or_default());
        }
    }
    let (key_files, key_ids) = key(keys)?;
    Ok(IdxCa::from_iter_options(
        "rows".into(),
        key_files
            .iter()
            .zip(key_ids.iter())
            .map(|key| index.get(&key).copied()),
    ))
}

/// Row by row, `a` and `b` joined by `separator`, either alone when the other is null, null when
/// both are: one pass that copies each text once (polars' string `+` inside `when` copies every
/// row's text twice and computes every branch).
fn join_present(
    name: &str,
    a: &StringChunked,
    b: &StringChunked,
    separator: &str,
) -> StringChunked {
    let mut out = StringChunkedBuilder::new(name.into(), a.len());
    let mut text = String::new();
    for (a, b) in a.iter().zip(b.iter()) {
        match (a, b) {
            (None, None) => out.append_null(),
            (Some(only), None) | (None, Some(only)) => out.append_value(only),
            (Some(a), Some(b)) => {
                text.clear();
                text.push_str(a);
                text.push_str(separator);
                text.push_str(b);
                out.append_value(&text);
            }
        }
    }
    out.finish()
}

/// Adds `columns` (computed row by row from `frame`'s own rows) to `frame`, replacing columns of
/// the same name; an error if a join gave them another height.
pub(super) fn add_row_columns(frame: &mut DataFrame, columns: DataFrame) -> PolarsResult<()> {
    if columns.height() != frame.height() {
        return Err(polars_err!(ComputeError:
            "finding texts for {} rows, expected {}: a launch has findings twice", columns.height(), frame.height()));
    }
    for column in columns.into_columns() {
        frame.with_column(column)?;
    }
    Ok(())
}
