//! Session-level messages: `ProcessInfo` (per block) and `ReportSessionDetails`, which ncu spreads
//! over several blocks (one block carries the devices, another the versions, another the command
//! line); [`Session`] merges them in file order.

use crate::blocks::RawMessage;
use crate::error::DecodeError;
use crate::value::{Value, decode_value};
use crate::wire::Reader;

/// The profiled process a block belongs to (`ProcessInfo`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Process {
    /// (1) ProcessID.
    pub id: Option<u32>,
    /// (2) Hostname, e.g. `127.0.0.1`.
    pub host_name: Option<String>,
    /// (3) ProcessName as stored: usually the full path of the executable. The CSV pages print
    /// only its last path component; see [`Process::display_name`].
    pub name: Option<String>,
}

impl Process {
    /// The process name as the CSV pages print it: the last component of the stored path.
    pub fn display_name(&self) -> Option<&str> {
        self.name.as_deref().map(basename)
    }
}

/// The last component of a `/`- or `\`-separated path.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// One GPU of the session (`DeviceAttributes`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Device {
    /// (1) ID: the device ordinal.
    pub ordinal: u32,
    /// (2) Name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: Option<String>,
    /// (3) Attributes as (native name, value), e.g. (`device__attribute_max_warps_per_multiprocessor`,
    /// 64), in file order. Attributes without a value are left out.
    pub attributes: Vec<(String, Value)>,
}

impl Device {
    /// The value of the attribute called `name`, if the device has it.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
}

/// One `VersionInfo` entry of the session, e.g. ("Nsight Compute Target", "2025.3.1.0 (build …)").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionInfo {
    /// (1) Provider.
    pub provider: String,
    /// (2) Version.
    pub version: String,
}

/// The merged `ReportSessionDetails` of every block, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Session {
    /// (1) ProcessID, the first one seen.
    pub process_id: Option<u32>,
    /// (2) CreationTime, the first one seen.
    pub creation_time: Option<u64>,
    /// (6) DeviceAttributes, every one seen.
    pub devices: Vec<Device>,
    /// (8) VersionInfo, every one seen.
    pub versions: Vec<VersionInfo>,
    /// (11) ProfilerCmdline, the first one seen.
    pub command_line: Option<String>,
}

impl Session {
    /// Merges the fields of one block's ReportSessionDetails into the session.
    pub(crate) fn merge(&mut self, msg: RawMessage<'_>) -> Result<(), DecodeError> {
        let mut r = Reader::new(msg.bytes, msg.offset);
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => {
                    let v = f.varint("ReportSessionDetails.ProcessID")? as u32;
                    self.process_id.get_or_insert(v);
                }
                2 => {
                    let v = f.varint("ReportSessionDetails.CreationTime")?;
                    self.creation_time.get_or_insert(v);
                }
                6 => {
                    let (b, o) = f.bytes("ReportSessionDetails.DeviceAttributes")?;
                    self.devices.push(decode_device(b, o)?);
                }
                8 => {
                    let (b, o) = f.bytes("ReportSessionDetails.VersionInfo")?;
                    self.versions.push(decode_version(b, o)?);
                }
                11 => {
                    let s = f.string("ReportSessionDetails.ProfilerCmdline")?;
                    self.command_line.get_or_insert(s);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The Nsight Compute version string: the "Nsight Compute" provider if present (the host
    /// tool), otherwise the first provider whose name starts with "Nsight Compute" (e.g. the
    /// "Nsight Compute Target" entry that `ncu` writes), verbatim.
    pub(crate) fn ncu_version(&self) -> Option<String> {
        self.versions
            .iter()
            .find(|v| v.provider == "Nsight Compute")
            .or_else(|| {
                self.versions
                    .iter()
                    .find(|v| v.provider.starts_with("Nsight Compute"))
            })
            .map(|v| v.version.clone())
    }
}

/// Decodes a `ProcessInfo` message.
pub(crate) fn decode_process(msg: RawMessage<'_>) -> Result<Process, DecodeError> {
    let mut p = Process::default();
    let mut r = Reader::new(msg.bytes, msg.offset);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => p.id = Some(f.varint("ProcessInfo.ProcessID")? as u32),
            2 => p.host_name = Some(f.string("ProcessInfo.Hostname")?),
            3 => p.name = Some(f.string("ProcessInfo.ProcessName")?),
            _ => {}
        }
    }
    Ok(p)
}

/// Decodes a `DeviceAttributes` message.
fn decode_device(bytes: &[u8], base: usize) -> Result<Device, DecodeError> {
    let mut d = Device::default();
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => d.ordinal = f.varint("DeviceAttributes.ID")? as u32,
            2 => d.name = Some(f.string("DeviceAttributes.Name")?),
            3 => {
                let (b, o) = f.bytes("DeviceAttributes.Attributes")?;
                if let Some(attr) = decode_attribute(b, o)? {
                    d.attributes.push(attr);
                }
            }
            _ => {}
        }
    }
    Ok(d)
}

/// Decodes one device attribute `{1 Name, 2 Value}`; `None` when either is missing.
fn decode_attribute(bytes: &[u8], base: usize) -> Result<Option<(String, Value)>, DecodeError> {
    let mut name = None;
    let mut value = None;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => name = Some(f.string("DeviceAttribute.Name")?),
            2 => {
                let (b, o) = f.bytes("DeviceAttribute.Value")?;
                value = decode_value(b, o)?;
            }
            _ => {}
        }
    }
    Ok(name.zip(value))
}

/// Decodes a `VersionInfo` message `{1 Provider, 2 Version}`.
fn decode_version(bytes: &[u8], base: usize) -> Result<VersionInfo, DecodeError> {
    let mut v = VersionInfo::default();
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => v.provider = f.string("VersionInfo.Provider")?,
            2 => v.version = f.string("VersionInfo.Version")?,
            _ => {}
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basename_of_paths() {
        assert_eq!(basename("/usr/bin/python3.12"), "python3.12");
        assert_eq!(basename("C:\\bin\\app.exe"), "app.exe");
        assert_eq!(basename("app"), "app");
    }
}
