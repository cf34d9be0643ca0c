//! The YAML reading: `application/yaml`, `application/x-yaml`, `text/yaml`, `text/x-yaml` and
//! `+yaml` bodies (Kubernetes-style APIs, Rails, PyYAML). Every scalar of every style (plain,
//! quoted with its escapes decoded, literal, folded) is a field at its path, keys `yaml_key`,
//! values `yaml_string`; what gives the text a second reading (tags outside the core schema,
//! merge keys, aliases, repeated keys) is `ambiguous_yaml`. The parser is `saphyr-parser`
//! (YAML 1.2), pulled one event at a time ([`walk`]).
//!
//! No sniffed reading: almost any plain text is a valid YAML document (one plain scalar), so
//! reading untyped bodies as YAML would only repeat their text field.
//!
//! Rewriting: a YAML field is never rewritten, since a scalar's bytes depend on its style and
//! indentation; a finding whose action rewrites refuses the document instead
//! ([`crate::decide::collect`]). A leading BOM is a field of its own and may be stripped.

mod capped;
mod scalars;
mod walk;

use core::ops::ControlFlow;

use crate::field::{Document, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, signature_field, text_from};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::reading::BodyReading;
use crate::request::ContentType;
use scalars::Scalars;
use walk::Stop;

/// The YAML reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "yaml",
    claims,
    // Plain text is almost always a valid YAML document (one plain scalar): a sniffed YAML
    // reading of untyped bodies would read their text again and nothing more.
    sniffed: None,
    read,
};

/// `true` for the YAML media types and `+yaml` (RFC 9512).
fn claims(ct: &ContentType) -> bool {
    matches!(
        ct.essence.as_str(),
        "application/yaml" | "application/x-yaml" | "text/yaml" | "text/x-yaml"
    ) || ct.essence.ends_with("+yaml")
}

/// A YAML body: its scalars as fields. A body that is not UTF-8 is checked as text (the codec
/// shows its malformed bytes) and its lossy text, what a repaired body would be, read as YAML,
/// check-only (unless the repair would grow it by more than a quarter, which is refused). A body that is not YAML, or past a limit, is checked as text as well.
fn read<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, _: bool, out: &mut Decomposed<'a>) {
    let start = signature_field(body, out);
    let rest = &body[start..];
    let as_text = |out: &mut Decomposed<'a>| text_from(body, start, out);
    match core::str::from_utf8(rest) {
        Ok(text) => {
            if !read_text(text, start, profile, out) {
                as_text(out);
            }
        }
        Err(_) => {
            as_text(out);
            // A repair that grows the body by more than a quarter is refused (`limit_exceeded`),
            // never forwarded: its lossy text is not read (three times the body, for nothing).
            let (long, growth) = (crate::rewrite::EXACT_BYTES, crate::rewrite::MAX_GROWTH);
            if rest.len() >= long
                && utf8gate_codec::lossy_len(rest) > rest.len() + rest.len() / growth
            {
                return;
            }
            let lossy = String::from_utf8_lossy(rest);
            let mut second = out.second();
            read_text(&lossy, start, profile, &mut second);
            out.absorb_check_only(second);
        }
    }
}

/// Reads `text` (at `base` of the body) as YAML into `out`; `false` if it was not read to the
/// end (its fields are dropped, the reason is a finding), so the caller checks it as text.
/// Its scalars are kept while they cost less than its bytes; past that, one field stands for
/// the stream and its scalars are read again as they are checked ([`each_field`]).
fn read_text<'t>(text: &'t str, base: usize, profile: &Profile, out: &mut Decomposed<'t>) -> bool {
    let first = out.fields.len();
    if let Some(at) = memchr::memchr(0, text.as_bytes()) {
        // No YAML stream holds a NUL (YAML 1.2.2 §5.1), and a parser may take one for its end.
        let message = format!("not YAML: a NUL character at byte {}", base + at);
        out.structural_at(
            Location::part(Part::Body),
            FindingKind::MalformedBody,
            base + at,
            message,
        );
        return false;
    }
    let budget = crate::field::fields_kept(text.len());
    let kept = Scalars::Kept {
        read: Vec::new(),
        budget,
        overflowed: false,
    };
    let stop = match walk::walk(text, base, limits(profile), out, (kept, false)) {
        Ok(walked) if walked.overflowed => {
            let multi = walked.documents >= 2;
            out.fields.push(Field::standing_for(
                Part::YamlString,
                text.as_bytes(),
                base..base + text.len(),
                Document::Yaml { multi },
            ));
            return true;
        }
        Ok(_) => return true,
        Err(stop) => stop,
    };
    out.fields.truncate(first);
    let (kind, at, message) = match stop {
        Stop::Malformed(at, message) => match bad_escape(text, at - base) {
            Some((offset, value)) if (0xD800..0xE000).contains(&value) => (
                FindingKind::EscapedSurrogate,
                base + offset,
                format!(
                    "\\u{value:04X} escape is a surrogate, which YAML parsers decode differently"
                ),
            ),
            _ => (
                FindingKind::MalformedBody,
                at,
                format!("not YAML: {message} at byte {at}"),
            ),
        },
        Stop::TooDeep(at, limit) => (
            FindingKind::LimitExceeded,
            at,
            format!("YAML nested deeper than {limit}"),
        ),
        Stop::TooManyScalars(limit) => (
            FindingKind::LimitExceeded,
            base,
            format!("more than {limit} YAML scalars"),
        ),
        Stop::TooFarAhead(at) => (
            FindingKind::LimitExceeded,
            at,
            format!(
                "the YAML parser read more than {} flow entries ahead of its last node (a flow collection's tokens are held until it closes)",
                capped::MAX_INDICATORS
            ),
        ),
        // Only a walk that hands its scalars on stops so.
        Stop::Stopped => return true,
    };
    out.structural_at(Location::part(Part::YamlString), kind, at, message);
    false
}

/// The limits of a walk under `profile`.
fn limits(profile: &Profile) -> walk::Limits {
    walk::Limits {
        max_depth: profile.limits.max_json_depth,
        max_scalars: profile.limits.max_json_strings,
        aliases: profile.readings.yaml_aliases == crate::profile::YamlAliasReading::Check,
    }
}

/// The fields of the YAML stream `field` stands for ([`read_text`]), each handed to `f` as it
/// is read, at the stream's name, index and `check_only`. `f` breaking ends the reading.
pub(crate) fn each_field(
    field: &Field,
    profile: &Profile,
    f: &mut dyn FnMut(&Field) -> ControlFlow<()>,
) -> ControlFlow<()> {
    // Read through as UTF-8 once already: never otherwise.
    let (Ok(text), Some(Document::Yaml { multi })) =
        (core::str::from_utf8(&field.bytes), field.document)
    else {
        return ControlFlow::Continue(());
    };
    // Its structural findings were made by the first walk.
    let mut scratch = Decomposed::default();
    let each = Scalars::Each { stream: field, f };
    match walk::walk(
        text,
        field.span.start,
        limits(profile),
        &mut scratch,
        (each, multi),
    ) {
        Err(Stop::Stopped) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    }
}

/// The first `\u` or `\U` escape whose value is no Unicode scalar value in the double-quoted
/// scalar starting at `at` of `text` (where the parser stopped): its offset and value.
fn bad_escape(text: &str, at: usize) -> Option<(usize, u32)> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return None,
            b'\\' => {
                let digits = match bytes.get(i + 1) {
                    Some(b'x') => 2,
                    Some(b'u') => 4,
                    Some(b'U') => 8,
                    _ => 0,
                };
                let hex = bytes.get(i + 2..i + 2 + digits).unwrap_or_default();
                let value = core::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match value {
                    Some(v) if digits > 0 && char::from_u32(v).is_none() => return Some((i, v)),
                    _ => i += 2 + digits.min(hex.len()),
                }
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests;
