//! Bodies: read as their content type says, and under every other reading a backend may give
//! them (a JSON-looking `text/plain` body is also read as JSON).

use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, whole_body};
use crate::location::Part;
use crate::profile::Profile;
use crate::readings::{self as readings, parts};
use crate::request::{BodyState, ContentType, Request, is_utf8_label, trim};
use crate::textual::{self, Content};

/// Takes the body of `request` apart under its content type, and under the other readings a
/// backend may give it. What the body is comes first (`crate::textual::judge`): text or a
/// claimed type is read as declared, an archive (whatever its label) by the archive reading,
/// binary content is not read unless `scan_binary` (why: `out.not_text`). Only an `upload` of
/// no type is sniffed as a file (a binary data byte makes it binary); a proxied body of no
/// type and no signature is text: a backend may read it so, and a NUL in it is a finding.
pub(crate) fn body<'a>(
    request: &'a Request,
    profile: &Profile,
    scan_binary: bool,
    upload: bool,
    out: &mut Decomposed<'a>,
) {
    let body = &request.body;
    let declared_ct = request
        .content_type()
        .unwrap_or_else(|| ContentType::parse(b""));
    let claimed = readings::claiming(&declared_ct).is_some();
    let added = profile.readings.added_types();
    let ct = match textual::judge(&declared_ct, claimed, body, Some(body), upload, added) {
        Content::Declared => declared_ct,
        Content::Archive(essence) => ContentType::parse(essence.as_bytes()),
        Content::Binary(_) if scan_binary => declared_ct,
        Content::Binary(reason) => {
            out.not_text = Some(reason);
            return;
        }
    };
    let declared = declared_charset(request, &ct);
    // A signature says more than no charset or a UTF-8 one.
    let signature = || foreign_signature(body);
    if let Some((charset, message)) = declared.or_else(signature) {
        out.structural(Part::Body, FindingKind::ForeignCharset, 0, message);
        if let Some(text) = parts::transcoded(profile, &charset, body, Part::Body, out) {
            // The backend reads the transcoded text: check it under the same type.
            let mut second = Decomposed::default();
            typed(&text, &ct, profile, scan_binary, &mut second);
            out.absorb_check_only(second);
        }
        return;
    }
    typed(body, &ct, profile, scan_binary, out);
    other_readings(body, &ct, profile, out);
}

/// Whether the body can be read as it is: `true` when the request brought it whole. A body an
/// authorization check did not bring (though the head says there is one) or brought cut is
/// `body_not_inspected`; a cut body of plain text is checked as far as it goes (its incomplete
/// last character left out), one of a type read as fields is refused (`limit_exceeded`: its
/// fields may end past the cut, and a backend reads all of them).
pub(crate) fn whole_or_said<'a>(
    request: &'a Request,
    profile: &Profile,
    out: &mut Decomposed<'a>,
) -> bool {
    let scan_binary = profile.scan_binary;
    let body = &request.body;
    match request.body_state {
        BodyState::Whole => true,
        // Checked apart, as it streams: nothing of it is here.
        BodyState::Streamed => false,
        BodyState::Withheld => {
            let length = request.header_value("content-length").map(trim);
            let declared = length.is_some_and(|l| l.iter().any(|&b| b != b'0'));
            // A front that passes neither length nor framing (Traefik ForwardAuth without
            // `forwardBody`: its check is a GET of its own) still passes `Content-Type`, which
            // describes a body. A `Content-Length: 0` says there is none.
            let typed = length.is_none()
                && request
                    .header_value("content-type")
                    .is_some_and(|t| !trim(t).is_empty());
            if declared || typed || request.header_value("transfer-encoding").is_some() {
                let message = "the check came without the request's body: it was not inspected";
                out.structural(
                    Part::Body,
                    FindingKind::BodyNotInspected,
                    0,
                    message.to_string(),
                );
            }
            true
        }
        BodyState::Cut => {
            let message = format!(
                "the check brought the body's first {} bytes only: the rest was not inspected",
                body.len()
            );
            out.structural(
                Part::Body,
                FindingKind::BodyNotInspected,
                body.len(),
                message,
            );
            let value = request.header_value("content-type");
            let ct = ContentType::parse(value.unwrap_or_default());
            let claimed = readings::claiming(&ct).is_some();
            let added = profile.readings.added_types();
            let content = textual::judge(&ct, claimed, body, None, false, added);
            if matches!(content, Content::Binary(_)) && !scan_binary {
                // Not read whole either: nothing is lost by the cut.
                return false;
            }
            if content == Content::Declared && streamable(value) {
                let valid = match utf8gate_codec::validate(body) {
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    _ => body.len(),
                };
                whole_body(&body[..valid], out);
            } else {
                // An archive's names need its end; fields may end past the cut.
                let essence = &ct.essence;
                let message = format!(
                    "a cut {essence} body cannot be read in part: its fields may end past the cut"
                );
                out.structural(Part::Body, FindingKind::LimitExceeded, body.len(), message);
            }
            false
        }
    }
}

/// Whether a body with this `Content-Type` value (`None`: no type) can be checked as it
/// streams in, by the codec alone once its first bytes say it is text ([`crate::BodyScan`]):
/// plain text in UTF-8 or ASCII, and every type judged by its bytes (octet streams, images,
/// documents, no type). A type with a second reading, another charset, fields to take apart
/// or a shape to check whole (protobuf, CBOR: `crate::textual`) needs the whole body.
pub fn streamable(content_type: Option<&[u8]>) -> bool {
    let Some(value) = content_type else {
        return true;
    };
    if crate::layers::media_type::second_reading(value).is_some() {
        return false;
    }
    let ct = ContentType::parse(value);
    let text = textual::is_text_type(&ct.essence);
    let plain = !text || ct.essence.starts_with("text/");
    let read = readings::claiming(&ct).is_some();
    let shaped = textual::Shape::of_type(&ct.essence).is_some();
    plain && !read && !shaped && ct.charset().is_none_or(|c| is_utf8_label(&c))
}

/// The archive a body with this `Content-Type` value (`None`: no type) whose first bytes
/// (8 KiB are enough) are `head` is read as for its entry names (`"ZIP"`, `"tar"`, ...), if it
/// is one: its type is an archive type, or it has no type, `text/plain` or
/// `application/octet-stream` and starts as one. A ZIP's names need its end, so such a body is
/// read whole or refused, never streamed unread (`BodyScan`, the CLI).
pub fn archive_in(content_type: Option<&[u8]>, head: &[u8]) -> Option<&'static str> {
    readings::archive_in(&ContentType::parse(content_type.unwrap_or_default()), head)
}

/// The charset a backend reads the body in when it is not UTF-8, and the finding's message:
/// the media type's `charset`, or `X-Up-Devcap-Post-Charset`, which some backends take for a
/// form's charset (OWASP CRS rule 920490).
fn declared_charset(request: &Request, ct: &ContentType) -> Option<(String, String)> {
    // In this order; a message is written only for a label that is not UTF-8 (most are).
    if let Some(charset) = ct.charset().filter(|c| !is_utf8_label(c)) {
        let message = format!("declared charset {charset:?} is not UTF-8");
        return Some((charset, message));
    }
    let header = request.header_value("x-up-devcap-post-charset");
    if let Some(label) = header
        .map(|v| String::from_utf8_lossy(trim(v)).to_ascii_lowercase())
        .filter(|l| !is_utf8_label(l))
    {
        let message = format!("X-Up-Devcap-Post-Charset names {label:?}, which is not UTF-8");
        return Some((label, message));
    }
    ct.is_xml()
        .then(|| xml_encoding(&request.body))
        .flatten()
        .filter(|(label, _)| !is_utf8_label(label))
}

/// The `encoding` of an XML declaration at the start of `body` (XML 1.0 §4.3.3) when it is
/// not UTF-8: XML parsers read the document in it whatever the media type says.
fn xml_declared(body: &[u8]) -> Option<(String, String)> {
    xml_encoding(body).filter(|(label, _)| !is_utf8_label(label))
}

/// The `encoding` an XML declaration at the start of `body` names, and a message naming it.
fn xml_encoding(body: &[u8]) -> Option<(String, String)> {
    let body = body.strip_prefix(&utf8gate_codec::UTF8_BOM).unwrap_or(body);
    let declaration = body.strip_prefix(b"<?xml")?;
    let end = memchr::memmem::find(declaration, b"?>")?;
    let declaration = &declaration[..end];
    let at = memchr::memmem::find(declaration, b"encoding")?;
    let rest = trim(&declaration[at + 8..]).strip_prefix(b"=")?;
    let rest = trim(rest);
    let quote = *rest.first().filter(|q| matches!(q, b'"' | b'\''))?;
    let value = &rest[1..];
    let label = &value[..value.iter().position(|&b| b == quote)?];
    let label = String::from_utf8_lossy(label).to_ascii_lowercase();
    let message = format!("the XML declaration names encoding {label:?}, which is not UTF-8");
    Some((label, message))
}

/// The encoding a UTF-16 or UTF-32 signature at the start of `body` announces, and the one
/// finding's message: such a body is not UTF-8 at all, and reading it as UTF-8 would only
/// give a malformation per byte pair. Shared with the streamed scan ([`crate::BodyScan`]).
pub(crate) fn foreign_signature(body: &[u8]) -> Option<(String, String)> {
    let signature = utf8gate_codec::detect_signature(body)?;
    if signature == utf8gate_codec::Signature::Utf8 {
        return None;
    }
    let name = signature.encoding().to_ascii_uppercase();
    let hex: Vec<String> = signature
        .bytes()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    let message = format!("this is {name}, not UTF-8 (signature {})", hex.join(" "));
    Some((signature.encoding().to_string(), message))
}

/// The readings a body gets beyond its declared type: a body with no type, `text/plain` or
/// `application/octet-stream` is also read by every reading that sniffs it (JSON that parses,
/// a form-looking body of no type), its fields check-only.
fn other_readings(body: &[u8], ct: &ContentType, profile: &Profile, out: &mut Decomposed) {
    let untyped = ct.essence.is_empty();
    if !(untyped || ct.essence == "text/plain" || ct.essence == "application/octet-stream") {
        return;
    }
    let mut second = out.second();
    for sniffed in readings::READINGS.iter().filter_map(|r| r.sniffed) {
        sniffed(body, ct, profile, &mut second);
    }
    out.absorb_check_only(second);
}

/// Fields of a body read as `ct` says: by the reading that claims it, or as one text field.
fn typed<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed<'a>,
) {
    match readings::claiming(ct) {
        Some(reading) => (reading.read)(body, ct, profile, scan_binary, out),
        None => whole_body(body, out),
    }
    typed_parts(body, profile, scan_binary, out);
}

/// The parts of a multipart body whose declared type a reading claims, read so as well (a
/// JSON part's strings, escapes decoded), each field and finding at its part. Such a reading
/// is the part's first: its fields are what a rewrite writes (a JSON string escaped, an XML
/// text node), and the part's content as text is checked only. Rewritten as text, a document
/// can change its syntax (NFC composes `>` U+0338 into U+226F, maps U+1FEF to a backtick).
/// A form field of no type, sniffed, stays a second reading. A part typed `multipart/*` (RFC
/// 2388 §5.5's `multipart/mixed` inside a form field, which Apache Commons FileUpload and the
/// Java stacks on it read as files; RFC 2046 nesting in other multipart bodies) is read as
/// parts too, to `max_multipart_depth` levels (the body is the first); one deeper is
/// `limit_exceeded` at its part, never passed unread.
fn typed_parts<'a>(body: &'a [u8], profile: &Profile, scan_binary: bool, out: &mut Decomposed<'a>) {
    nested_typed_parts(body, profile, scan_binary, 1, out);
}

/// [`typed_parts`] of a multipart body `depth` levels deep (the request's body is 1).
fn nested_typed_parts<'a>(
    body: &'a [u8],
    profile: &Profile,
    scan_binary: bool,
    depth: usize,
    out: &mut Decomposed<'a>,
) {
    for typed in std::mem::take(&mut out.typed_parts) {
        let ct = ContentType::parse(&typed.content_type);
        let content = &body[typed.span.clone()];
        let mut second = out.second();
        let mut first = false;
        if ct.essence.is_empty() || ct.essence == "application/octet-stream" {
            // A form field of no type: the application may parse it (a JSON value); a file
            // part of no type or an octet stream: an extractor may (an archive).
            for sniffed in readings::READINGS.iter().filter_map(|r| r.sniffed) {
                sniffed(content, &ct, profile, &mut second);
            }
        } else if let Some((_, message)) = ct.is_xml().then(|| xml_declared(content)).flatten() {
            let at = Part::MultipartContent;
            second.structural(at, FindingKind::ForeignCharset, 0, message);
        } else if let Some(reading) = readings::claiming(&ct) {
            if reading.name != "multipart" {
                (reading.read)(content, &ct, profile, scan_binary, &mut second);
                first = true;
            } else if depth < profile.limits.max_multipart_depth {
                (reading.read)(content, &ct, profile, scan_binary, &mut second);
                nested_typed_parts(content, profile, scan_binary, depth + 1, &mut second);
                first = true;
            } else {
                let limit = profile.limits.max_multipart_depth;
                let message = format!("multipart nested deeper than max_multipart_depth ({limit})");
                second.structural(
                    Part::MultipartContent,
                    FindingKind::LimitExceeded,
                    0,
                    message,
                );
            }
        }
        second.relocate(&typed.location);
        match typed.raw.filter(|_| first) {
            Some(raw) => {
                out.fields[raw].check_only = true;
                out.absorb_at(second, typed.span.start);
            }
            None => {
                for (_, finding) in &mut second.structural {
                    finding.offset += typed.span.start;
                }
                out.absorb_check_only(second);
            }
        }
    }
}
