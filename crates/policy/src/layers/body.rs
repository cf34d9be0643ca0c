//! Bodies: read as their content type says, and under every other reading a backend may give
//! them (a JSON-looking `text/plain` body is also read as JSON).

use super::decomposed::{Decomposed, whole_body};
use super::{json, parts, query};
use crate::field::{Container, Encoding, Field};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::found::{Found, KindSet, Report};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::{ContentType, Request, is_binary, is_utf8_label};

/// Takes the body of `request` apart under its content type, and under the other readings a
/// backend may give it. Bodies of binary types (and binary multipart parts) are read only when
/// `scan_binary`.
pub(crate) fn body<'a>(
    request: &'a Request,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed<'a>,
) {
    let body = &request.body;
    let ct = request
        .content_type()
        .unwrap_or_else(|| ContentType::parse(b""));
    let declared = ct.charset().filter(|c| !is_utf8_label(c)).map(|charset| {
        let message = format!("declared charset {charset:?} is not UTF-8");
        (charset, message)
    });
    let read_as_text = !is_binary(&ct.essence) || scan_binary;
    // A signature says more than no charset or a UTF-8 one; a binary body has none.
    let signature = || foreign_signature(body).filter(|_| read_as_text);
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
    if read_as_text {
        typed(body, &ct, profile, scan_binary, out);
    }
    other_readings(body, &ct, profile, out);
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
/// `application/octet-stream` that parses as JSON is also read as JSON (its escapes decoded);
/// a body with no type that looks URL-encoded is also read as a form.
fn other_readings(body: &[u8], ct: &ContentType, profile: &Profile, out: &mut Decomposed) {
    let untyped = ct.essence.is_empty();
    if !(untyped || ct.essence == "text/plain" || ct.essence == "application/octet-stream") {
        return;
    }
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    let mut second = Decomposed::default();
    if matches!(first, Some(b'{' | b'[' | b'"')) {
        let limits = json::JsonLimits {
            max_depth: profile.limits.max_json_depth,
            max_strings: profile.limits.max_json_strings,
        };
        if let Ok(strings) = json::scan(body, limits) {
            json_fields(strings, 0, &mut second);
        }
    } else if untyped
        && body.contains(&b'=')
        && !body
            .iter()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    {
        let (fields, _) = query::fields(
            body,
            Container::Body,
            0,
            true,
            profile.limits.max_parameters,
            &mut out.layer_room,
        );
        second.fields.extend(fields);
    }
    out.absorb_check_only(second);
}

/// Fields of a body read as `ct` says.
fn typed<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed<'a>,
) {
    if ct.is_json() {
        json_body(body, profile, out);
    } else if ct.is_form() {
        let (fields, cut) = query::fields(
            body,
            Container::Body,
            0,
            true,
            profile.limits.max_parameters,
            &mut out.layer_room,
        );
        out.fields.extend(fields);
        if cut {
            out.structural(
                Part::FormKey,
                FindingKind::LimitExceeded,
                0,
                format!("more than {} form fields", profile.limits.max_parameters),
            );
        }
    } else if ct.is_multipart() {
        parts::multipart_body(body, ct, profile, scan_binary, out);
    } else {
        whole_body(body, out);
    }
}

fn json_body<'a>(body: &'a [u8], profile: &Profile, out: &mut Decomposed<'a>) {
    let mut start = 0;
    if body.starts_with(&utf8gate_codec::UTF8_BOM) {
        // The document's signature is a field of its own, so that it can be stripped alone.
        let mut bom = Field::raw(
            Location::part(Part::Body),
            &body[..3],
            Container::Body,
            0..3,
        );
        bom.at_body_start = true;
        out.fields.push(bom);
        start = 3;
    }
    let limits = json::JsonLimits {
        max_depth: profile.limits.max_json_depth,
        max_strings: profile.limits.max_json_strings,
    };
    match json::scan(&body[start..], limits) {
        Ok(strings) => json_fields(strings, start, out),
        Err(e) => {
            let (kind, offset, message) = match e {
                json::JsonError::Syntax { offset, message } => (
                    FindingKind::MalformedBody,
                    offset,
                    format!("not JSON: {message} at byte {}", start + offset),
                ),
                json::JsonError::TooDeep { offset, limit } => (
                    FindingKind::LimitExceeded,
                    offset,
                    format!("JSON nested deeper than {limit}"),
                ),
                json::JsonError::TooManyStrings { limit } => (
                    FindingKind::LimitExceeded,
                    0,
                    format!("more than {limit} JSON strings"),
                ),
            };
            out.structural(Part::Body, kind, start + offset, message);
            // The application may still read it as text: check the bytes anyway.
            let rest = &body[start..];
            let mut field = Field::raw(
                Location::part(Part::Body),
                rest,
                Container::Body,
                start..body.len(),
            );
            field.at_body_start = start == 0;
            out.fields.push(field);
        }
    }
}

/// The fields of a scanned JSON document whose first byte is at `start` of the body.
fn json_fields(strings: Vec<json::JsonString>, start: usize, out: &mut Decomposed) {
    for s in strings {
        let part = if s.is_key {
            Part::JsonKey
        } else {
            Part::JsonString
        };
        let mut layer_findings = Found::new(out.layer_room, KindSet::default());
        for &(at, unit) in &s.lone_surrogates {
            let kind = FindingKind::EscapedSurrogate;
            layer_findings.report(kind, at, 3, Fix::None, || {
                RawFinding::new(
                    kind,
                    at,
                    &s.value[at..(at + 3).min(s.value.len())],
                    Fix::None,
                    Some(utf8gate_codec::format_scalar(u32::from(unit))),
                    format!("\\u{unit:04X} escape is a lone surrogate (decoded as U+FFFD)"),
                )
            });
        }
        out.layer_room -= layer_findings.detailed.len();
        out.fields.push(Field {
            location: Location::part(part).with_pointer(&s.pointer),
            bytes: s.value.into(),
            container: Container::Body,
            span: start + s.raw.start..start + s.raw.end,
            encoding: Encoding::JsonString,
            at_body_start: false,
            layer_findings,
            check_only: false,
        });
    }
}
