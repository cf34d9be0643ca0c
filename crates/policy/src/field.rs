//! Fields: the pieces of a request the checks run on, and where each came from.

use core::ops::Range;
use std::borrow::Cow;

use crate::location::Location;

/// The byte string of the request a field lives in, for putting rewritten bytes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Container {
    /// `Request::path`.
    Path,
    /// `Request::query`.
    Query,
    /// The value of `Request::headers[i]`.
    Header(usize),
    /// `Request::body`.
    Body,
}

/// How a field's bytes are written in its container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// As they are.
    Raw,
    /// Percent-encoded path.
    PathPercent,
    /// Percent-encoded query or form component (`+` is a space).
    FormPercent,
    /// A form component in a body whose client wrote its non-ASCII characters as raw UTF-8
    /// (not one escaped byte above 0x7F): written back the same way, its ASCII as
    /// `FormPercent` writes it. Percent-encoding them would triple them (`é` is two bytes raw,
    /// six as `%C3%A9`) in a body the memory budget charges three times in all.
    FormRawUtf8,
    /// A JSON string literal, quotes included.
    JsonString,
    /// The inside of an RFC 9110 quoted-string (multipart parameter).
    Quoted,
    /// The percent-encoded tail of an RFC 8187 `ext-value` (`filename*=UTF-8''...`).
    ExtValue,
    /// XML character data: markup characters, forbidden controls and CR written as references.
    XmlText,
    /// An XML attribute value: as `XmlText`, and TAB and LF as references too (a parser
    /// would normalize them to spaces).
    XmlAttribute,
}

/// One field: its location, the bytes the application receives, and where they are written.
/// A field whose bytes are a slice of the request (a whole body, a header value) borrows them.
#[derive(Debug, Clone)]
pub(crate) struct Field<'a> {
    /// Where it is, for findings.
    pub(crate) location: Location,
    /// The bytes after the field's decoding layers: borrowed from the request when there are
    /// none.
    pub(crate) bytes: FieldBytes<'a>,
    /// The container its encoded form lives in.
    pub(crate) container: Container,
    /// The encoded form's range in the container.
    pub(crate) span: Range<usize>,
    /// How the encoded form is written.
    pub(crate) encoding: Encoding,
    /// `true` if the field starts at the first byte of a body (a BOM there is a signature).
    pub(crate) at_body_start: bool,
    /// Findings of the decoding layers (escapes), in field offsets.
    /// (`None` when there are none: most fields, and a field is kept small.)
    pub(crate) layer_findings: Option<Box<crate::decide::found::Found>>,
    /// A second reading of bytes another field already covers (a `text/plain` body read as
    /// JSON, a base64 part decoded): checked, never rewritten (a rewriting action is logged).
    pub(crate) check_only: bool,
    /// Bytes of strings this field stands for, proven clean together rather than listed one by
    /// one (a JSON document whose every string no check has anything to say about, see
    /// `readings::json::prove`): counted as inspected. Such a field's own bytes are empty; 0 for
    /// every other field.
    pub(crate) proven_clean: u64,
    /// `Some` for a field that stands for a whole document, its bytes the document's: its own
    /// fields are read when they are checked, one at a time (`layers::each_field`), since they
    /// would cost more memory together than the document's bytes do. `None` for every other
    /// field.
    pub(crate) document: Option<Document>,
}

/// A document read field by field when it is checked (`Field::document`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Document {
    /// A JSON document already read through (`readings::json::check`): its keys and strings.
    Json,
    /// An XML document already read through (`readings::xml`): its names and texts.
    Xml,
    /// A YAML stream already read through (`readings::yaml`): its scalars; `multi` if
    /// it has several documents (each one's paths start with its number).
    Yaml {
        /// Whether the stream has several documents.
        multi: bool,
    },
}

/// How many fields a document of `len` bytes keeps before it stands as one field instead
/// (XML, YAML: `Field::standing_for`): as many as cost its bytes, a field counted 256 bytes (a
/// `Field` and a short path), and those of 64 KiB at least.
pub(crate) fn fields_kept(len: usize) -> usize {
    #[cfg(test)]
    if KEEP_NONE.get() {
        return 0;
    }
    len.max(64 * 1024) / 256
}

#[cfg(test)]
thread_local! {
    /// Set by the tests that compare a document whose fields are kept with one read again.
    pub(crate) static KEEP_NONE: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

impl<'a> Field<'a> {
    /// The field that stands for the whole document `bytes` at `span` of the body: its own
    /// fields are read as `document` says when it is checked (`layers::each_field`).
    pub(crate) fn standing_for(
        part: crate::location::Part,
        bytes: &'a [u8],
        span: Range<usize>,
        document: Document,
    ) -> Field<'a> {
        Field {
            document: Some(document),
            ..Field::raw(Location::part(part), bytes, Container::Body, span)
        }
    }

    /// A field whose bytes are its encoded form (borrowed, not copied).
    pub(crate) fn raw(
        location: Location,
        bytes: &'a [u8],
        container: Container,
        span: Range<usize>,
    ) -> Field<'a> {
        Field {
            location,
            bytes: FieldBytes::Borrowed(bytes),
            container,
            span,
            encoding: Encoding::Raw,
            at_body_start: false,
            layer_findings: None,
            check_only: false,
            proven_clean: 0,
            document: None,
        }
    }

    /// The same field owning its bytes, for a reading of bytes that do not outlive it.
    pub(crate) fn into_owned<'b>(self) -> Field<'b> {
        Field {
            bytes: self.bytes.into_static(),
            location: self.location,
            container: self.container,
            span: self.span,
            encoding: self.encoding,
            at_body_start: self.at_body_start,
            layer_findings: self.layer_findings,
            check_only: self.check_only,
            proven_clean: self.proven_clean,
            document: self.document,
        }
    }
}

/// Decoded bytes up to this length are kept inline in the field: a short value with an escape
/// (`q=caf%C3%A9`, `"caf\u00e9"`) allocates nothing.
pub(crate) const INLINE_BYTES: usize = 22;

/// A field's bytes: borrowed from the request (no decoding layer changed them), or decoded
/// into a buffer of their own: inline up to [`INLINE_BYTES`], else on the heap. Equal when
/// the bytes are, however they are held.
#[derive(Debug, Clone)]
pub(crate) enum FieldBytes<'a> {
    /// As they are in the request.
    Borrowed(&'a [u8]),
    /// Decoded, short.
    Inline {
        /// How many of `bytes` are used.
        len: u8,
        /// The bytes, `len` of them.
        bytes: [u8; INLINE_BYTES],
    },
    /// Decoded, longer.
    Heap(Vec<u8>),
}

impl<'a> FieldBytes<'a> {
    /// An empty buffer with room for `capacity` bytes (inline up to [`INLINE_BYTES`]).
    pub(crate) fn with_capacity(capacity: usize) -> FieldBytes<'a> {
        match capacity <= INLINE_BYTES {
            true => FieldBytes::Inline {
                len: 0,
                bytes: [0; INLINE_BYTES],
            },
            false => FieldBytes::Heap(Vec::with_capacity(capacity)),
        }
    }

    /// Appends `more`; borrowed bytes are copied into a buffer of their own first.
    #[inline(always)]
    pub(crate) fn extend_from_slice(&mut self, more: &[u8]) {
        match self {
            FieldBytes::Heap(v) => v.extend_from_slice(more),
            _ => self.extend_slow(more),
        }
    }

    /// Appends one byte.
    #[inline(always)]
    pub(crate) fn push(&mut self, byte: u8) {
        match self {
            FieldBytes::Heap(v) => v.push(byte),
            _ => self.extend_slow(&[byte]),
        }
    }

    /// [`extend_from_slice`](Self::extend_from_slice) of bytes not on the heap: inline while
    /// they fit, else moved to the heap.
    #[inline(never)]
    fn extend_slow(&mut self, more: &[u8]) {
        match self {
            FieldBytes::Inline { len, bytes } if usize::from(*len) + more.len() <= INLINE_BYTES => {
                let at = usize::from(*len);
                bytes[at..at + more.len()].copy_from_slice(more);
                *len += more.len() as u8;
            }
            _ => {
                let mut v = Vec::with_capacity((self.len() + more.len()).max(2 * INLINE_BYTES));
                v.extend_from_slice(self);
                v.extend_from_slice(more);
                *self = FieldBytes::Heap(v);
            }
        }
    }

    /// The bytes in a `Vec` (no copy when they are already on the heap).
    #[cfg(test)]
    pub(crate) fn into_owned(self) -> Vec<u8> {
        match self {
            FieldBytes::Heap(v) => v,
            other => other.to_vec(),
        }
    }

    /// The same bytes, owned (for a reading of bytes that do not outlive it).
    pub(crate) fn into_static(self) -> FieldBytes<'static> {
        match self {
            FieldBytes::Borrowed(b) => {
                let mut owned = FieldBytes::with_capacity(b.len());
                owned.extend_from_slice(b);
                owned
            }
            FieldBytes::Inline { len, bytes } => FieldBytes::Inline { len, bytes },
            FieldBytes::Heap(v) => FieldBytes::Heap(v),
        }
    }
}

impl core::ops::Deref for FieldBytes<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FieldBytes::Borrowed(b) => b,
            FieldBytes::Inline { len, bytes } => &bytes[..usize::from(*len)],
            FieldBytes::Heap(v) => v,
        }
    }
}

impl PartialEq for FieldBytes<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for FieldBytes<'_> {}

impl PartialEq<Vec<u8>> for FieldBytes<'_> {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == other[..]
    }
}

impl AsRef<[u8]> for FieldBytes<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl<'a> From<&'a [u8]> for FieldBytes<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        FieldBytes::Borrowed(bytes)
    }
}

impl From<Vec<u8>> for FieldBytes<'_> {
    fn from(bytes: Vec<u8>) -> Self {
        FieldBytes::Heap(bytes)
    }
}

impl<'a> From<Cow<'a, [u8]>> for FieldBytes<'a> {
    fn from(bytes: Cow<'a, [u8]>) -> Self {
        match bytes {
            Cow::Borrowed(b) => FieldBytes::Borrowed(b),
            Cow::Owned(v) => v.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Short decoded bytes stay inline, long ones move to the heap; every form reads the
    /// same bytes back, and a `Vec` handed over is not copied.
    #[test]
    fn bytes_read_back_in_every_form() {
        for len in [0, 1, INLINE_BYTES, INLINE_BYTES + 1, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
            for capacity in [0, len, 2 * len] {
                let mut grown = FieldBytes::with_capacity(capacity);
                grown.extend_from_slice(&bytes[..len / 2]);
                (bytes[len / 2..].iter()).for_each(|&b| grown.push(b));
                assert_eq!(&*grown, &bytes[..]);
                let inline = matches!(grown, FieldBytes::Inline { .. });
                assert_eq!(inline, len <= INLINE_BYTES && capacity <= INLINE_BYTES);
                assert_eq!(grown, FieldBytes::Borrowed(&bytes), "equal however held");
                assert_eq!(grown.clone().into_static(), grown);
                assert_eq!(grown.into_owned(), bytes);
            }
            assert_eq!(FieldBytes::Borrowed(&bytes).into_static(), bytes);
            let copy = bytes.clone();
            let pointer = copy.as_ptr();
            let back = FieldBytes::from(copy).into_owned();
            assert_eq!(back.as_ptr(), pointer, "no copy");
        }
    }
}
