//! The check made on a plugin file before `dlopen`: the file must be a complete shared library.
//!
//! The dynamic loader maps a library's segments from the file; a file cut short (a partial copy,
//! a full disk) maps pages past its end, and touching them kills the process with SIGBUS before
//! any error can be reported. So, on ELF systems, the file's size must cover the ELF header, the
//! program headers, every `PT_LOAD` segment's file range and the section headers, and the file
//! must be a shared object (`ET_DYN`). On macOS and Windows only a minimum size is checked.

use std::io::Read;
use std::path::Path;

use crate::errors::PluginError;

/// The smallest file accepted on platforms where the format is not parsed.
#[cfg(not(all(unix, not(target_os = "macos"))))]
const MIN_LIBRARY_BYTES: u64 = 1024;

/// Bytes read from the start of the file: the ELF header and, normally, the program headers.
#[cfg(all(unix, not(target_os = "macos")))]
const HEAD_BYTES: usize = 64 * 1024;

/// Checks that `path` is a complete shared library before it is opened.
pub(crate) fn check_library_file(path: &Path) -> Result<(), PluginError> {
    let incomplete = |detail: String| PluginError::Incomplete(detail);
    let size = std::fs::metadata(path)
        .map_err(|e| incomplete(format!("cannot read its size: {e}")))?
        .len();
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let mut head = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(HEAD_BYTES as u64).read_to_end(&mut head))
            .map_err(|e| incomplete(format!("cannot read it: {e}")))?;
        check_elf(&head, size).map_err(incomplete)
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        if size < MIN_LIBRARY_BYTES {
            return Err(incomplete(format!(
                "{size} bytes, too small for a shared library"
            )));
        }
        Ok(())
    }
}

/// Reads unsigned integers of the file's byte order and width at given offsets of `head`.
#[cfg(all(unix, not(target_os = "macos")))]
struct Reader<'a> {
    head: &'a [u8],
    big_endian: bool,
}

#[cfg(all(unix, not(target_os = "macos")))]
impl Reader<'_> {
    /// The `width`-byte unsigned integer at `offset`, or `None` past the bytes read.
    fn uint(&self, offset: u64, width: usize) -> Option<u64> {
        let start = usize::try_from(offset).ok()?;
        let bytes = self.head.get(start..start.checked_add(width)?)?;
        let fold = |acc: u64, b: &u8| (acc << 8) | u64::from(*b);
        Some(if self.big_endian {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        })
    }
}

/// Checks an ELF file whose first bytes are `head` and whose size is `size`; the error says what
/// is missing.
#[cfg(all(unix, not(target_os = "macos")))]
fn check_elf(head: &[u8], size: u64) -> Result<(), String> {
    const ET_DYN: u64 = 3;
    const PT_LOAD: u64 = 1;
    if head.len() < 16 || &head[..4] != b"\x7fELF" {
        return Err(format!("not an ELF file ({size} bytes)"));
    }
    let wide = match head[4] {
        1 => false,
        2 => true,
        class => return Err(format!("unknown ELF class {class}")),
    };
    let reader = Reader {
        head,
        big_endian: head[5] == 2,
    };
    let word = if wide { 8 } else { 4 };
    let short = |what: &str| format!("the file ({size} bytes) is cut short: it ends inside {what}");
    let header_size: u64 = if wide { 64 } else { 52 };
    if size < header_size {
        return Err(short("the ELF header"));
    }
    let (phoff_at, shoff_at, phentsize_at) = if wide { (32, 40, 54) } else { (28, 32, 42) };
    let field = |offset: u64, width: usize| {
        reader
            .uint(offset, width)
            .ok_or_else(|| short("the ELF header"))
    };
    if field(16, 2)? != ET_DYN {
        return Err("not a shared library (ELF type is not ET_DYN)".to_string());
    }
    let phoff = field(phoff_at, word)?;
    let shoff = field(shoff_at, word)?;
    let phentsize = field(phentsize_at, 2)?;
    let phnum = field(phentsize_at + 2, 2)?;
    let shentsize = field(phentsize_at + 4, 2)?;
    let shnum = field(phentsize_at + 6, 2)?;
    let end = |offset: u64, length: u64| offset.saturating_add(length);
    if end(phoff, phentsize.saturating_mul(phnum)) > size {
        return Err(short("the program headers"));
    }
    for index in 0..phnum {
        let entry = phoff + index * phentsize;
        let at = |offset: u64, width: usize| {
            reader
                .uint(entry + offset, width)
                .ok_or_else(|| "program headers beyond the first 64 KiB".to_string())
        };
        if at(0, 4)? != PT_LOAD {
            continue;
        }
        let (offset, filesz) = if wide {
            (at(8, 8)?, at(32, 8)?)
        } else {
            (at(4, 4)?, at(16, 4)?)
        };
        if end(offset, filesz) > size {
            return Err(format!(
                "{}: loadable segment {index} needs bytes up to {}",
                short("a loadable segment"),
                end(offset, filesz)
            ));
        }
    }
    if shnum > 0 && end(shoff, shentsize.saturating_mul(shnum)) > size {
        return Err(short("the section headers"));
    }
    Ok(())
}

#[cfg(all(test, unix, not(target_os = "macos")))]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_empty_files_are_not_elf() {
        assert!(check_elf(b"", 0).unwrap_err().contains("not an ELF file"));
        assert!(
            check_elf(b"hello, world, this is text", 26)
                .unwrap_err()
                .contains("not an ELF")
        );
        let mut header = b"\x7fELF\x02\x01\x01".to_vec();
        header.resize(20, 0);
        assert!(check_elf(&header, 20).unwrap_err().contains("cut short"));
    }
}
