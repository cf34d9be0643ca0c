//! The JSON reading: `application/json` and `+json` bodies, and bodies of no type or
//! `text/plain` that parse as JSON (a second reading: frameworks that sniff read them so).

use core::ops::ControlFlow;

use crate::decide::found::{Found, KindSet, Report};
use crate::field::{Container, Document, Encoding, Field};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::layers::decomposed::{Decomposed, signature_field, text_from};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::json;
use crate::readings::reading::BodyReading;
use crate::request::ContentType;

/// The JSON reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "json",
    claims,
    sniffed: Some(sniffed),
    read,
};

/// JSON and `+json` types, but not gRPC's `+json` (length-prefixed messages: `crate::readings::grpc`).
fn claims(ct: &ContentType) -> bool {
    ct.is_json() && !ct.is_grpc()
}

/// The limits of a JSON scan under `profile`.
fn limits(profile: &Profile) -> json::JsonLimits {
    json::JsonLimits {
        max_depth: profile.limits.max_json_depth,
        max_strings: profile.limits.max_json_strings,
    }
}

/// A body that starts like JSON and parses as JSON: its strings.
fn sniffed<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, out: &mut Decomposed<'a>) {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'[' | b'"')) {
        return;
    }
    if proven(body, 0, profile, out) {
        return;
    }
    if let Ok(checked) = json::check(body, limits(profile), profile.readings.json_keys) {
        document(body, 0, checked, out);
    }
}

/// A JSON body (`application/json`, `+json`): every key and string a field, its `\\u` escapes
/// decoded; a body that is not JSON is `malformed_body` and its bytes are still checked as
/// text (the application may read it so).
fn read<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, _: bool, out: &mut Decomposed<'a>) {
    let start = signature_field(body, out);
    if proven(&body[start..], start, profile, out) {
        return;
    }
    match json::check(&body[start..], limits(profile), profile.readings.json_keys) {
        Ok(checked) => document(&body[start..], start, checked, out),
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
            text_from(body, start, out);
        }
    }
}

/// Whether the strings of the document `doc` (at `start` of the body) are proven clean
/// together (`json::prove`): then one empty field stands for them all (it counts their bytes
/// as inspected) and `true`. Not when an identity may name a JSON string: its check reads
/// each one.
fn proven<'a>(doc: &'a [u8], start: usize, profile: &Profile, out: &mut Decomposed<'a>) -> bool {
    use crate::exclusion::Target;
    let no_identity = profile.identities.iter().all(|i| {
        let t = &i.target;
        matches!(
            t,
            Target::Query(_) | Target::Form(_) | Target::Header(_) | Target::Cookie(_)
        ) || matches!(t, Target::Xml(_) | Target::Yaml(_))
    });
    #[cfg(test)]
    let no_identity = no_identity && !tests::WITHOUT_PROOF.get();
    // Under Go's key reading, keys are compared folded: the fields' reading does it.
    if !no_identity || profile.readings.json_keys == crate::profile::JsonKeyReading::Go {
        return false;
    }
    let options = crate::checks::CheckOptions::of(profile);
    let Some(proven) = json::prove(doc, limits(profile), &options) else {
        return false;
    };
    if proven.strings > 0 {
        out.fields.push(Field {
            encoding: Encoding::JsonString,
            proven_clean: proven.bytes,
            ..Field::raw(
                Location::part(Part::JsonString),
                &[],
                Container::Body,
                start..start + doc.len(),
            )
        });
    }
    true
}

/// The field of the JSON document `doc`, read through (`checked`), whose first byte is at
/// `start` of the body: it stands for the document's keys and strings, read when they are
/// checked ([`each_string`]). A key that reads two ways (`json::check`) is
/// `ambiguous_json_key` (the first one only).
fn document<'a>(doc: &'a [u8], start: usize, checked: json::Checked, out: &mut Decomposed<'a>) {
    if let Some((pointer, offset, why)) = checked.repeated {
        out.structural_at(
            Location::part(Part::JsonKey).with_owned_pointer(pointer),
            FindingKind::AmbiguousJsonKey,
            start + offset,
            why.message(),
        );
    }
    out.fields.push(Field::standing_for(
        Part::JsonString,
        doc,
        start..start + doc.len(),
        Document::Json,
    ));
}

/// The fields of the JSON document `field` stands for ([`document`]), each handed to `f` as
/// it is read: at the document's name, index and container, a key's or string's pointer and
/// span, check-only if the document is. Detailed findings of lone surrogate escapes are built
/// while `room` allows. `f` breaking ends the reading.
pub(crate) fn each_string(
    field: &Field,
    profile: &Profile,
    room: usize,
    f: &mut dyn FnMut(&Field) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let (start, mut room) = (field.span.start, room);
    let read = json::for_each(&field.bytes, limits(profile), |s| {
        let part = if s.is_key {
            Part::JsonKey
        } else {
            Part::JsonString
        };
        // Most strings have no lone surrogate, and a `Found` is large: built only for one.
        let layer_findings = match s.lone_surrogates.is_empty() {
            true => None,
            false => {
                let found = lone_surrogates(&s, room);
                room -= found.detailed.len();
                found.boxed()
            }
        };
        let mut location = Location::part(part).with_owned_pointer(s.pointer);
        location.name.clone_from(&field.location.name);
        location.index = field.location.index;
        let string = Field {
            location,
            bytes: s.value,
            container: field.container,
            span: start + s.raw.start..start + s.raw.end,
            encoding: Encoding::JsonString,
            at_body_start: false,
            layer_findings,
            check_only: field.check_only,
            proven_clean: 0,
            document: None,
        };
        match f(&string) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(Stop::Stopped),
        }
    });
    match read {
        Ok(()) => ControlFlow::Continue(()),
        Err(Stop::Stopped) => ControlFlow::Break(()),
        // The document was read through under the same limits: not reached.
        Err(Stop::Json) => ControlFlow::Continue(()),
    }
}

/// Why [`each_string`]'s reading ended early.
enum Stop {
    /// Its caller asked.
    Stopped,
    /// The document is not what it was read through as (not reached).
    Json,
}

impl From<json::JsonError> for Stop {
    fn from(_: json::JsonError) -> Self {
        Stop::Json
    }
}

/// The `escaped_surrogate` findings of a string's lone surrogate escapes, with room for
/// `room` detailed ones.
fn lone_surrogates(s: &json::JsonString, room: usize) -> Found {
    let mut found = Found::new(room, KindSet::default());
    for (at, unit) in s.lone_surrogates.iter() {
        let at = at as usize;
        let kind = FindingKind::EscapedSurrogate;
        found.report(kind, at, 3, Fix::None, || {
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
    found
}

#[cfg(test)]
pub(crate) mod tests;
