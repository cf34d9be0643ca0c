//! Decoding layers: a request taken apart into fields, each after its own decoding.

pub(crate) mod json;
pub(crate) mod multipart;
pub(crate) mod percent;
pub(crate) mod query;

use crate::checks::{Fix, RawFinding};
use crate::field::{Container, Encoding, Field};
use crate::finding::FindingKind;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::{ContentType, Request};

/// Fields of a request, plus findings about the request's structure.
#[derive(Debug, Default)]
pub(crate) struct Decomposed {
    pub(crate) fields: Vec<Field>,
    /// Structural findings (charset, malformed body, limits), with their locations.
    pub(crate) structural: Vec<(Location, RawFinding)>,
}

impl Decomposed {
    fn structural(&mut self, part: Part, kind: FindingKind, offset: usize, message: String) {
        self.structural.push((
            Location::part(part),
            RawFinding::new(kind, offset, &[], Fix::None, None, message),
        ));
    }
}

/// Takes `request` apart into fields.
pub(crate) fn decompose(request: &Request, profile: &Profile) -> Decomposed {
    let mut out = Decomposed::default();
    let limits = &profile.limits;
    // A scanned upload is its body: the path and headers of the call that carried it are not
    // the application's input.
    if request.mode == Some(crate::request::Mode::Scan) {
        if !request.body.is_empty() {
            body(request, profile, &mut out);
        }
        return out;
    }

    let (path, mut path_findings) = percent::decode(&request.path, false);
    path_findings.extend(percent::encoded_separators(&request.path));
    out.fields.push(Field {
        location: Location::part(Part::Path),
        bytes: path,
        container: Container::Path,
        span: 0..request.path.len(),
        encoding: Encoding::PathPercent,
        at_body_start: false,
        layer_findings: path_findings,
    });

    if let Some(query) = &request.query {
        let (fields, cut) = query::fields(query, Container::Query, 0, false, limits.max_parameters);
        out.fields.extend(fields);
        if cut {
            out.structural(
                Part::QueryKey,
                FindingKind::LimitExceeded,
                0,
                format!("more than {} query parameters", limits.max_parameters),
            );
        }
    }

    for (i, (name, value)) in request.headers.iter().enumerate() {
        out.fields.push(Field::raw(
            Location::part(Part::Header).with_name(name.as_bytes()),
            value,
            Container::Header(i),
            0..value.len(),
        ));
    }

    if !request.body.is_empty() {
        body(request, profile, &mut out);
    }
    out
}

const BINARY_PREFIXES: [&str; 4] = ["image/", "audio/", "video/", "font/"];
const BINARY_TYPES: [&str; 6] = [
    "application/octet-stream",
    "application/zip",
    "application/gzip",
    "application/pdf",
    "application/x-protobuf",
    "application/grpc",
];

fn is_binary(essence: &str) -> bool {
    BINARY_PREFIXES.iter().any(|p| essence.starts_with(p)) || BINARY_TYPES.contains(&essence)
}

fn body(request: &Request, profile: &Profile, out: &mut Decomposed) {
    let body = &request.body;
    let ct = request
        .content_type()
        .unwrap_or_else(|| ContentType::parse(b""));
    if let Some(charset) = ct.charset() {
        if !matches!(charset.as_str(), "utf-8" | "utf8" | "us-ascii" | "ascii") {
            out.structural(
                Part::Body,
                FindingKind::ForeignCharset,
                0,
                format!("declared charset {charset:?} is not UTF-8"),
            );
            return;
        }
    }
    let scan_binary = profile.scan_binary || request.mode == Some(crate::request::Mode::Scan);
    if is_binary(&ct.essence) && !scan_binary {
        return;
    }
    if ct.is_json() {
        json_body(body, profile, out);
    } else if ct.is_form() {
        let (fields, cut) = query::fields(
            body,
            Container::Body,
            0,
            true,
            profile.limits.max_parameters,
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
        multipart_body(body, &ct, profile, scan_binary, out);
    } else {
        whole_body(body, out);
    }
}

fn whole_body(body: &[u8], out: &mut Decomposed) {
    let mut field = Field::raw(
        Location::part(Part::Body),
        body,
        Container::Body,
        0..body.len(),
    );
    field.at_body_start = true;
    out.fields.push(field);
}

fn json_body(body: &[u8], profile: &Profile, out: &mut Decomposed) {
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
        Ok(strings) => {
            for s in strings {
                let part = if s.is_key {
                    Part::JsonKey
                } else {
                    Part::JsonString
                };
                let mut layer_findings = Vec::new();
                for &(at, unit) in &s.lone_surrogates {
                    layer_findings.push(RawFinding::new(
                        FindingKind::EscapedSurrogate,
                        at,
                        &s.value[at..(at + 3).min(s.value.len())],
                        Fix::None,
                        Some(utf8gate_codec::format_scalar(u32::from(unit))),
                        format!("\\u{unit:04X} escape is a lone surrogate (decoded as U+FFFD)"),
                    ));
                }
                out.fields.push(Field {
                    location: Location::part(part).with_pointer(&s.pointer),
                    bytes: s.value,
                    container: Container::Body,
                    span: start + s.raw.start..start + s.raw.end,
                    encoding: Encoding::JsonString,
                    at_body_start: false,
                    layer_findings,
                });
            }
        }
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

fn multipart_body(
    body: &[u8],
    ct: &ContentType,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed,
) {
    let boundary = ct.param("boundary").unwrap_or_default();
    let parts = match multipart::parts(body, boundary, profile.limits.max_multipart_parts) {
        Ok(parts) => parts,
        Err(multipart::MultipartError::Malformed { offset, message }) => {
            out.structural(
                Part::Body,
                FindingKind::MalformedBody,
                offset,
                format!("not multipart: {message}"),
            );
            whole_body(body, out);
            return;
        }
        Err(multipart::MultipartError::TooManyParts { limit }) => {
            out.structural(
                Part::Body,
                FindingKind::LimitExceeded,
                0,
                format!("more than {limit} multipart parts"),
            );
            return;
        }
    };
    for (index, part) in parts.iter().enumerate() {
        let name_bytes = part
            .name
            .clone()
            .map(|r| multipart::unquote_inner(&body[r]))
            .unwrap_or_default();
        let location = |p: Part| Location::part(p).with_name(&name_bytes).with_index(index);
        if let Some(r) = part.name.clone() {
            out.fields
                .push(quoted_field(body, location(Part::MultipartName), r));
        }
        if let Some(r) = part.filename.clone() {
            out.fields
                .push(quoted_field(body, location(Part::MultipartFilename), r));
        }
        if let Some(r) = part.filename_ext.clone() {
            let (bytes, layer_findings) = percent::decode(&body[r.clone()], false);
            out.fields.push(Field {
                location: location(Part::MultipartFilename),
                bytes,
                container: Container::Body,
                span: r,
                encoding: Encoding::ExtValue,
                at_body_start: false,
                layer_findings,
            });
        }
        for (header, r) in &part.headers {
            if header == "content-disposition" {
                continue;
            }
            let mut loc = location(Part::MultipartHeader);
            loc.name = Some(header.clone());
            out.fields.push(Field::raw(
                loc,
                &body[r.clone()],
                Container::Body,
                r.clone(),
            ));
        }
        let textual = part
            .content_type
            .as_deref()
            .is_none_or(|t| ContentType::parse(t.as_bytes()).is_textual() || !is_binary(t));
        if textual || scan_binary {
            let mut field = Field::raw(
                location(Part::MultipartContent),
                &body[part.content.clone()],
                Container::Body,
                part.content.clone(),
            );
            field.at_body_start = true;
            out.fields.push(field);
        }
    }
}

fn quoted_field(body: &[u8], location: Location, span: core::ops::Range<usize>) -> Field {
    Field {
        location,
        bytes: multipart::unquote_inner(&body[span.clone()]),
        container: Container::Body,
        span,
        encoding: Encoding::Quoted,
        at_body_start: false,
        layer_findings: Vec::new(),
    }
}
