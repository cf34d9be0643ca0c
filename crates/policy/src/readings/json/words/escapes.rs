//! The escapes of a 64-byte block read all at once (a leaf of `words`): which backslashes
//! begin an escape, which bytes they escape, and which escapes the proof takes without
//! stopping. An escape-dense string (`{\"id\":1,\"text\":\"…\"}`, JSON lines sent as strings)
//! then costs a few instructions a block, not a stop at every escape.
//!
//! In a run of backslashes, the first, third, fifth… begin an escape and the others are
//! escaped; a run of odd length escapes the byte after it. [`escapes`] finds them with one
//! subtraction, as simdjson's stage 1 does (Langdale and Lemire, "Parsing Gigabytes of JSON per
//! Second", VLDB Journal 28, 2019, §3.1.1). A block starts where no escape is pending (a
//! string's first byte, the byte after an escape, or the byte after the last block), so no
//! carry comes in; an escape begun by the block's last byte is left to the next block, which
//! starts at that backslash ([`Settled::width`]).

/// The bits of the odd positions of a block.
const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// The backslashes that begin an escape, and the bytes they escape (a backslash among them),
/// among the backslashes `backslashes` of a block whose first byte is not escaped.
#[inline(always)]
pub(super) fn escapes(backslashes: u64) -> (u64, u64) {
    // Adding a run's first backslash to an odd-position bit carries through the run: the bits
    // left set give, per run, the parity of each backslash from the run's start.
    let maybe_escaped = backslashes << 1;
    let series = (maybe_escaped | ODD_BITS).wrapping_sub(backslashes) ^ ODD_BITS;
    (series & backslashes, series ^ backslashes)
}

/// The masks of a block's quotes, backslashes and control bytes (bit `i` for byte `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Specials {
    /// `"`.
    pub(super) quotes: u64,
    /// `\`.
    pub(super) backslashes: u64,
    /// Bytes below 0x20.
    pub(super) controls: u64,
}

/// A block's special bytes once its escapes are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Settled {
    /// Where a reading stops: the quotes and control bytes not escaped, and the backslashes
    /// that begin an escape other than the simple ones (`\u`, or one RFC 8259 does not allow).
    pub(super) stops: u64,
    /// The backslashes that begin a simple escape (`\"`, `\\`, `\/`, `\n`, `\r`, `\t`): two raw
    /// bytes for one decoded, an ASCII character that composes with nothing.
    pub(super) simple: u64,
    /// The simple escapes that are `\n`, `\r` or `\t`: clean controls in a value, not in a key.
    pub(super) controls: u64,
    /// The bytes of the block these masks cover: 64, or 63 when the last byte begins an escape
    /// (the next block then starts at that backslash).
    pub(super) width: usize,
    /// How many simple escapes: bits of `simple`.
    pub(super) escapes: u32,
}

/// Reads `block` (its first 64 bytes; fewer at the document's end), whose special bytes are
/// `specials`, its first byte not escaped: its escapes settled if it has a backslash.
#[inline(always)]
pub(super) fn read(block: &[u8], specials: Specials) -> Settled {
    match specials.backslashes {
        0 => Settled {
            stops: specials.quotes | specials.controls,
            simple: 0,
            controls: 0,
            width: block.len().min(64),
            escapes: 0,
        },
        _ => settle(block, specials),
    }
}

/// Reads the escapes of `block` (its first 64 bytes; fewer at the document's end), whose
/// special bytes are `specials`, its first byte not escaped.
#[inline(always)]
pub(super) fn settle(block: &[u8], specials: Specials) -> Settled {
    let (mut begins, escaped) = escapes(specials.backslashes);
    let mut width = block.len().min(64);
    if begins >> 63 != 0 {
        // The escaped byte is the next block's: that block starts at this backslash.
        begins &= !(1 << 63);
        width = 63;
    }
    // An escaped quote or backslash: simple, found for every escape at once.
    let mut simple = begins & ((specials.quotes | specials.backslashes) >> 1);
    let (mut controls, mut others) = (0, begins & !simple);
    while others != 0 {
        let at = others.trailing_zeros() as usize;
        let bit = others & others.wrapping_neg();
        match block.get(at + 1) {
            Some(b'/') => simple |= bit,
            Some(b'n' | b'r' | b't') => controls |= bit,
            _ => {}
        }
        others ^= bit;
    }
    simple |= controls;
    let unescaped = (specials.quotes | specials.controls) & !escaped;
    let stops =
        (unescaped | (begins & !simple)) & u64::MAX.checked_shr(64 - width as u32).unwrap_or(0);
    Settled {
        stops,
        simple,
        controls,
        width,
        escapes: simple.count_ones(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Settled, Specials, escapes, settle};

    /// What a reading byte by byte finds: the escapes begun and the bytes escaped, walking
    /// from the first byte.
    fn naive(backslashes: u64) -> (u64, u64) {
        let (mut begins, mut escaped, mut i) = (0, 0, 0);
        while i < 64 {
            if backslashes >> i & 1 == 1 {
                begins |= 1 << i;
                if i < 63 {
                    escaped |= 1 << (i + 1);
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        (begins, escaped)
    }

    /// [`settle`] byte by byte: the reading of the proof before the blocks read escapes.
    fn settle_naive(block: &[u8]) -> Settled {
        let mut s = Settled {
            stops: 0,
            simple: 0,
            controls: 0,
            width: block.len().min(64),
            escapes: 0,
        };
        let mut i = 0;
        while i < s.width {
            let bit = 1u64 << i;
            match block[i] {
                b'\\' if i == 63 => s.width = 63,
                b'\\' => {
                    match block.get(i + 1) {
                        Some(b'"' | b'\\' | b'/') => s.simple |= bit,
                        Some(b'n' | b'r' | b't') => s.controls |= bit,
                        _ => s.stops |= bit,
                    }
                    i += 1;
                }
                b'"' | 0..0x20 => s.stops |= bit,
                _ => {}
            }
            i += 1;
        }
        s.simple |= s.controls;
        s.escapes = s.simple.count_ones();
        s
    }

    /// The masks of `block`, byte by byte.
    fn specials_of(block: &[u8]) -> Specials {
        let mask = |f: fn(u8) -> bool| {
            block
                .iter()
                .take(64)
                .enumerate()
                .filter(|&(_, &b)| f(b))
                .fold(0, |m, (i, _)| m | 1 << i)
        };
        Specials {
            quotes: mask(|b| b == b'"'),
            backslashes: mask(|b| b == b'\\'),
            controls: mask(|b| b < 0x20),
        }
    }

    /// Every pattern of backslashes in 16 bits, at every offset and over a random background:
    /// runs of every length, across every carry the subtraction makes.
    #[test]
    fn escapes_are_found_as_byte_by_byte() {
        for pattern in 0..=u64::from(u16::MAX) {
            for shift in [0, 1, 15, 31, 47, 48] {
                let b = pattern << shift;
                assert_eq!(escapes(b), naive(b), "{b:#066b}");
            }
        }
        assert_eq!(escapes(u64::MAX), naive(u64::MAX));
    }

    proptest! {
        /// Any 64-bit mask of backslashes.
        #[test]
        fn any_backslashes(b in any::<u64>()) {
            prop_assert_eq!(escapes(b), naive(b));
        }

        /// A block of quotes, backslashes, escape letters and controls settles as read byte by
        /// byte, whatever its length (a document's last block is short).
        #[test]
        fn blocks_settle_as_byte_by_byte(
            block in prop::collection::vec(
                prop::sample::select(b"\\\\\\\"/nrtbfuxa\x00\x1f\x7f\xc3".to_vec()),
                1..=64,
            ),
        ) {
            prop_assert_eq!(settle(&block, specials_of(&block)), settle_naive(&block));
            prop_assert_eq!(super::read(&block, specials_of(&block)), settle_naive(&block));
        }
    }
}
