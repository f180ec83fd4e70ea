//! The reader the container checks read headers through: buffered, positioned by absolute offset
//! (keeping its buffer when the next header is already in it), and counting the bytes it hands out,
//! so that a test can hold the checks to reading little of a large file.

use std::io::{BufReader, Read, Seek, SeekFrom};

/// The buffer: headers are small, and a large buffer would read much of a file with many small
/// pieces.
const READ_BUFFER_BYTES: usize = 4096;

/// A buffered reader that knows where it is, so that headers are found by absolute offset without
/// throwing away its buffer when the next header is already in it, and that counts the bytes it
/// reads (the checks must read little of a large file).
pub(crate) struct Probe<R> {
    inner: BufReader<R>,
    position: u64,
    bytes_read: u64,
}

impl<R: Read + Seek> Probe<R> {
    /// A probe at the start of `inner`.
    pub(crate) fn new(mut inner: R) -> std::io::Result<Self> {
        inner.seek(SeekFrom::Start(0))?;
        Ok(Self {
            inner: BufReader::with_capacity(READ_BUFFER_BYTES, inner),
            position: 0,
            bytes_read: 0,
        })
    }

    /// The bytes handed out so far (what the checks asked for, not what the buffer read ahead).
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Moves to the absolute byte `offset`.
    pub(crate) fn seek_to(&mut self, offset: u64) -> std::io::Result<()> {
        if offset == self.position {
            return Ok(());
        }
        // Inside the buffer when the distance is small: `seek_relative` keeps it.
        let distance = i64::try_from(i128::from(offset) - i128::from(self.position));
        match distance {
            Ok(distance) if distance.unsigned_abs() <= READ_BUFFER_BYTES as u64 => {
                self.inner.seek_relative(distance)?;
            }
            _ => {
                self.inner.seek(SeekFrom::Start(offset))?;
            }
        }
        self.position = offset;
        Ok(())
    }

    /// Reads exactly `buf.len()` bytes at the current position.
    pub(crate) fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        self.inner.read_exact(buf)?;
        self.position = self.position.saturating_add(buf.len() as u64);
        self.bytes_read = self.bytes_read.saturating_add(buf.len() as u64);
        Ok(())
    }

    /// Reads exactly `N` bytes at the absolute byte `offset`.
    pub(crate) fn read_array_at<const N: usize>(
        &mut self,
        offset: u64,
    ) -> std::io::Result<[u8; N]> {
        let mut bytes = [0u8; N];
        self.seek_to(offset)?;
        self.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    /// Reads `len` bytes at the absolute byte `offset` (the caller has checked that they lie
    /// inside the file).
    pub(crate) fn read_vec_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        let len =
            usize::try_from(len).map_err(|_| std::io::Error::other("a length beyond memory"))?;
        let mut bytes = vec![0u8; len];
        self.seek_to(offset)?;
        self.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    /// A reader of at most `limit` bytes from the current position that counts what it reads;
    /// [`Counted::consumed`] then says how far a header went.
    pub(crate) fn counted(&mut self, limit: u64) -> Counted<'_, BufReader<R>> {
        Counted {
            inner: (&mut self.inner).take(limit),
            position: &mut self.position,
            bytes_read: &mut self.bytes_read,
            consumed: 0,
        }
    }
}

/// A bounded reader over a [`Probe`] that counts the bytes it reads.
pub(crate) struct Counted<'a, R> {
    inner: std::io::Take<&'a mut R>,
    position: &'a mut u64,
    bytes_read: &'a mut u64,
    consumed: u64,
}

impl<R> Counted<'_, R> {
    /// The bytes read so far.
    pub(crate) fn consumed(&self) -> u64 {
        self.consumed
    }
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed = self.consumed.saturating_add(n as u64);
        *self.position = self.position.saturating_add(n as u64);
        *self.bytes_read = self.bytes_read.saturating_add(n as u64);
        Ok(n)
    }
}
