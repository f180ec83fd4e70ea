//! The `findings` and `finding_messages` columns of the launch groups and of the launches: the ids
//! and messages of a group's findings (warpsight's rules, run once per group) joined, row by row,
//! with those of the launch itself (ncu's rule rows, the plugins' hooks), matched on the file and
//! launch id.

use polars::prelude::*;

use super::findings::{self, FINDING_MESSAGES, FINDINGS, Finding};
use warpsight_ingest::launch_table::column_names as lt;

/// Internal group column: the ids of warpsight's findings on the group.
pub(super) const GROUP_FINDINGS: &str = "__g_findings";
/// Internal group column: their messages.
pub(super) const GROUP_MESSAGES: &str = "__g_finding_messages";
/// Internal: the ids of a launch's own findings.
pub(super) const LAUNCH_FINDINGS: &str = "__l_findings";
/// Internal: their messages.
pub(super) const LAUNCH_MESSAGES: &str = "__l_finding_messages";

/// The texts of `findings`, given per launch and in the order they were made
/// ([`super::findings::launch_findings_in_order`]): one row per launch, keyed by file and launch
/// id, with the ids and the messages as [`LAUNCH_FINDINGS`] and [`LAUNCH_MESSAGES`], the
/// `launch_findings` of [`finding_texts`]. Built on every core for a large list.
pub(super) fn launch_texts(findings: &[&Finding]) -> PolarsResult<DataFrame> {
    findings::ids_per_launch_in_chunks(findings, findings::PARALLEL_MIN_FINDINGS)?
        .lazy()
        .rename(
            [FINDINGS, FINDING_MESSAGES],
            [LAUNCH_FINDINGS, LAUNCH_MESSAGES],
            true,
        )
        .collect()
}

/// The findings given per launch (in the order they were made) whose launch is one of `keys`
/// (file and launch id columns; a null id matches a null id, as in [`matching_rows`]).
pub(super) fn launch_findings_of<'a>(
    keys: &DataFrame,
    findings: &'a [Finding],
) -> PolarsResult<Vec<&'a Finding>> {
    let files = keys.column(lt::SOURCE_FILE)?.cast(&DataType::String)?;
    let ids = keys.column(lt::LAUNCH_ID)?.cast(&DataType::Int64)?;
    let wanted: PlHashSet<(Option<i64>, Option<&str>)> =
        ids.i64()?.iter().zip(files.str()?.iter()).collect();
    Ok(findings::launch_findings_in_order(findings.iter().filter(
        |finding| wanted.contains(&(finding.launch_id, Some(&*finding.file))),
    )))
}

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
/// one pass over the two narrow key columns instead of polars' row-encoded join of every key. The
/// smaller side is indexed by launch id (the ids, not the long file paths, are hashed; the files
/// of rows with the same id are compared). An error if `table` has a key twice (with few keys: a key of `keys` twice).
fn matching_rows(keys: &DataFrame, table: &DataFrame) -> PolarsResult<IdxCa> {
    // Each frame's files and launch ids.
    let key = |frame: &DataFrame| -> PolarsResult<(StringChunked, Int64Chunked)> {
        let file = frame.column(lt::SOURCE_FILE)?.cast(&DataType::String)?;
        let id = frame.column(lt::LAUNCH_ID)?.cast(&DataType::Int64)?;
        Ok((file.str()?.clone(), id.i64()?.clone()))
    };
    let (table_files, table_ids) = key(table)?;
    let (key_files, key_ids) = key(keys)?;
    let row_number = |row: usize| {
        IdxSize::try_from(row)
            .map_err(|_| polars_err!(ComputeError: "too many launches with findings"))
    };
    let twice = |file: Option<&str>, id: Option<i64>| {
        polars_err!(ComputeError: "finding texts: launch {:?} of `{}` has two rows",
            id, file.unwrap_or_default())
    };
    let same_file = |a: Option<&str>, b: Option<&str>| match (a, b) {
        (Some(a), Some(b)) => {
            (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a == b
        }
        (None, None) => true,
        _ => false,
    };
    let mut matched: Vec<Option<IdxSize>> = vec![None; keys.height()];
    if keys.height() < table.height() {
        // Few keys (the launch groups' first launches): the keys are indexed, the table scanned.
        let mut wanted: PlHashMap<Option<i64>, Vec<usize>> =
            PlHashMap::with_capacity(keys.height());
        for (row, id) in key_ids.iter().enumerate() {
            wanted.entry(id).or_default().push(row);
        }
        let key_files: Vec<Option<&str>> = key_files.iter().collect();
        // A key matched by two rows of the table is an error, as in the branch below.
        for (row, (file, id)) in table_files.iter().zip(table_ids.iter()).enumerate() {
            let Some(candidates) = wanted.get(&id) else {
                continue;
            };
            for &key_row in candidates {
                if same_file(key_files[key_row], file) {
                    if matched[key_row].is_some() {
                        return Err(twice(file, id));
                    }
                    matched[key_row] = Some(row_number(row)?);
                }
            }
        }
    } else {
        let mut index: PlHashMap<(Option<&str>, Option<i64>), IdxSize> =
            PlHashMap::with_capacity(table.height());
        for (row, key) in table_files.iter().zip(table_ids.iter()).enumerate() {
            if index.insert(key, row_number(row)?).is_some() {
                return Err(twice(key.0, key.1));
            }
        }
        for (slot, key) in matched.iter_mut().zip(key_files.iter().zip(key_ids.iter())) {
            *slot = index.get(&key).copied();
        }
    }
    Ok(IdxCa::from_iter_options("rows".into(), matched.into_iter()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_keys_and_many_keys_match_the_same_rows() -> PolarsResult<()> {
        let table = df!(
            lt::SOURCE_FILE => ["a.csv", "a.csv", "b.csv", "a.csv"],
            lt::LAUNCH_ID => [Some(1i64), Some(2), Some(1), None],
        )?;
        let keys = df!(
            lt::SOURCE_FILE => ["b.csv", "a.csv", "c.csv", "a.csv", "a.csv"],
            lt::LAUNCH_ID => [Some(1i64), None, Some(1), Some(2), Some(2)],
        )?;
        let expected = [Some(2), Some(3), None, Some(1), Some(1)];
        // More keys than rows of the table (the table indexed), and fewer (the keys indexed).
        let many = matching_rows(&keys, &table)?;
        assert_eq!(many.iter().collect::<Vec<_>>(), expected);
        let few = matching_rows(&keys.slice(0, 3), &table)?;
        assert_eq!(few.iter().collect::<Vec<_>>(), expected[..3]);
        // A launch with two rows of texts is an error either way.
        let twice = table.vstack(&table.slice(2, 1))?;
        assert!(matching_rows(&keys, &twice).is_err());
        assert!(matching_rows(&keys.slice(0, 1), &twice).is_err());
        Ok(())
    }
}
