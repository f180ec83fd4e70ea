//! One profiled kernel launch: the `ProfileResult` message decoded into a [`Launch`] with its
//! identification fields and every metric under its native name id, plus its rule results.

use crate::blocks::RawMessage;
use crate::error::DecodeError;
use crate::instances::{Instances, Values};
use crate::names::NameId;
use crate::rules::{RuleResult, decode_rule};
use crate::session::{Process, basename};
use crate::value::{Value, decode_value};
use crate::wire::{Reader, WireValue};

/// Grid or block dimensions (`Uint64x3`); a field absent from the report reads as 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dim3 {
    /// (1) X.
    pub x: u64,
    /// (2) Y.
    pub y: u64,
    /// (3) Z.
    pub z: u64,
}

impl Dim3 {
    /// The dimensions as the CSV pages print them, e.g. `(256, 1, 1)`.
    pub fn to_csv(&self) -> String {
        format!("({}, {}, {})", self.x, self.y, self.z)
    }
}

/// `ClockStatus` of a launch: whether ncu was asked to lock clocks and whether it did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockStatus {
    /// (1) RequestedLock.
    pub requested_lock: Option<bool>,
    /// (2) ExecutedLocked.
    pub executed_locked: Option<bool>,
}

/// One metric of a launch (`ProfileMetricResult`).
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// (1) The metric's native ncu name as an id into the report's names table (see
    /// [`crate::Report::name`]); e.g. `gpu__time_duration.sum`.
    pub name: NameId,
    /// (4) Category: 0 PM counter, 1 sampler; `None` when absent.
    pub category: Option<u8>,
    /// (2) The metric's value; `None` when the report stores none (the raw page prints such a
    /// metric as `no data` when it also has no instances, and as an empty cell otherwise).
    pub value: Option<Value>,
    /// (3) Per-instance values with their correlation ids (the CSV's `;`-separated lists with
    /// `--print-metric-instances`), `None` when the metric has none.
    pub instances: Option<Box<Instances>>,
}

/// One profiled kernel launch (`ProfileResult`), the same row the raw CSV page prints.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    /// Index of the launch in report order, starting at 0: the CSV `ID` column.
    pub id: usize,
    /// Absolute offset of the ProfileResult message in the input.
    pub offset: usize,
    /// The block's ProcessInfo ProcessID: the CSV `Process ID` column.
    pub process_id: Option<u32>,
    /// The block's ProcessInfo ProcessName, verbatim (usually a full path; the CSV prints the
    /// last path component, see [`Launch::process_display_name`]).
    pub process_name: Option<String>,
    /// The block's ProcessInfo Hostname: the CSV `Host Name` column.
    pub host_name: Option<String>,
    /// (1) ThreadID.
    pub thread_id: Option<u64>,
    /// (2) APICallID.
    pub api_call_id: Option<u64>,
    /// (4) KernelID.
    pub kernel_id: Option<u64>,
    /// (5) KernelMangledName; `None` when absent or empty.
    pub mangled_name: Option<String>,
    /// (6) KernelFunctionName (the CSV `Kernel Name` with `--print-kernel-base function`);
    /// `None` when absent or empty.
    pub function_name: Option<String>,
    /// (7) KernelDemangledName; `None` when absent or empty, as it is for kernels whose symbol
    /// is not a mangled C++ name (e.g. cuBLAS `nvjet_*` kernels).
    pub demangled_name: Option<String>,
    /// (31) RenamedDemangledName, when the user renamed the kernel; `None` when absent or empty.
    pub renamed_demangled_name: Option<String>,
    /// (8) WorkDimensions.
    pub work_dimensions: Option<u32>,
    /// (10) GridSize.
    pub grid: Option<Dim3>,
    /// (11) BlockSize.
    pub block: Option<Dim3>,
    /// (14) CreationTime.
    pub creation_time: Option<u64>,
    /// (22) ContextID: the CSV `Context` column.
    pub context_id: Option<u64>,
    /// (23) StreamID: the CSV `Stream` column.
    pub stream_id: Option<u64>,
    /// (26) ContextName; `None` when absent or empty.
    pub context_name: Option<String>,
    /// (27) StreamName; `None` when absent or empty.
    pub stream_name: Option<String>,
    /// (25) ClockStatus.
    pub clock_status: Option<ClockStatus>,
    /// The device ordinal (the CSV `Device` column), taken from the launch's
    /// `device__attribute_device_index` metric; `None` when the launch lacks that metric.
    pub device: Option<u32>,
    /// (21) Nvtx: the launch's NVTX state message, kept undecoded (its schema is not part of
    /// this crate's reference); `None` when the report has no NVTX data for the launch.
    pub nvtx: Option<Vec<u8>>,
    /// (13) MetricResults, in report order.
    pub metrics: Vec<Metric>,
}

impl Launch {
    /// The kernel name as the CSV pages print it by default: the renamed name if the user
    /// renamed the kernel, else the demangled name, else the function name, else the mangled
    /// name.
    ///
    /// ncu's CSV pages additionally simplify demangled names (observed: `(bool)0` printed as
    /// `0`, `(unsigned long)3` as `3`, `at::native::` as `at::`), a rewrite the report does not
    /// store; this method returns the name as stored.
    pub fn kernel_name(&self) -> Option<&str> {
        self.renamed_demangled_name
            .as_deref()
            .or(self.demangled_name.as_deref())
            .or(self.function_name.as_deref())
            .or(self.mangled_name.as_deref())
    }

    /// The process name as the CSV pages print it: the last component of the stored path.
    pub fn process_display_name(&self) -> Option<&str> {
        self.process_name.as_deref().map(basename)
    }

    /// The metric with name id `name`, if the launch has it.
    pub fn metric(&self, name: NameId) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

/// What decoding one ProfileResult needs from the blocks before it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaunchContext<'t> {
    /// Local-to-global name ids of the file's string tables, numbered as one table in file order
    /// (empty if none yet).
    pub names_map: &'t [u32],
    /// The ProcessInfo of the block.
    pub process: Option<&'t Process>,
    /// The global id of `device__attribute_device_index`, if the table has it.
    pub device_index_name: Option<NameId>,
}

/// Decodes one ProfileResult into a launch with id `id` and appends its rule results to `rules`.
pub(crate) fn decode_launch(
    raw: RawMessage<'_>,
    id: usize,
    ctx: &LaunchContext<'_>,
    rules: &mut Vec<RuleResult>,
) -> Result<Launch, DecodeError> {
    let mut l = Launch {
        id,
        offset: raw.offset,
        ..Launch::default()
    };
    if let Some(p) = ctx.process {
        l.process_id = p.id;
        l.process_name = p.name.clone();
        l.host_name = p.host_name.clone();
    }
    // Reserve exactly: count the MetricResults first (a cheap walk over top-level keys).
    l.metrics = Vec::with_capacity(count_field(raw, 13)?);

    // Instance values are gathered here, then moved into exactly sized columns per metric.
    let mut scratch = Scratch::default();
    let mut r = Reader::new(raw.bytes, raw.offset);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => l.thread_id = Some(f.varint("ProfileResult.ThreadID")?),
            2 => l.api_call_id = Some(f.varint("ProfileResult.APICallID")?),
            4 => l.kernel_id = Some(f.varint("ProfileResult.KernelID")?),
            5 => l.mangled_name = non_empty(f.string("ProfileResult.KernelMangledName")?),
            6 => l.function_name = non_empty(f.string("ProfileResult.KernelFunctionName")?),
            7 => l.demangled_name = non_empty(f.string("ProfileResult.KernelDemangledName")?),
            8 => l.work_dimensions = Some(f.varint("ProfileResult.WorkDimensions")? as u32),
            10 => l.grid = Some(decode_dim3(f.bytes("ProfileResult.GridSize")?)?),
            11 => l.block = Some(decode_dim3(f.bytes("ProfileResult.BlockSize")?)?),
            13 => {
                let (b, o) = f.bytes("ProfileResult.MetricResults")?;
                if let Some(m) = decode_metric(b, o, ctx.names_map, &mut scratch)? {
                    l.metrics.push(m);
                }
            }
            14 => l.creation_time = Some(f.varint("ProfileResult.CreationTime")?),
            19 => {
                let (b, o) = f.bytes("ProfileResult.RuleResults")?;
                decode_rule(b, o, id, rules)?;
            }
            21 => l.nvtx = Some(f.bytes("ProfileResult.Nvtx")?.0.to_vec()),
            22 => l.context_id = Some(f.varint("ProfileResult.ContextID")?),
            23 => l.stream_id = Some(f.varint("ProfileResult.StreamID")?),
            25 => l.clock_status = Some(decode_clock(f.bytes("ProfileResult.ClockStatus")?)?),
            26 => l.context_name = non_empty(f.string("ProfileResult.ContextName")?),
            27 => l.stream_name = non_empty(f.string("ProfileResult.StreamName")?),
            31 => {
                l.renamed_demangled_name =
                    non_empty(f.string("ProfileResult.RenamedDemangledName")?)
            }
            _ => {}
        }
    }
    if let Some(dev) = ctx.device_index_name {
        l.device = l
            .metric(dev)
            .and_then(|m| m.value.as_ref())
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok());
    }
    Ok(l)
}

/// Counts the top-level fields numbered `number` of a message.
fn count_field(raw: RawMessage<'_>, number: u32) -> Result<usize, DecodeError> {
    let mut r = Reader::new(raw.bytes, raw.offset);
    let mut n = 0;
    while let Some(f) = r.next_field()? {
        n += usize::from(f.number == number);
    }
    Ok(n)
}

/// `Some(s)` unless `s` is empty.
fn non_empty(s: String) -> Option<String> {
    if s.is_empty() { None } else { Some(s) }
}

/// Decodes a `Uint64x3` message.
fn decode_dim3((bytes, base): (&[u8], usize)) -> Result<Dim3, DecodeError> {
    let mut d = Dim3::default();
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => d.x = f.varint("Uint64x3.X")?,
            2 => d.y = f.varint("Uint64x3.Y")?,
            3 => d.z = f.varint("Uint64x3.Z")?,
            _ => {}
        }
    }
    Ok(d)
}

/// Decodes a `ClockStatus` message.
fn decode_clock((bytes, base): (&[u8], usize)) -> Result<ClockStatus, DecodeError> {
    let mut c = ClockStatus::default();
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => c.requested_lock = Some(f.varint("ClockStatus.RequestedLock")? != 0),
            2 => c.executed_locked = Some(f.varint("ClockStatus.ExecutedLocked")? != 0),
            _ => {}
        }
    }
    Ok(c)
}

/// Reusable buffers for the instances of one metric.
#[derive(Default)]
struct Scratch {
    correlation_ids: Vec<Option<Value>>,
    values: Vec<Option<Value>>,
}

/// Decodes a `ProfileMetricResult`; `None` for a metric without a NameId (nothing to key it by).
#[inline]
fn decode_metric(
    bytes: &[u8],
    base: usize,
    names_map: &[u32],
    scratch: &mut Scratch,
) -> Result<Option<Metric>, DecodeError> {
    scratch.correlation_ids.clear();
    scratch.values.clear();
    let mut name = None;
    let mut category = None;
    let mut value = None;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match (f.number, f.value) {
            (1, WireValue::Varint(id)) => {
                let global = usize::try_from(id)
                    .ok()
                    .and_then(|i| names_map.get(i))
                    .ok_or(DecodeError::NameId {
                        offset: base,
                        id,
                        len: names_map.len(),
                    })?;
                name = Some(NameId(*global));
            }
            (2, WireValue::Len(b, o)) => value = decode_value(b, o)?,
            (3, WireValue::Len(b, o)) => {
                let (c, v) = decode_instance(b, o)?;
                scratch.correlation_ids.push(c);
                scratch.values.push(v);
            }
            (4, WireValue::Varint(c)) => category = Some(c.min(u64::from(u8::MAX)) as u8),
            (1 | 4, other) => return Err(wire_type(f.offset, "ProfileMetricResult", 0, other)),
            (2 | 3, other) => return Err(wire_type(f.offset, "ProfileMetricResult", 2, other)),
            _ => {}
        }
    }
    Ok(name.map(|name| Metric {
        name,
        category,
        value,
        instances: if scratch.values.is_empty() {
            None
        } else {
            Some(Box::new(Instances {
                correlation_ids: Values::from_drain(&mut scratch.correlation_ids),
                values: Values::from_drain(&mut scratch.values),
            }))
        },
    }))
}

/// Decodes one `MetricValueList` entry `{1 CorrelationId, 2 ElementValue}`.
#[inline]
fn decode_instance(
    bytes: &[u8],
    base: usize,
) -> Result<(Option<Value>, Option<Value>), DecodeError> {
    // Fast path for the layout ncu writes: field 1 then field 2, each shorter than 128 bytes.
    if let [0x0a, n1, rest @ ..] = bytes {
        let n1 = usize::from(*n1);
        if n1 < 0x80 && rest.len() > n1 {
            let (a, tail) = rest.split_at(n1);
            if let [0x12, n2, b @ ..] = tail
                && usize::from(*n2) == b.len()
                && *n2 < 0x80
            {
                return Ok((decode_value(a, base + 2)?, decode_value(b, base + 4 + n1)?));
            }
        }
    }
    let mut correlation_id = None;
    let mut value = None;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match (f.number, f.value) {
            (1, WireValue::Len(b, o)) => correlation_id = decode_value(b, o)?,
            (2, WireValue::Len(b, o)) => value = decode_value(b, o)?,
            (1 | 2, other) => return Err(wire_type(f.offset, "MetricValueList", 2, other)),
            _ => {}
        }
    }
    Ok((correlation_id, value))
}

/// Builds a wire-type error.
fn wire_type(
    offset: usize,
    field: &'static str,
    expected: u8,
    found: WireValue<'_>,
) -> DecodeError {
    DecodeError::WireType {
        offset,
        field,
        expected,
        found: found.wire_type(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_stay_small() {
        // Eleven million metrics per GB of report: keep each one at 32 bytes.
        assert_eq!(std::mem::size_of::<Metric>(), 32);
    }
}
