//! Rewriting: fixes applied to a field's bytes, fields written back into their containers.

use core::ops::Range;

use utf8gate_codec::MalformedKind;

use crate::checks::bytes::Piece;
use crate::checks::nfc;
use crate::collect::Actions;
use crate::field::{Container, Encoding};
use crate::finding::{Action, FindingKind};
use crate::found::Found;
use crate::layers::{json, multipart, percent};
use crate::request::Request;

/// Applies the rewriting actions to `bytes`: each kept fix whose kind's action (in `actions`)
/// rewrites, then NFC, then an identity's enforced form. Linear in the field: the spans are
/// sorted once, each replaced stretch is read once. Returns the new bytes and whether NFC was
/// applied.
pub(crate) fn apply(bytes: &[u8], found: &mut Found, actions: &Actions) -> (Vec<u8>, bool) {
    // Spans in order; of two at the same start, the longer first, then the first reported.
    found
        .spans
        .sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for span in &found.spans {
        let (start, end) = (span.start as usize, span.end as usize);
        let action = actions.get(span.kind);
        // Only a CESU-8 pair has a repair.
        let repairs = action != Action::Repair || span.kind == FindingKind::Cesu8Pair;
        if !action.rewrites() || !repairs || start < at || end > bytes.len() {
            continue; // not rewritten, or overlaps an edit already made (an overlong NUL)
        }
        out.extend_from_slice(&bytes[at..start]);
        rewrite_span(&bytes[start..end], span.malformed, action, &mut out);
        at = end;
    }
    out.extend_from_slice(&bytes[at..]);
    let normalize = found
        .normalize
        .is_some_and(|k| actions.get(k) == Action::Normalize);
    if normalize {
        out = to_nfc_bytes(&out);
    }
    // An identity's enforced form (NFC already) replaces the whole field.
    if let Some((kind, form)) = &found.enforce {
        if actions.get(*kind) == Action::Rewrite {
            out = form.as_bytes().to_vec();
        }
    }
    (out, normalize)
}

/// Writes the rewrite of one span (adjacent findings of one kind) under `action`: malformed
/// UTF-8 replaced by U+FFFD per maximal subpart of each malformation, stripped, or (CESU-8
/// pairs) repaired; valid characters replaced by one U+FFFD each, or stripped.
fn rewrite_span(span: &[u8], malformed: bool, action: Action, out: &mut Vec<u8>) {
    match (malformed, action) {
        (_, Action::Strip) => {}
        (true, Action::Replace | Action::Repair) => {
            for piece in crate::checks::bytes::pieces(span) {
                match piece {
                    Piece::Malformed(m) => match (action, m.lax_char()) {
                        (Action::Repair, Some(c)) if m.kind() == MalformedKind::Cesu8Pair => {
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes())
                        }
                        (Action::Repair, _) => out.extend_from_slice(m.bytes()),
                        _ => out.extend_from_slice(utf8gate_codec::to_lossy(m.bytes()).as_bytes()),
                    },
                    Piece::Run(_, text) => out.extend_from_slice(text.as_bytes()),
                }
            }
        }
        (false, Action::Replace) => {
            // A character span holds valid characters only.
            let chars = core::str::from_utf8(span).map_or(span.len(), |t| t.chars().count());
            for _ in 0..chars {
                out.extend_from_slice("\u{FFFD}".as_bytes());
            }
        }
        _ => out.extend_from_slice(span),
    }
}

/// NFC of every valid stretch; malformed bytes (kept by a `log` action) stay as they are.
fn to_nfc_bytes(bytes: &[u8]) -> Vec<u8> {
    if let Ok(text) = utf8gate_codec::validate(bytes) {
        return nfc::to_nfc(text).into_owned().into_bytes();
    }
    let mut out = Vec::with_capacity(bytes.len());
    for piece in crate::checks::bytes::pieces(bytes) {
        match piece {
            Piece::Run(_, text) => out.extend_from_slice(nfc::to_nfc(text).as_bytes()),
            Piece::Malformed(m) => out.extend_from_slice(m.bytes()),
        }
    }
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
