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
    pub(crate) bytes: Cow<'a, [u8]>,
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
    pub(crate) layer_findings: Option<Box<crate::found::Found>>,
    /// A second reading of bytes another field already covers (a `text/plain` body read as
    /// JSON, a base64 part decoded): checked, never rewritten (a rewriting action is logged).
    pub(crate) check_only: bool,
}

impl<'a> Field<'a> {
    /// A field whose bytes are its encoded form (borrowed, not copied).
    pub(crate) fn raw(
        location: Location,
        bytes: &'a [u8],
        container: Container,
        span: Range<usize>,
    ) -> Field<'a> {
        Field {
            location,
            bytes: Cow::Borrowed(bytes),
            container,
            span,
            encoding: Encoding::Raw,
            at_body_start: false,
            layer_findings: None,
            check_only: false,
        }
    }

    /// The same field owning its bytes, for a reading of bytes that do not outlive it.
    pub(crate) fn into_owned<'b>(self) -> Field<'b> {
        Field {
            bytes: Cow::Owned(self.bytes.into_owned()),
            location: self.location,
            container: self.container,
            span: self.span,
            encoding: self.encoding,
            at_body_start: self.at_body_start,
            layer_findings: self.layer_findings,
            check_only: self.check_only,
        }
    }
}
