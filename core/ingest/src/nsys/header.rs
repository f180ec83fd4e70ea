//! The header of an `nsys stats` CSV report: column labels with their units in parentheses
//! (`Start (ns)`, `Bytes (MB)`, `Throughput (MB/s)`), looked up by name and turned into scales.
//! Shared by the `cuda_gpu_trace` and `cuda_gpu_kern_sum` readers.

use std::path::Path;

use crate::IngestError;

/// Splits a header label into its name and the unit in parentheses: `Start (ns)` gives
/// (`Start`, `Some("ns")`), `Start(sec)` gives (`Start`, `Some("sec")`), `CorrId` gives
/// (`CorrId`, `None`).
pub(crate) fn label_and_unit(label: &str) -> (&str, Option<&str>) {
    let label = label.trim();
    if let Some(stripped) = label.strip_suffix(')')
        && let Some(open) = stripped.rfind('(')
    {
        return (
            stripped[..open].trim_end(),
            Some(stripped[open + 1..].trim()),
        );
    }
    (label, None)
}

/// Nanoseconds per unit for a time unit printed by nsys (`ns`, `us`, `ms`, `s`, also `sec`,
/// `usec`, `msec`, `nsec`).
pub(crate) fn ns_per_unit(unit: &str) -> Option<f64> {
    match unit {
        "ns" | "nsec" => Some(1.0),
        "us" | "usec" | "μs" | "µs" => Some(1e3),
        "ms" | "msec" => Some(1e6),
        "s" | "sec" => Some(1e9),
        _ => None,
    }
}

/// Bytes per unit for a memory-size unit printed by nsys. nsys uses decimal prefixes (0.131 MB is
/// printed for 131 072 bytes), so `KB`/`MB`/`GB` are 1e3/1e6/1e9; the binary `KiB`/`MiB`/`GiB`
/// are accepted too.
pub(crate) fn bytes_per_unit(unit: &str) -> Option<f64> {
    match unit {
        "B" | "byte" | "bytes" => Some(1.0),
        "KB" | "kB" => Some(1e3),
        "MB" => Some(1e6),
        "GB" => Some(1e9),
        "KiB" => Some(1024.0),
        "MiB" => Some(1024.0 * 1024.0),
        "GiB" => Some(1024.0 * 1024.0 * 1024.0),
        _ => None,
    }
}

/// Bytes per second per unit for a throughput unit: `MB/s` (nsys 2024+) and `MBps` (older), with
/// any prefix [`bytes_per_unit`] accepts.
pub(crate) fn bytes_per_second_per_unit(unit: &str) -> Option<f64> {
    let size = unit
        .strip_suffix("/s")
        .or_else(|| unit.strip_suffix("ps"))?;
    bytes_per_unit(size)
}

/// The labels of one report header, with what is needed to say precisely what is wrong with it.
#[derive(Debug)]
pub(crate) struct HeaderLabels<'a> {
    path: &'a Path,
    line: u64,
    /// The report's name in messages (`cuda_gpu_trace`).
    report: &'static str,
    labels: Vec<String>,
}

impl<'a> HeaderLabels<'a> {
    /// The header of `report` read from `path` at `line`; the labels are trimmed.
    pub(crate) fn new(
        path: &'a Path,
        line: u64,
        report: &'static str,
        labels: Vec<String>,
    ) -> Self {
        let labels = labels.into_iter().map(|l| l.trim().to_string()).collect();
        HeaderLabels {
            path,
            line,
            report,
            labels,
        }
    }

    /// The labels, for the parsed header to keep (row errors name the column).
    pub(crate) fn into_labels(self) -> Vec<String> {
        self.labels
    }

    fn malformed(&self, expected: String, found: String) -> IngestError {
        IngestError::Malformed {
            path: self.path.to_path_buf(),
            line: self.line,
            expected,
            found,
        }
    }

    /// Index of the first column whose name (without the unit) is one of `names`.
    pub(crate) fn find(&self, names: &[&str]) -> Option<usize> {
        self.labels
            .iter()
            .position(|l| names.contains(&label_and_unit(l).0))
    }

    /// Like [`HeaderLabels::find`], but a missing column is an error naming `names[0]`.
    pub(crate) fn require(&self, names: &[&str]) -> Result<usize, IngestError> {
        self.find(names).ok_or_else(|| {
            self.malformed(
                format!("a `{}` column in the {} header", names[0], self.report),
                format!("the header `{}`", self.labels.join(",")),
            )
        })
    }

    /// Column `index` with the scale of its unit, read by `per_unit` (`default` when the label
    /// has no unit); `what` names the kind of unit in the error.
    fn scaled(
        &self,
        index: usize,
        default: &str,
        per_unit: fn(&str) -> Option<f64>,
        what: &str,
    ) -> Result<(usize, f64), IngestError> {
        let unit = label_and_unit(&self.labels[index]).1.unwrap_or(default);
        let scale = per_unit(unit).ok_or_else(|| {
            self.malformed(
                format!("{what} in `{}`", self.labels[index]),
                format!("`{unit}`"),
            )
        })?;
        Ok((index, scale))
    }

    /// Column `index` with nanoseconds per unit of its time unit (ns when none is given).
    pub(crate) fn time(&self, index: usize) -> Result<(usize, f64), IngestError> {
        self.scaled(index, "ns", ns_per_unit, "a time unit (ns, us, ms, s)")
    }

    /// Column `index` with bytes per unit of its memory unit (B when none is given).
    pub(crate) fn memory(&self, index: usize) -> Result<(usize, f64), IngestError> {
        self.scaled(index, "B", bytes_per_unit, "a memory unit (B, KB, MB, GB)")
    }

    /// Column `index` with bytes per second per unit of its throughput unit (B/s when none).
    pub(crate) fn throughput(&self, index: usize) -> Result<(usize, f64), IngestError> {
        self.scaled(
            index,
            "B/s",
            bytes_per_second_per_unit,
            "a throughput unit (MB/s, MBps, GB/s, ...)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_units_are_parsed() {
        assert_eq!(label_and_unit("Start (ns)"), ("Start", Some("ns")));
        assert_eq!(label_and_unit("Start(sec)"), ("Start", Some("sec")));
        assert_eq!(
            label_and_unit("Throughput (MB/s)"),
            ("Throughput", Some("MB/s"))
        );
        assert_eq!(label_and_unit("Reg/Trd"), ("Reg/Trd", None));
        assert_eq!(ns_per_unit("us"), Some(1e3));
        assert_eq!(bytes_per_unit("MB"), Some(1e6));
        assert_eq!(bytes_per_second_per_unit("MBps"), Some(1e6));
        assert_eq!(bytes_per_second_per_unit("GB/s"), Some(1e9));
        assert_eq!(bytes_per_second_per_unit("MB"), None);
    }

    #[test]
    fn a_missing_column_or_an_unknown_unit_names_the_report() {
        let labels = ["Start (ns)", " Bytes (XB) "].map(String::from).to_vec();
        let header = HeaderLabels::new(Path::new("t.csv"), 3, "cuda_gpu_trace", labels);
        assert_eq!(header.find(&["Bytes"]), Some(1));
        assert!(matches!(header.time(0), Ok((0, 1.0))));
        match header.require(&["CorrId"]) {
            Err(IngestError::Malformed { line, expected, .. }) => {
                assert_eq!(line, 3);
                assert_eq!(expected, "a `CorrId` column in the cuda_gpu_trace header");
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
        match header.memory(1) {
            Err(IngestError::Malformed { found, .. }) => assert_eq!(found, "`XB`"),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }
}
