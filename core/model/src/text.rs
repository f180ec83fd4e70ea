//! Building text columns (reasons, limiter lists) from expressions without polars' optional
//! `concat_str` feature: string columns are concatenated with `+`, which polars defines for
//! strings. A null part makes the whole result null, so callers only join parts that exist.

use polars::prelude::*;

/// Concatenates the parts in order.
pub fn concat(parts: impl IntoIterator<Item = Expr>) -> Expr {
    parts
        .into_iter()
        .map(|e| e.cast(DataType::String))
        .reduce(|acc, e| acc + e)
        .unwrap_or_else(|| lit(""))
}

/// Joins the non-null parts with `separator` (null when every part is null).
pub fn join_present(parts: impl IntoIterator<Item = Expr>, separator: &str) -> Expr {
    let prefixed: Vec<Expr> = parts
        .into_iter()
        .map(|e| (lit(separator) + e.cast(DataType::String)).fill_null(lit("")))
        .collect();
    let joined = concat(prefixed);
    when(joined.clone().eq(lit("")))
        .then(lit(NULL).cast(DataType::String))
        .otherwise(joined.str().strip_prefix(lit(separator)))
}
