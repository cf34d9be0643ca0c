//! The tokens of a document ([`crate::readings::json::for_each`]'s sink): every string decoded, with its JSON
//! pointer.

use core::ops::Range;

use compact_str::CompactString;
#[cfg(test)]
use smallvec::SmallVec;

use crate::field::FieldBytes;
use crate::readings::json::error::JsonError;
use crate::readings::json::pointer::{self, capped};
use crate::readings::json::scanner::Sink;
use crate::readings::json::string::decode_literal;

/// One JSON string token (an object key or a string value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonString<'a> {
    /// RFC 6901 JSON pointer of the value (for a key: the pointer of the member it names), cut
    /// to [`MAX_POINTER_BYTES`] so that memory stays linear in the body.
    /// Built from the decoded key bytes (lossily converted with `String::from_utf8_lossy`),
    /// escaping `~` as `~0` and `/` as `~1`; array indexes are decimal. The document itself is
    /// `""`.
    pub(crate) pointer: CompactString,
    /// true for an object key, false for a string value.
    pub(crate) is_key: bool,
    /// Byte range of the whole token in the body, quotes included. Replacing
    /// `body[raw]` with [`encode_string`] of a new value rewrites this string alone.
    pub(crate) raw: Range<usize>,
    /// The string's bytes with escapes decoded: what the application receives. Raw bytes between
    /// the quotes that are not escapes are copied as they are (even if they are not valid UTF-8).
    /// `\uXXXX` escapes decode to the UTF-8 of the scalar, a valid surrogate pair to the 4-byte
    /// UTF-8 of its supplementary scalar, and a lone surrogate to U+FFFD (EF BF BD).
    /// Borrowed from the body when the literal has no escape (most strings): no copy.
    pub(crate) value: FieldBytes<'a>,
    /// Byte offsets in `value` where a lone-surrogate escape was replaced by U+FFFD (3 bytes
    /// each), with the surrogate's value (e.g. 0xD800); an offset past 4 GiB is `u32::MAX`.
    pub(crate) lone_surrogates: crate::readings::json::lone::LoneSurrogates,
}

/// The string tokens of a document, the first 8 inline (none allocated for a small one).
#[cfg(test)]
pub(crate) type Tokens<'a> = SmallVec<[JsonString<'a>; 8]>;

/// Hands each string token of a document to `f` as it is read, with the pointer of the value
/// being read kept in one buffer: nothing is kept per token. A container's mark is the length
/// of its own pointer.
pub(super) struct Each<F> {
    /// What is done with each token; an error ends the scan.
    f: F,
    /// Pointer of the value being read (inline while it is at most 24 bytes long).
    pointer: CompactString,
}

impl<F> Each<F> {
    /// A sink calling `f`.
    pub(super) fn new(f: F) -> Self {
        Each {
            f,
            pointer: CompactString::default(),
        }
    }
}

impl<'a, E: From<JsonError>, F: FnMut(JsonString<'a>) -> Result<(), E>> Sink<'a> for Each<F> {
    type Error = E;

    fn open(&mut self, _: usize) -> usize {
        self.pointer.len()
    }

    fn index(&mut self, mark: usize, index: usize) {
        self.pointer.truncate(mark);
        pointer::push_index(&mut self.pointer, index);
    }

    fn close(&mut self, mark: usize) {
        self.pointer.truncate(mark);
    }

    fn string(&mut self, body: &'a [u8], at: usize, key_of: Option<usize>) -> Result<usize, E> {
        let decoded = decode_literal(body, at)?;
        if let Some(mark) = key_of {
            self.pointer.truncate(mark);
            pointer::push_key(&mut self.pointer, &String::from_utf8_lossy(&decoded.value));
        }
        let end = decoded.raw.end;
        (self.f)(JsonString {
            pointer: capped(&self.pointer),
            is_key: key_of.is_some(),
            raw: decoded.raw,
            value: decoded.value,
            lone_surrogates: decoded.lone_surrogates,
        })?;
        Ok(end)
    }
}
