//! Rewriting: fixes applied to a field's bytes, fields written back into their containers.

use core::ops::Range;

use crate::checks::nfc;
use crate::field::{Container, Encoding};
use crate::finding::{Action, Fix, RawFinding};
use crate::layers::{json, multipart, percent};
use crate::request::Request;

/// Applies the rewriting actions to `bytes`. Returns the new bytes and whether NFC was applied.
pub(crate) fn apply(bytes: &[u8], findings: &[(RawFinding, Action)]) -> (Vec<u8>, bool) {
    let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    let mut normalize = false;
    let mut enforced = None;
    for (finding, action) in findings {
        match (&finding.fix, action) {
            (Fix::Malformed { range, .. }, Action::Replace) => {
                edits.push((
                    range.clone(),
                    utf8gate_codec::to_lossy(&bytes[range.clone()])
                        .into_owned()
                        .into_bytes(),
                ));
            }
            (Fix::Malformed { range, .. } | Fix::Char(range), Action::Strip) => {
                edits.push((range.clone(), Vec::new()))
            }
            (
                Fix::Malformed {
                    range,
                    repair_to: Some(c),
                },
                Action::Repair,
            ) => {
                edits.push((range.clone(), c.to_string().into_bytes()));
            }
            (Fix::Char(range), Action::Replace) => {
                edits.push((range.clone(), "\u{FFFD}".as_bytes().to_vec()))
            }
            (Fix::Normalize, Action::Normalize) => normalize = true,
            (Fix::Enforce(form), Action::Rewrite) => enforced = Some(form),
            _ => {}
        }
    }
    edits.sort_by(|a, b| a.0.start.cmp(&b.0.start).then(b.0.end.cmp(&a.0.end)));
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for (range, replacement) in edits {
        if range.start < at || range.end > bytes.len() {
            continue; // overlaps an edit already made (an overlong NUL is two findings)
        }
        out.extend_from_slice(&bytes[at..range.start]);
        out.extend_from_slice(&replacement);
        at = range.end;
    }
    out.extend_from_slice(&bytes[at..]);
    if normalize {
        out = to_nfc_bytes(&out);
    }
    // An identity's enforced form (NFC already) replaces the whole field.
    if let Some(form) = enforced {
        out = form.as_bytes().to_vec();
    }
    (out, normalize)
}

/// NFC of every valid stretch; malformed bytes (kept by a `log` action) stay as they are.
fn to_nfc_bytes(bytes: &[u8]) -> Vec<u8> {
    if let Ok(text) = utf8gate_codec::validate(bytes) {
        return nfc::to_nfc(text).into_owned().into_bytes();
    }
    let malformations: Vec<_> = utf8gate_codec::diagnose(bytes).collect();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for (offset, text) in crate::checks::bytes::valid_runs(bytes, &malformations) {
        out.extend_from_slice(&bytes[at..offset]);
        out.extend_from_slice(nfc::to_nfc(text).as_bytes());
        at = offset + text.len();
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// `bytes` written in a field's encoding.
pub(crate) fn encode(encoding: Encoding, bytes: &[u8]) -> Vec<u8> {
    match encoding {
        Encoding::Raw => bytes.to_vec(),
        Encoding::PathPercent => percent::encode(bytes, true),
        Encoding::FormPercent | Encoding::ExtValue => percent::encode(bytes, false),
        Encoding::Quoted => multipart::quote(bytes),
        Encoding::JsonString => match utf8gate_codec::validate(bytes) {
            Ok(text) => json::encode_string(text).into_bytes(),
            Err(_) => json_bytes_literal(bytes),
        },
    }
}

/// A JSON string literal of arbitrary bytes: required escapes only, other bytes as they are.
fn json_bytes_literal(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'"');
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// Writes rewritten fields back: each `(container, span, encoded bytes)` replaces its span.
pub(crate) fn write_back(
    request: &Request,
    mut edits: Vec<(Container, Range<usize>, Vec<u8>)>,
) -> Request {
    let mut out = request.clone();
    edits.sort_by_key(|e| (e.0, e.1.start));
    let mut i = 0;
    while i < edits.len() {
        let container = edits[i].0;
        let group: Vec<_> = edits[i..].iter().take_while(|e| e.0 == container).collect();
        i += group.len();
        let original: &[u8] = match container {
            Container::Path => &request.path,
            Container::Query => request.query.as_deref().unwrap_or_default(),
            Container::Header(h) => request
                .headers
                .get(h)
                .map(|(_, v)| v.as_slice())
                .unwrap_or_default(),
            Container::Body => &request.body,
        };
        let mut spliced = Vec::with_capacity(original.len());
        let mut at = 0;
        for (_, span, bytes) in group {
            if span.start < at || span.end > original.len() {
                continue;
            }
            spliced.extend_from_slice(&original[at..span.start]);
            spliced.extend_from_slice(bytes);
            at = span.end;
        }
        spliced.extend_from_slice(&original[at..]);
        match container {
            Container::Path => out.path = spliced,
            Container::Query => out.query = Some(spliced),
            Container::Header(h) => {
                if let Some(header) = out.headers.get_mut(h) {
                    header.1 = spliced;
                }
            }
            Container::Body => out.body = spliced,
        }
    }
    out
}
