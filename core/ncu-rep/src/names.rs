//! Metric names: the `ProfilerStringTable` of the report, merged into one interned table so that
//! every metric carries a small [`NameId`] instead of its own copy of the name.

use std::collections::HashMap;

use crate::blocks::RawMessage;
use crate::error::DecodeError;
use crate::wire::Reader;

/// The index of a metric name in [`crate::Report::names`] (and [`crate::LaunchStream::names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameId(pub u32);

impl NameId {
    /// The index as a `usize`, for slicing the names table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every distinct metric name of a report, in order of first appearance.
///
/// Each non-empty string table in the file gets a map from its entries to ids in this table
/// (a name repeated in a later table gets its first id). A result's `NameId` indexes the entries
/// of every non-empty table of the file, table after table in file order, as NVIDIA's reader
/// numbers them: ncu 2023.3 writes the names a result uses partly in its own block and partly in
/// one-entry tables of later blocks (see `RESULTS.md`). An empty table adds nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameTable {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl NameTable {
    /// Interns the strings of one `ProfilerStringTable` and returns its local-to-global map, or
    /// `None` when the table is empty (it adds no entry).
    pub(crate) fn add_table(
        &mut self,
        msg: RawMessage<'_>,
    ) -> Result<Option<Vec<u32>>, DecodeError> {
        let mut map = Vec::new();
        let mut r = Reader::new(msg.bytes, msg.offset);
        while let Some(f) = r.next_field()? {
            if f.number != 1 {
                continue;
            }
            let (b, _) = f.bytes("ProfilerStringTable.Strings")?;
            let s = String::from_utf8_lossy(b);
            let id = match self.index.get(s.as_ref()) {
                Some(&id) => id,
                None => {
                    // The table is bounded by the input size (each entry costs at least 2
                    // bytes), so the id always fits in u32 for inputs below 8 GiB; saturate
                    // rather than wrap beyond that.
                    let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
                    self.names.push(s.clone().into_owned());
                    self.index.insert(s.into_owned(), id);
                    id
                }
            };
            map.push(id);
        }
        Ok(if map.is_empty() { None } else { Some(map) })
    }

    /// The global id of `name`, if any table contained it.
    pub(crate) fn id(&self, name: &str) -> Option<NameId> {
        self.index.get(name).map(|&i| NameId(i))
    }

    /// All names; a [`NameId`] indexes this slice.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Splits the table into its name list and its lookup index.
    pub(crate) fn into_parts(self) -> (Vec<String>, HashMap<String, u32>) {
        (self.names, self.index)
    }
}
