//! A part's content as the backend reads it: its transfer encoding undone when the profile
//! opts in, its charset transcoded when the profile opts in; each a check-only field.

use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::layers::transfer::{decode_base64, decode_quoted_printable};
use crate::location::{Location, Part};
use crate::profile::{CharsetReading, PartEncodingReading, Profile};
use crate::readings::multipart;
use crate::request::is_utf8_label;

/// The content of a part with a `Content-Transfer-Encoding`, decoded when the profile opts in;
/// `None` for 7bit, 8bit and binary (or no header). Refused otherwise.
pub(super) fn transfer_decoded(
    profile: &Profile,
    part: &multipart::Part,
    content: &[u8],
    location: &dyn Fn(Part) -> Location,
    out: &mut Decomposed,
) -> Option<Vec<u8>> {
    let cte = part.transfer_encoding.as_deref()?;
    if matches!(cte, "7bit" | "8bit" | "binary") {
        return None;
    }
    let decoded = match (profile.readings.multipart_transfer_encoding, cte) {
        (PartEncodingReading::Decode, "base64") => decode_base64(content),
        (PartEncodingReading::Decode, "quoted-printable") => Some(decode_quoted_printable(content)),
        _ => None,
    };
    if decoded.is_none() {
        out.structural_at(
            location(Part::MultipartHeader),
            FindingKind::TransferEncodedPart,
            part.content.start,
            format!(
                "Content-Transfer-Encoding {cte:?} (RFC 7578 §4.7): backends decode it, or not"
            ),
        );
    }
    // A refused part still has its coded bytes checked as they are.
    decoded
}

/// Checks a decoded part content as the backend reads it (its charset applied).
pub(super) fn check_only_content(
    profile: &Profile,
    part: &multipart::Part,
    decoded: Vec<u8>,
    location: &dyn Fn(Part) -> Location,
    out: &mut Decomposed,
) {
    match part.charset.as_deref().filter(|c| !is_utf8_label(c)) {
        Some(charset) => {
            out.structural_at(
                location(Part::MultipartContent),
                FindingKind::ForeignCharset,
                part.content.start,
                format!("part charset {charset:?} is not UTF-8"),
            );
            if let Some(text) = transcoded(profile, charset, &decoded, Part::MultipartContent, out)
            {
                push_check_only(location(Part::MultipartContent), text, out);
            }
        }
        None => push_check_only(location(Part::MultipartContent), decoded, out),
    }
}

/// A check-only content field of `bytes` at `location` (a decoded reading of a part).
pub(super) fn push_check_only(location: Location, bytes: Vec<u8>, out: &mut Decomposed) {
    let len = bytes.len();
    let mut field = Field::raw(location, &[], Container::Body, 0..len);
    field.bytes = bytes.into();
    field.at_body_start = true;
    field.check_only = true;
    out.fields.push(field);
}

/// `bytes` transcoded from `charset` to UTF-8 when the profile opts in; a label that is not a
/// WHATWG encoding, or bytes that do not decode in it, are reported (`foreign_charset`).
pub(crate) fn transcoded(
    profile: &Profile,
    charset: &str,
    bytes: &[u8],
    part: Part,
    out: &mut Decomposed,
) -> Option<Vec<u8>> {
    if profile.readings.charsets != CharsetReading::Transcode {
        return None;
    }
    let text = encoding_rs::Encoding::for_label(charset.as_bytes()).and_then(|encoding| {
        encoding
            .decode_without_bom_handling_and_without_replacement(bytes)
            .map(|t| t.into_owned().into_bytes())
    });
    if text.is_none() {
        out.structural(
            part,
            FindingKind::ForeignCharset,
            0,
            format!("charset {charset:?} is unknown, or the bytes do not decode in it"),
        );
    }
    text
}
