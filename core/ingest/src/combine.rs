//! Stacking the launch tables of several exports into one: the rule for an extra column whose
//! type differs between them.
//!
//! The known launch-table columns have one dtype everywhere (`crate::launch_table::COLUMNS`).
//! An extra column (a native ncu metric, a details label, an nsys column) gets its type from its
//! values in each export, so two exports can disagree. The rule, documented in
//! `docs/trace-schema.md` ("Several exports in one table"), is:
//!
//! - a column that is null everywhere in an export (dtype `Null`) takes the other exports' type;
//! - numbers of different types (integers and floats) become Float64;
//! - a column that is numeric in one export and text (or anything else) in another becomes
//!   String: each number is written in base units the way a String metric column writes its
//!   numeric cells (Rust's shortest round-trip form: `1.5`, `1024`, `NaN`), the text is kept.
//!
//! Nothing is dropped, and stacking never fails on a type clash.

use std::collections::{HashMap, HashSet};

use polars::prelude::*;

/// What `frames` must become before a diagonal concatenation: every extra column whose dtype
/// differs between them is converted by the rule of this module. Frames are returned in order.
pub fn unify_column_types(frames: Vec<DataFrame>) -> PolarsResult<Vec<DataFrame>> {
    let mut seen: HashMap<String, DataType> = HashMap::new();
    let mut conflicting: HashSet<String> = HashSet::new();
    for frame in &frames {
        for column in frame.columns() {
            let dtype = column.dtype();
            if dtype == &DataType::Null {
                continue;
            }
            match seen.get(column.name().as_str()) {
                Some(first) if first != dtype => {
                    conflicting.insert(column.name().to_string());
                }
                Some(_) => {}
                None => {
                    seen.insert(column.name().to_string(), dtype.clone());
                }
            }
        }
    }
    if conflicting.is_empty() {
        return Ok(frames);
    }
    // The common type of each conflicting column: Float64 when every export has numbers there.
    let mut all_numeric: HashMap<&str, bool> = HashMap::new();
    for frame in &frames {
        for name in &conflicting {
            if let Ok(column) = frame.column(name)
                && column.dtype() != &DataType::Null
            {
                let numeric = column.dtype().is_primitive_numeric();
                all_numeric
                    .entry(name.as_str())
                    .and_modify(|all| *all &= numeric)
                    .or_insert(numeric);
            }
        }
    }
    frames
        .into_iter()
        .map(|mut frame| {
            for name in &conflicting {
                let Ok(column) = frame.column(name) else {
                    continue;
                };
                let converted = if all_numeric.get(name.as_str()) == Some(&true) {
                    column.cast(&DataType::Float64)?
                } else {
                    as_text(column)?
                };
                frame.with_column(converted)?;
            }
            Ok(frame)
        })
        .collect()
}

/// `column` as String: numbers written as a String metric column writes them (Rust's `Display`
/// of the f64: `1.5`, `1024`, `NaN`), other types cast by polars.
fn as_text(column: &Column) -> PolarsResult<Column> {
    if !column.dtype().is_primitive_numeric() {
        return column.cast(&DataType::String);
    }
    let numbers = column.cast(&DataType::Float64)?;
    let text: StringChunked = numbers
        .f64()?
        .iter()
        .map(|v| v.map(|v| v.to_string()))
        .collect();
    Ok(text.with_name(column.name().clone()).into_column())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacked(frames: Vec<DataFrame>) -> PolarsResult<DataFrame> {
        polars::functions::concat_df_diagonal(&unify_column_types(frames)?)
    }

    #[test]
    fn a_number_and_a_text_column_stack_as_text_with_numbers_in_base_units() -> PolarsResult<()> {
        let a = df!("id" => [1i64, 2], "m" => [1.5f64, 1024.0])?;
        let b = df!("id" => [3i64], "m" => ["CachePreferNone"])?;
        let out = stacked(vec![a, b])?;
        let m: Vec<Option<&str>> = out.column("m")?.str()?.iter().collect();
        assert_eq!(m, [Some("1.5"), Some("1024"), Some("CachePreferNone")]);
        Ok(())
    }

    #[test]
    fn nan_and_integers_stay_numbers() -> PolarsResult<()> {
        let a = df!("m" => [f64::NAN, 2.5])?;
        let b = df!("m" => [7i64])?;
        let c = df!("m" => [Option::<f64>::None])?
            .lazy()
            .select([lit(NULL).alias("m")])
            .collect()?;
        let out = stacked(vec![a, b, c])?;
        assert_eq!(out.column("m")?.dtype(), &DataType::Float64);
        let m: Vec<Option<f64>> = out.column("m")?.f64()?.iter().collect();
        assert!(m[0].is_some_and(f64::is_nan));
        assert_eq!(&m[1..], [Some(2.5), Some(7.0), None]);
        Ok(())
    }

    #[test]
    fn columns_of_one_type_are_left_as_they_are() -> PolarsResult<()> {
        let a = df!("m" => [1.0f64], "only_a" => ["x"])?;
        let b = df!("m" => [2.0f64])?;
        let out = stacked(vec![a, b])?;
        assert_eq!(out.column("m")?.dtype(), &DataType::Float64);
        assert_eq!(out.column("only_a")?.null_count(), 1);
        Ok(())
    }
}
