//! Findings and the rule engine.
//!
//! A finding says, for one launch, what limits it and what to change, with numbers. warpsight's
//! own rules live in [`super::rules`] (one rule per file); each selects the launches it applies to
//! with a polars predicate over the model (and what-if) columns and writes one message per selected
//! launch. Nsight Compute's own rule rows ([`warpsight_ingest::trace::SideTables::rules`]) are carried beside them,
//! labelled `ncu`, and each plugin's rules hook (when the plugin host offers one) adds findings
//! labelled with the plugin's name. `docs/findings.md` documents every rule.

use std::sync::Arc;

use polars::prelude::*;

use super::file_numbers::FileNumbers;
use super::frame_access::Cells;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::rules_col;
use warpsight_model::columns as mc;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Costs performance; a change is suggested.
    Warning,
    /// The launch cannot run as configured.
    Error,
}

impl Severity {
    /// The stable name printed in tables and machine formats.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Maps Nsight Compute's rule types (`OPT`, `WRN`, `INF`, `ERR`) to a severity.
    pub(crate) fn from_ncu(rule_type: &str) -> Severity {
        match rule_type.trim().to_ascii_uppercase().as_str() {
            "ERR" | "ERROR" => Severity::Error,
            "OPT" | "WRN" | "WARN" | "WARNING" => Severity::Warning,
            _ => Severity::Info,
        }
    }
}

/// One finding about one launch.
///
/// The file, kernel, source and rule are shared strings: an export gives tens of thousands of
/// findings that repeat a few distinct values, and findings are cloned, ranked and grouped.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The export the launch came from.
    pub file: Arc<str>,
    /// The launch id within that export.
    pub launch_id: Option<i64>,
    /// The kernel name.
    pub kernel: Arc<str>,
    /// Who produced it: `warpsight`, `ncu`, or `plugin:<name>`.
    pub source: Arc<str>,
    /// The rule's stable id, e.g. `register-limit`.
    pub rule_id: Arc<str>,
    /// How serious it is.
    pub(crate) severity: Severity,
    /// What was found and what to change, with numbers.
    pub message: String,
    /// The estimated fraction (0–1) of the launch's time a change saves: ncu's estimated speedup
    /// for its rules, the what-if engine's occupancy gain for warpsight's occupancy rules.
    pub(crate) estimated_speedup: Option<f64>,
    /// The launch's share (0–1) of the measured time of every launch analysed, when known; for
    /// a finding on a launch group, the whole group's share.
    pub time_share: Option<f64>,
    /// How many launches it stands for: 1, or the launch count of the group of launches sharing
    /// the model input that the rule ran on once ([`super::groups`]).
    pub launches: usize,
    /// For a finding given per launch (ncu's rule rows, the plugins' hooks): its place among
    /// them in the order they were made, which is the order of their texts in the launch's
    /// `findings` and `finding_messages` ([`launch_findings_in_order`]). `None` for warpsight's
    /// findings on launch groups.
    pub(crate) launch_order: Option<usize>,
}

impl Finding {
    /// How serious it is.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The estimated fraction of the total time saved: time share × estimated speedup.
    pub(crate) fn estimated_saving(&self) -> Option<f64> {
        Some(self.time_share? * self.estimated_speedup?)
    }
}

/// Orders findings most severe first, then by file and launch.
///
/// The order of a stable sort. Tens of thousands of findings (ncu's rule rows of a large page)
/// are large values that share a few files: the sort orders small keys (severity, the file's
/// rank, launch id, position) and then moves each finding once; a list already in order (the
/// merge of one analysis) is left as it is.
pub(crate) fn sort_findings(findings: &mut [Finding]) {
    use std::cmp::Ordering;
    let same_file = |a: &Finding, b: &Finding| Arc::ptr_eq(&a.file, &b.file) || a.file == b.file;
    let in_order = |a: &Finding, b: &Finding| -> bool {
        match b.severity.cmp(&a.severity) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal if same_file(a, b) => a.launch_id <= b.launch_id,
            Ordering::Equal => a.file < b.file,
        }
    };
    if findings.is_sorted_by(in_order) {
        return;
    }
    // Each finding's file as its rank among the distinct files, in text order.
    let mut files: Vec<&Arc<str>> = Vec::new();
    let mut last: Option<&Arc<str>> = None;
    for finding in findings.iter() {
        if last.is_some_and(|last| Arc::ptr_eq(last, &finding.file)) {
            continue;
        }
        last = Some(&finding.file);
        if !files.iter().any(|known| **known == finding.file) {
            files.push(&finding.file);
        }
    }
    files.sort_unstable();
    // Every file is among `files`.
    let rank = |file: &Arc<str>| -> usize {
        files
            .binary_search_by(|known| (***known).cmp(&**file))
            .unwrap_or(0)
    };
    let mut keys: Vec<(std::cmp::Reverse<Severity>, usize, Option<i64>, usize)> =
        Vec::with_capacity(findings.len());
    let mut last_rank: Option<(&Arc<str>, usize)> = None;
    for (position, finding) in findings.iter().enumerate() {
        let file_rank = match last_rank {
            Some((file, rank)) if Arc::ptr_eq(file, &finding.file) => rank,
            _ => {
                let found = rank(&finding.file);
                last_rank = Some((&finding.file, found));
                found
            }
        };
        keys.push((
            std::cmp::Reverse(finding.severity),
            file_rank,
            finding.launch_id,
            position,
        ));
    }
    // The positions make the keys distinct: an unstable sort gives the stable order.
    keys.sort_unstable();
    // The finding for each place, moved there along the permutation's cycles.
    let order: Vec<usize> = keys.iter().map(|key| key.3).collect();
    drop(keys);
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        if placed[start] {
            continue;
        }
        // `at` holds the finding first at `start` until the cycle closes.
        let mut at = start;
        loop {
            placed[at] = true;
            let next = order[at];
            if next == start {
                break;
            }
            findings.swap(at, next);
            at = next;
        }
    }
}

/// `first` and `then`, each in the order of [`sort_findings`], as one list in that order: what
/// sorting `first` followed by `then` gives (on equal keys, `first`'s findings come first).
///
/// Each finding of the shorter list is placed by a binary search in the longer one, and the runs
/// of the longer list between them are moved without comparing (warpsight's few hundred findings
/// among ncu's tens of thousands).
pub(crate) fn merge_sorted_findings(first: Vec<Finding>, then: Vec<Finding>) -> Vec<Finding> {
    use std::cmp::Ordering;
    let before = |a: &Finding, b: &Finding| -> Ordering {
        b.severity
            .cmp(&a.severity)
            .then_with(|| {
                if Arc::ptr_eq(&a.file, &b.file) {
                    Ordering::Equal
                } else {
                    a.file.cmp(&b.file)
                }
            })
            .then_with(|| a.launch_id.cmp(&b.launch_id))
    };
    if first.len() <= then.len() {
        // Before a finding of `first`: the findings of `then` that sort strictly before it.
        place_each(first, then, |b, a| before(a, b) == Ordering::Greater)
    } else {
        // Before a finding of `then`: the findings of `first` that do not sort after it.
        place_each(then, first, |a, b| before(a, b) != Ordering::Greater)
    }
}

/// `short` placed into `long` (both sorted): before each finding of `short`, the run of the
/// findings of `long` left that `goes_before` it (`goes_before(long, short)`, true for a prefix of
/// what is left), found by binary search.
fn place_each(
    short: Vec<Finding>,
    long: Vec<Finding>,
    goes_before: impl Fn(&Finding, &Finding) -> bool,
) -> Vec<Finding> {
    let mut taken = 0;
    let runs: Vec<usize> = short
        .iter()
        .map(|placed| {
            let run = long[taken..].partition_point(|other| goes_before(other, placed));
            taken += run;
            run
        })
        .collect();
    let mut merged = Vec::with_capacity(short.len() + long.len());
    let mut long = long.into_iter();
    for (placed, run) in short.into_iter().zip(runs) {
        merged.extend(long.by_ref().take(run));
        merged.push(placed);
    }
    merged.extend(long);
    merged
}

/// A warpsight rule.
pub trait Rule: Sync {
    /// The stable id (kebab-case), as documented in `docs/findings.md`.
    fn id(&self) -> &'static str;
    /// The launches the rule applies to, as a predicate over the evaluated frame.
    fn applies(&self) -> Expr;
    /// The severity and message for one selected launch (`None` skips it).
    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)>;
    /// The estimated fraction (0–1) of the launch's time the advice saves, when the rule has one.
    fn estimated_speedup(&self, _cells: &mut Cells<'_>, _row: usize) -> Option<f64> {
        None
    }
    /// True for occupancy and latency advice, which is only given to launches whose bottleneck is
    /// occupancy, latency, the blocks per SM or unknown, and not to warp-specialised TMA/wgmma
    /// kernels (see `occupancy_advice_applies`).
    fn is_occupancy_advice(&self) -> bool {
        false
    }
    /// True for rules that read the what-if engine's `whatif_*` columns. They are left out when
    /// the what-if engine is skipped ([`super::pipeline::AnalysisConfig::skip_what_if`]), since
    /// the frame then lacks those columns.
    fn needs_what_if(&self) -> bool {
        false
    }
}

/// The bottlenecks for which occupancy and latency advice is given (besides none at all).
pub(crate) const OCCUPANCY_BOTTLENECKS: [&str; 4] = ["occupancy", "latency", "blocks", "unknown"];

/// The counters whose non-zero value marks a warp-specialised TMA/wgmma kernel.
pub(crate) const WARP_SPECIALISED_COUNTERS: [&str; 2] = [
    "sm__inst_executed_pipe_tma.sum",
    "sm__inst_executed_pipe_tensor_op_gmma.sum",
];

/// Where occupancy and latency advice applies, over `schema`: the model's bottleneck (when the
/// frame has one) is occupancy, latency, blocks or unknown, and neither TMA nor wgmma
/// instructions were executed (when the frame has those counters). Such advice to a kernel bound
/// by a pipe or a memory level, or to a warp-specialised kernel built around few resident warps,
/// would be wrong.
pub(crate) fn occupancy_advice_applies(schema: &Schema) -> Expr {
    let mut applies = lit(true);
    if schema.contains(mc::BOTTLENECK) {
        let allowed = OCCUPANCY_BOTTLENECKS
            .iter()
            .fold(col(mc::BOTTLENECK).is_null(), |any, name| {
                any.or(col(mc::BOTTLENECK).eq(lit(*name)))
            });
        applies = applies.and(allowed);
    }
    for counter in WARP_SPECIALISED_COUNTERS {
        if schema.contains(counter) {
            applies = applies.and(
                col(counter)
                    .cast(DataType::Float64)
                    .fill_null(lit(0.0))
                    .gt(lit(0.0))
                    .not(),
            );
        }
    }
    applies
}

/// The columns every finding needs from the evaluated frame.
const IDENTITY: [&str; 3] = [lt::SOURCE_FILE, lt::LAUNCH_ID, lt::KERNEL_NAME];

/// Equal strings shared between findings: a file, kernel or rule name is stored once however
/// many findings name it.
///
/// Consecutive lookups mostly repeat the last few texts (one launch's file, kernel and rule), and
/// kernel names are long (C++ templates of hundreds of bytes), so the texts of the last
/// [`RECENT_TEXTS`] lookups are compared before the set is hashed.
#[derive(Debug, Default)]
pub(crate) struct TextPool {
    shared: PlHashSet<Arc<str>>,
    recent: [Option<Arc<str>>; RECENT_TEXTS],
    next_recent: usize,
}

/// How many of the last texts [`TextPool::get`] compares before hashing.
const RECENT_TEXTS: usize = 4;

impl TextPool {
    /// The shared copy of `text`.
    pub(crate) fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(recent) = self
            .recent
            .iter()
            .flatten()
            .find(|recent| ***recent == *text)
        {
            return Arc::clone(recent);
        }
        let shared = match self.shared.get(text) {
            Some(shared) => Arc::clone(shared),
            None => {
                let shared: Arc<str> = Arc::from(text);
                self.shared.insert(Arc::clone(&shared));
                shared
            }
        };
        self.recent[self.next_recent] = Some(Arc::clone(&shared));
        self.next_recent = (self.next_recent + 1) % RECENT_TEXTS;
        shared
    }
}

/// Runs `rules` over a frame that the model (and the what-if engine) evaluated: the findings of
/// the first rule in row order, then those of the second, and so on.
pub fn run_rules(frame: &DataFrame, rules: &[&dyn Rule]) -> PolarsResult<Vec<Finding>> {
    Ok(findings_per_rule(frame, rules)?
        .into_iter()
        .flatten()
        .collect())
}

/// [`run_rules`] on row chunks of `frame` of at least `min_rows` rows each, one per thread of
/// rayon's pool at most, in parallel: the same findings in the same order, and beside them their
/// [`ids_per_launch`] frame, built per chunk (the same rows, in chunk order; built from all the
/// findings when a launch has findings in two chunks). The rules are
/// row-wise (a finding reads only its own row) and each launch's findings come from one row, which
/// the tests check against [`run_rules`] and [`ids_per_launch`].
pub fn run_rules_in_chunks(
    frame: &DataFrame,
    rules: &[&dyn Rule],
    min_rows: usize,
) -> PolarsResult<(Vec<Finding>, DataFrame)> {
    use rayon::prelude::*;
    let rows = frame.height();
    let pieces = warpsight_model::row_chunks::chunk_count(rows, min_rows);
    if pieces < 2 {
        let findings = run_rules(frame, rules)?;
        let texts = ids_per_launch(&findings)?;
        return Ok((findings, texts));
    }
    let per_piece = rows.div_ceil(pieces);
    let parts = (0..pieces)
        .into_par_iter()
        .map(|piece| {
            // Offsets are below the frame's height, which fits an i64.
            let part = frame.slice((piece * per_piece) as i64, per_piece);
            let per_rule = findings_per_rule(&part, rules)?;
            let all: Vec<&Finding> = per_rule.iter().flatten().collect();
            let texts = ids_per_launch_of(&all)?;
            Ok((per_rule, texts))
        })
        .collect::<PolarsResult<Vec<(Vec<Vec<Finding>>, DataFrame)>>>()?;
    // Rule by rule, the chunks' findings in row order: the order of `run_rules`.
    let mut per_rule: Vec<Vec<Finding>> = (0..rules.len()).map(|_| Vec::new()).collect();
    let mut texts: Option<DataFrame> = None;
    for (part, part_texts) in parts {
        for (all, found) in per_rule.iter_mut().zip(part) {
            all.extend(found);
        }
        match texts.as_mut() {
            None => texts = Some(part_texts),
            Some(stacked) => {
                stacked.vstack_mut_owned(part_texts)?;
            }
        }
    }
    let findings: Vec<Finding> = per_rule.into_iter().flatten().collect();
    // Each chunk's texts have one row per launch of the chunk. A launch named in two chunks (rows
    // without a launch id share the key `(file, null)`) needs one row for all its findings: the
    // texts are then built from all the findings at once.
    let launches: PlHashSet<(&str, Option<i64>)> =
        findings.iter().map(|f| (&*f.file, f.launch_id)).collect();
    let texts = match texts {
        Some(texts) if texts.height() == launches.len() => texts,
        _ => ids_per_launch(&findings)?,
    };
    drop(launches);
    Ok((findings, texts))
}

/// The findings of each rule over `frame`, in row order.
fn findings_per_rule(frame: &DataFrame, rules: &[&dyn Rule]) -> PolarsResult<Vec<Vec<Finding>>> {
    let mut per_rule = Vec::with_capacity(rules.len());
    let mut cells = Cells::new(frame);
    let mut pool = TextPool::default();
    let source = pool.get("warpsight");
    let occupancy_applies = occupancy_advice_applies(frame.schema());
    // Every rule's predicate in one query (polars evaluates them side by side, sharing common
    // subexpressions); the (wide) frame itself is never copied.
    let predicates: Vec<Expr> = rules
        .iter()
        .enumerate()
        .map(|(index, rule)| {
            let mut applies = rule.applies().fill_null(lit(false));
            if rule.is_occupancy_advice() {
                applies = applies.and(occupancy_applies.clone());
            }
            applies.alias(format!("__rule_{index}"))
        })
        .collect();
    // The row index makes a literal predicate (`lit(true)`) one value per row.
    let mut selected = vec![col("__fired_row")];
    selected.extend(predicates);
    let fired = frame
        .clone()
        .lazy()
        .with_row_index("__fired_row", None)
        .select(selected)
        .collect()?;
    let mut identities: Vec<Option<(Arc<str>, Arc<str>)>> = vec![None; frame.height()];
    for (index, rule) in rules.iter().enumerate() {
        let applies = fired.column(&format!("__rule_{index}"))?.bool()?;
        // The rows the rule fires on, in order.
        let rows: Vec<usize> = applies
            .iter()
            .enumerate()
            .filter_map(|(row, fires)| (fires == Some(true)).then_some(row))
            .collect();
        let rule_id = pool.get(rule.id());
        let mut findings = Vec::new();
        for row in rows {
            if let Some((severity, message)) = rule.message(&mut cells, row) {
                let estimated_speedup = rule.estimated_speedup(&mut cells, row);
                // A row's file and kernel are looked up once, whichever rule fires first on it.
                let (file, kernel) = identities[row]
                    .get_or_insert_with(|| {
                        (
                            pool.get(cells.text(IDENTITY[0], row).unwrap_or_default()),
                            pool.get(cells.text(IDENTITY[2], row).unwrap_or_default()),
                        )
                    })
                    .clone();
                findings.push(Finding {
                    file,
                    launch_id: cells.i64(IDENTITY[1], row),
                    kernel,
                    source: Arc::clone(&source),
                    rule_id: Arc::clone(&rule_id),
                    severity,
                    message,
                    estimated_speedup,
                    time_share: None,
                    launches: 1,
                    launch_order: None,
                });
            }
        }
        per_rule.push(findings);
    }
    Ok(per_rule)
}

/// Nsight Compute's own rule rows as findings labelled `ncu` (rule id `ncu:<RuleName>`).
pub(crate) fn ncu_findings(rules: &DataFrame) -> Vec<Finding> {
    if rules.height() == 0 {
        return Vec::new();
    }
    // Each column read once, as `Cells` would read it (texts cast to String, numbers to f64 with
    // non-finite values as null, launch ids rounded).
    use super::frame_access::{float_column, text_column};
    let texts = |name: &str| text_column(rules, name);
    let (files, kernels, names, types, descriptions) = (
        texts(rules_col::SOURCE_FILE),
        texts(rules_col::KERNEL_NAME),
        texts(rules_col::RULE_NAME),
        texts(rules_col::RULE_TYPE),
        texts(rules_col::DESCRIPTION),
    );
    let (speedups, launch_ids) = (
        float_column(rules, rules_col::ESTIMATED_SPEEDUP),
        float_column(rules, rules_col::LAUNCH_ID),
    );
    fn text(column: &Option<StringChunked>, row: usize) -> &str {
        column.as_ref().and_then(|c| c.get(row)).unwrap_or_default()
    }
    let number = |column: &Option<Float64Chunked>, row: usize| -> Option<f64> {
        column
            .as_ref()
            .and_then(|c| c.get(row))
            .filter(|v| v.is_finite())
    };
    let mut pool = TextPool::default();
    let source = pool.get("ncu");
    let mut rule_id = String::new();
    // The launches of one kernel repeat their rule texts: each distinct text is made one line
    // once (up to `ONE_LINE_MEMO` texts).
    let mut lines: PlHashMap<&str, String> = PlHashMap::new();
    (0..rules.height())
        .map(|row| {
            let estimated_speedup = number(&speedups, row);
            let description = text(&descriptions, row);
            let mut message = match lines.get(description) {
                Some(line) => {
                    let mut message = String::with_capacity(line.len() + 40);
                    message.push_str(line);
                    message
                }
                None => {
                    let line = one_line(description);
                    if lines.len() < ONE_LINE_MEMO {
                        lines.insert(description, line.clone());
                    }
                    line
                }
            };
            if let Some(speedup) = estimated_speedup {
                use std::fmt::Write as _;
                let _ = write!(message, " (ncu estimates {:.1} % speedup)", speedup * 100.0);
            }
            rule_id.clear();
            rule_id.push_str("ncu:");
            rule_id.push_str(text(&names, row));
            Finding {
                file: pool.get(text(&files, row)),
                launch_id: number(&launch_ids, row).map(|v| v.round() as i64),
                kernel: pool.get(text(&kernels, row)),
                source: Arc::clone(&source),
                rule_id: pool.get(&rule_id),
                severity: Severity::from_ncu(text(&types, row)),
                message,
                estimated_speedup,
                time_share: None,
                launches: 1,
                launch_order: None,
            }
        })
        .collect()
}

/// The most distinct rule texts [`ncu_findings`] keeps made one line (a page's texts repeat a few
/// hundred distinct ones; past this, each is made one line anew).
const ONE_LINE_MEMO: usize = 4096;

/// Rule rows (or findings) per chunk below which [`ncu_findings_in_chunks`] and
/// [`ids_per_launch_in_chunks`] stay on the calling thread: converting a row costs about a
/// microsecond, so smaller chunks do not repay a task.
pub(crate) const PARALLEL_MIN_FINDINGS: usize = 4096;

/// [`ncu_findings`] on row chunks of `rules` (at least `min_rows` rows each, one per thread of
/// rayon's pool at most) converted in parallel: the same findings in the same order, whatever the
/// number of threads (each row becomes its finding alone).
pub(crate) fn ncu_findings_in_chunks(rules: &DataFrame, min_rows: usize) -> Vec<Finding> {
    use rayon::prelude::*;
    let rows = rules.height();
    let pieces = warpsight_model::row_chunks::chunk_count(rows, min_rows);
    if pieces < 2 {
        return ncu_findings(rules);
    }
    let per_piece = rows.div_ceil(pieces);
    let parts: Vec<Vec<Finding>> = (0..pieces)
        .into_par_iter()
        // Offsets are below the frame's height, which fits an i64.
        .map(|piece| ncu_findings(&rules.slice((piece * per_piece) as i64, per_piece)))
        .collect();
    let mut all = Vec::with_capacity(rows);
    for part in parts {
        all.extend(part);
    }
    all
}

/// `text` with every run of whitespace (ncu's rule descriptions span lines) made one space, and
/// no leading or trailing whitespace.
fn one_line(text: &str) -> String {
    if text.is_ascii() {
        return one_line_ascii(text.as_bytes());
    }
    let mut line = String::with_capacity(text.len() + 40);
    for word in text.split_whitespace() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    line
}

/// [`one_line`] of an ASCII text (ncu's rule texts), span by span: the whitespace of
/// `split_whitespace` among ASCII characters is exactly `u8::is_ascii_whitespace` plus the
/// vertical tab.
fn one_line_ascii(text: &[u8]) -> String {
    let is_space = |byte: u8| byte.is_ascii_whitespace() || byte == 0x0b;
    let mut line: Vec<u8> = Vec::with_capacity(text.len() + 40);
    let mut word_start: Option<usize> = None;
    for (at, &byte) in text.iter().enumerate() {
        match (is_space(byte), word_start) {
            (true, Some(start)) => {
                if !line.is_empty() {
                    line.push(b' ');
                }
                line.extend_from_slice(&text[start..at]);
                word_start = None;
            }
            (false, None) => word_start = Some(at),
            _ => {}
        }
    }
    if let Some(start) = word_start {
        if !line.is_empty() {
            line.push(b' ');
        }
        line.extend_from_slice(&text[start..]);
    }
    // ASCII bytes are UTF-8.
    String::from_utf8(line).unwrap_or_default()
}

/// Per launch, the `; `-joined ids of its findings (column `findings`) and their full text
/// (column `finding_messages`), as a frame keyed by `source_file` and `launch_id`, for joining
/// onto the launch table. Findings are already a list in memory, so they are grouped here rather
/// than through a polars frame; the text is written once into each launch's strings.
pub fn ids_per_launch(findings: &[Finding]) -> PolarsResult<DataFrame> {
    let all: Vec<&Finding> = findings.iter().collect();
    ids_per_launch_of(&all)
}

/// [`ids_per_launch`] built on chunks of `findings` (at least `min_findings` each, cut between
/// two launches, one per thread of rayon's pool at most) in parallel and stacked: the same rows in
/// the same order. A launch's findings are consecutive in every list the pipeline builds (ncu's
/// rule rows come launch by launch); where a launch has findings in two chunks all the same (a
/// plugin's finding after the rule rows), the frame is built from all the findings at once.
pub(crate) fn ids_per_launch_in_chunks(
    findings: &[&Finding],
    min_findings: usize,
) -> PolarsResult<DataFrame> {
    use rayon::prelude::*;
    let count = findings.len();
    let pieces = warpsight_model::row_chunks::chunk_count(count, min_findings);
    if pieces < 2 {
        return ids_per_launch_of(findings);
    }
    let same_launch = |a: &Finding, b: &Finding| a.launch_id == b.launch_id && a.file == b.file;
    // Chunk boundaries, each moved on past the findings of the launch it would cut.
    let per_piece = count.div_ceil(pieces);
    let mut bounds = vec![0];
    for piece in 1..pieces {
        let mut at = (piece * per_piece).max(bounds.last().copied().unwrap_or(0));
        while at < count && at > 0 && same_launch(findings[at - 1], findings[at]) {
            at += 1;
        }
        if at < count && bounds.last().is_some_and(|&last| at > last) {
            bounds.push(at);
        }
    }
    bounds.push(count);
    let parts = bounds
        .par_windows(2)
        .map(|range| ids_per_launch_of(&findings[range[0]..range[1]]))
        .collect::<PolarsResult<Vec<DataFrame>>>()?;
    let mut parts = parts.into_iter();
    let mut stacked = parts.next().unwrap_or_default();
    for part in parts {
        stacked.vstack_mut_owned(part)?;
    }
    // Each chunk has one row per launch; a launch in two chunks has two rows. (The chunks stay
    // memory chunks of the frame: it is only gathered from.)
    if distinct_launches(findings) != stacked.height() {
        return ids_per_launch_of(findings);
    }
    Ok(stacked)
}

/// The findings given per launch (ncu's rule rows, the plugins' hooks) among `findings`, in the
/// order they were made ([`Finding::launch_order`]), whatever order the list is in now: the order
/// of their texts on each launch.
pub(crate) fn launch_findings_in_order<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
) -> Vec<&'a Finding> {
    let mut per_launch: Vec<&Finding> = findings
        .into_iter()
        .filter(|finding| finding.launch_order.is_some())
        .collect();
    per_launch.sort_by_key(|finding| finding.launch_order);
    per_launch
}

/// The number of distinct launches (file and launch id) among `findings`. Files are numbered by
/// comparing each finding's with the previous one's (they are few, and their texts long), and a
/// launch is hashed only where it differs from the previous finding's.
fn distinct_launches(findings: &[&Finding]) -> usize {
    let mut files = FileNumbers::default();
    let mut launches: PlHashSet<(usize, Option<i64>)> = PlHashSet::new();
    let mut previous: Option<(usize, Option<i64>)> = None;
    for finding in findings {
        let key = (files.number(&finding.file), finding.launch_id);
        if previous != Some(key) {
            launches.insert(key);
            previous = Some(key);
        }
    }
    launches.len()
}

/// [`ids_per_launch`] of findings held by reference.
fn ids_per_launch_of(findings: &[&Finding]) -> PolarsResult<DataFrame> {
    let Some(&first) = findings.first() else {
        return DataFrame::new_infer_height(vec![
            Column::new_empty(lt::SOURCE_FILE.into(), &DataType::String),
            Column::new_empty(lt::LAUNCH_ID.into(), &DataType::Int64),
            Column::new_empty(FINDINGS.into(), &DataType::String),
            Column::new_empty(FINDING_MESSAGES.into(), &DataType::String),
        ]);
    };
    // Each finding's launch (slot), launches in order of first finding.
    let mut keys: Vec<(&str, Option<i64>)> = Vec::new();
    let mut slots: Vec<usize> = Vec::with_capacity(findings.len());
    // Launches are keyed by their file's number ([`FileNumbers`]) and launch id.
    let mut files = FileNumbers::default();
    let mut index: PlHashMap<(usize, Option<i64>), usize> = PlHashMap::new();
    // The findings of a launch mostly follow one another: the previous finding's launch is tried
    // before the table.
    let mut previous: Option<((usize, Option<i64>), usize)> = None;
    for finding in findings {
        let file: &str = &finding.file;
        let key = (files.number(file), finding.launch_id);
        let slot = match previous {
            Some((last, slot)) if last == key => slot,
            _ => *index.entry(key).or_insert_with(|| {
                keys.push((file, finding.launch_id));
                keys.len() - 1
            }),
        };
        previous = Some((key, slot));
        slots.push(slot);
    }
    // The findings of each launch, in order (a counting sort by slot).
    let mut starts = vec![0usize; keys.len() + 1];
    for &slot in &slots {
        starts[slot + 1] += 1;
    }
    for slot in 0..keys.len() {
        starts[slot + 1] += starts[slot];
    }
    let mut next = starts.clone();
    let mut ordered: Vec<&Finding> = vec![first; findings.len()];
    for (&finding, &slot) in findings.iter().zip(&slots) {
        ordered[next[slot]] = finding;
        next[slot] += 1;
    }
    // Each launch's texts are written into one reused buffer and copied once into the column.
    let mut ids = StringChunkedBuilder::new(FINDINGS.into(), keys.len());
    let mut messages = StringChunkedBuilder::new(FINDING_MESSAGES.into(), keys.len());
    let mut text = String::new();
    let mut listed: Vec<&str> = Vec::new();
    for slot in 0..keys.len() {
        let launch = &ordered[starts[slot]..starts[slot + 1]];
        listed.clear();
        text.clear();
        for finding in launch {
            // The same rule twice on a launch is listed once.
            if !listed.contains(&&*finding.rule_id) {
                listed.push(&finding.rule_id);
                if !text.is_empty() {
                    text.push_str("; ");
                }
                text.push_str(&finding.rule_id);
            }
        }
        ids.append_value(&text);
        text.clear();
        for finding in launch {
            if !text.is_empty() {
                text.push_str(" | ");
            }
            text.push_str(&finding.rule_id);
            text.push_str(": ");
            text.push_str(&finding.message);
        }
        messages.append_value(&text);
    }
    DataFrame::new_infer_height(vec![
        Column::new(
            lt::SOURCE_FILE.into(),
            keys.iter().map(|k| k.0).collect::<Vec<_>>(),
        ),
        Column::new(
            lt::LAUNCH_ID.into(),
            keys.iter().map(|k| k.1).collect::<Vec<_>>(),
        ),
        ids.finish().into_column(),
        messages.finish().into_column(),
    ])
}

/// The report column listing a launch's finding ids.
pub const FINDINGS: &str = "findings";
/// The report column with the full text of a launch's findings, `rule: message` joined by ` | `
/// (ncu's rule text whole: the findings listed below human tables shorten it).
pub const FINDING_MESSAGES: &str = "finding_messages";

#[cfg(test)]
mod tests {
    use super::*;

    struct Slow;
    impl Rule for Slow {
        fn id(&self) -> &'static str {
            "slow"
        }
        fn applies(&self) -> Expr {
            col(lt::DURATION_NS).gt(lit(1000.0))
        }
        fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
            Some((
                Severity::Warning,
                format!("{} ns", cells.f64(lt::DURATION_NS, row)?),
            ))
        }
    }

    fn frame() -> PolarsResult<DataFrame> {
        df!(
            lt::SOURCE_FILE => ["a.csv", "a.csv", "a.csv"],
            lt::LAUNCH_ID => [1i64, 2, 3],
            lt::KERNEL_NAME => ["k", "k", "j"],
            lt::DURATION_NS => [Some(500.0f64), Some(2000.0), None],
        )
    }

    #[test]
    fn rules_fire_only_where_the_predicate_holds_and_nulls_do_not_fire() -> PolarsResult<()> {
        let findings = run_rules(&frame()?, &[&Slow])?;
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].launch_id, Some(2));
        assert_eq!(findings[0].message, "2000 ns");
        assert_eq!(&*findings[0].source, "warpsight");
        Ok(())
    }

    struct Occupancy;
    impl Rule for Occupancy {
        fn id(&self) -> &'static str {
            "occupancy"
        }
        fn applies(&self) -> Expr {
            lit(true)
        }
        fn message(&self, _: &mut Cells<'_>, _: usize) -> Option<(Severity, String)> {
            Some((Severity::Warning, "more warps".into()))
        }
        fn is_occupancy_advice(&self) -> bool {
            true
        }
    }

    #[test]
    fn occupancy_advice_skips_pipe_and_memory_bound_and_warp_specialised_launches()
    -> PolarsResult<()> {
        let frame = df!(
            lt::SOURCE_FILE => ["a.csv"; 6],
            lt::LAUNCH_ID => [1i64, 2, 3, 4, 5, 6],
            lt::KERNEL_NAME => ["k"; 6],
            mc::BOTTLENECK => [Some("fma"), Some("dram"), Some("occupancy"), Some("latency"), None, Some("latency")],
            WARP_SPECIALISED_COUNTERS[1] => [None, None, Some(0.0f64), None, None, Some(12.0)],
        )?;
        let fired: Vec<Option<i64>> = run_rules(&frame, &[&Occupancy])?
            .iter()
            .map(|f| f.launch_id)
            .collect();
        assert_eq!(fired, [Some(3), Some(4), Some(5)]);
        // Without the columns, nothing is held back.
        assert_eq!(
            run_rules(
                &frame.select([lt::SOURCE_FILE, lt::LAUNCH_ID, lt::KERNEL_NAME])?,
                &[&Occupancy]
            )?
            .len(),
            6
        );
        Ok(())
    }

    #[test]
    fn ncu_rules_keep_their_text_and_map_types() -> PolarsResult<()> {
        let rules = df!(
            rules_col::SOURCE_FILE => ["a.csv"],
            rules_col::LAUNCH_ID => [0i64],
            rules_col::KERNEL_NAME => ["k"],
            rules_col::RULE_NAME => ["SOLBottleneck"],
            rules_col::RULE_TYPE => ["OPT"],
            rules_col::DESCRIPTION => ["Memory is\nmore heavily utilized"],
            rules_col::ESTIMATED_SPEEDUP => [Some(0.25f64)],
        )?;
        let findings = ncu_findings(&rules);
        assert_eq!(&*findings[0].rule_id, "ncu:SOLBottleneck");
        assert_eq!(findings[0].estimated_speedup, Some(0.25));
        assert_eq!(findings[0].severity, Severity::Warning);
        assert_eq!(
            findings[0].message,
            "Memory is more heavily utilized (ncu estimates 25.0 % speedup)"
        );
        Ok(())
    }

    #[test]
    fn repeated_rule_texts_keep_each_rows_speedup() -> PolarsResult<()> {
        let rules = df!(
            rules_col::SOURCE_FILE => ["a.csv"; 3],
            rules_col::LAUNCH_ID => [0i64, 1, 2],
            rules_col::KERNEL_NAME => ["k"; 3],
            rules_col::RULE_NAME => ["R"; 3],
            rules_col::RULE_TYPE => ["OPT"; 3],
            rules_col::DESCRIPTION => ["Two\nlines", "Two\nlines", "Two\nlines"],
            rules_col::ESTIMATED_SPEEDUP => [Some(0.5f64), None, Some(0.25)],
        )?;
        let messages: Vec<String> = ncu_findings(&rules)
            .into_iter()
            .map(|f| f.message)
            .collect();
        assert_eq!(
            messages,
            [
                "Two lines (ncu estimates 50.0 % speedup)",
                "Two lines",
                "Two lines (ncu estimates 25.0 % speedup)"
            ]
        );
        Ok(())
    }

    #[test]
    fn equal_texts_are_shared_and_descriptions_become_one_line() {
        let mut pool = TextPool::default();
        let a = pool.get("kernel");
        let b = pool.get(&String::from("kernel"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &pool.get("other")));
        assert_eq!(
            one_line("  Two\n lines\t and  spaces "),
            "Two lines and spaces"
        );
        assert_eq!(one_line(""), "");
    }

    /// `count` findings over launches of one to four findings each, in two files, with a few
    /// launches without an id.
    fn many_findings(count: usize) -> Vec<Finding> {
        let base = Finding {
            file: "a.csv".into(),
            launch_id: Some(0),
            kernel: "k".into(),
            source: "ncu".into(),
            rule_id: "r0".into(),
            severity: Severity::Info,
            message: "m".into(),
            estimated_speedup: None,
            time_share: None,
            launches: 1,
            launch_order: None,
        };
        let mut launch = 0i64;
        let mut left = 0usize;
        (0..count)
            .map(|i| {
                if left == 0 {
                    launch += 1;
                    left = 1 + (launch as usize * 7) % 4;
                }
                left -= 1;
                Finding {
                    file: if launch % 5 == 0 { "b.csv" } else { "a.csv" }.into(),
                    launch_id: (launch % 97 != 0).then_some(launch),
                    rule_id: format!("r{}", i % 3).into(),
                    message: format!("message {i}"),
                    ..base.clone()
                }
            })
            .collect()
    }

    #[test]
    fn ascii_texts_become_one_line_as_split_whitespace_makes_them() {
        let plain = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        for text in [
            "",
            " ",
            "one",
            "  lead and trail  ",
            "a\tb\nc\r\nd\x0be\x0cf",
            "\n\nblock  of\n  lines\n",
            "x\x0b",
            "ends with words",
            "non-ASCII\u{a0}space\u{2003}and\u{85}next line",
        ] {
            assert_eq!(one_line(text), plain(text), "{text:?}");
        }
    }

    /// `count` findings of mixed severities over three files, their launch ids out of order.
    fn unsorted_findings(count: usize) -> Vec<Finding> {
        many_findings(count)
            .into_iter()
            .enumerate()
            .map(|(i, finding)| Finding {
                severity: [Severity::Info, Severity::Warning, Severity::Error][(i * 7) % 3],
                file: ["b.csv", "a.csv", "c.csv"][(i / 5) % 3].into(),
                launch_id: finding.launch_id.map(|id| (id * 31) % 53),
                ..finding
            })
            .collect()
    }

    #[test]
    fn findings_sort_as_a_stable_sort_by_severity_file_and_launch() {
        let stable = |findings: &mut Vec<Finding>| {
            findings.sort_by(|a, b| {
                b.severity
                    .cmp(&a.severity)
                    .then_with(|| a.file.cmp(&b.file))
                    .then_with(|| a.launch_id.cmp(&b.launch_id))
            })
        };
        for count in [0, 1, 2, 17, 1000] {
            let mut sorted = unsorted_findings(count);
            let mut expected = sorted.clone();
            sort_findings(&mut sorted);
            stable(&mut expected);
            assert_eq!(sorted, expected, "{count}");
            // Sorted already: left as it is.
            sort_findings(&mut sorted);
            assert_eq!(sorted, expected);
        }
        // Two sorted lists merged: the order of sorting the first followed by the second, the
        // shorter list first or second, or empty.
        let all = unsorted_findings(900);
        let mut expected = all.clone();
        sort_findings(&mut expected);
        for split in [0, 1, 300, 450, 600, 899, 900] {
            let (mut first, mut then) = (all[..split].to_vec(), all[split..].to_vec());
            sort_findings(&mut first);
            sort_findings(&mut then);
            assert_eq!(
                merge_sorted_findings(first, then),
                expected,
                "split {split}"
            );
        }
        assert_eq!(merge_sorted_findings(Vec::new(), Vec::new()), []);
    }

    #[test]
    fn ids_per_launch_in_chunks_equals_the_whole_for_any_chunking() -> PolarsResult<()> {
        let findings = many_findings(3000);
        let whole = ids_per_launch(&findings)?;
        let refs: Vec<&Finding> = findings.iter().collect();
        for min in [1, 2, 3, 7, 100, 999, 5000] {
            let chunked = ids_per_launch_in_chunks(&refs, min)?;
            assert!(chunked.equals_missing(&whole), "min {min}");
        }
        // A launch whose findings are not consecutive (a plugin's finding at the end) is one row.
        let mut split = findings.clone();
        split.push(findings[0].clone());
        let split_refs: Vec<&Finding> = split.iter().collect();
        let chunked = ids_per_launch_in_chunks(&split_refs, 10)?;
        assert!(chunked.equals_missing(&ids_per_launch(&split)?));
        assert_eq!(chunked.height(), whole.height());
        Ok(())
    }

    /// `count` findings given per launch, numbered in the order they were made, of mixed
    /// severities (so that sorting moves them within a launch).
    fn launch_findings_made(count: usize) -> Vec<Finding> {
        unsorted_findings(count)
            .into_iter()
            .enumerate()
            .map(|(order, finding)| Finding {
                launch_order: Some(order),
                ..finding
            })
            .collect()
    }

    #[test]
    fn findings_given_per_launch_come_back_in_the_order_they_were_made() -> PolarsResult<()> {
        let made = launch_findings_made(600);
        let mut analysed = made.clone();
        // A finding on a launch group (warpsight's) is not one of them.
        analysed.push(Finding {
            launch_order: None,
            rule_id: "group".into(),
            ..made[0].clone()
        });
        sort_findings(&mut analysed);
        let sorted_order: Vec<Option<usize>> = analysed.iter().map(|f| f.launch_order).collect();
        assert!(
            !sorted_order.is_sorted(),
            "the sort must move findings for this test to mean anything"
        );
        let back = launch_findings_in_order(&analysed);
        assert_eq!(back.len(), made.len());
        assert!(back.iter().zip(&made).all(|(a, b)| *a == b));
        // Their texts per launch are those of the findings as they were made.
        let texts = ids_per_launch_in_chunks(&back, 64)?;
        assert!(texts.equals_missing(&ids_per_launch(&made)?));
        assert!(!texts.equals_missing(&ids_per_launch(&analysed)?));
        Ok(())
    }

    /// The texts of a few launches (the launch groups' first launches) are those launches' rows of
    /// the texts of every launch.
    #[test]
    fn the_texts_of_some_launches_are_their_rows_of_the_texts_of_all() -> PolarsResult<()> {
        use super::super::finding_texts::{
            LAUNCH_FINDINGS, LAUNCH_MESSAGES, add_matching, launch_findings_of, launch_texts,
        };
        let made = launch_findings_made(600);
        let mut sorted = made.clone();
        sort_findings(&mut sorted);
        let all = launch_texts(&made.iter().collect::<Vec<_>>())?;
        let keys = df!(
            lt::SOURCE_FILE => [Some("b.csv"), Some("a.csv"), Some("a.csv"), Some("d.csv"), None],
            lt::LAUNCH_ID => [Some(5i64), None, Some(12), Some(5), Some(5)],
        )?;
        let some = launch_findings_of(&keys, &sorted)?;
        assert!(
            !some.is_empty() && some.len() < made.len(),
            "{}",
            some.len()
        );
        let some = launch_texts(&some)?;
        let (mut from_all, mut from_some) = (keys.clone(), keys.clone());
        add_matching(&mut from_all, &all, [LAUNCH_FINDINGS, LAUNCH_MESSAGES])?;
        add_matching(&mut from_some, &some, [LAUNCH_FINDINGS, LAUNCH_MESSAGES])?;
        assert!(
            from_some.equals_missing(&from_all),
            "{from_some} vs {from_all}"
        );
        // Launches that have texts are matched (not only nulls compared).
        assert!(from_all.column(LAUNCH_FINDINGS)?.null_count() < keys.height() - 1);
        Ok(())
    }

    #[test]
    fn ncu_findings_in_chunks_equal_the_whole() -> PolarsResult<()> {
        let rows = 1000;
        let rules = df!(
            rules_col::SOURCE_FILE => vec!["a.csv"; rows],
            rules_col::LAUNCH_ID => (0..rows as i64).map(|i| i / 3).collect::<Vec<_>>(),
            rules_col::KERNEL_NAME => (0..rows).map(|i| format!("k{}", i % 7)).collect::<Vec<_>>(),
            rules_col::RULE_NAME => (0..rows).map(|i| format!("Rule{}", i % 5)).collect::<Vec<_>>(),
            rules_col::RULE_TYPE => (0..rows).map(|i| ["OPT", "INF", "ERR"][i % 3]).collect::<Vec<_>>(),
            rules_col::DESCRIPTION => (0..rows).map(|i| format!("text\n{i}")).collect::<Vec<_>>(),
            rules_col::ESTIMATED_SPEEDUP => (0..rows).map(|i| (i % 2 == 0).then_some(i as f64 / 1e3)).collect::<Vec<_>>(),
        )?;
        let whole = ncu_findings(&rules);
        for min in [1, 2, 3, 64, 999, 5000] {
            assert_eq!(ncu_findings_in_chunks(&rules, min), whole, "min {min}");
        }
        Ok(())
    }

    #[test]
    fn finding_ids_are_joined_per_launch() -> PolarsResult<()> {
        let mut findings = run_rules(&frame()?, &[&Slow])?;
        findings.push(Finding {
            rule_id: "other".into(),
            ..findings[0].clone()
        });
        // The same rule twice on a launch is listed once, with both messages.
        findings.push(Finding {
            message: "again".into(),
            ..findings[0].clone()
        });
        findings.push(Finding {
            launch_id: Some(7),
            ..findings[0].clone()
        });
        let ids = ids_per_launch(&findings)?;
        assert_eq!(ids.height(), 2);
        assert_eq!(ids.column(FINDINGS)?.str()?.get(0), Some("slow; other"));
        assert_eq!(
            ids.column(FINDING_MESSAGES)?.str()?.get(0),
            Some("slow: 2000 ns | other: 2000 ns | slow: again")
        );
        assert_eq!(ids.column(lt::LAUNCH_ID)?.i64()?.get(1), Some(7));
        assert_eq!(ids.column(FINDINGS)?.str()?.get(1), Some("slow"));
        // No findings: no rows, the same columns.
        let none = ids_per_launch(&[])?;
        assert_eq!(none.height(), 0);
        assert_eq!(none.schema(), ids.schema());
        Ok(())
    }
}
