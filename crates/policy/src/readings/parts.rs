//! A multipart body (`form-data`, and `related`, `mixed`, `alternative`, `signed`: RFC 2046
//! §5.1) as fields, read every way a backend reads it: the agreed name and filename, every
//! part header, the content (decoded when a profile opts in to transfer encodings or foreign
//! charsets), and every ambiguity of the splitter refused.

use crate::field::{Container, Encoding, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, TypedPart, whole_body};
use crate::layers::percent;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::multipart;
use crate::readings::reading::BodyReading;
use crate::request::{ContentType, is_utf8_label, trim};
use crate::textual::Content;

mod decoded;
pub(crate) use decoded::transcoded;
use decoded::{check_only_content, push_check_only, transfer_decoded};

/// The multipart reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "multipart",
    claims: ContentType::is_multipart,
    sniffed: None,
    read: multipart_body,
};

/// The fields of a multipart body.
pub(crate) fn multipart_body<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed<'a>,
) {
    let boundary = ct.param("boundary").unwrap_or_default();
    let form = ct.is_form_data();
    let parts = match multipart::parts(
        body,
        boundary,
        profile.limits.max_multipart_parts,
        profile.limits.max_parameters,
    ) {
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
        Err(multipart::MultipartError::TooManyHeaders { limit }) => {
            out.structural(
                Part::Body,
                FindingKind::LimitExceeded,
                0,
                format!("more than {limit} part header lines"),
            );
            return;
        }
    };
    for (index, part) in parts.iter().enumerate() {
        let name = multipart::agreed_value(body, part.name.clone(), part.name_ext.clone());
        let filename =
            multipart::agreed_value(body, part.filename.clone(), part.filename_ext.clone());
        let name_bytes = name.clone().flatten().unwrap_or_default();
        let location = |p: Part| Location::part(p).with_name(&name_bytes).with_index(index);
        for (offset, kind, message) in &part.ambiguities {
            out.structural_at(
                location(Part::MultipartHeader),
                *kind,
                *offset,
                message.clone(),
            );
        }
        for (which, value) in [("name", &name), ("filename", &filename)] {
            if value.is_none() {
                out.structural_at(
                    location(Part::MultipartHeader),
                    FindingKind::AmbiguousParameter,
                    part.content.start,
                    format!(
                        "{which}* without an equal {which}: parsers take one, the other or neither"
                    ),
                );
            }
        }
        if let Some(at) = part.other_disposition.filter(|_| form) {
            let why = "a disposition type other than form-data: parsers read the part or skip it";
            let kind = FindingKind::AmbiguousParameter;
            out.structural_at(location(Part::MultipartHeader), kind, at, why.to_string());
        }
        if form && name == Some(None) {
            out.structural_at(
                location(Part::MultipartHeader),
                FindingKind::AmbiguousParameter,
                part.content.start,
                "a part without a name: parsers drop it, name it \"\" or refuse".to_string(),
            );
        }
        parameter_fields(body, part, &location, out);
        for (header, r) in &part.headers {
            if header == "content-disposition" {
                continue;
            }
            let mut loc = location(Part::MultipartHeader);
            loc.name = Some(header.as_str().into());
            out.fields.push(Field::raw(
                loc,
                &body[r.clone()],
                Container::Body,
                r.clone(),
            ));
        }
        let content = &body[part.content.clone()];
        if name_bytes == b"_charset_" {
            let label = String::from_utf8_lossy(trim(content)).to_ascii_lowercase();
            if !is_utf8_label(&label) {
                out.structural_at(
                    location(Part::MultipartContent),
                    FindingKind::ForeignCharset,
                    part.content.start,
                    format!("the _charset_ field names {label:?}: form fields are read in it"),
                );
            }
        }
        // A part without a filename is a form field to every framework: always read. A file
        // part (and every part of a non-form-data type) is judged as a body is
        // (`crate::textual`). (Only `filename*`: a text field to parsers ignoring it.)
        let is_file = part.filename.is_some() || !form;
        let declared = part.content_type.as_deref().unwrap_or_default();
        // A transfer-coded part is read as text (and refused): its bytes are not its content.
        let coded = (part.transfer_encoding.as_deref())
            .is_some_and(|c| !matches!(c, "7bit" | "8bit" | "binary"));
        let judged = match coded || !is_file || scan_binary {
            true => Content::Declared,
            false => {
                let ct = ContentType::parse(declared.as_bytes());
                let added = profile.readings.added_types();
                crate::textual::judge(&ct, false, content, Some(content), false, added)
            }
        };
        if judged != Content::Declared {
            // An archive is read by the archive reading; binary by a reading its type claims
            // (an archive type whose bytes are no archive is refused there), as
            // `body::typed_parts` reads them.
            let content_type = match judged {
                Content::Archive(essence) => essence.as_bytes().to_vec(),
                _ => declared.as_bytes().to_vec(),
            };
            out.typed_parts.push(TypedPart {
                span: part.content.clone(),
                content_type,
                location: location(Part::MultipartContent),
                raw: None,
            });
            continue;
        }
        let mut field = Field::raw(
            location(Part::MultipartContent),
            content,
            Container::Body,
            part.content.clone(),
        );
        field.at_body_start = true;
        match transfer_decoded(profile, part, content, &location, out) {
            Some(decoded) => {
                // The backend reads the decoded bytes; the coded ones are what is forwarded.
                field.check_only = true;
                out.fields.push(field);
                check_only_content(profile, part, decoded, &location, out);
            }
            None => {
                if let Some(charset) = part.charset.as_deref().filter(|c| !is_utf8_label(c)) {
                    out.structural_at(
                        location(Part::MultipartContent),
                        FindingKind::ForeignCharset,
                        part.content.start,
                        format!("part charset {charset:?} is not UTF-8"),
                    );
                    if let Some(text) =
                        transcoded(profile, charset, content, Part::MultipartContent, out)
                    {
                        push_check_only(location(Part::MultipartContent), text, out);
                    }
                    continue;
                }
                let raw = out.fields.len();
                out.fields.push(field);
                // A part typed JSON (or a form, XML) is also read so (Spring's `@RequestPart`);
                // a form field of no type, as an untyped body is sniffed (JSON values).
                let declared = part.headers.iter().find(|(h, _)| h == "content-type");
                let content_type = match declared {
                    Some((_, value)) => Some(body[value.clone()].to_vec()),
                    None => (!is_file).then(Vec::new),
                };
                if let Some(content_type) = content_type {
                    out.typed_parts.push(TypedPart {
                        span: part.content.clone(),
                        content_type,
                        location: location(Part::MultipartContent),
                        raw: Some(raw),
                    });
                }
            }
        }
    }
}

/// One part of a `multipart/form-data` body as utf8gate reads it: what the application
/// receives when the body is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormPart {
    /// The `name` parameter, unquoted.
    pub name: Option<Vec<u8>>,
    /// The `filename` parameter, unquoted.
    pub filename: Option<Vec<u8>>,
    /// The essence of the part's `Content-Type`, lowercase.
    pub content_type: Option<String>,
    /// The content, as it is in the body.
    pub content: Vec<u8>,
}

/// utf8gate's reading of a multipart body with the request's `Content-Type` value: the parts
/// with their names, filenames, types and contents, or why the body is not multipart. A body
/// that [`evaluate`](crate::evaluate()) allows is read exactly so by every parser in the
/// differential suite (Python's `email`, python-multipart, Werkzeug, multipart).
pub fn read_multipart(
    content_type: &[u8],
    body: &[u8],
    max_parts: usize,
) -> Result<Vec<FormPart>, String> {
    let ct = ContentType::parse(content_type);
    let boundary = ct.param("boundary").unwrap_or_default();
    // As many header lines as a part may have in a profile's default limits, per part.
    let max_headers = max_parts.saturating_mul(crate::profile::Limits::default().max_parameters);
    let parts =
        multipart::parts(body, boundary, max_parts, max_headers).map_err(|e| format!("{e:?}"))?;
    Ok(parts
        .iter()
        .map(|p| FormPart {
            name: multipart::agreed_value(body, p.name.clone(), p.name_ext.clone()).flatten(),
            filename: multipart::agreed_value(body, p.filename.clone(), p.filename_ext.clone())
                .flatten(),
            content_type: p.content_type.clone(),
            content: body[p.content.clone()].to_vec(),
        })
        .collect())
}

/// The `name`, `filename`, `name*` and `filename*` parameters as fields.
fn parameter_fields<'a>(
    body: &'a [u8],
    part: &multipart::Part,
    location: &dyn Fn(Part) -> Location,
    out: &mut Decomposed<'a>,
) {
    if let Some(r) = part.name.clone() {
        out.fields
            .push(quoted_field(body, location(Part::MultipartName), r));
    }
    if let Some(r) = part.filename.clone() {
        out.fields
            .push(quoted_field(body, location(Part::MultipartFilename), r));
    }
    for (ext, p) in [
        (&part.name_ext, Part::MultipartName),
        (&part.filename_ext, Part::MultipartFilename),
    ] {
        if let Some(r) = ext.clone() {
            let (bytes, layer_findings) =
                percent::decode(&body[r.clone()], false, &mut out.layer_room);
            out.fields.push(Field {
                location: location(p),
                bytes,
                container: Container::Body,
                span: r,
                encoding: Encoding::ExtValue,
                at_body_start: false,
                layer_findings: layer_findings.boxed(),
                check_only: false,
                proven_clean: 0,
                document: None,
            });
        }
    }
}

/// A quoted multipart parameter value as a field.
fn quoted_field(body: &[u8], location: Location, span: core::ops::Range<usize>) -> Field<'static> {
    Field {
        location,
        bytes: multipart::unquote_inner(&body[span.clone()]).into(),
        container: Container::Body,
        span,
        encoding: Encoding::Quoted,
        at_body_start: false,
        layer_findings: None,
        check_only: false,
        proven_clean: 0,
        document: None,
    }
}
