//! A document read through once before its strings are: its syntax and limits, and the first
//! key given twice in one object. Nothing is kept per string: the strings are read again, one
//! at a time, when they are checked (`super::for_each`), so that the memory a document costs
//! follows its bytes, not the number of its strings.

use core::hash::BuildHasher;
use std::collections::HashSet;

use compact_str::CompactString;

use super::error::JsonError;
use super::pointer::{self, capped};
use super::scanner::{JsonLimits, Sink, scan_into};
use super::string::decode_literal;

/// What reading a document through found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    /// The first key given twice in one object (same object, same decoded key): its pointer
    /// (cut as every token's is) and the offset of its literal.
    pub(crate) repeated: Option<(CompactString, usize)>,
}

/// Reads `doc` through (RFC 8259, within `limits`) and finds its first repeated key. Keys are
/// compared by the object they belong to (the offset of its `{`) and their decoded bytes, never
/// by their pointers, which are cut: two long keys' members are compared like any others.
pub(crate) fn check(doc: &[u8], limits: JsonLimits) -> Result<Checked, JsonError> {
    let mut sink = Keys::default();
    scan_into(doc, limits, &mut sink)?;
    Ok(Checked {
        repeated: sink.repeated,
    })
}

/// The sink of [`check`].
#[derive(Default)]
struct Keys {
    /// Pointer of the value being read, for the repeated key's location.
    pointer: CompactString,
    /// The open containers, outermost first: the length of each one's pointer and the offset of
    /// its bracket. A container's mark is its index here.
    open: Vec<(usize, usize)>,
    /// Hashes of (object, key) of the keys read so far. A hash shared by two different keys
    /// reads as a repeat: a 64-bit keyed hash makes that as likely as a guess of the key.
    seen: HashSet<u64>,
    /// The hasher of `seen`'s entries (randomly keyed per document).
    hasher: std::collections::hash_map::RandomState,
    /// The first repeated key.
    repeated: Option<(CompactString, usize)>,
}

impl Keys {
    /// The pointer's length and the bracket's offset of the container marked `mark`.
    fn container(&self, mark: usize) -> (usize, usize) {
        self.open.get(mark).copied().unwrap_or_default()
    }
}

impl<'a> Sink<'a> for Keys {
    type Error = JsonError;

    fn open(&mut self, at: usize) -> usize {
        self.open.push((self.pointer.len(), at));
        self.open.len() - 1
    }

    fn index(&mut self, mark: usize, index: usize) {
        self.pointer.truncate(self.container(mark).0);
        pointer::push_index(&mut self.pointer, index);
    }

    fn close(&mut self, mark: usize) {
        self.pointer.truncate(self.container(mark).0);
        self.open.truncate(mark);
    }

    fn string(
        &mut self,
        body: &'a [u8],
        at: usize,
        key_of: Option<usize>,
    ) -> Result<usize, JsonError> {
        let decoded = decode_literal(body, at)?;
        // One repeat refuses the document: later keys are not compared (their cost would
        // follow the findings, not the bytes).
        if let Some(mark) = key_of
            && self.repeated.is_none()
        {
            let (pointer_len, object) = self.container(mark);
            self.pointer.truncate(pointer_len);
            pointer::push_key(&mut self.pointer, &String::from_utf8_lossy(&decoded.value));
            let hash = self.hasher.hash_one((object, &decoded.value[..]));
            if !self.seen.insert(hash) {
                self.repeated = Some((capped(&self.pointer), decoded.raw.start));
            }
        }
        Ok(decoded.raw.end)
    }
}
