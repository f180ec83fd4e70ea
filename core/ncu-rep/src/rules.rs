//! ncu's rule results (its advice): each `RuleResult` message of a launch becomes one
//! [`RuleResult`] per message item of its body, the same rows the details CSV page prints.

use crate::error::DecodeError;
use crate::wire::{Reader, WireValue};

/// The kind of a rule message (`RuleResultBodyItem.Message.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// 0: no type.
    None,
    /// 1: Ok, an informational note (the details page's `INF`).
    Ok,
    /// 2: Warning (`WRN`).
    Warning,
    /// 3: Error (`ERR`).
    Error,
    /// 4: Optimization advice (`OPT`).
    Optimization,
    /// Any other number, kept verbatim.
    Other(u64),
}

impl Severity {
    /// Maps the enum number of the report to a severity.
    fn from_number(n: u64) -> Self {
        match n {
            0 => Severity::None,
            1 => Severity::Ok,
            2 => Severity::Warning,
            3 => Severity::Error,
            4 => Severity::Optimization,
            n => Severity::Other(n),
        }
    }

    /// The `Rule Type` the details CSV page prints: `INF`, `WRN`, `ERR` or `OPT` (and `INF` for
    /// an untyped message, `""` for an unknown number).
    pub fn csv_code(&self) -> &'static str {
        match self {
            Severity::None | Severity::Ok => "INF",
            Severity::Warning => "WRN",
            Severity::Error => "ERR",
            Severity::Optimization => "OPT",
            Severity::Other(_) => "",
        }
    }
}

/// Whether an estimated speedup applies to the whole workload or to the part a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeedupKind {
    /// 0: unknown.
    Unknown,
    /// 1: local.
    Local,
    /// 2: global.
    Global,
    /// Any other number, kept verbatim.
    Other(u64),
}

impl SpeedupKind {
    /// The `Estimated Speedup Type` the details CSV page prints: `local`, `global` or `""`.
    pub fn csv_code(&self) -> &'static str {
        match self {
            SpeedupKind::Local => "local",
            SpeedupKind::Global => "global",
            SpeedupKind::Unknown | SpeedupKind::Other(_) => "",
        }
    }
}

/// A rule's estimated speedup (`RuleResultBodyItem.Speedup`), in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speedup {
    /// (1) SpeedupType.
    pub kind: SpeedupKind,
    /// (2) Value in percent (the details page rounds it to 4 significant digits).
    pub value: Option<f64>,
}

/// One rule message of one launch: a row of ncu's rules table.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleResult {
    /// The [`crate::Launch::id`] the rule was evaluated for.
    pub launch_id: usize,
    /// (1) Identifier, e.g. `SOLBottleneck`: the details page's `Rule Name`.
    pub rule_id: String,
    /// (2) DisplayName, e.g. `Bottleneck`.
    pub display_name: Option<String>,
    /// (4) SectionIdentifier, e.g. `SpeedOfLight`: the details page's `Section Name` on rule rows.
    pub section: Option<String>,
    /// Message.Type: the details page's `Rule Type`, see [`Severity::csv_code`].
    pub severity: Severity,
    /// Message.Name, a short title such as `Latency Issue`, when present.
    pub title: Option<String>,
    /// The message as the details page prints it (`Rule Description`): ncu's inline markup
    /// rendered, `@section:Id:Text@` as `Text` and `@url:Text:Link@` as `Text (Link)`.
    pub message: String,
    /// Message.Message verbatim, with ncu's markup.
    pub message_markup: String,
    /// The estimated speedup, when the rule gives one.
    pub speedup: Option<Speedup>,
}

/// Decodes one `RuleResult` message of launch `launch_id` and appends one [`RuleResult`] per
/// message item of its body. A rule without a message (a rule that did not fire) adds nothing,
/// as on the details page.
pub(crate) fn decode_rule(
    bytes: &[u8],
    base: usize,
    launch_id: usize,
    out: &mut Vec<RuleResult>,
) -> Result<(), DecodeError> {
    let mut rule_id = String::new();
    let mut display_name = None;
    let mut section = None;
    let mut bodies: Vec<(&[u8], usize)> = Vec::new();
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => rule_id = f.string("RuleResult.Identifier")?,
            2 => display_name = Some(f.string("RuleResult.DisplayName")?),
            3 => bodies.push(f.bytes("RuleResult.Body")?),
            4 => section = Some(f.string("RuleResult.SectionIdentifier")?),
            _ => {}
        }
    }
    for (body, body_offset) in bodies {
        let mut br = Reader::new(body, body_offset);
        while let Some(f) = br.next_field()? {
            if f.number != 1 {
                continue;
            }
            let (item, item_offset) = f.bytes("RuleResultBody.Items")?;
            if let Some(item) = decode_item(item, item_offset)? {
                out.push(RuleResult {
                    launch_id,
                    rule_id: rule_id.clone(),
                    display_name: display_name.clone(),
                    section: section.clone(),
                    severity: item.severity,
                    title: item.title,
                    message: render_markup(&item.markup),
                    message_markup: item.markup,
                    speedup: item.speedup,
                });
            }
        }
    }
    Ok(())
}

/// The parts of a `RuleResultBodyItem` this crate keeps.
struct Item {
    severity: Severity,
    title: Option<String>,
    markup: String,
    speedup: Option<Speedup>,
}

/// Decodes a `RuleResultBodyItem`; `None` when it has no Message.
fn decode_item(bytes: &[u8], base: usize) -> Result<Option<Item>, DecodeError> {
    let mut message = None;
    let mut speedup = None;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => {
                let (b, o) = f.bytes("RuleResultBodyItem.Message")?;
                message = Some(decode_message(b, o)?);
            }
            10 => {
                let (b, o) = f.bytes("RuleResultBodyItem.Speedup")?;
                speedup = Some(decode_speedup(b, o)?);
            }
            _ => {}
        }
    }
    Ok(message.map(|(markup, severity, title)| Item {
        severity,
        title,
        markup,
        speedup,
    }))
}

/// Decodes a rule `Message` into (text, type, name).
fn decode_message(
    bytes: &[u8],
    base: usize,
) -> Result<(String, Severity, Option<String>), DecodeError> {
    let mut text = String::new();
    let mut severity = Severity::None;
    let mut title = None;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => text = f.string("RuleMessage.Message")?,
            2 => severity = Severity::from_number(f.varint("RuleMessage.Type")?),
            4 => title = Some(f.string("RuleMessage.Name")?),
            _ => {}
        }
    }
    Ok((text, severity, title))
}

/// Decodes a `Speedup` message `{1 SpeedupType, 2 Value (double)}`.
fn decode_speedup(bytes: &[u8], base: usize) -> Result<Speedup, DecodeError> {
    let mut s = Speedup {
        kind: SpeedupKind::Unknown,
        value: None,
    };
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match (f.number, f.value) {
            (1, _) => {
                s.kind = match f.varint("Speedup.SpeedupType")? {
                    0 => SpeedupKind::Unknown,
                    1 => SpeedupKind::Local,
                    2 => SpeedupKind::Global,
                    n => SpeedupKind::Other(n),
                }
            }
            (2, WireValue::Fixed64(bits)) => s.value = Some(f64::from_bits(bits)),
            (2, other) => {
                return Err(DecodeError::WireType {
                    offset: f.offset,
                    field: "Speedup.Value",
                    expected: 1,
                    found: other.wire_type(),
                });
            }
            _ => {}
        }
    }
    Ok(s)
}

/// Renders ncu's inline markup the way the CSV pages print it: `@section:Id:Text@` becomes
/// `Text` and `@url:Text:Link@` becomes `Text (Link)`. Anything else, including an `@` that
/// does not open a complete tag, is copied unchanged.
pub fn render_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        match render_tag(tail) {
            Some((rendered, used)) => {
                out.push_str(&rendered);
                rest = &tail[used..];
            }
            None => {
                out.push('@');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Renders one tag whose text (after the opening `@`) starts `tail`; returns the rendering and
/// the bytes of `tail` it used (through the closing `@`).
fn render_tag(tail: &str) -> Option<(String, usize)> {
    let (kind, after_kind) = tail.split_once(':')?;
    if kind != "section" && kind != "url" {
        return None;
    }
    let close = after_kind.find('@')?;
    let body = &after_kind[..close];
    let (first, second) = body.split_once(':')?;
    let used = kind.len() + 1 + close + 1;
    let rendered = if kind == "section" {
        second.to_string()
    } else {
        format!("{first} ({second})")
    };
    Some((rendered, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_renders_like_the_details_page() {
        assert_eq!(
            render_markup("Look at @section:SchedulerStats:Scheduler Statistics@ and more."),
            "Look at Scheduler Statistics and more."
        );
        assert_eq!(
            render_markup("See the @url:Guide:https://x.test/a#b@ for details."),
            "See the Guide (https://x.test/a#b) for details."
        );
        assert_eq!(render_markup("a @ b @other:x@"), "a @ b @other:x@");
        assert_eq!(render_markup("@section:broken"), "@section:broken");
    }
}
