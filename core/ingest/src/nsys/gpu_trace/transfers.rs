//! What a memcpy / memset row's `Name` says: `[CUDA memcpy Host-to-Device]` and its older spellings.

/// What a memcpy / memset row's `Name` says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TransferKind {
    pub(crate) is_memset: bool,
    pub(crate) direction: Option<String>,
}

/// Classifies `[CUDA memcpy Host-to-Device]`, `[CUDA memcpy HtoD]` (older nsys), `[CUDA memset]`,
/// `[CUDA Unified Memory memcpy DtoH]` and the like; `None` for anything else.
pub(crate) fn transfer_kind(name: &str) -> Option<TransferKind> {
    let inner = name.trim().strip_prefix('[')?.strip_suffix(']')?;
    let lower = inner.to_ascii_lowercase();
    if lower.contains("memset") {
        return Some(TransferKind {
            is_memset: true,
            direction: None,
        });
    }
    let at = lower.find("memcpy")?;
    let tail = inner[at + "memcpy".len()..].trim();
    let direction = if tail.is_empty() {
        None
    } else {
        Some(expand_direction(tail))
    };
    Some(TransferKind {
        is_memset: false,
        direction,
    })
}

/// Expands the older short directions (`HtoD`) to the spelling nsys uses since 2021
/// (`Host-to-Device`); other text is kept as printed.
fn expand_direction(direction: &str) -> String {
    fn part(p: &str) -> &str {
        match p {
            "H" => "Host",
            "D" => "Device",
            "A" => "Array",
            "P" => "Peer",
            other => other,
        }
    }
    if let Some((from, to)) = direction.split_once("to")
        && from.len() == 1
        && to.len() == 1
    {
        return format!("{}-to-{}", part(from), part(to));
    }
    direction.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_names_give_kind_and_direction() {
        let memcpy = |d: &str| {
            Some(TransferKind {
                is_memset: false,
                direction: Some(d.to_string()),
            })
        };
        assert_eq!(
            transfer_kind("[CUDA memcpy Host-to-Device]"),
            memcpy("Host-to-Device")
        );
        assert_eq!(
            transfer_kind("[CUDA memcpy HtoD]"),
            memcpy("Host-to-Device")
        );
        assert_eq!(
            transfer_kind("[CUDA memcpy DtoA]"),
            memcpy("Device-to-Array")
        );
        assert_eq!(transfer_kind("[CUDA memcpy PtoP]"), memcpy("Peer-to-Peer"));
        assert_eq!(
            transfer_kind("[CUDA Unified Memory memcpy DtoH]"),
            memcpy("Device-to-Host")
        );
        assert_eq!(
            transfer_kind("[CUDA memset]"),
            Some(TransferKind {
                is_memset: true,
                direction: None
            })
        );
        assert_eq!(transfer_kind("scale"), None);
    }
}
