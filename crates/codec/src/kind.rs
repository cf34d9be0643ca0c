//! The closed set of ways a byte sequence can fail to be RFC 3629 UTF-8.

use core::fmt;

/// What is wrong with one malformed sequence, as a lax (RFC 2279 / CESU-8 tolerant) decoder
/// groups it.
///
/// Every kind is documented with its bytes, its reference and what a lax decoder reads in
/// `docs/errors.md`. The names returned by [`MalformedKind::as_str`] are stable snake_case
/// identifiers used in verdicts, logs and metrics labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum MalformedKind {
    /// A complete 2- to 6-byte sequence whose value fits a shorter form (`C0 AE` for U+002E).
    /// RFC 3629 §3 and §10; Unicode Corrigendum #1.
    Overlong,
    /// A lone UTF-16 surrogate encoded as three bytes (`ED A0..BF xx`). RFC 3629 §3.
    Surrogate,
    /// A high surrogate followed by a low surrogate, each encoded separately (CESU-8), six bytes
    /// a lax decoder reads as one supplementary scalar. RFC 3629 §3; Unicode TR #26.
    Cesu8Pair,
    /// A 4-byte sequence whose value is above U+10FFFF (`F4 90..BF`, and every `F5..F7` lead).
    /// RFC 3629 §3 and §4.
    AboveMax,
    /// A 5- or 6-byte sequence of RFC 2279 (`F8..FD` leads) whose value needs that length.
    /// RFC 3629 §3 restricts UTF-8 to four bytes.
    LegacyForm,
    /// A byte that never appears in UTF-8 in any form: `FE` or `FF`. RFC 3629 §1.
    InvalidByte,
    /// A continuation byte (`80..BF`) where a sequence should start. RFC 3629 §3 and §4.
    UnexpectedContinuation,
    /// A lead byte followed by fewer continuation bytes than it announces: cut by the end of the
    /// input or by a byte that is not a continuation byte. RFC 3629 §3 and §4.
    Truncated,
}

impl MalformedKind {
    /// Every kind, in declaration order.
    pub const ALL: [MalformedKind; 8] = [
        MalformedKind::Overlong,
        MalformedKind::Surrogate,
        MalformedKind::Cesu8Pair,
        MalformedKind::AboveMax,
        MalformedKind::LegacyForm,
        MalformedKind::InvalidByte,
        MalformedKind::UnexpectedContinuation,
        MalformedKind::Truncated,
    ];

    /// The stable snake_case name of this kind (`"overlong"`, `"cesu8_pair"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            MalformedKind::Overlong => "overlong",
            MalformedKind::Surrogate => "surrogate",
            MalformedKind::Cesu8Pair => "cesu8_pair",
            MalformedKind::AboveMax => "above_max",
            MalformedKind::LegacyForm => "legacy_form",
            MalformedKind::InvalidByte => "invalid_byte",
            MalformedKind::UnexpectedContinuation => "unexpected_continuation",
            MalformedKind::Truncated => "truncated",
        }
    }

    /// Parses a name produced by [`MalformedKind::as_str`].
    pub fn from_name(name: &str) -> Option<MalformedKind> {
        MalformedKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// A one-line human description of this kind.
    pub const fn description(self) -> &'static str {
        match self {
            MalformedKind::Overlong => "overlong form",
            MalformedKind::Surrogate => "UTF-16 surrogate",
            MalformedKind::Cesu8Pair => "CESU-8 surrogate pair",
            MalformedKind::AboveMax => "code point above U+10FFFF",
            MalformedKind::LegacyForm => "5- or 6-byte legacy form",
            MalformedKind::InvalidByte => "byte that never appears in UTF-8",
            MalformedKind::UnexpectedContinuation => "unexpected continuation byte",
            MalformedKind::Truncated => "truncated sequence",
        }
    }

    /// The section of RFC 3629 (or the Unicode text) that forbids this kind.
    pub const fn reference(self) -> &'static str {
        match self {
            MalformedKind::Overlong => {
                "RFC 3629 §3, §10; Unicode Corrigendum #1 (non-shortest form)"
            }
            MalformedKind::Surrogate => "RFC 3629 §3",
            MalformedKind::Cesu8Pair => "RFC 3629 §3; Unicode Technical Report #26 (CESU-8)",
            MalformedKind::AboveMax => "RFC 3629 §3, §4",
            MalformedKind::LegacyForm => "RFC 3629 §3 (RFC 2279 allowed up to six bytes)",
            MalformedKind::InvalidByte => "RFC 3629 §1",
            MalformedKind::UnexpectedContinuation => "RFC 3629 §3, §4",
            MalformedKind::Truncated => "RFC 3629 §3, §4",
        }
    }
}

impl fmt::Display for MalformedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::MalformedKind;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for kind in MalformedKind::ALL {
            assert_eq!(MalformedKind::from_name(kind.as_str()), Some(kind));
        }
        let mut names: Vec<_> = MalformedKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MalformedKind::ALL.len());
        assert_eq!(MalformedKind::from_name("nope"), None);
    }
}
