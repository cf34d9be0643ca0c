//! What the archive formats read into (a leaf): entries, limits, refusals.

use crate::finding::FindingKind;

/// The limits of one archive: safe defaults, fixed in this version (see `docs/verdict.md`).
pub(crate) struct Limits {
    /// Most entries.
    pub(crate) max_entries: usize,
    /// Longest entry name, in bytes.
    pub(crate) max_name: usize,
    /// Most bytes the entries declare in all, uncompressed.
    pub(crate) max_total: u64,
    /// Largest expansion of an entry over 1 MiB (the profile's `max_expansion_ratio`).
    pub(crate) max_ratio: u64,
}

impl Limits {
    /// The limits under a profile's `limits`.
    pub(crate) fn of(limits: &crate::profile::Limits) -> Limits {
        Limits {
            max_entries: 65_534,
            max_name: 4096,
            max_total: 16 << 30,
            max_ratio: limits.max_expansion_ratio as u64,
        }
    }
}

/// An entry: its name, why it reads two ways (if it does), its link
/// target (a symbolic link).
pub(crate) struct Entry {
    pub(crate) name: Vec<u8>,
    pub(crate) ambiguity: Option<String>,
    pub(crate) link: Option<Vec<u8>>,
}

/// Why an archive is refused: the kind, an offset in the body and the message.
pub(crate) type Refusal = (FindingKind, usize, String);
