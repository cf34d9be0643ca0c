//! The archive reading: a ZIP (`application/zip`, `application/x-zip-compressed`) is read for
//! its entry names, every way an extractor reads them ([`zip`]). Each name (and each symbolic
//! link's target) is an `archive_entry` field, path-like, at the entry's index: the checks
//! find what they find in any path (invalid UTF-8, overlongs, NUL, controls, `..` segments,
//! lookalike separators, NFC); [`names`] adds what only an extractor cares about (absolute
//! paths, drive letters, backslashes: `archive_path`). A name that reads two ways is
//! `ambiguous_archive_name`; a declared type the bytes are not is `ambiguous_media_type`; a
//! corrupt archive is `malformed_body`; past a limit, `limit_exceeded`. Contents are not read
//! (nor decompressed): an archive inside an archive is not opened.

mod entry;
mod names;
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

fn claims(ct: &ContentType) -> bool {
    ZIP_TYPES.contains(&ct.essence.as_str())
}

/// A body of no type (or `application/octet-stream`) that starts as a ZIP: its names, a
/// second reading (an extractor that sniffs reads it so).
fn sniffed<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, out: &mut Decomposed<'a>) {
    if zip::is_zip(body) {
        read(
            body,
            &ContentType::parse(ZIP_TYPES[0].as_bytes()),
            profile,
            false,
            out,
        );
    }
}

/// A ZIP body: its names as fields, or why it is refused.
fn read<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    _: bool,
    out: &mut Decomposed<'a>,
) {
    if !zip::is_zip(body) {
        let message = format!("declared {}, but the bytes are not a ZIP", ct.essence);
        out.structural(Part::Body, FindingKind::AmbiguousMediaType, 0, message);
        return;
    }
    let entries = match zip::entries(body, &Limits::of(&profile.limits)) {
        Ok(entries) => entries,
        Err((kind, offset, message)) => {
            out.structural(Part::Body, kind, offset, message);
            return;
        }
    };
    for (index, entry) in entries.into_iter().enumerate() {
        let name = &body[entry.name.clone()];
        let location = Location::part(Part::ArchiveEntry)
            .with_index(index)
            .with_name(name);
        if let Some(why) = entry.ambiguity {
            let kind = FindingKind::AmbiguousArchiveName;
            out.structural_at(location.clone(), kind, 0, why);
        }
        shape(&location, name, "name", out);
        // Not rewritable (`Part::is_rewritable`): an action that would rewrite a name rejects.
        out.fields.push(Field::raw(
            location.clone(),
            name,
            Container::Body,
            entry.name,
        ));
        if let Some(target) = entry.link {
            let at = location.with_pointer("/link");
            shape(&at, &target, "link target", out);
            let mut field = Field::raw(at, &[], Container::Body, 0..0).into_owned();
            field.bytes = target.into();
            out.fields.push(field);
        }
    }
}

/// An `archive_path` finding at `location` when `bytes` (a name or link target) escapes the
/// extraction directory whatever its encoding.
fn shape(location: &Location, bytes: &[u8], what: &str, out: &mut Decomposed) {
    if let Some(why) = names::unsafe_shape(bytes) {
        let message = format!("the entry's {what} {why}");
        out.structural_at(location.clone(), FindingKind::ArchivePath, 0, message);
    }
}
