//! The proof's window on a document (in `words`): the bytes where the reading of a
//! string must stop, found 64 bytes at a time. One mask for the block being read, so that a
//! string costs a few instructions rather than a search set up for each run; the block's
//! simple escapes are read with the block (`crate::readings::json::words::escapes`), so that an escape-dense string
//! costs no stop per escape. The same reading masks the string's triggers
//! (`crate::readings::json::words::blocks::triggers`: what may make the traversal check report anything), so that a
//! string's text is read once for all of it.

use crate::readings::json::words::blocks::Vectors;
use crate::readings::json::words::wide;

/// What the bytes of a string hold beyond its stops (from the last [`Window::begin`] to an
/// offset [`Window::next`] returned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    /// Whether they hold a trigger (`crate::readings::json::words::blocks::triggers`).
    pub(crate) triggered: bool,
    /// Whether a simple escape is begun in them (`\"`, `\\`, `\/`, `\n`, `\r`, `\t`).
    pub(crate) escapes: bool,
    /// Whether `\n`, `\r` or `\t` is among them (clean in a value, not in a key).
    pub(crate) control_escapes: bool,
}

/// The block being read, and what the blocks left since the string's start held.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Window {
    /// Offset of the block in the document.
    base: usize,
    /// How many of its bytes the masks cover (at most 64; 0 before the first).
    width: usize,
    /// Bit `i` set when the reading stops at `base + i` (`escapes::Settled::stops`).
    stops: u64,
    /// Bit `i` set when the byte at `base + i` is a trigger (`crate::readings::json::words::blocks::triggers`).
    triggers: u64,
    /// Bit `i` set when `base + i` begins a simple escape.
    simple: u64,
    /// Bit `i` set when `base + i` begins `\n`, `\r` or `\t`.
    controls: u64,
    /// The widest vectors the CPU has: the reading of blocks is compiled for them.
    vectors: Vectors,
    /// Where the string being read starts (the last [`Window::begin`]).
    start: usize,
    /// What the blocks left since the last [`Window::begin`] held from there.
    left: Span,
    /// The simple escapes in the blocks read so far: each two raw bytes for one decoded.
    escapes: usize,
}

impl Window {
    /// A window before the first block, with the CPU's vector width detected.
    pub(crate) fn new() -> Self {
        Window {
            vectors: Vectors::detect(),
            ..Window::default()
        }
    }

    /// Starts the reading of a string at `start`, which no escape is pending at (its first
    /// byte, or the byte after an escape): [`Window::span`] then covers the bytes from there.
    #[inline(always)]
    pub(crate) fn begin(&mut self, start: usize) {
        self.left = Span::default();
        self.start = start;
    }

    /// What the bytes from the last [`Window::begin`] up to `end` (the last offset
    /// [`Window::next`] returned) hold: the blocks left since, and the current block's bits in
    /// the range.
    #[inline(always)]
    pub(crate) fn span(&self, end: usize) -> Span {
        let from = self.start.saturating_sub(self.base);
        let to = end.saturating_sub(self.base).min(64);
        let range = match from < to {
            true => (u64::MAX >> (64 - to)) & (u64::MAX << from),
            false => 0,
        };
        Span {
            triggered: self.left.triggered || self.triggers & range != 0,
            escapes: self.left.escapes || self.simple & range != 0,
            control_escapes: self.left.control_escapes || self.controls & range != 0,
        }
    }

    /// Whether the bytes from the last [`Window::begin`] up to `end` (the last offset
    /// [`Window::next`] returned) lie in the block being read and hold no trigger, nor, for a
    /// key (`key`), an escape: [`Window::span`]'s common answer in a few instructions (`false`
    /// when the bytes leave the block: [`Window::span`] then says).
    #[inline(always)]
    pub(crate) fn plain_in_block(&self, end: usize, key: bool) -> bool {
        let from = self.start.wrapping_sub(self.base);
        let to = end.wrapping_sub(self.base);
        if from > to || to >= 64 {
            return false;
        }
        let range = (1u64 << to) - (1u64 << from);
        let stops = self.triggers | if key { self.simple } else { 0 };
        stops & range == 0
    }

    /// The offset of the first byte of `body` at or after `pos` where the reading of a string
    /// stops (a quote or a control byte not escaped, a backslash that begins an escape other
    /// than a simple one), or the length of `body`. `pos` is at or after the last offset
    /// returned (or the first call's), and no escape is pending at it: the calls over one
    /// document read each block once, and note what the blocks they leave hold for
    /// [`Window::span`].
    #[inline(always)]
    pub(crate) fn next(&mut self, body: &[u8], pos: usize) -> usize {
        // Most calls: the next stop is in the block already read.
        let off = pos.wrapping_sub(self.base);
        if off < self.width {
            let rest = self.stops >> off;
            if rest != 0 {
                return pos + rest.trailing_zeros() as usize;
            }
        }
        self.next_in_blocks(body, pos)
    }

    /// [`Window::next`] past the block already read: reads the next blocks (out of line, so
    /// that the common call stays a few instructions in its caller).
    #[inline(never)]
    fn next_in_blocks(&mut self, body: &[u8], mut pos: usize) -> usize {
        loop {
            let off = pos.wrapping_sub(self.base);
            if off < self.width {
                let rest = self.stops >> off;
                if rest != 0 {
                    return pos + rest.trailing_zeros() as usize;
                }
                pos = self.base + self.width;
            }
            let Some(block) = body.get(pos..).filter(|b| !b.is_empty()) else {
                return body.len();
            };
            self.leave();
            self.base = pos;
            let (read, triggers) = wide::read_block(block, self.vectors);
            self.triggers = triggers;
            self.width = read.width;
            self.stops = read.stops;
            (self.simple, self.controls) = (read.simple, read.controls);
            self.escapes += read.escapes as usize;
            if read.width == 64 && read.stops == 0 && block.len() > 64 {
                // 64 bytes without a stop (nor an escape pending past them): a long run of
                // text, read a block at a time without masks up to the next special byte (this
                // block's triggers and escapes are noted when the next one is loaded).
                let (plain, trigger) = wide::plain_blocks(&block[64..], self.vectors);
                self.left.triggered |= trigger;
                pos += 64 + plain;
            }
        }
    }

    /// The simple escapes in the blocks read so far. Every byte of a document's strings is in
    /// a block the reading of its strings reads, once; outside its strings, a valid document
    /// has no backslash: once a document is read, these are its strings' simple escapes.
    pub(crate) fn escapes(&self) -> usize {
        self.escapes
    }

    /// Notes what the block being left holds from the string's start on.
    #[inline(always)]
    fn leave(&mut self) {
        let from = self.start.saturating_sub(self.base);
        if from < 64 {
            self.left.triggered |= self.triggers >> from != 0;
            self.left.escapes |= self.simple >> from != 0;
            self.left.control_escapes |= self.controls >> from != 0;
        }
    }
}

#[cfg(test)]
mod tests;
