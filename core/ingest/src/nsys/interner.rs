//! String interning for the nsys readers: kernel and device names repeat on millions of rows, so
//! each distinct value is stored once and rows hold a `u32` index. The final string column is a
//! gather from the distinct values, which shares their bytes instead of copying them per row.

use polars::prelude::*;

/// Distinct strings in first-seen order, with their index.
#[derive(Debug, Default, Clone)]
pub(crate) struct Interner {
    index: PlHashMap<Box<str>, u32>,
    values: Vec<Box<str>>,
    last: Option<u32>,
}

impl Interner {
    /// The index of `value`, adding it when new. Consecutive repeats skip the hash lookup.
    pub(crate) fn intern(&mut self, value: &str) -> u32 {
        if let Some(last) = self.last
            && *self.values[last as usize] == *value
        {
            return last;
        }
        let id = match self.index.get(value) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.values.len()).unwrap_or(u32::MAX);
                self.values.push(value.into());
                self.index.insert(value.into(), id);
                id
            }
        };
        self.last = Some(id);
        id
    }

    /// The distinct values in index order.
    pub(crate) fn values(&self) -> &[Box<str>] {
        &self.values
    }

    /// Adds every value of `other` and returns, for each of `other`'s indices, the index in
    /// `self` (used to merge per-chunk interners).
    pub(crate) fn absorb(&mut self, other: &Interner) -> Vec<u32> {
        other
            .values
            .iter()
            .map(|value| self.intern(value))
            .collect()
    }
}

/// Builds a string column of `ids.len()` rows from distinct `values` and per-row indices
/// (`None` = null). The rows share the distinct values' bytes.
pub(crate) fn gather_strings<S: AsRef<str>>(
    name: &str,
    values: &[S],
    ids: impl IntoIterator<Item = Option<u32>>,
) -> PolarsResult<Column> {
    let distinct: StringChunked = values.iter().map(|v| Some(v.as_ref())).collect();
    let indices: IdxCa = ids
        .into_iter()
        .map(|id| id.map(|id| id as IdxSize))
        .collect();
    let mut gathered = distinct.take(&indices)?;
    gathered.rename(name.into());
    Ok(gathered.into_column())
}

/// Like [`gather_strings`] for rows that all have a value.
pub(crate) fn gather_strings_dense<S: AsRef<str>>(
    name: &str,
    values: &[S],
    ids: &[u32],
) -> PolarsResult<Column> {
    let distinct: StringChunked = values.iter().map(|v| Some(v.as_ref())).collect();
    let indices = IdxCa::from_vec("".into(), ids.iter().map(|&id| id as IdxSize).collect());
    let mut gathered = distinct.take(&indices)?;
    gathered.rename(name.into());
    Ok(gathered.into_column())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_gives_stable_indices_and_gathers_back() -> PolarsResult<()> {
        let mut names = Interner::default();
        let ids: Vec<u32> = ["a", "b", "a", "a", "c", "b"]
            .iter()
            .map(|s| names.intern(s))
            .collect();
        assert_eq!(ids, [0, 1, 0, 0, 2, 1]);
        let column = gather_strings_dense("n", names.values(), &ids)?;
        let strings: Vec<Option<&str>> = column.str()?.iter().collect();
        assert_eq!(
            strings,
            [
                Some("a"),
                Some("b"),
                Some("a"),
                Some("a"),
                Some("c"),
                Some("b")
            ]
        );
        let mut merged = Interner::default();
        merged.intern("c");
        assert_eq!(merged.absorb(&names), [1, 2, 0]);
        Ok(())
    }
}
