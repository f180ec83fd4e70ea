//! What a launch uses that another device lacks (`predict --on`, `--device`): instruction families
//! and launch features that need a newer compute capability than the target's, each proved by a
//! counter of the export, never guessed from a kernel's name.
//!
//! | feature | proved by (any above 0) | needs |
//! |---|---|---|
//! | wgmma | `sm__inst_executed_pipe_tensor_op_gmma.sum`, opcodes `HGMMA` `IGMMA` `QGMMA` `BGMMA` | CC 9.0 |
//! | TMA | `sm__inst_executed_pipe_tma.sum`, opcodes `UTMALDG` `UTMASTG` `UTMAPF` `UTMAREDG` `UTMACCTL` `UTMACMDFLUSH` `UBLKCP` `UBLKRED` `UBLKPF` | CC 9.0 |
//! | thread-block clusters | `launch__cluster_size` (ncu raw page) or "Launch Statistics/Cluster Size" above 1 | CC 9.0 |
//! | tcgen05 tensor cores | opcodes `UTCHMMA` `UTCQMMA` `UTCOMMA` `UTCIMMA` | CC 10.x or 11.x |
//! | FP8 tensor cores | `sm__ops_path_tensor_src_fp8*.sum` | CC 8.9 |
//! | BF16 tensor cores | `sm__ops_path_tensor_src_bf16*.sum` | CC 8.0 |
//! | TF32 tensor cores | `sm__ops_path_tensor_src_tf32*.sum` | CC 8.0 |
//! | FP64 tensor cores | `sm__ops_path_tensor_src_fp64*.sum`, `sm__inst_executed_pipe_tensor_op_dmma.sum`, opcode `DMMA` | CC 8.0 |
//! | INT8 tensor cores | `sm__ops_path_tensor_src_int8*.sum`, opcode `IMMA` | CC 7.2 |
//! | FP16 tensor cores | `sm__ops_path_tensor_src_fp16*.sum`, opcode `HMMA` | CC 7.0 |
//!
//! Sources: PTX ISA "Target ISA notes" of `wgmma.mma_async` (`sm_90a`), `cp.async.bulk.tensor`
//! (`sm_90`), `tcgen05.mma` (`sm_100a`, `sm_101a`, `sm_103a`), `mma` with `.e4m3`/`.e5m2` (`sm_89`),
//! `.bf16`/`.tf32`/`.f64` (`sm_80`), `.s8` (`sm_72`), `.f16` (`sm_70`); CUDA Programming Guide,
//! "Thread Block Clusters" (compute capability 9.0). The per-opcode columns are the ingest's
//! `sass__inst_executed_per_opcode[OPCODE]` ([`warpsight_ingest::launch_table::sass_opcode_of_column`]).
//!
//! `add_columns` appends the features the target lacks to `not_launchable`, on rows modelled on
//! another device only (a launch on its own device ran there), after the occupancy stage's reasons:
//! `not launchable on NVIDIA A100-SXM4-40GB: needs 208.2 KiB shared memory per block, the device
//! allows 163 KiB; uses wgmma, TMA and thread-block clusters (compute capability ≥ 9.0), the device
//! has 8.0`. The occupancy fast path (`evaluate_occupancy`) reads the launch configuration only,
//! not the counters, and so gives the occupancy stage's reasons alone. [`causes`] names the causes
//! of a reason in a few words, for summaries.

use polars::prelude::*;

use crate::columns as out;
use crate::occupancy::NOT_LAUNCHABLE_ON;
use crate::params as p;
use crate::resolve::IS_OVERRIDE;
use warpsight_ingest::launch_table::sass_opcode_of_column;

/// The compute capabilities that have a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// This compute capability (major, minor) or a newer one.
    AtLeast(u32, u32),
    /// Only these major versions (architecture-specific features such as tcgen05).
    Majors(&'static [u32]),
}

impl Needs {
    /// Whether a device of compute capability `major.minor` has the feature.
    #[cfg(test)]
    fn met_by(self, major: u32, minor: u32) -> bool {
        match self {
            Needs::AtLeast(a, b) => (major, minor) >= (a, b),
            Needs::Majors(majors) => majors.contains(&major),
        }
    }

    /// The expression of `met_by` over the target compute-capability columns (false where
    /// they are null).
    fn met(self) -> Expr {
        let major = || col(p::TARGET_CC_MAJOR).cast(DataType::Int64);
        let minor = || col(p::TARGET_CC_MINOR).cast(DataType::Int64);
        let expr = match self {
            Needs::AtLeast(a, b) => major().gt(lit(i64::from(a))).or(major()
                .eq(lit(i64::from(a)))
                .and(minor().gt_eq(lit(i64::from(b))))),
            Needs::Majors(majors) => majors
                .iter()
                .map(|m| major().eq(lit(i64::from(*m))))
                .reduce(|a, b| a.or(b))
                .unwrap_or(lit(false)),
        };
        expr.fill_null(lit(false))
    }

    /// The requirement in words: `≥ 9.0`, `10.x or 11.x`.
    fn describe(self) -> String {
        match self {
            Needs::AtLeast(a, b) => format!("≥ {a}.{b}"),
            Needs::Majors(majors) => {
                let names: Vec<String> = majors.iter().map(|m| format!("{m}.x")).collect();
                names.join(" or ")
            }
        }
    }
}

/// An instruction family or launch feature and the counters that prove a launch uses it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Feature {
    /// Its name in a reason, e.g. `wgmma`, `thread-block clusters`.
    pub(crate) name: &'static str,
    /// The compute capabilities that have it.
    pub(crate) needs: Needs,
    /// Columns whose value above [`Self::above`] proves it.
    columns: &'static [&'static str],
    /// Prefixes of ncu counters (`<prefix>….sum`) whose value above 0 proves it.
    prefixes: &'static [&'static str],
    /// SASS opcodes whose executed count above 0 proves it.
    opcodes: &'static [&'static str],
    /// The threshold of [`Self::columns`] (0 for counts; 1 for a cluster size).
    above: f64,
}

/// The features checked, in the order a reason lists them.
pub(crate) const FEATURES: &[Feature] = &[
    // wgmma exists only on `sm_90a` (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-
    // Accumulate Instructions": "requires sm_90a"); Blackwell replaced it with tcgen05, so a wgmma
    // kernel cannot run on CC 10.x or 12.x either.
    Feature {
        name: "wgmma",
        needs: Needs::Majors(&[9]),
        columns: &["sm__inst_executed_pipe_tensor_op_gmma.sum"],
        prefixes: &[],
        opcodes: &["HGMMA", "IGMMA", "QGMMA", "BGMMA"],
        above: 0.0,
    },
    Feature {
        name: "TMA",
        needs: Needs::AtLeast(9, 0),
        columns: &["sm__inst_executed_pipe_tma.sum"],
        prefixes: &[],
        opcodes: &[
            "UTMALDG",
            "UTMASTG",
            "UTMAPF",
            "UTMAREDG",
            "UTMACCTL",
            "UTMACMDFLUSH",
            "UBLKCP",
            "UBLKRED",
            "UBLKPF",
        ],
        above: 0.0,
    },
    Feature {
        name: "thread-block clusters",
        needs: Needs::AtLeast(9, 0),
        columns: &["launch__cluster_size", "Launch Statistics/Cluster Size"],
        prefixes: &[],
        opcodes: &[],
        above: 1.0,
    },
    Feature {
        name: "tcgen05 tensor cores",
        needs: Needs::Majors(&[10, 11]),
        columns: &[],
        prefixes: &[],
        opcodes: &["UTCHMMA", "UTCQMMA", "UTCOMMA", "UTCIMMA"],
        above: 0.0,
    },
    Feature {
        name: "FP8 tensor cores",
        needs: Needs::AtLeast(8, 9),
        columns: &[],
        prefixes: &["sm__ops_path_tensor_src_fp8"],
        opcodes: &[],
        above: 0.0,
    },
    Feature {
        name: "BF16 tensor cores",
        needs: Needs::AtLeast(8, 0),
        columns: &[],
        prefixes: &["sm__ops_path_tensor_src_bf16"],
        opcodes: &[],
        above: 0.0,
    },
    Feature {
        name: "TF32 tensor cores",
        needs: Needs::AtLeast(8, 0),
        columns: &[],
        prefixes: &["sm__ops_path_tensor_src_tf32"],
        opcodes: &[],
        above: 0.0,
    },
    Feature {
        name: "FP64 tensor cores",
        needs: Needs::AtLeast(8, 0),
        columns: &["sm__inst_executed_pipe_tensor_op_dmma.sum"],
        prefixes: &["sm__ops_path_tensor_src_fp64"],
        opcodes: &["DMMA"],
        above: 0.0,
    },
    Feature {
        name: "INT8 tensor cores",
        needs: Needs::AtLeast(7, 2),
        columns: &[],
        prefixes: &["sm__ops_path_tensor_src_int8"],
        opcodes: &["IMMA"],
        above: 0.0,
    },
    Feature {
        name: "FP16 tensor cores",
        needs: Needs::AtLeast(7, 0),
        columns: &[],
        prefixes: &["sm__ops_path_tensor_src_fp16"],
        opcodes: &["HMMA"],
        above: 0.0,
    },
];

impl Feature {
    /// The columns of a frame with `schema` that can prove the feature, with their thresholds.
    fn evidence<'s>(&self, schema: &'s Schema) -> Vec<(&'s str, f64)> {
        schema
            .iter_names()
            .map(|name| name.as_str())
            .filter_map(|name| {
                if self.columns.contains(&name) {
                    Some((name, self.above))
                } else if self.prefixes.iter().any(|prefix| {
                    name.strip_prefix(prefix)
                        .and_then(|rest| rest.strip_suffix(".sum"))
                        .is_some_and(|middle| !middle.contains('.'))
                }) || sass_opcode_of_column(name)
                    .is_some_and(|op| self.opcodes.contains(&op))
                {
                    Some((name, 0.0))
                } else {
                    None
                }
            })
            .collect()
    }

    /// True where a launch uses the feature (false where no column proves it).
    fn used(&self, schema: &Schema) -> Option<Expr> {
        self.evidence(schema)
            .into_iter()
            .map(|(name, above)| {
                col(name)
                    .cast(DataType::Float64)
                    .gt(lit(above))
                    .fill_null(lit(false))
            })
            .reduce(|a, b| a.or(b))
    }
}

/// Appends to [`out::NOT_LAUNCHABLE`] the features a launch uses and the device it is modelled on
/// lacks, on rows modelled on another device ([`IS_OVERRIDE`]); needs the occupancy columns and the
/// target compute capability. A frame with no column that proves any feature is returned as it is.
pub(crate) fn add_columns(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let lacking: Vec<(usize, Expr)> = FEATURES
        .iter()
        .enumerate()
        .filter_map(|(i, feature)| {
            let used = feature.used(&schema)?;
            Some((
                i,
                col(IS_OVERRIDE)
                    .fill_null(lit(false))
                    .and(used)
                    .and(feature.needs.met().not()),
            ))
        })
        .collect();
    if lacking.is_empty() {
        return Ok(frame);
    }
    let indices: Vec<usize> = lacking.iter().map(|(i, _)| *i).collect();
    let mut inputs = vec![
        col(out::NOT_LAUNCHABLE),
        col(p::DEV_NAME),
        col(p::TARGET_CC_MAJOR),
        col(p::TARGET_CC_MINOR),
    ];
    inputs.extend(lacking.into_iter().map(|(_, expr)| expr));
    let reason = crate::text::text_column(out::NOT_LAUNCHABLE, inputs, move |inputs, row, text| {
        let missing: Vec<&Feature> = indices
            .iter()
            .enumerate()
            .filter(|(input, _)| inputs.flag(4 + input, row) == Some(true))
            .filter_map(|(_, feature)| FEATURES.get(*feature))
            .collect();
        let before = inputs.text(0, row);
        if missing.is_empty() {
            return match before {
                Some(before) => {
                    text.push_str(before);
                    true
                }
                None => false,
            };
        }
        match before {
            Some(before) => {
                text.push_str(before);
                text.push_str("; ");
            }
            None => {
                text.push_str(NOT_LAUNCHABLE_ON);
                text.push_str(inputs.text(1, row).unwrap_or("the target device"));
                text.push_str(": ");
            }
        }
        write_features(&missing, text);
        text.push_str(", the device has ");
        let known = inputs.write_number(2, row, text);
        text.push('.');
        known && inputs.write_number(3, row, text)
    });
    Ok(frame.with_column(reason))
}

/// Writes `uses a, b and c (compute capability ≥ 9.0)`, the features grouped by what they need in
/// the order of [`FEATURES`]: `uses wgmma (compute capability ≥ 9.0) and FP8 tensor cores (≥ 8.9)`.
fn write_features(missing: &[&Feature], text: &mut String) {
    let mut groups: Vec<(Needs, Vec<String>)> = Vec::new();
    for feature in missing {
        match groups.iter_mut().find(|(needs, _)| *needs == feature.needs) {
            Some((_, names)) => names.push(feature.name.to_string()),
            None => groups.push((feature.needs, vec![feature.name.to_string()])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(i, (needs, names))| {
            let capability = if i == 0 { "compute capability " } else { "" };
            format!("{} ({capability}{})", join_words(names), needs.describe())
        })
        .collect();
    text.push_str("uses ");
    text.push_str(&join_words(&parts));
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The causes of a `not_launchable` reason in a few words each, in the order the reason gives them:
/// `shared memory per block`, `registers per thread`, `registers per block`, `threads per block`,
/// `block of 0 threads`, `no block fits on an SM`, `unknown compute capability`, or a feature's
/// name (`FEATURES`). A reason this module and the occupancy stage did not write gives itself.
pub fn causes(reason: &str) -> Vec<String> {
    let body = reason
        .strip_prefix(NOT_LAUNCHABLE_ON)
        .and_then(|rest| rest.split_once(": ").map(|(_, body)| body))
        .unwrap_or(reason);
    let mut found = Vec::new();
    for part in body.split("; ") {
        let occupancy = [
            ("needs ", "shared memory per block"),
            ("needs ", "registers per thread"),
            ("needs ", "registers per block"),
            ("needs ", "threads per block"),
            ("block of 0 threads", "block of 0 threads"),
            ("no block fits on an SM", "no block fits on an SM"),
            ("unknown compute capability", "unknown compute capability"),
        ]
        .into_iter()
        .find(|(start, what)| part.starts_with(start) && part.contains(what));
        if let Some((_, what)) = occupancy {
            found.push(what.to_string());
        } else if let Some(uses) = part.strip_prefix("uses ") {
            let named: Vec<String> = FEATURES
                .iter()
                .filter(|feature| contains_name(uses, feature.name))
                .map(|feature| feature.name.to_string())
                .collect();
            if named.is_empty() {
                found.push(part.to_string());
            }
            found.extend(named);
        } else {
            found.push(part.to_string());
        }
    }
    found
}

/// Whether `text` names `name` as a whole item of a list (not inside a longer name).
fn contains_name(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        before.is_none_or(|c| c == ' ' || c == ',')
            && after.is_none_or(|c| c == ' ' || c == ',' || c == ')')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_follow_the_compute_capability() {
        let at_least = Needs::AtLeast(8, 9);
        assert!(!at_least.met_by(8, 6));
        assert!(at_least.met_by(8, 9));
        assert!(at_least.met_by(9, 0));
        let majors = Needs::Majors(&[10, 11]);
        assert!(!majors.met_by(9, 0));
        assert!(majors.met_by(10, 3));
        assert!(!majors.met_by(12, 0));
        assert_eq!(majors.describe(), "10.x or 11.x");
        assert_eq!(at_least.describe(), "≥ 8.9");
    }

    #[test]
    fn features_are_grouped_by_what_they_need() {
        let by_name = |name: &str| FEATURES.iter().find(|f| f.name == name);
        let picked: Vec<&Feature> = ["wgmma", "TMA", "FP8 tensor cores"]
            .iter()
            .filter_map(|name| by_name(name))
            .collect();
        let mut text = String::new();
        write_features(&picked, &mut text);
        assert_eq!(
            text,
            "uses wgmma (compute capability 9.x), TMA (≥ 9.0) and FP8 tensor cores (≥ 8.9)"
        );
    }

    #[test]
    fn causes_are_read_back_from_every_reason_written() {
        let reason = "not launchable on NVIDIA A100-SXM4-40GB: needs 208.2 KiB shared memory per \
                      block, the device allows 163 KiB; uses wgmma, TMA and thread-block clusters \
                      (compute capability ≥ 9.0), the device has 8.0";
        assert_eq!(
            causes(reason),
            [
                "shared memory per block",
                "wgmma",
                "TMA",
                "thread-block clusters"
            ]
        );
        assert_eq!(
            causes("needs 2048 threads per block, the device allows 1024"),
            ["threads per block"]
        );
        assert_eq!(
            causes("no block fits on an SM (limited by registers)"),
            ["no block fits on an SM"]
        );
        assert_eq!(
            causes("uses FP16 tensor cores (compute capability ≥ 7.0), the device has 6.1"),
            ["FP16 tensor cores"]
        );
        assert_eq!(causes("something else"), ["something else"]);
    }
}
