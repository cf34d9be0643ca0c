//! The archive reading: a ZIP (`application/zip`, `application/x-zip-compressed`), a tar
//! (`application/x-tar`) or a gzip-compressed tar (`application/gzip`) is read for its entry
//! names, every way an extractor reads them ([`zip`], [`tar`]; a gzip of no tar is not text). Each name (and each symbolic
//! link's target) is an `archive_entry` field, path-like, at the entry's index: the checks
//! find what they find in any path (invalid UTF-8, overlongs, NUL, controls, `..` segments,
//! lookalike separators, NFC); [`names`] adds what only an extractor cares about (absolute
//! paths, drive letters, backslashes: `archive_path`). A name that reads two ways is
//! `ambiguous_archive_name`; a declared type the bytes are not is `ambiguous_media_type`; a
//! corrupt archive is `malformed_body`; past a limit, `limit_exceeded`. Contents are not read
//! (nor decompressed): an archive inside an archive is not opened.

mod entry;
mod names;
mod tar;
#[cfg(test)]
mod tar_tests;
#[cfg(test)]
mod tests;
mod zip;

use entry::Limits;

use super::super::decomposed::Decomposed;
use super::super::reading::BodyReading;
use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::ContentType;

/// The archive reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "archive",
    claims,
    sniffed: Some(sniffed),
    read,
};

/// The ZIP media types.
const ZIP_TYPES: [&str; 2] = ["application/zip", "application/x-zip-compressed"];
/// The tar media types.
const TAR_TYPES: [&str; 2] = ["application/x-tar", "application/tar"];
/// The gzip-compressed tar media types.
const GZIP_TYPES: [&str; 4] = [
    "application/gzip",
    "application/x-gzip",
    "application/x-gtar",
    "application/x-compressed-tar",
];

fn claims(ct: &ContentType) -> bool {
    let essence = ct.essence.as_str();
    ZIP_TYPES.contains(&essence) || TAR_TYPES.contains(&essence) || GZIP_TYPES.contains(&essence)
}

/// A body of no type (or `text/plain`, `application/octet-stream`) that starts as a ZIP, a
/// tar or a gzip-compressed tar: its names, a second reading (an extractor that sniffs reads
/// it so).
fn sniffed<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, out: &mut Decomposed<'a>) {
    let essence = match Format::of(body) {
        Some(Format::Zip) => ZIP_TYPES[0],
        Some(Format::Tar) => TAR_TYPES[0],
        Some(Format::Gzip) if gzip_holds_tar(body) => GZIP_TYPES[0],
        _ => return,
    };
    read(
        body,
        &ContentType::parse(essence.as_bytes()),
        profile,
        false,
        out,
    );
}

/// The archive a body of type `ct` whose first bytes are `head` is read as, if it is one: a
/// type this reading claims, or a body of no type, `text/plain` or `application/octet-stream`
/// that starts as a ZIP, a tar or a gzip-compressed tar (its first 8 KiB are enough).
pub(crate) fn archive_in(ct: &ContentType, head: &[u8]) -> Option<&'static str> {
    if claims(ct) {
        // A gzip of no tar is not an archive (`not_text`, as `read` says).
        let gzip = GZIP_TYPES.contains(&ct.essence.as_str());
        let plain_gzip = gzip && Format::of(head) == Some(Format::Gzip) && !gzip_holds_tar(head);
        return (!plain_gzip).then_some("its type");
    }
    let sniffs = ["", "text/plain", "application/octet-stream"].contains(&ct.essence.as_str());
    match Format::of(head).filter(|_| sniffs)? {
        Format::Zip => Some("ZIP"),
        Format::Tar => Some("tar"),
        Format::Gzip => gzip_holds_tar(head).then_some("gzip-compressed tar"),
    }
}

/// Whether the gzip `body` (or its first bytes) inflates to a tar header.
fn gzip_holds_tar(body: &[u8]) -> bool {
    let mut head = Vec::with_capacity(512);
    let gz = flate2::read::MultiGzDecoder::new(body);
    // A cut gzip fails at its end: what it inflated before is kept.
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(gz, 512), &mut head);
    tar::is_tar(&head)
}

/// A ZIP body: its names as fields, or why it is refused.
fn read<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    _: bool,
    out: &mut Decomposed<'a>,
) {
    let limits = Limits::of(&profile.limits);
    let format = Format::of(body);
    // `application/x-gtar` names GNU tar, compressed or not.
    let declared: &[Format] = match ct.essence.as_str() {
        e if ZIP_TYPES.contains(&e) => &[Format::Zip],
        e if TAR_TYPES.contains(&e) => &[Format::Tar],
        "application/x-gtar" => &[Format::Tar, Format::Gzip],
        _ => &[Format::Gzip],
    };
    let Some(declared) = format.filter(|f| declared.contains(f)) else {
        let message = format!("declared {}, but the bytes are not one", ct.essence);
        out.structural(Part::Body, FindingKind::AmbiguousMediaType, 0, message);
        return;
    };
    let entries = match declared {
        Format::Zip => zip::entries(body, &limits).map(Some),
        Format::Tar => tar::entries(&mut &body[..], &limits).map(Some),
        Format::Gzip => gzip_tar(body, &limits),
    };
    let entries = match entries {
        Ok(Some(entries)) => entries,
        Ok(None) => {
            out.not_text = Some(format!("{}: no tar inside, not read as text", ct.essence));
            return;
        }
        Err((kind, offset, message)) => {
            out.structural(Part::Body, kind, offset, message);
            return;
        }
    };
    for (index, entry) in entries.into_iter().enumerate() {
        let location = Location::part(Part::ArchiveEntry)
            .with_index(index)
            .with_name(&entry.name);
        if let Some(why) = entry.ambiguity {
            let kind = FindingKind::AmbiguousArchiveName;
            out.structural_at(location.clone(), kind, 0, why);
        }
        shape(&location, &entry.name, "name", out);
        // Not rewritable (`Part::is_rewritable`): an action that would rewrite a name rejects.
        push(location.clone(), entry.name, out);
        if let Some(target) = entry.link {
            let at = location.with_pointer("/link");
            shape(&at, &target, "link target", out);
            push(at, target, out);
        }
    }
}

/// A name or link target as a field of its own bytes.
fn push(location: Location, bytes: Vec<u8>, out: &mut Decomposed) {
    let mut field = Field::raw(location, &[], Container::Body, 0..0).into_owned();
    field.bytes = bytes.into();
    out.fields.push(field);
}

/// The archive formats read, as the bytes start.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Zip,
    Tar,
    /// A gzip-compressed tar (a gzip of anything else is not an archive).
    Gzip,
}

impl Format {
    fn of(body: &[u8]) -> Option<Format> {
        if zip::is_zip(body) {
            Some(Format::Zip)
        } else if tar::is_tar(body) {
            Some(Format::Tar)
        } else if body.starts_with(b"\x1f\x8b") {
            Some(Format::Gzip)
        } else {
            None
        }
    }
}

/// The entries of a gzip-compressed tar, inflated as they are read (never held), at most
/// `max_ratio` times the compressed size (and `max_total`); `None` for a gzip of no tar.
fn gzip_tar(body: &[u8], limits: &Limits) -> Result<Option<Vec<entry::Entry>>, entry::Refusal> {
    let cap = (body.len() as u64)
        .saturating_mul(limits.max_ratio)
        .max(1 << 20)
        .min(limits.max_total);
    let mut inflated = tar::Capped {
        inner: flate2::read::MultiGzDecoder::new(body),
        left: cap,
        what: format!("a gzip-compressed tar that inflates to more than {cap} bytes"),
    };
    // A gzip of anything but a tar is not an archive: not text either (`not_text`).
    let mut head = Vec::with_capacity(512);
    let peek = std::io::Read::read_to_end(&mut std::io::Read::take(&mut inflated, 512), &mut head);
    if peek.is_ok() && !tar::is_tar(&head) {
        return Ok(None);
    }
    let mut inflated = tar::Capped {
        inner: flate2::read::MultiGzDecoder::new(body),
        left: cap,
        what: format!("a gzip-compressed tar that inflates to more than {cap} bytes"),
    };
    tar::entries(&mut inflated, limits).map(Some)
}

/// An `archive_path` finding at `location` when `bytes` (a name or link target) escapes the
/// extraction directory whatever its encoding.
fn shape(location: &Location, bytes: &[u8], what: &str, out: &mut Decomposed) {
    if let Some(why) = names::unsafe_shape(bytes) {
        let message = format!("the entry's {what} {why}");
        out.structural_at(location.clone(), FindingKind::ArchivePath, 0, message);
    }
}
