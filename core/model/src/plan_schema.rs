//! Schemas of the model's lazy plans, resolved one stage at a time within an evaluation.
//!
//! Every stage of the model asks for the schema of the plan so far: which optional counters an
//! export has, which columns the stages before have added. polars resolves a schema by converting
//! the plan into its IR in arenas, and a new `LazyFrame` (the result of every `with_columns`)
//! starts with empty arenas, so each query converted the whole plan again: the model's column
//! names took 30–40 ms and the plan of one evaluation 12.7 ms before its `collect`, on the 240
//! launches of a real A100 details page (docs/performance.md, session 18).
//!
//! [`schema_of`] resolves the queries made inside one [`with_shared_arenas`] call in the same
//! arenas, those of one holder frame: polars marks the part of a plan it has converted with the
//! arenas' version (`DslPlan::IR`), finds it there, and converts only the stages added since.
//! Outside such a call it is `collect_schema`. The arenas are only a cache: a plan part whose
//! version is not theirs is converted from its DSL, which polars keeps beside it, so a frame built
//! in one call is still usable after it, and the schema is the same either way (tested below).

use std::cell::RefCell;

use polars::prelude::*;

thread_local! {
    /// The holder frames of the [`with_shared_arenas`] calls running on this thread, innermost
    /// last.
    static HOLDERS: RefCell<Vec<LazyFrame>> = const { RefCell::new(Vec::new()) };
}

/// Runs `evaluate` with the schema queries of [`schema_of`] sharing one pair of polars arenas,
/// which are freed when it returns (or unwinds).
pub(crate) fn with_shared_arenas<T>(evaluate: impl FnOnce() -> T) -> T {
    /// Removes this call's holder, even when `evaluate` unwinds.
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            HOLDERS.with(|holders| holders.borrow_mut().pop());
        }
    }
    HOLDERS.with(|holders| holders.borrow_mut().push(DataFrame::empty().lazy()));
    let _release = Release;
    evaluate()
}

/// The schema of `frame`'s plan (as `collect_schema` gives it), resolved in the arenas of the
/// innermost [`with_shared_arenas`] call on this thread when there is one. Like `collect_schema`,
/// it leaves `frame` holding its resolved plan.
pub(crate) fn schema_of(frame: &mut LazyFrame) -> PolarsResult<SchemaRef> {
    // The holder is taken out while polars uses it, so that no borrow is held across the call.
    let Some(mut holder) = HOLDERS.with(|holders| holders.borrow_mut().pop()) else {
        return frame.collect_schema();
    };
    holder.logical_plan = frame.logical_plan.clone();
    let schema = holder.collect_schema();
    if schema.is_ok() {
        frame.logical_plan = holder.logical_plan.clone();
    }
    HOLDERS.with(|holders| holders.borrow_mut().push(holder));
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of stages, each depending on the schema of the one before, as the model's are.
    fn chain(
        schema: &mut dyn FnMut(&mut LazyFrame) -> PolarsResult<SchemaRef>,
    ) -> PolarsResult<(Vec<SchemaRef>, DataFrame)> {
        let mut frame = df!("a" => [1i64, 2, 3], "b" => [0.5f64, 1.5, 2.5])?.lazy();
        let mut schemas = Vec::new();
        for stage in 0..6 {
            let known = schema(&mut frame)?;
            schemas.push(known.clone());
            let last = known.iter_names().last().cloned().unwrap_or_default();
            frame = frame.with_columns([
                (col(last) * lit(2.0) + lit(stage as f64)).alias(format!("s{stage}"))
            ]);
        }
        schemas.push(schema(&mut frame)?);
        Ok((schemas, frame.collect()?))
    }

    #[test]
    fn schemas_resolved_in_shared_arenas_are_those_polars_gives() -> PolarsResult<()> {
        let (expected, expected_frame) = chain(&mut |frame| frame.collect_schema())?;
        let (shared, shared_frame) = with_shared_arenas(|| chain(&mut schema_of))?;
        assert_eq!(shared, expected);
        assert!(shared_frame.equals_missing(&expected_frame));
        assert_eq!(expected.last().map(|s| s.len()), Some(8));
        // Nested calls resolve the same.
        let nested = with_shared_arenas(|| {
            let inner = with_shared_arenas(|| chain(&mut schema_of));
            chain(&mut schema_of).map(|outer| (outer, inner))
        })?;
        assert_eq!(nested.0.0, expected);
        assert_eq!(nested.1?.0, expected);
        assert!(HOLDERS.with(|holders| holders.borrow().is_empty()));
        // A frame resolved in a call that has ended (its arenas freed) is still usable after it.
        let mut resolved = with_shared_arenas(|| -> PolarsResult<LazyFrame> {
            let mut frame = df!("a" => [1i64, 2, 3])?
                .lazy()
                .with_columns([(col("a") * lit(2i64)).alias("b")]);
            schema_of(&mut frame)?;
            let mut frame = frame.with_columns([(col("b") + lit(1i64)).alias("c")]);
            schema_of(&mut frame)?;
            Ok(frame)
        })?;
        assert_eq!(
            resolved.collect_schema()?.iter_names().collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert_eq!(
            resolved.collect()?.column("c")?.i64()?.to_vec(),
            [Some(3), Some(5), Some(7)]
        );
        Ok(())
    }
}
