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
//!
//! [`stack`] stacks the tables: the union of their columns in first-seen order, each output
//! column built on rayon's pool from the frames' pieces of it (a null piece where a frame lacks
//! the column), the table `polars::functions::concat_df_diagonal` gives for the unified frames.

use std::collections::{HashMap, HashSet};

use polars::prelude::*;
use polars::series::builder::SeriesBuilder;
use polars_arrow::array::builder::ShareStrategy;
use rayon::prelude::*;

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
        .into_par_iter()
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

/// `frames` stacked into one table, an extra column whose type differs between them converted by
/// the rule of this module: the union of their columns in the order they are first seen, the rows
/// of the frames in order, and nulls where a frame lacks a column.
///
/// It is the table `polars::functions::concat_df_diagonal` gives for the frames of
/// [`unify_column_types`], built column by column on rayon's pool instead of frame by frame on
/// the calling thread: each output column is one array (the table writers need aligned chunks),
/// built in one go from the frames' pieces of it, converted to its type, and a run of nulls for
/// each frame without it (no null array is made per frame). Unlike the diagonal concatenation, a column that is
/// `Null` in the first frame that has it and typed in a later one takes the later type (the rule
/// of this module) rather than failing.
pub fn stack(frames: Vec<DataFrame>) -> PolarsResult<DataFrame> {
    let stacked = stack_keeping_inputs(&frames)?;
    // The inputs' buffers (the output holds copies) are freed on the pool, not one frame after
    // another on the calling thread.
    frames.into_par_iter().for_each(drop);
    Ok(stacked)
}

/// [`stack`] leaving the frames to the caller: a command that exits once the table is written
/// need not free them (the batch of 71 reports of the `cores` benchmark spent 30 ms of its 0.3 s
/// of CPU freeing its inputs' buffers).
pub fn stack_keeping_inputs(frames: &[DataFrame]) -> PolarsResult<DataFrame> {
    Stacking::plan(frames).stack(frames)
}

/// How frames stack ([`stack`]): the union of their columns, where each frame holds each, and each
/// output column's type, known before any column is built. A writer of the stacked table can thus
/// be made from [`Stacking::schema`] while [`Stacking::stack`] builds it (`warpsight ingest` of a
/// batch of reports does).
pub struct Stacking {
    union: Union,
    /// The stacked table's schema: the output columns' names and types, in order.
    schema: SchemaRef,
}

impl Stacking {
    /// How `frames` stack.
    pub fn plan(frames: &[DataFrame]) -> Stacking {
        let mut planner = StackingPlanner::default();
        for frame in frames {
            planner.add(frame);
        }
        Stacking::of(planner.union, frames)
    }

    /// The plan of `union`, made of `frames` in order: the output columns' types.
    fn of(union: Union, frames: &[DataFrame]) -> Stacking {
        let schema: Schema = union
            .columns
            .iter()
            .enumerate()
            .map(|(slot, column)| {
                (
                    column.name.clone(),
                    column.output_dtype(slot, frames, &union.holders),
                )
            })
            .collect();
        Stacking {
            union,
            schema: Arc::new(schema),
        }
    }

    /// The stacked table's schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// `frames` (those the plan was made for) stacked: each output column built on rayon's pool.
    pub fn stack(&self, frames: &[DataFrame]) -> PolarsResult<DataFrame> {
        if frames.is_empty() {
            return Ok(DataFrame::empty());
        }
        if frames.len() != self.union.holders.len() {
            polars_bail!(ShapeMismatch: "{} frames stacked by a plan for {}", frames.len(), self.union.holders.len());
        }
        let dtypes: Vec<&DataType> = self.schema.iter_values().collect();
        let columns = self
            .union
            .columns
            .par_iter()
            .zip(dtypes)
            .enumerate()
            .map(|(slot, (column, dtype))| {
                let built = column.stack(slot, dtype, frames, &self.union.holders)?;
                if built.dtype() != dtype {
                    polars_bail!(SchemaMismatch: "column `{}` stacked as {} for a plan of {}",
                        built.name(), built.dtype(), dtype);
                }
                Ok(built)
            })
            .collect::<PolarsResult<Vec<Column>>>()?;
        let height = frames.iter().map(DataFrame::height).sum();
        // SAFETY: the names are unique (the union holds each name once), every column has
        // `height` rows (a piece or a run of nulls per frame, as long as that frame; polars checks
        // both in debug builds) and the type of its schema entry (checked above).
        Ok(unsafe { DataFrame::new_unchecked(height, columns).with_schema(self.schema.clone()) })
    }
}

/// A [`Stacking`] planned one frame at a time, as the frames come (`warpsight ingest` plans the
/// stacking of the reports it keeps while it reads the next ones): [`StackingPlanner::plan`] then
/// takes every frame, those added first.
#[derive(Default)]
pub struct StackingPlanner {
    union: Union,
    /// The height and width of each frame added, to check that the frames planned are the ones
    /// added.
    shapes: Vec<(usize, usize)>,
}

impl StackingPlanner {
    /// Adds `frame`, the next frame of the stack.
    pub fn add(&mut self, frame: &DataFrame) {
        self.union.add(frame);
        self.shapes.push(frame.shape());
    }

    /// How many frames were added.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether no frame was added.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// The plan of `frames`, whose first [`Self::len`] are the frames added, in order; the others
    /// are added here. The same plan as [`Stacking::plan`] of `frames`.
    pub fn plan(mut self, frames: &[DataFrame]) -> PolarsResult<Stacking> {
        let added = self.shapes.len();
        let Some(first) = frames.get(..added) else {
            polars_bail!(ShapeMismatch: "{added} frames added to a stacking of {}", frames.len());
        };
        if first
            .iter()
            .map(DataFrame::shape)
            .ne(self.shapes.iter().copied())
        {
            polars_bail!(ShapeMismatch: "the frames stacked are not the frames added to the plan");
        }
        for frame in &frames[added..] {
            self.union.add(frame);
        }
        Ok(Stacking::of(self.union, frames))
    }
}

/// The columns of several frames, in the order they are first seen, and where each frame holds
/// each of them.
#[derive(Default)]
struct Union {
    columns: Vec<UnionColumn>,
    /// For each frame, the index in it of each output column it holds (by output column; shorter
    /// than `columns` when the frame ends before the columns first seen after it).
    holders: Vec<Vec<Option<u32>>>,
    /// The output column of each name.
    position: PlHashMap<PlSmallStr, usize>,
    /// The frames whose columns were looked up by name, with the output column of each of their
    /// columns: a frame with the same column names in the same order (a batch's reports of one
    /// tool, or one report given twice) takes its output columns from the first such frame
    /// instead of looking up its thousands of names again.
    looked_up: Vec<(usize, Vec<usize>)>,
}

/// One output column of [`Union`].
struct UnionColumn {
    name: PlSmallStr,
    /// The first type other than `Null` the column has (`Null` when it has no other).
    dtype: DataType,
    /// True when another frame has it with another type (other than `Null`).
    conflicting: bool,
}

impl Union {
    /// Adds `frame`, the next frame: its columns not seen before, in its order, after the others.
    fn add(&mut self, frame: &DataFrame) {
        let columns = &mut self.columns;
        let same = self.looked_up.iter().find(|(_, slots)| {
            slots.len() == frame.width()
                && frame
                    .columns()
                    .iter()
                    .zip(slots)
                    .all(|(column, &slot)| column.name() == &columns[slot].name)
        });
        if let Some((earlier, slots)) = same {
            for (column, &slot) in frame.columns().iter().zip(slots) {
                columns[slot].saw(column.dtype());
            }
            let held = self.holders[*earlier].clone();
            self.holders.push(held);
            return;
        }
        let mut held: Vec<Option<u32>> = vec![None; columns.len()];
        let mut slots = Vec::with_capacity(frame.width());
        for (index, column) in frame.columns().iter().enumerate() {
            let dtype = column.dtype();
            let slot = match self.position.get(column.name()) {
                Some(&slot) => {
                    columns[slot].saw(dtype);
                    slot
                }
                None => {
                    self.position.insert(column.name().clone(), columns.len());
                    columns.push(UnionColumn {
                        name: column.name().clone(),
                        dtype: dtype.clone(),
                        conflicting: false,
                    });
                    held.push(None);
                    columns.len() - 1
                }
            };
            held[slot] = u32::try_from(index).ok();
            slots.push(slot);
        }
        self.looked_up.push((self.holders.len(), slots));
        self.holders.push(held);
    }
}

impl UnionColumn {
    /// Takes in that a frame has the column with `dtype`: its first type other than `Null`, or a
    /// conflict with another.
    fn saw(&mut self, dtype: &DataType) {
        if self.dtype == DataType::Null {
            self.dtype = dtype.clone();
        } else if dtype != &DataType::Null && dtype != &self.dtype {
            self.conflicting = true;
        }
    }

    /// The frames' pieces of output column `slot` (`None` where a frame lacks it).
    fn pieces<'a>(
        slot: usize,
        frames: &'a [DataFrame],
        holders: &'a [Vec<Option<u32>>],
    ) -> impl Iterator<Item = Option<&'a Column>> + 'a {
        frames.iter().zip(holders).map(move |(frame, held)| {
            let index = held.get(slot).copied().flatten()?;
            frame.columns().get(usize::try_from(index).ok()?)
        })
    }

    /// The type of output column `slot`: its first type other than `Null`, or for a conflicting
    /// column (`unify_column_types`) Float64 when every frame has numbers there, else String.
    fn output_dtype(
        &self,
        slot: usize,
        frames: &[DataFrame],
        holders: &[Vec<Option<u32>>],
    ) -> DataType {
        if !self.conflicting {
            return self.dtype.clone();
        }
        let numeric = Self::pieces(slot, frames, holders)
            .flatten()
            .filter(|column| column.dtype() != &DataType::Null)
            .all(|column| column.dtype().is_primitive_numeric());
        if numeric {
            DataType::Float64
        } else {
            DataType::String
        }
    }

    /// The output column `slot` of type `dtype`: the frames' pieces of it, converted to its type,
    /// stacked into one chunk.
    fn stack(
        &self,
        slot: usize,
        dtype: &DataType,
        frames: &[DataFrame],
        holders: &[Vec<Option<u32>>],
    ) -> PolarsResult<Column> {
        let height = frames.iter().map(DataFrame::height).sum();
        let mut builder = SeriesBuilder::new(dtype.clone());
        builder.reserve(height);
        for (frame, piece) in frames.iter().zip(Self::pieces(slot, frames, holders)) {
            match piece {
                Some(column) if column.dtype() == dtype => {
                    builder.extend(column.as_materialized_series(), ShareStrategy::Always);
                }
                Some(column) if column.dtype() != &DataType::Null => {
                    // Only a conflicting column's pieces have another type.
                    let converted = if dtype == &DataType::Float64 {
                        column.cast(&DataType::Float64)?
                    } else {
                        as_text(column)?
                    };
                    builder.extend(converted.as_materialized_series(), ShareStrategy::Always);
                }
                // A frame without the column, or whose column is all null (`Null`): nulls of the
                // column's type.
                _ => builder.extend_nulls(frame.height()),
            }
        }
        Ok(builder.freeze(self.name.clone()).into_column())
    }
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

    /// The diagonal concatenation `stack` replaces, on the same frames.
    fn diagonal(frames: &[DataFrame]) -> PolarsResult<DataFrame> {
        polars::functions::concat_df_diagonal(&unify_column_types(frames.to_vec())?)
    }

    /// Asserts that `stack` gives the diagonal concatenation's table: the same column names in
    /// the same order, the same types, the same values and nulls, and one chunk per column.
    fn assert_stacks_as_diagonal(frames: &[DataFrame]) -> PolarsResult<DataFrame> {
        let expected = diagonal(frames)?;
        let out = stack(frames.to_vec())?;
        assert_eq!(out.schema(), expected.schema());
        assert_eq!(out.height(), expected.height());
        assert!(out.equals_missing(&expected), "{out}\n{expected}");
        assert!(out.columns().iter().all(|c| c.n_chunks() == 1));
        Ok(out)
    }

    /// A frame whose `name` column is `Null` (all null, untyped), as an export without values
    /// there gives it.
    fn with_null_column(frame: DataFrame, name: &str) -> PolarsResult<DataFrame> {
        frame.lazy().with_column(lit(NULL).alias(name)).collect()
    }

    #[test]
    fn stack_unions_the_columns_in_first_seen_order_with_nulls_where_absent() -> PolarsResult<()> {
        let a = df!("id" => [1i64, 2], "x" => [0.5f64, 1.5], "name" => ["k1", "k2"])?;
        let b = df!("id" => [3i64], "y" => [7i64], "x" => [2.5f64])?;
        let c = df!("z" => ["only c"], "id" => [4i64])?;
        let out = assert_stacks_as_diagonal(&[a, b, c])?;
        let names: Vec<&str> = out.get_column_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, ["id", "x", "name", "y", "z"]);
        let dtypes: Vec<DataType> = out.dtypes();
        assert_eq!(
            dtypes,
            [
                DataType::Int64,
                DataType::Float64,
                DataType::String,
                DataType::Int64,
                DataType::String
            ]
        );
        let y: Vec<Option<i64>> = out.column("y")?.i64()?.iter().collect();
        assert_eq!(y, [None, None, Some(7), None]);
        let z: Vec<Option<&str>> = out.column("z")?.str()?.iter().collect();
        assert_eq!(z, [None, None, None, Some("only c")]);
        let x: Vec<Option<f64>> = out.column("x")?.f64()?.iter().collect();
        assert_eq!(x, [Some(0.5), Some(1.5), Some(2.5), None]);
        Ok(())
    }

    #[test]
    fn stack_equals_the_diagonal_concatenation_with_clashing_types_and_chunked_columns()
    -> PolarsResult<()> {
        // Two chunks in one frame's columns, a constant (scalar) column, a type clash (number
        // and text), integers and floats, an all-null column after the typed one, and an empty
        // frame.
        let mut a = df!("id" => [1i64, 2], "m" => [1.5f64, 1024.0], "n" => [1i64, 2])?;
        a.vstack_mut(&df!("id" => [5i64], "m" => [3.0f64], "n" => [3i64])?)?;
        let a = a
            .lazy()
            .with_column(lit("a.ncu-rep").alias("source_file"))
            .collect()?;
        let b = df!("id" => [3i64], "m" => ["CachePreferNone"], "n" => [2.5f64])?
            .lazy()
            .with_column(lit("b.ncu-rep").alias("source_file"))
            .collect()?;
        let c = with_null_column(df!("id" => [9i64, 10])?, "n")?;
        let empty = df!("id" => Vec::<i64>::new(), "e" => Vec::<f64>::new())?;
        // Every order of the four frames (a column all null in the first frame that has it is
        // one whose type conflicts, which the diagonal concatenation takes).
        let frames = [a, b, c, empty];
        for order in 0..24usize {
            let mut left: Vec<&DataFrame> = frames.iter().collect();
            let mut ordered = Vec::with_capacity(frames.len());
            let mut code = order;
            for base in (1..=frames.len()).rev() {
                ordered.push(left.remove(code % base).clone());
                code /= base;
            }
            assert_stacks_as_diagonal(&ordered)?;
        }
        Ok(())
    }

    #[test]
    fn frames_with_the_same_columns_as_an_earlier_one_stack_as_the_diagonal_concatenation()
    -> PolarsResult<()> {
        // Frames with the same names in the same order as an earlier frame take their output
        // columns from it: their types must still count (a `Null` column typed by a repeat, a
        // clash only a repeat brings), and a frame with the same names in another order or one
        // more column is looked up on its own.
        let a = with_null_column(df!("id" => [1i64], "x" => [0.5f64])?, "m")?;
        let a_again = df!("id" => [2i64], "x" => [1.5f64], "m" => [2.5f64])?;
        let reordered = df!("x" => [3.5f64], "id" => [3i64], "m" => [4.0f64])?;
        let wider = df!("id" => [4i64], "x" => [5.5f64], "m" => [6.0f64], "w" => ["w"])?;
        let clash = df!("id" => [5i64], "x" => ["text"], "m" => [7.0f64])?;
        let frames = [a.clone(), a_again, reordered, wider, a.clone(), clash, a];
        let out = assert_stacks_as_diagonal(&frames[1..])?;
        assert_eq!(out.column("x")?.dtype(), &DataType::String);
        // With `a` (`m` all null) first, the repeat types `m`; the diagonal concatenation fails
        // there, so the values are checked one by one.
        let out = stack(frames.to_vec())?;
        let names: Vec<&str> = out.get_column_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, ["id", "x", "m", "w"]);
        assert_eq!(out.column("m")?.dtype(), &DataType::Float64);
        let m: Vec<Option<f64>> = out.column("m")?.f64()?.iter().collect();
        assert_eq!(
            m,
            [None, Some(2.5), Some(4.0), Some(6.0), None, Some(7.0), None]
        );
        let x: Vec<Option<&str>> = out.column("x")?.str()?.iter().collect();
        assert_eq!(
            x,
            [
                Some("0.5"),
                Some("1.5"),
                Some("3.5"),
                Some("5.5"),
                Some("0.5"),
                Some("text"),
                Some("0.5")
            ]
        );
        let w: Vec<Option<&str>> = out.column("w")?.str()?.iter().collect();
        assert_eq!(w, [None, None, None, Some("w"), None, None, None]);
        Ok(())
    }

    #[test]
    fn a_stacking_planned_frame_by_frame_is_the_one_planned_at_once() -> PolarsResult<()> {
        let a = with_null_column(df!("id" => [1i64], "x" => [0.5f64])?, "m")?;
        let b = df!("id" => [2i64], "x" => [1.5f64], "m" => [2.5f64])?;
        let c = df!("x" => ["text"], "w" => [3i64])?;
        let frames = [a.clone(), b, a, c];
        let at_once = Stacking::plan(&frames);
        let expected = at_once.stack(&frames)?;
        for added in 0..=frames.len() {
            let mut planner = StackingPlanner::default();
            for frame in &frames[..added] {
                planner.add(frame);
            }
            assert_eq!(planner.len(), added);
            let plan = planner.plan(&frames)?;
            assert_eq!(plan.schema(), at_once.schema(), "{added} added");
            let out = plan.stack(&frames)?;
            assert_eq!(out.schema(), expected.schema());
            assert!(out.equals_missing(&expected), "{added} added: {out}");
        }
        // Frames other than those added are refused, not stacked by a wrong plan.
        let mut planner = StackingPlanner::default();
        planner.add(&frames[3]);
        assert!(planner.plan(&frames).is_err());
        let mut planner = StackingPlanner::default();
        planner.add(&frames[0]);
        assert!(planner.plan(&[]).is_err());
        Ok(())
    }

    #[test]
    fn stack_gives_a_column_null_in_its_first_frame_the_type_of_the_next() -> PolarsResult<()> {
        // The diagonal concatenation fails here (it takes the first frame's `Null` type); the
        // rule of this module gives the column the other export's type.
        let a = with_null_column(df!("id" => [1i64])?, "m")?;
        let b = df!("id" => [2i64], "m" => [2.5f64])?;
        let out = stack(vec![a, b])?;
        assert_eq!(out.column("m")?.dtype(), &DataType::Float64);
        let m: Vec<Option<f64>> = out.column("m")?.f64()?.iter().collect();
        assert_eq!(m, [None, Some(2.5)]);
        Ok(())
    }

    #[test]
    fn stack_of_one_frame_or_none() -> PolarsResult<()> {
        let a = df!("id" => [1i64, 2], "m" => [Some(1.0f64), None])?;
        let out = assert_stacks_as_diagonal(std::slice::from_ref(&a))?;
        assert!(out.equals_missing(&a));
        assert_eq!(stack(Vec::new())?.shape(), (0, 0));
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
