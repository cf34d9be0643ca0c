//! Rewriting: fixes applied to a field's bytes, fields written back into their containers.

use core::ops::Range;

use crate::checks::bytes::Piece;
use crate::checks::nfc;
use crate::decide::found::Actions;
use crate::decide::found::Found;
use crate::field::{Container, Encoding};
use crate::finding::{Action, FindingKind};
use crate::layers::percent;
use crate::readings::{json, multipart};
use crate::request::Request;

/// Fields at least this long are rewritten into a buffer of their exact size, and refused
/// when the rewrite would grow them past [`MAX_GROWTH`].
pub(crate) const EXACT_BYTES: usize = 64 * 1024;

/// The most a long field may grow by its rewrite, as a fraction of its size (1/4): the memory
/// budget charges a body three times (the body, a rewritten copy, working memory), and a
/// rewrite can triple text (U+FFFD for each lone byte, NFC of U+1D160).
pub(crate) const MAX_GROWTH: usize = 4;

/// How many bytes [`apply`] adds to `bytes`, counted without writing them: replacing its
/// malformed sequences (which may triple them), and that with NFC (which may triple a
/// character). Only a long field is counted; `(0, 0)` for a short one. The first is what
/// [`apply`]'s output needs before NFC, so that a long output is never grown by doubling (an
/// 8 MiB field of lone continuation bytes would otherwise be copied from 16 MiB into 32 MiB
/// for 24 MiB of text, the two buffers live at once).
pub(crate) fn growth(bytes: &[u8], found: &Found, actions: &Actions) -> (usize, usize) {
    if bytes.len() < EXACT_BYTES {
        return (0, 0);
    }
    let replaced = replaced_growth(bytes, found, actions);
    let mut grown = replaced;
    if found
        .normalize
        .is_some_and(|k| actions.get(k) == Action::Normalize)
    {
        // U+FFFD and the boundaries of malformed sequences are inert: each valid stretch is
        // normalized alone.
        grown += bytes
            .utf8_chunks()
            .map(|chunk| nfc::nfc_growth(chunk.valid()))
            .sum::<usize>();
    }
    (replaced, grown)
}

/// What replacing the malformed sequences of `bytes` by U+FFFD adds to them.
fn replaced_growth(bytes: &[u8], found: &Found, actions: &Actions) -> usize {
    if !found.malformed.rewrites_any(actions) {
        return 0;
    }
    utf8gate_codec::diagnose(bytes)
        .filter(|m| malformed_action(m, actions) == Some(Action::Replace))
        .map(|m| utf8gate_codec::lossy_len(m.bytes()).saturating_sub(m.len()))
        .sum()
}

/// Applies the rewriting actions to `bytes`: the malformations and character spans whose
/// kind's action (in `actions`) rewrites, then NFC, then an identity's enforced form. One pass
/// over the field: the malformations are walked again (when a malformed kind rewrites), the
/// character spans read in order between them, into a buffer of `capacity` (the output's size
/// before NFC, from [`growth`], when known). Returns the new bytes and whether NFC was applied.
pub(crate) fn apply(
    bytes: &[u8],
    found: &Found,
    actions: &Actions,
    capacity: usize,
) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(capacity);
    let mut at = 0;
    let mut spans = found.spans.iter().peekable();
    // The characters spans rewrite, up to `limit`.
    let mut chars = |limit: usize, at: &mut usize, out: &mut Vec<u8>| {
        while let Some(span) = spans.next_if(|s| s.start < limit) {
            let action = actions.get(span.kind);
            if !action.rewrites() || span.start < *at || span.end > bytes.len() {
                continue; // not rewritten, or overlaps an edit already made
            }
            out.extend_from_slice(&bytes[*at..span.start]);
            rewrite_chars(&bytes[span.start..span.end], action, out);
            *at = span.end;
        }
    };
    if found.malformed.rewrites_any(actions) {
        let mut lossy = String::new();
        for m in utf8gate_codec::diagnose(bytes) {
            chars(m.offset(), &mut at, &mut out);
            let Some(action) = malformed_action(&m, actions) else {
                continue;
            };
            if m.offset() < at {
                continue;
            }
            out.extend_from_slice(&bytes[at..m.offset()]);
            match action {
                Action::Replace => {
                    lossy.clear();
                    utf8gate_codec::push_lossy(m.bytes(), &mut lossy);
                    out.extend_from_slice(lossy.as_bytes());
                }
                Action::Repair => {
                    let c = m.lax_char().unwrap_or(utf8gate_codec::REPLACEMENT);
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => {} // strip
            }
            at = m.range().end;
        }
    }
    chars(usize::MAX, &mut at, &mut out);
    out.extend_from_slice(&bytes[at..]);
    let normalize = found
        .normalize
        .is_some_and(|k| actions.get(k) == Action::Normalize);
    if normalize {
        out = to_nfc_bytes(&out);
    }
    // An identity's enforced form (NFC already) replaces the whole field.
    if let Some((kind, form)) = &found.enforce
        && actions.get(*kind) == Action::Rewrite
    {
        out = form.as_bytes().to_vec();
    }
    (out, normalize)
}

/// The rewriting action of a malformation: its kind's, else (an overlong NUL) `nul`'s, if it
/// rewrites; a repair only for a CESU-8 pair.
fn malformed_action(m: &utf8gate_codec::Malformation, actions: &Actions) -> Option<Action> {
    let kind = FindingKind::from_malformed(m.kind());
    let nul = (m.lax_scalar() == Some(0)).then_some(FindingKind::Nul);
    [Some(kind), nul].into_iter().flatten().find_map(|k| {
        let action = actions.get(k);
        let repairs = action != Action::Repair || k == FindingKind::Cesu8Pair;
        (action.rewrites() && repairs).then_some(action)
    })
}

/// Writes the rewrite of a span of valid characters of one kind: one U+FFFD each, or nothing.
fn rewrite_chars(span: &[u8], action: Action, out: &mut Vec<u8>) {
    if action == Action::Replace {
        // A character span holds valid characters only.
        let chars = core::str::from_utf8(span).map_or(span.len(), |t| t.chars().count());
        for _ in 0..chars {
            out.extend_from_slice("\u{FFFD}".as_bytes());
        }
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
pub(crate) fn encode(encoding: Encoding, bytes: Vec<u8>) -> Vec<u8> {
    let bytes = match encoding {
        Encoding::Raw => return bytes,
        _ => &bytes[..],
    };
    match encoding {
        Encoding::Raw => unreachable!("returned above"),
        Encoding::PathPercent => percent::encode(bytes, true),
        Encoding::FormPercent | Encoding::ExtValue => percent::encode(bytes, false),
        Encoding::FormRawUtf8 => percent::encode_ascii(bytes),
        Encoding::Quoted => multipart::quote(bytes),
        Encoding::XmlText => crate::layers::xml_escape(bytes, false),
        Encoding::XmlAttribute => crate::layers::xml_escape(bytes, true),
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

/// `original` with `edits` (sorted, each a span of it and its new bytes) in place, in a buffer
/// of the exact size, so that a large body is never grown by doubling.
fn splice(original: &[u8], edits: &[(Container, Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let size = edits.iter().fold(original.len(), |n, (_, span, bytes)| {
        (n + bytes.len()).saturating_sub(span.len())
    });
    let mut spliced = Vec::with_capacity(size);
    let mut at = 0;
    for (_, span, bytes) in edits {
        if span.start < at || span.end > original.len() {
            continue;
        }
        spliced.extend_from_slice(&original[at..span.start]);
        spliced.extend_from_slice(bytes);
        at = span.end;
    }
    spliced.extend_from_slice(&original[at..]);
    spliced
}

/// Writes rewritten fields back: each `(container, span, encoded bytes)` replaces its span.
pub(crate) fn write_back(
    request: &Request,
    mut edits: Vec<(Container, Range<usize>, Vec<u8>)>,
) -> Request {
    // Everything but the body is small; the body is copied only when no edit rewrites it.
    let mut out = Request {
        mode: request.mode,
        method: request.method.clone(),
        path: request.path.clone(),
        query: request.query.clone(),
        headers: request.headers.clone(),
        body: bytes::Bytes::new(),
        string_fields_only: request.string_fields_only,
        host_required: request.host_required,
        body_state: request.body_state,
    };
    let mut body_edited = false;
    edits.sort_by_key(|e| (e.0, e.1.start));
    let mut i = 0;
    while i < edits.len() {
        let container = edits[i].0;
        let n = edits[i..].iter().take_while(|e| e.0 == container).count();
        let group = i..i + n;
        i += n;
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
        // One edit of the whole container is the container (a text body rewritten whole):
        // moved, not copied.
        let spliced = match &mut edits[group.clone()] {
            [(_, span, bytes)] if *span == (0..original.len()) => std::mem::take(bytes),
            edits => splice(original, edits),
        };
        match container {
            Container::Path => out.path = spliced,
            Container::Query => out.query = Some(spliced),
            Container::Header(h) => {
                if let Some(header) = out.headers.get_mut(h) {
                    header.1 = spliced;
                }
            }
            Container::Body => {
                out.body = spliced.into();
                body_edited = true;
            }
        }
    }
    if !body_edited {
        out.body = request.body.clone();
    }
    out
}
