//! What the archive formats read into (a leaf): entries, limits, refusals.

use core::cell::Cell;

use crate::finding::FindingKind;

/// The limits of one archive and the archives in it: the profile's `max_archive_*` keys and
/// `max_expansion_ratio` (see `docs/verdict.md`).
pub(crate) struct Limits {
    /// Most entries.
    pub(crate) max_entries: usize,
    /// Longest entry name, in bytes.
    pub(crate) max_name: usize,
    /// Most bytes the entries declare in all, uncompressed.
    pub(crate) max_total: u64,
    /// Largest expansion of an entry over 1 MiB (the profile's `max_expansion_ratio`).
    pub(crate) max_ratio: u64,
    /// Deepest nesting read (the outer archive is 1).
    pub(crate) max_depth: usize,
    /// Bytes nested archives may still be inflated to, across the request (the profile's
    /// `max_decoded_bytes`): one past it is `limit_exceeded` at its entry.
    pub(crate) nested_left: Cell<u64>,
    /// Whether this archive's nested ones are read (it is above `max_depth`).
    pub(crate) capture: Cell<bool>,
    /// Whether text entries' contents are read (`[readings] archive_contents = "text"`).
    pub(crate) contents: bool,
}

impl Limits {
    /// The limits under a profile's `limits`.
    pub(crate) fn of(limits: &crate::profile::Limits) -> Limits {
        Limits {
            max_entries: limits.max_archive_entries,
            max_name: limits.max_archive_name_bytes,
            max_total: limits.max_archive_unpacked_bytes,
            max_ratio: limits.max_expansion_ratio as u64,
            max_depth: limits.max_archive_depth,
            nested_left: Cell::new(limits.max_decoded_bytes as u64),
            capture: Cell::new(limits.max_archive_depth > 1),
            contents: false,
        }
    }
}

/// An entry: its name, why it reads two ways (if it does), its link
/// target (a symbolic link), and what it holds when it is an archive itself.
pub(crate) struct Entry {
    pub(crate) name: Vec<u8>,
    pub(crate) ambiguity: Option<String>,
    pub(crate) link: Option<Vec<u8>>,
    pub(crate) nested: Option<Nested>,
    /// Its contents when it is text and they are read: the bytes, or why they are not.
    pub(crate) text: Option<Result<Vec<u8>, String>>,
}

/// An entry that is an archive (by its name or its first bytes).
pub(crate) enum Nested {
    /// Its bytes, inflated, to be read at the next depth.
    Bytes(Vec<u8>),
    /// Why it is not read (deeper than `max_depth`, past the budget, a method not read):
    /// `limit_exceeded` at its entry.
    Unread(String),
}

/// Why an archive is refused: the kind, an offset in the body and the message.
pub(crate) type Refusal = (FindingKind, usize, String);
