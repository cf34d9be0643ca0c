//! Streaming diagnosis: chunks of any size in, the same findings as [`diagnose`](crate::diagnose) out.

use crate::diagnose::{Malformation, next_malformation};
use crate::lax::MAX_SPAN;

/// A validator fed one chunk at a time, in bounded memory.
///
/// It reports exactly the malformations [`diagnose`](crate::diagnose) reports on the
/// concatenation of the chunks, with absolute offsets, whatever the chunk boundaries (down to
/// one byte). At most five bytes of an undecided sequence are carried between chunks; a
/// sequence still undecided at the end is reported by [`finish`](StreamValidator::finish).
///
/// ```
/// use utf8gate_codec::{MalformedKind, StreamValidator};
///
/// let mut v = StreamValidator::new();
/// let mut kinds = Vec::new();
/// for chunk in [&b"/\xC0"[..], b"\xAE", b"./\xE2\x82"] {
///     v.feed(chunk, |m| kinds.push((m.offset(), m.kind())));
/// }
/// let summary = v.finish(|m| kinds.push((m.offset(), m.kind())));
/// assert_eq!(kinds, [(1, MalformedKind::Overlong), (5, MalformedKind::Truncated)]);
/// assert_eq!(summary.bytes, 7);
/// ```
#[derive(Debug, Clone, Default)]
pub struct StreamValidator {
    /// Bytes of a sequence not yet judged; `carry[..carry_len]`, fewer than `MAX_SPAN`.
    carry: [u8; MAX_SPAN],
    carry_len: usize,
    /// Absolute offset of `carry[0]` (of the next byte once the carry is empty).
    offset: usize,
    malformations: u64,
}

/// Totals returned by [`StreamValidator::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSummary {
    /// Bytes fed in all.
    pub bytes: usize,
    /// Malformations reported in all.
    pub malformations: u64,
}

impl StreamSummary {
    /// `true` if the stream was valid UTF-8.
    pub fn is_valid(&self) -> bool {
        self.malformations == 0
    }
}

impl StreamValidator {
    /// A validator at offset 0.
    pub fn new() -> StreamValidator {
        StreamValidator::default()
    }

    /// Bytes fed so far.
    pub fn bytes_fed(&self) -> usize {
        self.offset + self.carry_len
    }

    /// Bytes judged so far: every malformation that starts before this offset has been
    /// reported; the bytes from here to [`bytes_fed`](Self::bytes_fed) (fewer than four) are
    /// an open sequence carried to the next chunk.
    pub fn decided(&self) -> usize {
        self.offset
    }

    /// Malformations reported so far.
    pub fn malformations(&self) -> u64 {
        self.malformations
    }

    /// Feeds the next chunk; `on_malformation` is called for each malformation decided by it.
    pub fn feed(&mut self, chunk: &[u8], mut on_malformation: impl FnMut(Malformation)) {
        let mut chunk = chunk;
        if self.carry_len > 0 {
            // Any sequence that starts in the carry is decided within MAX_SPAN bytes of its
            // start, so the carry plus MAX_SPAN bytes of the chunk always suffice.
            let take = chunk.len().min(MAX_SPAN);
            let mut joined = [0u8; 2 * MAX_SPAN];
            joined[..self.carry_len].copy_from_slice(&self.carry[..self.carry_len]);
            joined[self.carry_len..self.carry_len + take].copy_from_slice(&chunk[..take]);
            let joined = &joined[..self.carry_len + take];
            let (consumed, undecided) = self.scan(joined, &mut on_malformation);
            if undecided && take == chunk.len() {
                // The whole chunk fit and a sequence is still open: carry it on.
                self.set_carry(&joined[consumed..], self.offset + consumed);
                return;
            }
            // The scan passed the end of the old carry (an open sequence that starts in the
            // carry is always decided by MAX_SPAN more bytes): go on with the chunk itself.
            let into_chunk = consumed.saturating_sub(self.carry_len);
            self.offset += consumed;
            self.carry_len = 0;
            chunk = &chunk[into_chunk..];
        }
        let (consumed, undecided) = self.scan(chunk, &mut on_malformation);
        if undecided {
            self.set_carry(&chunk[consumed..], self.offset + consumed);
        } else {
            self.offset += chunk.len();
        }
    }

    /// Ends the stream: reports a sequence left open by the last chunk as truncated.
    pub fn finish(mut self, mut on_malformation: impl FnMut(Malformation)) -> StreamSummary {
        let carry = self.carry;
        let tail = &carry[..self.carry_len];
        let mut pos = 0;
        while let Ok(Some(m)) = next_malformation(tail, &mut pos, true) {
            self.malformations += 1;
            on_malformation(m.with_offset(self.offset + m.offset()));
        }
        StreamSummary {
            bytes: self.offset + self.carry_len,
            malformations: self.malformations,
        }
    }

    /// Scans `bytes` (which start at `self.offset`) without assuming end of input. Returns how
    /// many bytes were decided and whether the rest is an undecided sequence.
    fn scan(
        &mut self,
        bytes: &[u8],
        on_malformation: &mut impl FnMut(Malformation),
    ) -> (usize, bool) {
        let mut pos = 0;
        loop {
            match next_malformation(bytes, &mut pos, false) {
                Ok(Some(m)) => {
                    self.malformations += 1;
                    on_malformation(m.with_offset(self.offset + m.offset()));
                }
                Ok(None) => return (bytes.len(), false),
                Err(()) => return (pos, true),
            }
        }
    }

    fn set_carry(&mut self, rest: &[u8], offset: usize) {
        debug_assert!(rest.len() < MAX_SPAN);
        let len = rest.len().min(MAX_SPAN);
        self.carry[..len].copy_from_slice(&rest[..len]);
        self.carry_len = len;
        self.offset = offset;
    }
}
