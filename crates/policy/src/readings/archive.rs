//! The archive reading: a ZIP (`application/zip`, `application/x-zip-compressed`), a tar
//! (`application/x-tar`) or a gzip-compressed tar (`application/gzip`) is read for its entry
//! names, every way an extractor reads them ([`zip`], [`tar`]; a gzip of no tar is not text). Each name (and each symbolic
//! link's target) is an `archive_entry` field, path-like, at the entry's index: the checks
//! find what they find in any path (invalid UTF-8, overlongs, NUL, controls, `..` segments,
//! lookalike separators, NFC); [`names`] adds what only an extractor cares about (absolute
//! paths, drive letters, backslashes: `archive_path`). A name that reads two ways is
//! `ambiguous_archive_name`; a declared type the bytes are not is `ambiguous_media_type`; a
//! corrupt archive is `malformed_body`; past a limit, `limit_exceeded`. Contents are not read
//! (nor decompressed), except an entry that is an archive itself (by its name or its first
//! bytes, [`nested`]): it is read to `max_archive_depth`, its names at `outer!inner`, and one
//! deeper (or past the budget of inflated bytes) is `limit_exceeded` at its entry.

mod entry;
mod format;
mod names;
mod nested;
mod tar;
#[cfg(test)]
mod tar_tests;
#[cfg(test)]
mod tests;
mod zip;

use entry::{Limits, Nested};
use format::{Format, gzip_holds_tar};

use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::location::{Location, Part};
use crate::profile::{ArchiveContentsReading, Profile};
use crate::readings::reading::BodyReading;
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
    let essence = match Format::sniffed(body) {
        Some(Format::Zip) => ZIP_TYPES[0],
        Some(Format::Tar) => TAR_TYPES[0],
        Some(Format::Gzip) => GZIP_TYPES[0],
        None => return,
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
/// type this reading claims, or a body that starts as a ZIP, a tar or a gzip-compressed tar
/// (its first 8 KiB are enough) whose type is judged by its bytes (`crate::textual`: no type,
/// `text/plain`, `application/octet-stream`, or any type that is not text and not gRPC's: a
/// `.docx`, a `.jar`, a ZIP labelled `image/jpeg`).
pub(crate) fn archive_in(ct: &ContentType, head: &[u8]) -> Option<&'static str> {
    if claims(ct) {
        // A gzip of no tar is not an archive (`not_text`, as `read` says).
        let gzip = GZIP_TYPES.contains(&ct.essence.as_str());
        let plain_gzip = gzip && Format::of(head) == Some(Format::Gzip) && !gzip_holds_tar(head);
        return (!plain_gzip).then_some("its type");
    }
    let essence = ct.essence.as_str();
    let sniffs = ["", "text/plain", "application/octet-stream"].contains(&essence)
        || (!crate::textual::is_text_type(essence) && !ct.is_grpc());
    match Format::sniffed(head).filter(|_| sniffs)? {
        Format::Zip => Some("ZIP"),
        Format::Tar => Some("tar"),
        Format::Gzip => Some("gzip-compressed tar"),
    }
}

/// An archive body: its names as fields, or why it is refused.
fn read<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    _: bool,
    out: &mut Decomposed<'a>,
) {
    let mut limits = Limits::of(&profile.limits);
    limits.contents = profile.readings.archive_contents == ArchiveContentsReading::Text;
    let format = Format::of_whole(body);
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
    if !read_at(body, declared, &limits, 1, None, out) {
        out.not_text = Some(format!("{}: no tar inside, not read as text", ct.essence));
    }
}

/// The archive `body` of `format` at `depth` (the body is 1), inside the entry `within` (its
/// findings there, its entries' names after it and `!`) or the body: its names as fields and
/// those of the archives in it, or why it is refused. `false` for a gzip of no tar.
fn read_at(
    body: &[u8],
    format: Format,
    limits: &Limits,
    depth: usize,
    within: Option<&Location>,
    out: &mut Decomposed,
) -> bool {
    limits.capture.set(depth < limits.max_depth);
    let entries = match format {
        Format::Zip => zip::entries(body, limits).map(Some),
        Format::Tar => tar::entries(&mut &body[..], limits).map(Some),
        Format::Gzip => gzip_tar(body, limits),
    };
    let entries = match entries {
        Ok(Some(entries)) => entries,
        Ok(None) => return false,
        Err((kind, offset, message)) => {
            let at = within.cloned().unwrap_or(Location::part(Part::Body));
            out.structural_at(at, kind, offset, message);
            return true;
        }
    };
    let outer = within.and_then(|w| w.name.as_deref());
    for (index, entry) in entries.into_iter().enumerate() {
        let location = Location::part(Part::ArchiveEntry).with_index(index);
        let location = match outer {
            Some(outer) => location.with_name(&[outer.as_bytes(), b"!", &entry.name].concat()),
            None => location.with_name(&entry.name),
        };
        if let Some(why) = entry.ambiguity {
            let kind = FindingKind::AmbiguousArchiveName;
            out.structural_at(location.clone(), kind, 0, why);
        }
        shape(&location, &entry.name, "name", out);
        match entry.nested {
            Some(Nested::Bytes(bytes)) => {
                // A nested gzip of no tar is no archive; nor are bytes only named like one.
                if let Some(format) = Format::of(&bytes) {
                    read_at(&bytes, format, limits, depth + 1, Some(&location), out);
                }
            }
            Some(Nested::Unread(why)) => {
                let kind = FindingKind::LimitExceeded;
                out.structural_at(location.clone(), kind, 0, why);
            }
            None => {}
        }
        match entry.text {
            Some(Ok(text)) => {
                // Checked as a text body is, at its entry; never rewritten.
                let at = Location::part(Part::Body).with_index(index);
                let mut field = Field::raw(at, &[], Container::Body, 0..0).into_owned();
                field.location.name.clone_from(&location.name);
                field.location.pointer = Some("/content".into());
                field.bytes = text.into();
                field.check_only = true;
                out.fields.push(field);
            }
            Some(Err(why)) => {
                let kind = FindingKind::LimitExceeded;
                out.structural_at(location.clone(), kind, 0, why);
            }
            None => {}
        }
        // Not rewritable (`Part::is_rewritable`): an action that would rewrite a name rejects.
        push(location.clone(), entry.name, out);
        if let Some(target) = entry.link {
            let at = location.with_pointer("/link");
            shape(&at, &target, "link target", out);
            push(at, target, out);
        }
    }
    true
}

/// A name or link target as a field of its own bytes.
fn push(location: Location, bytes: Vec<u8>, out: &mut Decomposed) {
    let mut field = Field::raw(location, &[], Container::Body, 0..0).into_owned();
    field.bytes = bytes.into();
    out.fields.push(field);
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
    if peek.is_ok() && !format::is_tar(&head) {
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
