//! What is text (a leaf): the one rule proxied bodies, multipart parts, `/v1/scan`,
//! `/v1/sanitize` and the CLI share ([`judge`]).
//!
//! 1. A declared text type ([`text_types`]: `text/*`, JSON, XML, YAML, forms, multipart,
//!    scripts, the `+json`/`+xml`/`+yaml` suffixes) is read as the type says, and so is a
//!    type a body reading claims (an archive type, gRPC).
//! 2. Any other type, and no type, is judged by the bytes: a ZIP (its first bytes, or its end
//!    record wherever it starts: a GIF with a ZIP after it is a valid JAR), a tar or a
//!    gzip-compressed tar is read as an archive, for its names; another binary signature
//!    ([`signature`]) is not text; a signature-less binary serialization named by its type
//!    (protobuf, CBOR, MessagePack, BSON, DER, Thrift, Avro: [`shape`]) is not text when its
//!    bytes have that format's shape.
//! 3. Otherwise the body is text, even when it holds NULs or control bytes: the sender
//!    chooses both the type and the bytes, and a NUL next to an overlong `../` must not make
//!    the pair "binary, not read". A declared binary type without its signature (an
//!    `image/png` that is no PNG) is read as text, so a label never hides text. Only an
//!    upload of no type (`/v1/scan`, the CLI) is sniffed as a file by the WHATWG rule (a
//!    binary data byte in its first 1445 bytes): it has no label to read it by, and nothing
//!    downstream reads it as anything but a file.

mod grpc_frames;
mod shape;
mod signature;
mod text_types;

pub(crate) use grpc_frames::grpc_frames;
pub(crate) use shape::Shape;
pub(crate) use signature::{WHATWG_HEAD, ZIP_TAIL, zip_end};
pub(crate) use text_types::is_text_type;

use crate::request::ContentType;

/// How many first bytes of input of no type say whether it is binary (the CLI's skip, an
/// archive entry's contents): the WHATWG window and more.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// How many first bytes a streamed body is judged on ([`judge`]): every signature of the
/// table, the deepest an ISO 9660 image's (`CD001` at 32 769, 34 817 or 36 865).
pub(crate) const JUDGE_BYTES: usize = 40 * 1024;

/// The media types a profile adds to the rule: `[readings] text_types`, read as their type
/// says whatever their bytes, and `binary_types`, binary without a signature to show it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Added<'a> {
    /// Types added to the text types.
    pub(crate) text: &'a [String],
    /// Types taken as binary when no archive is in their bytes.
    pub(crate) binary: &'a [String],
}

/// What a body is, by its type and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// Text, or a type a reading claims: read as the declared type says.
    Declared,
    /// An archive whatever its label: read by the archive reading as this media type.
    Archive(&'static str),
    /// Not text: the verdict's `not_text`.
    Binary(String),
}

/// The archive types the archive reading reads, as [`Content::Archive`] names them.
const ZIP: &str = "application/zip";
const TAR: &str = "application/x-tar";
const GZIP: &str = "application/gzip";

/// What a body of type `ct` is, from its first bytes `head` (at least [`SNIFF_BYTES`] unless
/// the body is shorter) and, when the whole body is at hand, the body itself (`whole`: its
/// end has a ZIP's end record and a disk image's trailer). `claimed` says a body reading
/// claims the type. `file_sniff` applies the WHATWG rule to a body of no type (an upload).
/// `added` are the types the profile adds (`[readings] text_types`, `binary_types`).
pub(crate) fn judge(
    ct: &ContentType,
    claimed: bool,
    head: &[u8],
    whole: Option<&[u8]>,
    file_sniff: bool,
    added: Added,
) -> Content {
    let essence = ct.essence.as_str();
    if is_text_type(essence) || added.text.iter().any(|t| t == essence) {
        return Content::Declared;
    }
    // A gzip of anything but a tar is compressed data, whatever reading claims its type.
    if head.starts_with(b"\x1f\x8b") && !gzip_holds_tar(head) {
        return Content::Binary("gzip-compressed data (no tar inside): not read as text".into());
    }
    if claimed {
        return Content::Declared;
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Content::Archive(ZIP);
    }
    if whole.is_some_and(|w| zip_end(w).is_some()) {
        return Content::Archive(ZIP);
    }
    if head.get(257..262) == Some(b"ustar") {
        return Content::Archive(TAR);
    }
    if head.starts_with(b"\x1f\x8b") {
        return Content::Archive(GZIP);
    }
    if let Some(found) = signature::binary_signature(head, whole) {
        return Content::Binary(found.reason());
    }
    if let Some(shape) = Shape::of_type(essence) {
        // A body cut short has no shape to check: binary data bytes in its head decide.
        let fits = match whole {
            Some(body) => shape.fits(body),
            None => !signature::whatwg_text(head),
        };
        if fits {
            let name = shape.name();
            return Content::Binary(format!(
                "{essence}: {name} by its shape, binary, not read as text"
            ));
        }
    }
    if added.binary.iter().any(|t| t == essence) {
        return Content::Binary(format!(
            "{essence}: binary by the profile ([readings] binary_types), not read as text"
        ));
    }
    if file_sniff && essence.is_empty() && !signature::whatwg_text(head) {
        return Content::Binary(format!(
            "no media type, and a binary data byte in the first {WHATWG_HEAD} bytes: \
             binary, not read as text"
        ));
    }
    Content::Declared
}

/// Whether input of no type whose first bytes are `head` is skipped as a binary file (the
/// CLI without a type): a binary signature, or a binary data byte in its first
/// [`WHATWG_HEAD`] bytes (the WHATWG rule). An archive is neither (it is read).
pub fn looks_binary(head: &[u8]) -> bool {
    matches!(
        judge(
            &ContentType::parse(b""),
            false,
            head,
            None,
            true,
            Added::default()
        ),
        Content::Binary(_)
    )
}

/// Whether the gzip `head` (a body's first bytes) inflates to a tar header.
pub(crate) fn gzip_holds_tar(head: &[u8]) -> bool {
    let mut inflated = Vec::with_capacity(512);
    let gz = flate2::read::MultiGzDecoder::new(head);
    // A cut gzip fails at its end: what it inflated before is kept.
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(gz, 512), &mut inflated);
    inflated.get(257..262) == Some(b"ustar")
}

#[cfg(test)]
mod tests;
