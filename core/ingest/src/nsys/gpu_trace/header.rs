//! Where each column of a `cuda_gpu_trace` header is, and the scale of its unit.

use std::path::Path;

use crate::IngestError;
use crate::nsys::header::HeaderLabels;

/// Where each column of the header is, and the scale of its unit.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub(crate) labels: Vec<String>,
    pub(crate) start: usize,
    pub(crate) start_ns_per_unit: f64,
    pub(crate) duration: usize,
    pub(crate) duration_ns_per_unit: f64,
    pub(crate) corr_id: usize,
    pub(crate) grid: [usize; 3],
    pub(crate) block: [usize; 3],
    pub(crate) registers: usize,
    pub(crate) static_smem: (usize, f64),
    pub(crate) dynamic_smem: (usize, f64),
    pub(crate) bytes: Option<(usize, f64)>,
    pub(crate) throughput: Option<(usize, f64)>,
    pub(crate) src_kind: Option<usize>,
    pub(crate) dst_kind: Option<usize>,
    pub(crate) device: Option<usize>,
    pub(crate) context: Option<usize>,
    pub(crate) green_context: Option<usize>,
    pub(crate) stream: Option<usize>,
    pub(crate) name: usize,
}

impl Header {
    /// Parses the header labels found at `line` of `path`.
    pub(crate) fn parse(
        path: &Path,
        line: u64,
        labels: Vec<String>,
    ) -> Result<Header, IngestError> {
        let h = HeaderLabels::new(path, line, "cuda_gpu_trace", labels);
        let (start, start_ns_per_unit) = h.time(h.require(&["Start"])?)?;
        let (duration, duration_ns_per_unit) = h.time(h.require(&["Duration"])?)?;
        let throughput = h
            .find(&["Throughput"])
            .map(|i| h.throughput(i))
            .transpose()?;
        let header = Header {
            labels: Vec::new(),
            start,
            start_ns_per_unit,
            duration,
            duration_ns_per_unit,
            corr_id: h.require(&["CorrId"])?,
            grid: [
                h.require(&["GrdX"])?,
                h.require(&["GrdY"])?,
                h.require(&["GrdZ"])?,
            ],
            block: [
                h.require(&["BlkX"])?,
                h.require(&["BlkY"])?,
                h.require(&["BlkZ"])?,
            ],
            registers: h.require(&["Reg/Trd"])?,
            static_smem: h.memory(h.require(&["StcSMem"])?)?,
            dynamic_smem: h.memory(h.require(&["DymSMem"])?)?,
            bytes: h.find(&["Bytes"]).map(|i| h.memory(i)).transpose()?,
            throughput,
            src_kind: h.find(&["SrcMemKd"]),
            dst_kind: h.find(&["DstMemKd"]),
            device: h.find(&["Device"]),
            context: h.find(&["Ctx"]),
            green_context: h.find(&["GreenCtx"]),
            stream: h.find(&["Strm"]),
            name: h.require(&["Name"])?,
        };
        Ok(Header {
            labels: h.into_labels(),
            ..header
        })
    }
}
