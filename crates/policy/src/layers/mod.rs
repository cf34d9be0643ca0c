//! Decoding layers: a request taken apart into fields, each after its own decoding.

pub mod coding;
mod cookies;
pub(crate) mod decomposed;
pub(crate) mod head;
mod header_names;
mod headers;
mod hosts;
pub(crate) mod media_type;
mod path;
pub(crate) mod percent;
pub(crate) mod query;
pub(crate) mod transfer;

pub(crate) use crate::readings::xml_escape;
pub(crate) use decomposed::Decomposed;

use crate::field::{Container, Encoding, Field};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::{self, body};
use crate::request::Request;

/// Hands `field` to `f`, or, for a field that stands for a document (`Field::document`),
/// each of the document's fields as it is read: what the checks read, one field at a time.
/// Detailed layer findings of a document's fields are built while `room` allows. `f` breaking
/// ends it, and it breaks.
pub(crate) fn each_field(
    field: &Field,
    profile: &Profile,
    room: usize,
    f: &mut dyn FnMut(&Field) -> core::ops::ControlFlow<()>,
) -> core::ops::ControlFlow<()> {
    match field.document {
        None => f(field),
        Some(crate::field::Document::Json) => readings::each_json_string(field, profile, room, f),
        Some(crate::field::Document::Xml) => readings::each_xml_field(field, profile, room, f),
        Some(crate::field::Document::Yaml { .. }) => readings::each_yaml_field(field, profile, f),
    }
}

/// The request a backend reads once the body's codings are undone: `None` when the body has
/// no coding. A coding that cannot be read is a finding, and the body is then not read.
pub(crate) fn decoded(
    request: &Request,
    profile: &Profile,
) -> (Option<Request>, Option<(Location, RawFinding)>) {
    let finding = |kind, message: String| {
        let location = Location::part(Part::Header).with_name(b"content-encoding");
        Some((
            location,
            RawFinding::new(kind, 0, &[], Fix::None, None, message),
        ))
    };
    let undecoded = || {
        let mut bare = request.clone();
        bare.body.clear();
        Some(bare)
    };
    let codings =
        match coding::request_codings(request, profile.readings.content_codings, &profile.limits) {
            // A coding list is read even without a body (`chunked` twice is refused either way).
            Ok(c) if c.is_empty() || request.body.is_empty() => return (None, None),
            Ok(c) => c,
            Err(e) => {
                return (
                    undecoded(),
                    finding(FindingKind::UnsupportedCoding, e.to_string()),
                );
            }
        };
    match coding::decode(&request.body, &codings, &profile.limits) {
        Ok(body) => {
            let mut decoded = request.clone();
            decoded.body = body.into();
            // What the backend reads has no coding left: a sanitized request is forwarded so.
            decoded.headers.retain(|(n, _)| {
                !n.eq_ignore_ascii_case("content-encoding")
                    && !n.eq_ignore_ascii_case("transfer-encoding")
            });
            (Some(decoded), None)
        }
        Err(e @ coding::CodingError::TooLarge(_)) => (
            undecoded(),
            finding(FindingKind::LimitExceeded, e.to_string()),
        ),
        Err(e) => (
            undecoded(),
            finding(FindingKind::CorruptCoding, e.to_string()),
        ),
    }
}

/// `true` when the head of `request` alone has two readings that `profile` refuses (a missing
/// or repeated `Host`, a `Content-Type` with a second reading, `Content-Length` with
/// `Transfer-Encoding`, a coding list utf8gate does not read): such a request is answered before
/// its body is read, as a backend that frames it another way would never send it. Monitoring
/// profiles refuse nothing.
pub fn head_refused(profile: &Profile, request: &Request) -> bool {
    if profile.monitor {
        return false;
    }
    let mut out = Decomposed::new(profile);
    head::check(request, true, &mut out);
    let rejects = |kind, part| profile.action(kind, part) == crate::finding::Action::Reject;
    let coding =
        coding::request_codings(request, profile.readings.content_codings, &profile.limits);
    out.structural
        .iter()
        .any(|(location, f)| f.kind.is_reading() && rejects(f.kind, location.part))
        || (coding.is_err() && rejects(FindingKind::UnsupportedCoding, Part::Header))
}

/// Takes an upload apart: its body is the whole input, read as its media type says (binary
/// types only when the profile scans binary bodies, as for a proxied body). The path and headers of the call that carried it are not the application's
/// input; only its head's singleton headers and media-type parameters are checked (not `Host`).
/// Writes into `out` (new, as [`Decomposed::new`] makes it; the caller's, so that the fields
/// are not copied when returned).
pub(crate) fn decompose_upload<'a>(
    request: &'a Request,
    profile: &Profile,
    out: &mut Decomposed<'a>,
) {
    head::check(request, false, out);
    if !request.body.is_empty() {
        body::body(request, profile, profile.scan_binary, true, out);
    }
}

/// Takes `request` apart into fields: its path, query, headers and body.
pub(crate) fn decompose<'a>(request: &'a Request, profile: &Profile) -> Decomposed<'a> {
    let mut out = Decomposed::new(profile);
    decompose_into(request, profile, &mut out);
    out
}

/// [`decompose`] into `out` (new, as [`Decomposed::new`] makes it; the caller's, so that the
/// fields, a few of them inline, are not copied when returned).
pub(crate) fn decompose_into<'a>(
    request: &'a Request,
    profile: &Profile,
    out: &mut Decomposed<'a>,
) {
    let limits = &profile.limits;
    head::check(request, true, out);

    let (path, mut path_findings) = percent::decode(&request.path, false, &mut out.layer_room);
    percent::encoded_separators(&request.path, &mut path_findings);
    path::backend_readings(&path, profile.readings.path_backend, out);
    out.fields.push(Field {
        location: Location::part(Part::Path),
        bytes: path,
        container: Container::Path,
        span: 0..request.path.len(),
        encoding: Encoding::PathPercent,
        at_body_start: false,
        layer_findings: path_findings.boxed(),
        check_only: false,
        proven_clean: 0,
        document: None,
    });

    if let Some(query) = &request.query {
        let cut = query::fields(
            query,
            Container::Query,
            0,
            false,
            limits.max_parameters,
            &mut out.layer_room,
            &mut out.fields,
        );
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
            Location::part(Part::Header).with_text_name(name),
            value,
            Container::Header(i),
            0..value.len(),
        ));
    }
    headers::readings(request, profile, out);

    if body::whole_or_said(request, profile, out) && !request.body.is_empty() {
        body::body(request, profile, profile.scan_binary, false, out);
    }
    readings::json_in_values(profile, out);
    hosts::url_parameters(profile, out);
}
