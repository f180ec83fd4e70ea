//! Per-instance metric values (`MetricValueList`): the correlation ids and element values of a
//! metric's instances, stored as typed columns so that the millions of instances of a large
//! report take 16 bytes each rather than a pair of enums.

use crate::value::Value;

/// A column of instance values (or correlation ids), stored by type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Every element is present and a `Uint64` value.
    Uint64(Box<[u64]>),
    /// Every element is present and a `Double` value.
    Double(Box<[f64]>),
    /// Anything else: other types, mixed types, or missing elements (`None`).
    Mixed(Box<[Option<Value>]>),
}

impl Values {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Values::Uint64(v) => v.len(),
            Values::Double(v) => v.len(),
            Values::Mixed(v) => v.len(),
        }
    }

    /// Whether the column has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a [`Value`] (`None` if `i` is out of range or the element is missing).
    pub fn get(&self, i: usize) -> Option<Value> {
        match self {
            Values::Uint64(v) => v.get(i).map(|&x| Value::Uint64(x)),
            Values::Double(v) => v.get(i).map(|&x| Value::Double(x)),
            Values::Mixed(v) => v.get(i).cloned().flatten(),
        }
    }

    /// Iterates over the elements as [`Value`]s (`None` for a missing element).
    pub fn iter(&self) -> impl Iterator<Item = Option<Value>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The elements as `f64` (strings and missing elements as `None`).
    pub fn iter_f64(&self) -> impl Iterator<Item = Option<f64>> + '_ {
        (0..self.len()).map(move |i| match self {
            Values::Uint64(v) => Some(v[i] as f64),
            Values::Double(v) => Some(v[i]),
            Values::Mixed(v) => v[i].as_ref().and_then(Value::as_f64),
        })
    }

    /// Builds the most compact column for `items`, draining them.
    pub(crate) fn from_drain(items: &mut Vec<Option<Value>>) -> Values {
        if items.iter().all(|v| matches!(v, Some(Value::Uint64(_)))) {
            return Values::Uint64(
                items
                    .drain(..)
                    .map(|v| match v {
                        Some(Value::Uint64(x)) => x,
                        _ => 0,
                    })
                    .collect(),
            );
        }
        if items.iter().all(|v| matches!(v, Some(Value::Double(_)))) {
            return Values::Double(
                items
                    .drain(..)
                    .map(|v| match v {
                        Some(Value::Double(x)) => x,
                        _ => 0.0,
                    })
                    .collect(),
            );
        }
        Values::Mixed(items.drain(..).collect())
    }
}

/// The instances of one metric: element `i` of `values` belongs to element `i` of
/// `correlation_ids` (both columns always have the same length).
#[derive(Debug, Clone, PartialEq)]
pub struct Instances {
    /// (1) CorrelationId of each instance: what it belongs to, e.g. a unit index or opcode, a
    /// sample timestamp, or 0 for a single-instance metric. Missing ids are `None` in a
    /// [`Values::Mixed`] column.
    pub correlation_ids: Values,
    /// (2) ElementValue of each instance.
    pub values: Values,
}

impl Instances {
    /// The number of instances.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no instances (never the case for a decoded metric).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Iterates over (correlation id, value) pairs.
    pub fn iter(&self) -> impl Iterator<Item = (Option<Value>, Option<Value>)> + '_ {
        self.correlation_ids.iter().zip(self.values.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_pick_the_compact_form() {
        let mut v = vec![Some(Value::Uint64(1)), Some(Value::Uint64(2))];
        assert_eq!(
            Values::from_drain(&mut v),
            Values::Uint64(vec![1, 2].into())
        );
        assert!(v.is_empty());
        let mut v = vec![Some(Value::Double(1.5))];
        assert_eq!(Values::from_drain(&mut v), Values::Double(vec![1.5].into()));
        let mut v = vec![Some(Value::Uint64(1)), None];
        let m = Values::from_drain(&mut v);
        assert_eq!(m.get(0), Some(Value::Uint64(1)));
        assert_eq!(m.get(1), None);
        assert_eq!(m.len(), 2);
        assert_eq!(m.iter_f64().collect::<Vec<_>>(), vec![Some(1.0), None]);
    }
}
