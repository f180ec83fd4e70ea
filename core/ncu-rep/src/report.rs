//! The whole report: [`decode`] walks the blocks once (sequentially, it only reads headers and
//! slices payloads), then decodes the ProfileResult messages, in parallel on rayon when the
//! report is large; [`LaunchStream`] decodes them one at a time instead.

use std::collections::HashMap;

use crate::blocks::{Blocks, PayloadResults, RawMessage, blocks};
use crate::error::DecodeError;
use crate::launch::{Launch, LaunchContext, Metric, decode_launch};
use crate::names::{NameId, NameTable};
use crate::rules::RuleResult;
use crate::session::{Device, Process, Session, VersionInfo, decode_process};
use crate::value::Value;

/// The metric that gives a launch's device ordinal.
const DEVICE_INDEX_METRIC: &str = "device__attribute_device_index";

/// Below this many bytes of ProfileResult messages, decoding stays on the calling thread. At
/// about 800 MB/s a mebibyte is more than a millisecond of decoding, far more than a rayon task
/// costs; the real reports at hand are at most 10 MB, so 4 MiB of results kept nearly every one
/// on one core.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// A decoded Nsight Compute report.
#[derive(Debug, Clone)]
pub struct Report {
    /// The FileHeader version (always 7).
    pub report_version: u32,
    /// The Nsight Compute version string from the session's VersionInfo, verbatim, e.g.
    /// `2025.3.1.0 (build 36398880) (public-release)`; `None` when the report has none.
    pub ncu_version: Option<String>,
    /// Every VersionInfo entry of the session (CUDA, PerfWorks, Nsight Compute, …).
    pub versions: Vec<VersionInfo>,
    /// The session's CreationTime (seconds since the Unix epoch in every report seen).
    pub creation_time: Option<u64>,
    /// The ncu command line that made the report.
    pub command_line: Option<String>,
    /// The distinct ProcessInfo records of the blocks, in file order (consecutive repeats merged).
    pub processes: Vec<Process>,
    /// The session's devices (DeviceAttributes), in file order.
    pub devices: Vec<Device>,
    /// One launch per ProfileResult, in report order; `launches[i].id == i`.
    pub launches: Vec<Launch>,
    /// Every rule message of every launch, in launch order, then in the order of the report.
    pub rules: Vec<RuleResult>,
    /// Number of blocks in the file.
    pub block_count: usize,
    /// Number of SourceData messages skipped.
    pub source_count: usize,
    /// Number of RangeResult, CmdlistResult and GraphResult messages, which are not decoded.
    pub skipped_results: usize,
    /// Metric names; [`NameId`] indexes this list.
    names: Vec<String>,
    /// Name to id.
    name_index: HashMap<String, u32>,
}

impl Report {
    /// Decodes a whole report held in memory; see [`decode`].
    pub fn decode(bytes: &[u8]) -> Result<Report, DecodeError> {
        decode(bytes)
    }

    /// All metric names of the report; a [`NameId`] indexes this slice.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The native ncu name of a metric id (`""` for an id that is not from this report).
    pub fn name(&self, id: NameId) -> &str {
        self.names.get(id.index()).map_or("", String::as_str)
    }

    /// The id of a metric name, if any launch's string table contains it.
    pub fn name_id(&self, name: &str) -> Option<NameId> {
        self.name_index.get(name).map(|&i| NameId(i))
    }

    /// The metric called `name` of `launch`, if the launch has it.
    pub fn metric<'r>(&self, launch: &'r Launch, name: &str) -> Option<&'r Metric> {
        self.name_id(name).and_then(|id| launch.metric(id))
    }

    /// The value of the metric called `name` of `launch`, if it has one.
    pub fn value<'r>(&self, launch: &'r Launch, name: &str) -> Option<&'r Value> {
        self.metric(launch, name).and_then(|m| m.value.as_ref())
    }

    /// The rule results of one launch.
    pub fn rules_of(&self, launch_id: usize) -> impl Iterator<Item = &RuleResult> {
        self.rules.iter().filter(move |r| r.launch_id == launch_id)
    }
}

/// Decodes a whole `.ncu-rep` report held in memory.
///
/// The blocks are walked once; ProfileResult messages are then decoded in parallel (with the
/// default `parallel` feature, when they total at least 1 MiB). If the input is malformed, the
/// error with the smallest byte offset is returned, so the result does not depend on thread
/// timing.
pub fn decode(bytes: &[u8]) -> Result<Report, DecodeError> {
    let mut walker = Walker::new(bytes)?;
    let mut pending = Vec::new();
    let mut walk_error = None;
    loop {
        match walker.next_result() {
            Ok(Some(p)) => pending.push(p),
            Ok(None) => break,
            Err(e) => {
                walk_error = Some(e);
                break;
            }
        }
    }
    let device_index_name = walker.names.id(DEVICE_INDEX_METRIC);
    let decoded = decode_pending(&walker, &pending, device_index_name);

    let mut launches = Vec::with_capacity(decoded.len());
    let mut rules = Vec::new();
    let mut first_error = walk_error;
    for item in decoded {
        match item {
            Ok((launch, mut launch_rules)) => {
                if first_error.is_none() {
                    launches.push(launch);
                    rules.append(&mut launch_rules);
                }
            }
            Err(e) => {
                if first_error.as_ref().is_none_or(|f| e.offset() < f.offset()) {
                    first_error = Some(e);
                }
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let ncu_version = walker.session.ncu_version();
    let Walker {
        session,
        names,
        processes,
        block_count,
        source_count,
        skipped_results,
        version,
        ..
    } = walker;
    let (names, name_index) = names.into_parts();
    Ok(Report {
        report_version: version,
        ncu_version,
        versions: session.versions,
        creation_time: session.creation_time,
        command_line: session.command_line,
        processes,
        devices: session.devices,
        launches,
        rules,
        block_count,
        source_count,
        skipped_results,
        names,
        name_index,
    })
}

/// What a report says about itself, read from the block headers alone (see [`summary`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The FileHeader version (always 7).
    pub report_version: u32,
    /// The Nsight Compute version string, as [`Report::ncu_version`].
    pub ncu_version: Option<String>,
    /// The session's devices, as [`Report::devices`].
    pub devices: Vec<Device>,
    /// The number of ProfileResult messages (launches) the block headers announce.
    pub launch_count: usize,
    /// Number of blocks in the file.
    pub block_count: usize,
}

/// Reads the FileHeader and every BlockHeader (with the session details they carry) without
/// decoding a single ProfileResult: the report version, ncu version, devices and launch count,
/// cheaply. Payloads are skipped by their size, so a corrupted launch is not noticed here
/// ([`decode`] notices it).
pub fn summary(bytes: &[u8]) -> Result<Summary, DecodeError> {
    let blocks = blocks(bytes)?;
    let report_version = blocks.version();
    let mut session = Session::default();
    let mut launch_count = 0usize;
    let mut block_count = 0usize;
    for block in blocks {
        let block = block?;
        block_count = block_count.saturating_add(1);
        launch_count = launch_count.saturating_add(block.header.num_results as usize);
        if let Some(s) = block.header.session_details {
            session.merge(s)?;
        }
    }
    Ok(Summary {
        report_version,
        ncu_version: session.ncu_version(),
        devices: session.devices,
        launch_count,
        block_count,
    })
}

/// The outcome of decoding one ProfileResult.
type Decoded = Result<(Launch, Vec<RuleResult>), DecodeError>;

/// Decodes the pending results in report order, on rayon's pool when there is enough work.
fn decode_pending(
    walker: &Walker<'_>,
    pending: &[Pending<'_>],
    device_index_name: Option<NameId>,
) -> Vec<Decoded> {
    let one = |(id, p): (usize, &Pending<'_>)| -> Decoded {
        let mut rules = Vec::new();
        let ctx = walker.context(p, device_index_name);
        decode_launch(p.raw, id, &ctx, &mut rules).map(|l| (l, rules))
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let total: usize = pending.iter().map(|p| p.raw.bytes.len()).sum();
        if total >= PARALLEL_MIN_BYTES && pending.len() > 1 {
            return pending.par_iter().enumerate().map(one).collect();
        }
    }
    pending.iter().enumerate().map(one).collect()
}

/// A ProfileResult found by the walk, with the process in force.
#[derive(Debug, Clone, Copy)]
struct Pending<'a> {
    raw: RawMessage<'a>,
    process: Option<usize>,
}

/// Walks the blocks, merging the session, string tables and processes, and hands out results.
#[derive(Debug)]
struct Walker<'a> {
    blocks: Blocks<'a>,
    version: u32,
    session: Session,
    names: NameTable,
    /// The global ids of the entries of every non-empty string table, table after table in file
    /// order: one table, as NVIDIA's reader numbers it. A result resolves its `NameId` `i` to
    /// `names_map[i]`, whichever block it is in, so ids past the end of the tables before it
    /// continue into the tables that come later in the file, as in the reports ncu 2023.3 writes
    /// (see `RESULTS.md`).
    names_map: Vec<u32>,
    processes: Vec<Process>,
    /// The results of the block being walked, with its process.
    current: Option<(PayloadResults<'a>, Option<usize>)>,
    /// Every block that starts below this offset has had its string table read ahead.
    ahead_until: usize,
    /// Whether [`Walker::read_ahead_tables`] has run (it reads to the end of the file, so once).
    ahead_done: bool,
    block_count: usize,
    source_count: usize,
    skipped_results: usize,
}

impl<'a> Walker<'a> {
    /// Checks the file header and prepares to walk the blocks.
    fn new(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let blocks = blocks(bytes)?;
        Ok(Walker {
            version: blocks.version(),
            blocks,
            session: Session::default(),
            names: NameTable::default(),
            names_map: Vec::new(),
            processes: Vec::new(),
            current: None,
            ahead_until: 0,
            ahead_done: false,
            block_count: 0,
            source_count: 0,
            skipped_results: 0,
        })
    }

    /// The next ProfileResult of the report, reading block headers as needed.
    fn next_result(&mut self) -> Result<Option<Pending<'a>>, DecodeError> {
        loop {
            if let Some((results, process)) = &mut self.current {
                if let Some(r) = results.next() {
                    let raw = r?;
                    return Ok(Some(Pending {
                        raw,
                        process: *process,
                    }));
                }
                self.current = None;
            }
            let Some(block) = self.blocks.next() else {
                return Ok(None);
            };
            let block = block?;
            // Counts come from the file: saturate rather than overflow on a 32-bit target.
            self.block_count = self.block_count.saturating_add(1);
            let h = &block.header;
            self.source_count = self.source_count.saturating_add(h.num_sources as usize);
            for n in [
                h.num_range_results,
                h.num_cmdlist_results,
                h.num_graph_results,
            ] {
                self.skipped_results = self.skipped_results.saturating_add(n as usize);
            }
            if let Some(s) = h.session_details {
                self.session.merge(s)?;
            }
            // A block whose table was read ahead is not added again.
            if block.offset >= self.ahead_until
                && let Some(t) = h.string_table
                && let Some(map) = self.names.add_table(t)?
            {
                self.names_map.extend_from_slice(&map);
            }
            let process = match h.process {
                Some(p) => {
                    let p = decode_process(p)?;
                    if self.processes.last() != Some(&p) {
                        self.processes.push(p);
                    }
                    Some(self.processes.len() - 1)
                }
                None => None,
            };
            if h.num_results > 0 {
                self.current = Some((block.results(), process));
            }
        }
    }

    /// Adds the string tables of every block not walked yet, so that a result whose `NameId`s
    /// point into tables later in the file can be decoded before the walk reaches them (only
    /// [`LaunchStream`] needs this; [`decode`] walks every block before decoding a result).
    ///
    /// It reads block headers only, skipping payloads by their size, and stops quietly at the
    /// first block that cannot be read: the walk reports that error when it gets there, and the
    /// tables before it are exactly the ones [`decode`] would have seen.
    fn read_ahead_tables(&mut self) {
        if self.ahead_done {
            return;
        }
        self.ahead_done = true;
        for block in self.blocks.clone() {
            let Ok(block) = block else { break };
            if let Some(t) = block.header.string_table {
                match self.names.add_table(t) {
                    Ok(Some(map)) => self.names_map.extend_from_slice(&map),
                    Ok(None) => {}
                    Err(_) => break,
                }
            }
            // A block is at least 4 bytes long, so this strictly increases.
            self.ahead_until = block.payload_offset.saturating_add(block.payload.len());
        }
    }

    /// The decoding context of a pending result.
    fn context(&self, p: &Pending<'_>, device_index_name: Option<NameId>) -> LaunchContext<'_> {
        LaunchContext {
            names_map: &self.names_map,
            process: p.process.and_then(|i| self.processes.get(i)),
            device_index_name,
        }
    }
}

/// Decodes the launches of a report one at a time, in report order, without holding them all.
///
/// Each item is a launch with its rule results. Metric names are ids into [`LaunchStream::names`],
/// which only grows while the stream advances. The stream ends after the first error.
#[derive(Debug)]
pub struct LaunchStream<'a> {
    walker: Walker<'a>,
    next_id: usize,
    failed: bool,
}

impl<'a> LaunchStream<'a> {
    /// Checks the magic and FileHeader and prepares to stream the launches of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Ok(LaunchStream {
            walker: Walker::new(bytes)?,
            next_id: 0,
            failed: false,
        })
    }

    /// The metric names seen so far; a [`NameId`] of a launch already yielded indexes this.
    pub fn names(&self) -> &[String] {
        self.walker.names.names()
    }

    /// The id of a metric name, if a string table seen so far contains it.
    pub fn name_id(&self, name: &str) -> Option<NameId> {
        self.walker.names.id(name)
    }

    /// The devices of the session seen so far (ncu writes them after the first result block).
    pub fn devices(&self) -> &[Device] {
        &self.walker.session.devices
    }

    /// Decodes the next launch.
    ///
    /// A launch with a `NameId` beyond the tables seen so far is decoded again after the string
    /// tables of the rest of the file have been read ahead (ncu 2023.3 writes some names in
    /// blocks after the result that uses them), so the stream resolves names as [`decode`] does.
    fn next_launch(&mut self) -> Result<Option<(Launch, Vec<RuleResult>)>, DecodeError> {
        let Some(p) = self.walker.next_result()? else {
            return Ok(None);
        };
        let decoded = match self.decode_one(&p) {
            Err(DecodeError::NameId { .. }) if !self.walker.ahead_done => {
                self.walker.read_ahead_tables();
                self.decode_one(&p)
            }
            other => other,
        }?;
        self.next_id += 1;
        Ok(Some(decoded))
    }

    /// Decodes one pending result with the string tables known so far.
    fn decode_one(&self, p: &Pending<'_>) -> Decoded {
        let device_index_name = self.walker.names.id(DEVICE_INDEX_METRIC);
        let ctx = self.walker.context(p, device_index_name);
        let mut rules = Vec::new();
        decode_launch(p.raw, self.next_id, &ctx, &mut rules).map(|l| (l, rules))
    }
}

impl Iterator for LaunchStream<'_> {
    type Item = Result<(Launch, Vec<RuleResult>), DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_launch() {
            Ok(Some(x)) => Some(Ok(x)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
