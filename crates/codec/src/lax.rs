//! The lax decoder: reads one sequence the way an RFC 2279 / CESU-8 tolerant decoder would.
//!
//! It is the reference for how the diagnosis groups bytes. It accepts every form RFC 2279
//! allowed (1 to 6 bytes, overlongs included) and CESU-8 surrogate pairs, computes the value a
//! careless decoder would produce, and then says which RFC 3629 rule that value breaks. On a
//! strictly valid sequence it agrees with RFC 3629 §4 exactly, so the first malformation it
//! finds always starts at `valid_up_to`.

use crate::kind::MalformedKind;

/// The longest span a lax decoder groups: a 6-byte legacy form or a 6-byte CESU-8 pair.
pub(crate) const MAX_SPAN: usize = 6;

/// The result of reading one sequence at the start of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A strictly valid character of this many bytes.
    Valid(usize),
    /// A malformed sequence of `len` bytes.
    Malformed {
        /// Bytes a lax decoder groups into this sequence (1 to [`MAX_SPAN`]).
        len: usize,
        /// What is wrong.
        kind: MalformedKind,
        /// The value a lax decoder produces, where it produces one.
        lax_scalar: Option<u32>,
    },
    /// The buffer ends before the sequence can be judged and more input may follow.
    NeedMore,
}

const fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Smallest value that needs `n + 1` bytes, for `n` continuation bytes.
const MIN_FOR_CONTINUATIONS: [u32; 6] = [0, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000];

/// Reads the sequence at `bytes[0]`. `at_eof` says that no byte follows `bytes`.
///
/// `bytes` must not be empty.
pub(crate) fn step(bytes: &[u8], at_eof: bool) -> Step {
    let Some(&lead) = bytes.first() else {
        return Step::NeedMore;
    };
    let (continuations, bits) = match lead {
        0x00..=0x7F => return Step::Valid(1),
        0x80..=0xBF => return malformed(1, MalformedKind::UnexpectedContinuation, None),
        0xC0..=0xDF => (1, lead & 0x1F),
        0xE0..=0xEF => (2, lead & 0x0F),
        0xF0..=0xF7 => (3, lead & 0x07),
        0xF8..=0xFB => (4, lead & 0x03),
        0xFC..=0xFD => (5, lead & 0x01),
        0xFE..=0xFF => return malformed(1, MalformedKind::InvalidByte, None),
    };
    let mut value = u32::from(bits);
    for i in 1..=continuations {
        match bytes.get(i) {
            None if at_eof => return malformed(i, MalformedKind::Truncated, None),
            None => return Step::NeedMore,
            Some(&b) if is_continuation(b) => value = (value << 6) | u32::from(b & 0x3F),
            Some(_) => return malformed(i, MalformedKind::Truncated, None),
        }
    }
    let len = continuations + 1;
    if value < MIN_FOR_CONTINUATIONS[continuations] {
        return malformed(len, MalformedKind::Overlong, Some(value));
    }
    match continuations {
        1 => Step::Valid(2),
        2 if (0xD800..=0xDBFF).contains(&value) => high_surrogate(bytes, value, at_eof),
        2 if (0xDC00..=0xDFFF).contains(&value) => {
            malformed(3, MalformedKind::Surrogate, Some(value))
        }
        2 => Step::Valid(3),
        3 if value > 0x10_FFFF => malformed(4, MalformedKind::AboveMax, Some(value)),
        3 => Step::Valid(4),
        _ => malformed(len, MalformedKind::LegacyForm, Some(value)),
    }
}

/// A high surrogate at `bytes[0..3]`: a CESU-8 pair if a 3-byte low surrogate follows.
fn high_surrogate(bytes: &[u8], high: u32, at_eof: bool) -> Step {
    let lone = malformed(3, MalformedKind::Surrogate, Some(high));
    // A low surrogate is ED B0..BF 80..BF.
    let expect: [fn(u8) -> bool; 3] = [
        |b| b == 0xED,
        |b| (0xB0..=0xBF).contains(&b),
        is_continuation,
    ];
    let mut low = 0u32;
    for (i, ok) in expect.iter().enumerate() {
        match bytes.get(3 + i) {
            None if at_eof => return lone,
            None => return Step::NeedMore,
            Some(&b) if ok(b) && i == 0 => low = u32::from(b & 0x0F),
            Some(&b) if ok(b) => low = (low << 6) | u32::from(b & 0x3F),
            Some(_) => return lone,
        }
    }
    // `low` holds 0xD (from ED & 0x0F) then 12 payload bits: 0xDC00..=0xDFFF.
    let scalar = 0x1_0000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    malformed(6, MalformedKind::Cesu8Pair, Some(scalar))
}

fn malformed(len: usize, kind: MalformedKind, lax_scalar: Option<u32>) -> Step {
    Step::Malformed {
        len,
        kind,
        lax_scalar,
    }
}

#[cfg(test)]
mod tests {
    use super::{Step, step};
    use crate::kind::MalformedKind::*;

    fn at_eof(bytes: &[u8]) -> Step {
        step(bytes, true)
    }

    #[test]
    fn reads_the_issue_examples() {
        let m = |len, kind, s| Step::Malformed {
            len,
            kind,
            lax_scalar: s,
        };
        assert_eq!(at_eof(&[0xC0, 0xAE]), m(2, Overlong, Some(0x2E)));
        assert_eq!(
            at_eof(&[0xED, 0xA1, 0x8C, 0xED, 0xBE, 0xB4]),
            m(6, Cesu8Pair, Some(0x233B4))
        );
        assert_eq!(
            at_eof(&[0xF4, 0x90, 0x80, 0x80]),
            m(4, AboveMax, Some(0x110000))
        );
        assert_eq!(
            at_eof(&[0xF8, 0x80, 0x80, 0x80, 0xAF]),
            m(5, Overlong, Some(0x2F))
        );
        assert_eq!(
            at_eof(&[0xF8, 0x88, 0x80, 0x80, 0x80]),
            m(5, LegacyForm, Some(0x200000))
        );
        assert_eq!(
            at_eof(&[0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]),
            m(6, LegacyForm, Some(0x7FFF_FFFF))
        );
        assert_eq!(
            at_eof(&[0xED, 0xA0, 0x80, 0x41]),
            m(3, Surrogate, Some(0xD800))
        );
        assert_eq!(at_eof(&[0xED, 0xB0, 0x80]), m(3, Surrogate, Some(0xDC00)));
        assert_eq!(at_eof(&[0xE2, 0x82]), m(2, Truncated, None));
        assert_eq!(at_eof(&[0xE2, 0x82, 0x41]), m(2, Truncated, None));
        assert_eq!(at_eof(&[0xFE]), m(1, InvalidByte, None));
        assert_eq!(at_eof(&[0xBF]), m(1, UnexpectedContinuation, None));
        assert_eq!(at_eof(&[0xE2, 0x82, 0xAC]), Step::Valid(3));
    }

    #[test]
    fn asks_for_more_only_when_the_next_byte_decides() {
        assert_eq!(step(&[0xE2, 0x82], false), Step::NeedMore);
        assert_eq!(step(&[0xED, 0xA0, 0x80], false), Step::NeedMore);
        assert_eq!(step(&[0xED, 0xA0, 0x80, 0xED, 0xB0], false), Step::NeedMore);
        assert!(matches!(
            step(&[0xED, 0xA0, 0x80, 0x41], false),
            Step::Malformed { len: 3, .. }
        ));
        assert!(matches!(
            step(&[0xE2, 0x41], false),
            Step::Malformed { len: 1, .. }
        ));
    }
}
