//! Finding the bytes that end a JSON string's plain run (a quote, a backslash, a control byte)
//! eight at a time in a `u64` (a leaf). Escape-dense strings end a run every few bytes, where
//! `memchr2` costs more to set up than it saves; a word costs a dozen instructions for 8 bytes,
//! in safe code.

/// `0x01` in every byte.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// `0x80` in every byte.
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// A flag (`0x80`) in the byte of `word` that is the first zero byte, and possibly in later
/// ones, but never in an earlier one: a borrow only carries towards higher bytes.
#[inline(always)]
fn zero_flags(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// Flags for the bytes of `word` that are `"`, `\` or below 0x20; exact in the first flagged
/// byte (the lowest: words are read little-endian).
#[inline(always)]
fn special_flags(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    control | quote_flags(word)
}

/// Flags for the bytes of `word` that are `"` or `\`; exact in the first flagged byte.
#[inline(always)]
fn quote_flags(word: u64) -> u64 {
    zero_flags(word ^ (ONES * u64::from(b'"'))) | zero_flags(word ^ (ONES * u64::from(b'\\')))
}

/// The offset of the first byte of `bytes[..limit]` (rounded down to whole words) that `flags`
/// flags, `Err` with the offset where the words stopped if there is none.
#[inline(always)]
fn first_flagged(bytes: &[u8], limit: usize, flags: fn(u64) -> u64) -> Result<usize, usize> {
    let mut at = 0;
    while at < limit {
        let Some(word) = bytes.get(at..at + 8) else {
            break;
        };
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let found = flags(u64::from_le_bytes(eight));
        if found != 0 {
            return Ok(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    Err(at)
}

/// The offset of the first `"`, `\` or control byte among the first `limit` bytes of `bytes`
/// (whole words only), or `Err` with how far the words read.
pub(super) fn first_special(bytes: &[u8], limit: usize) -> Result<usize, usize> {
    first_flagged(bytes, limit, special_flags)
}

/// The offset of the first `"` or `\` among the first `limit` bytes of `bytes` (whole words
/// only), or `Err` with how far the words read.
pub(super) fn first_quote_or_backslash(bytes: &[u8], limit: usize) -> Result<usize, usize> {
    first_flagged(bytes, limit, quote_flags)
}

/// The length of the leading run of `bytes` without a `"`, `\\` or control byte, for a long
/// one: the quote or backslash found with `memchr2`, the run before it tested for control
/// bytes 64 bytes at a time with a minimum (a loop LLVM vectorizes), so long strings of text
/// cost little more than a copy.
pub(super) fn long_run(bytes: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let end = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
    let head = &bytes[..end];
    let mut at = 0;
    for block in head.chunks_exact(BLOCK) {
        if block.iter().fold(u8::MAX, |m, &b| m.min(b)) < 0x20 {
            break;
        }
        at += BLOCK;
    }
    at + head[at..]
        .iter()
        .position(|&b| b < 0x20)
        .unwrap_or(head.len() - at)
}

/// The quotes, backslashes and control bytes of a document, found 64 bytes at a time: one
/// mask for the block being read, so that an escape-dense string costs a few instructions per
/// escape rather than a search set up for each run (the proof of `super::proof`). The same
/// reading masks the string's triggers (`blocks::triggers`: what may make the traversal check
/// report anything), so that a string's text is read once for both.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Specials {
    /// Offset of the block in the document.
    base: usize,
    /// Its length (at most 64; 0 before the first).
    width: usize,
    /// Bit `i` set when the byte at `base + i` is special.
    mask: u64,
    /// Bit `i` set when the byte at `base + i` is a trigger (`blocks::triggers`).
    triggers: u64,
    /// The widest vectors the CPU has: the reading of blocks is compiled for them.
    vectors: blocks::Vectors,
    /// Where the string being read starts (the last [`Specials::begin`]).
    start: usize,
    /// Whether a block left since the last [`Specials::begin`] had a trigger in the string.
    passed: bool,
}

impl Specials {
    /// A window before the first block, with the CPU's vector width detected.
    pub(super) fn new() -> Self {
        Specials {
            vectors: blocks::Vectors::detect(),
            ..Specials::default()
        }
    }

    /// Starts the reading of a string at `start`: [`Specials::triggered`] then covers the
    /// bytes from there.
    #[inline(always)]
    pub(super) fn begin(&mut self, start: usize) {
        self.passed = false;
        self.start = start;
    }

    /// Whether the bytes from the last [`Specials::begin`] up to `end` (the last offset
    /// [`Specials::next`] returned) hold a trigger (`blocks::triggers`): the blocks left since, and
    /// the current block's bits in the range.
    #[inline(always)]
    pub(super) fn triggered(&self, end: usize) -> bool {
        let from = self.start.saturating_sub(self.base);
        let to = end.saturating_sub(self.base).min(64);
        let range = match from < to {
            true => (u64::MAX >> (64 - to)) & (u64::MAX << from),
            false => 0,
        };
        self.passed || self.triggers & range != 0
    }

    /// The offset of the first `"`, `\\` or control byte of `body` at or after `pos`, or the
    /// length of `body`. `pos` is at or after the last offset returned (or the first call's):
    /// the calls over one document read each block once, and note the triggers of the blocks
    /// they leave for [`Specials::triggered`].
    #[inline(always)]
    pub(super) fn next(&mut self, body: &[u8], pos: usize) -> usize {
        // Most calls: the next special byte is in the block already read.
        let off = pos.wrapping_sub(self.base);
        if off < self.width {
            let rest = self.mask >> off;
            if rest != 0 {
                return pos + rest.trailing_zeros() as usize;
            }
        }
        self.next_in_blocks(body, pos)
    }

    /// [`Specials::next`] past the block already read: reads the next blocks (out of line, so
    /// that the common call stays a few instructions in its caller).
    #[inline(never)]
    fn next_in_blocks(&mut self, body: &[u8], mut pos: usize) -> usize {
        loop {
            let off = pos.wrapping_sub(self.base);
            if off < self.width {
                let rest = self.mask >> off;
                if rest != 0 {
                    return pos + rest.trailing_zeros() as usize;
                }
                pos = self.base + self.width;
            }
            let Some(block) = body.get(pos..).filter(|b| !b.is_empty()) else {
                return body.len();
            };
            // The block being left: its triggers from the string's start on are the string's.
            let from = self.start.saturating_sub(self.base);
            self.passed |= from < 64 && self.triggers >> from != 0;
            self.base = pos;
            self.width = block.len().min(64);
            (self.mask, self.triggers) = wide::block_masks(block, self.vectors);
            if self.mask == 0 && block.len() > 64 {
                // 64 plain bytes: a long run of text, read a block at a time without masks
                // (this block's triggers are noted when the next one is loaded).
                let (plain, trigger) = wide::plain_blocks(&block[64..], self.vectors);
                self.passed |= trigger;
                pos += 64 + plain;
            }
        }
    }
}

mod blocks;
mod wide;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The window finds every special byte in order, as a byte-by-byte search does, from
        /// any sequence of starts each at or after the last offset found (as the proof reads:
        /// the next string or the byte after an escape), and notes the triggers between.
        #[test]
        fn the_window_finds_what_bytes_find(
            bytes in prop::collection::vec(
                prop_oneof![
                    8 => Just(b'a'),
                    1 => prop::sample::select(b"\"\\\x00\x1f\x20\x7f\x80\xff.%/".to_vec()),
                ],
                0..600,
            ),
            steps in prop::collection::vec(0usize..90, 1..20),
        ) {
            let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
            let mut window = super::Specials::new();
            let mut last = 0;
            for step in steps {
                let pos = last + step;
                let expected = bytes.iter().skip(pos).position(|&b| special(b)).map_or(bytes.len(), |i| pos + i);
                window.begin(pos);
                let found = window.next(&bytes, pos);
                let triggered = window.triggered(found);
                prop_assert_eq!(found, expected.max(pos.min(bytes.len())));
                // A trigger is sound (every `%`, every `.` before a `/`, `\\` or `"`, wherever
                // that byte is, or at the end) and only ever a `.` or `%`.
                let passed = bytes.get(pos..found).unwrap_or_default();
                let ender = |i: usize| bytes.get(i).is_none_or(|b| b"/\\\"".contains(b));
                let must = (pos..found).any(|i| bytes[i] == b'%' || (bytes[i] == b'.' && ender(i + 1)));
                prop_assert!(triggered || !must);
                prop_assert!(!triggered || passed.iter().any(|&b| b == b'.' || b == b'%'));
                last = found;
            }
        }
    }

    /// What the words must find, byte by byte.
    fn naive(bytes: &[u8], stop: impl Fn(u8) -> bool, limit: usize) -> Result<usize, usize> {
        let words = (bytes.len() / 8 * 8).min(limit.div_ceil(8) * 8);
        (bytes[..words].iter().position(|&b| stop(b))).ok_or(words)
    }

    proptest! {
        /// The first flagged byte is the first special byte, whatever follows it (borrows
        /// carry upwards only), for every byte value.
        #[test]
        fn words_find_what_bytes_find(
            bytes in prop::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"\"\\\x00\x1f\x20\x21\x7f\x80\xa0\xdc\xff".to_vec())],
                0..80,
            ),
            limit in 0usize..96,
        ) {
            let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
            prop_assert_eq!(super::first_special(&bytes, limit), naive(&bytes, special, limit));
            let quote = |b: u8| b == b'"' || b == b'\\';
            prop_assert_eq!(
                super::first_quote_or_backslash(&bytes, limit),
                naive(&bytes, quote, limit)
            );
        }
    }

    /// Every byte value, alone in a word of plain bytes, at every position.
    #[test]
    fn every_byte_at_every_position() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                let special = b == b'"' || b == b'\\' || b < 0x20;
                let expected = if special { Ok(at) } else { Err(8) };
                assert_eq!(super::first_special(&word, 8), expected, "{b:#04x} at {at}");
            }
        }
    }
}
