//! A document read through once before its strings are: its syntax and limits, and the first
//! key given twice in one object. Nothing is kept per string: the strings are read again, one
//! at a time, when they are checked (`crate::readings::json::for_each`), so that the memory a document costs
//! follows its bytes, not the number of its strings.

use core::hash::BuildHasher;
use std::collections::HashSet;

use compact_str::CompactString;

use crate::profile::JsonKeyReading;

use crate::readings::json::error::JsonError;
use crate::readings::json::fold;
use crate::readings::json::scanner::{JsonLimits, Sink, scan_into};
use crate::readings::json::string::{decode_literal, skip_literal};
use crate::readings::json::tokens::{Each, JsonString};

/// What reading a document through found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    /// The first key that reads two ways (given twice in one object once decoded and compared
    /// in its `crate::readings::json::fold` form, or read by Go as an ASCII key): its pointer (cut as every
    /// token's is), the offset of its literal and why.
    pub(crate) repeated: Option<(CompactString, usize, AmbiguousKey)>,
}

/// Why a key reads two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AmbiguousKey {
    /// Another key of its object has its comparison form.
    Repeated,
    /// It holds this character, which Go's case folding reads as ASCII.
    FoldsToAscii(char),
}

impl AmbiguousKey {
    /// What the finding says.
    pub(crate) fn message(self) -> String {
        match self {
            AmbiguousKey::Repeated => {
                "a key given twice in one object: parsers keep the first or the last value".into()
            }
            AmbiguousKey::FoldsToAscii(c) => format!(
                "a key with U+{:04X}, which Go's encoding/json matches to the ASCII {:?}: \
                 another key to Go than to every other reader",
                u32::from(c),
                icu_casemap::CaseMapper::new().simple_fold(c)
            ),
        }
    }
}

/// Reads `doc` through (RFC 8259, within `limits`) and finds its first ambiguous key. Keys are
/// compared by the object they belong to (the offset of its `{`) and their decoded bytes in
/// their comparison form under `keys` (`crate::readings::json::fold`), never by their pointers, which are cut:
/// two long keys' members are compared like any others. No pointer is built but the ambiguous
/// key's, read again up to it.
pub(crate) fn check(
    doc: &[u8],
    limits: JsonLimits,
    keys: JsonKeyReading,
) -> Result<Checked, JsonError> {
    let mut sink = Keys {
        reading: keys,
        ..Keys::default()
    };
    scan_into(doc, limits, &mut sink)?;
    let repeated = sink.repeated.map(|(offset, why)| {
        let mut sink = Each::new(|s: JsonString| match s.raw.start < offset {
            true => Ok(()),
            false => Err(Reached(Some(s.pointer))),
        });
        let read = scan_into(doc, limits, &mut sink);
        match read {
            Err(Reached(Some(pointer))) => (pointer, offset, why),
            _ => (CompactString::default(), offset, why),
        }
    });
    Ok(Checked { repeated })
}

/// The pointer of the token a reading stopped at (`None`: the document ended first, which a
/// document read through once cannot).
struct Reached(Option<CompactString>);

impl From<JsonError> for Reached {
    fn from(_: JsonError) -> Self {
        Reached(None)
    }
}

/// The sink of [`check`].
#[derive(Default)]
struct Keys {
    /// The offsets of the open containers' brackets, outermost first. A container's mark is its
    /// index here.
    open: Vec<usize>,
    /// Hashes of (object, key) of the keys read so far. A hash shared by two different keys
    /// reads as a repeat: a 64-bit keyed hash makes that as likely as a guess of the key.
    seen: HashSet<u64>,
    /// The hasher of `seen`'s entries (randomly keyed per document).
    hasher: std::collections::hash_map::RandomState,
    /// How keys are compared.
    reading: JsonKeyReading,
    /// The offset of the first ambiguous key, and why.
    repeated: Option<(usize, AmbiguousKey)>,
}

impl<'a> Sink<'a> for Keys {
    type Error = JsonError;

    fn open(&mut self, at: usize) -> usize {
        self.open.push(at);
        self.open.len() - 1
    }

    fn index(&mut self, _: usize, _: usize) {}

    fn close(&mut self, mark: usize) {
        self.open.truncate(mark);
    }

    fn string(
        &mut self,
        body: &'a [u8],
        at: usize,
        key_of: Option<usize>,
    ) -> Result<usize, JsonError> {
        // One repeat refuses the document: later keys are not compared (their cost would
        // follow the findings, not the bytes). A value is only read through.
        let Some(mark) = key_of.filter(|_| self.repeated.is_none()) else {
            return skip_literal(body, at);
        };
        let decoded = decode_literal(body, at)?;
        let object = self.open.get(mark).copied().unwrap_or_default();
        if let Some((_, c)) = fold::folds_to_ascii(&decoded.value) {
            self.repeated = Some((decoded.raw.start, AmbiguousKey::FoldsToAscii(c)));
            return Ok(decoded.raw.end);
        }
        let form = fold::comparison_form(&decoded.value, self.reading);
        let hash = self.hasher.hash_one((object, &form[..]));
        if !self.seen.insert(hash) {
            self.repeated = Some((decoded.raw.start, AmbiguousKey::Repeated));
        }
        Ok(decoded.raw.end)
    }
}
