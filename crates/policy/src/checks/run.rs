//! Every check on one field's bytes, as code inlined into each build of it: the baseline
//! build ([`super::check_field`]) and the AVX2 one ([`super::wide`]).

use std::borrow::Cow;

use super::bytes::{for_each_flagged, valid_runs};
use super::{bom, clean, controls, lookalike, nfc, segmented, traversal, utf8};
use crate::finding::{FindingKind, Fix, RawFinding};

/// What the checks need to know beyond the field's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckOptions {
    /// Which lookalike table to use.
    pub(crate) lookalikes: lookalike::Table,
    /// Longest run of non-starters before `excessive_combining`.
    pub(crate) max_nonstarters: usize,
}

/// [`super::check_field`]'s body, inlined into each of its builds together with the scans it calls.
#[inline(always)]
pub(super) fn check_field_inlined(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    // Short printable ASCII (most paths, query values and headers) is valid UTF-8 with no
    // control character and nothing any other character check looks for: only the traversal
    // check can find something in it.
    if bytes.len() <= 256 && bytes.iter().all(|&b| (0x20..0x7F).contains(&b)) {
        let mut findings = Vec::new();
        let known = traversal::Known {
            text: core::str::from_utf8(bytes).ok(),
            path_lookalike: None,
        };
        traversal::scan_with(part, bytes, &[], options.lookalikes, known, &mut findings);
        return findings;
    }
    // Longer ASCII with nothing any character check looks for: one pass proves it valid
    // UTF-8 and clean (see `clean`), and only the traversal check is left.
    let cx = clean::Context {
        text_content: part.is_text_content(),
        best_fit: options.lookalikes == lookalike::Table::BestFit,
    };
    if clean::is_vectorized() && clean::is_clean_ascii(bytes, cx) {
        let mut findings = Vec::new();
        if traversal::applies_to(part) {
            let known = traversal::Known {
                text: core::str::from_utf8(bytes).ok(),
                path_lookalike: None,
            };
            traversal::scan_with(part, bytes, &[], options.lookalikes, known, &mut findings);
        }
        return findings;
    }
    check_any_field(part, bytes, at_body_start, options)
}

/// [`check_field_inlined`] for any field, without the shortcuts for clean ASCII: the character
/// and NFC checks of each valid run only where the clean-text classifier leaves candidates
/// ([`segmented`]).
#[inline(always)]
pub(super) fn check_any_field(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    check_any_field_with::<true>(part, bytes, at_body_start, options)
}

/// [`check_any_field`] with every check run over every whole valid run: the reference the
/// segmented path is tested against.
#[cfg(test)]
pub(super) fn check_any_field_per_check(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    check_any_field_with::<false>(part, bytes, at_body_start, options)
}

/// [`check_any_field`], segmented or per check.
#[inline(always)]
fn check_any_field_with<const SEGMENTED: bool>(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Vec<RawFinding> {
    // Valid fields (the usual case) are validated once; only invalid ones are diagnosed.
    let whole;
    // Text of one- and two-byte characters is proven valid by a cheaper pass.
    let validated = match SEGMENTED.then(|| clean::two_byte_text(bytes)).flatten() {
        Some(text) => Ok(text),
        None => utf8gate_codec::validate(bytes),
    };
    let (malformations, runs, text) = match validated {
        Ok(text) => {
            // A valid field is one run, kept on the stack.
            whole = [(0, text)];
            let runs: &[(usize, &str)] = if text.is_empty() { &[] } else { &whole };
            (Vec::new(), Cow::Borrowed(runs), Some(text))
        }
        Err(_) => {
            let malformations: Vec<_> = utf8gate_codec::diagnose(bytes).collect();
            let runs = valid_runs(bytes, &malformations);
            (malformations, Cow::Owned(runs), None)
        }
    };
    let mut findings = utf8::findings(&malformations);
    let mut path_lookalike = None;
    for &(offset, text) in runs.iter() {
        let first = if SEGMENTED {
            segmented::check_run(part, offset, text, at_body_start, options, &mut findings)
        } else {
            check_run_per_check(part, offset, text, at_body_start, options, &mut findings)
        };
        path_lookalike = path_lookalike.or(first);
    }
    let known = traversal::Known {
        text,
        path_lookalike,
    };
    traversal::scan_with(
        part,
        bytes,
        &malformations,
        options.lookalikes,
        known,
        &mut findings,
    );
    findings
}

/// The character and NFC checks of a valid run (at field offset `offset`), each over all of
/// it. Returns the first lookalike with path syntax in its image (for the traversal check).
#[inline(always)]
pub(super) fn check_run_per_check(
    part: crate::location::Part,
    offset: usize,
    text: &str,
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Vec<RawFinding>,
) -> Option<(usize, char)> {
    let first = scan_characters(part, offset, text, at_body_start, options, out);
    // ASCII (most paths and headers) holds nothing that NFC changes and no non-starter.
    if !text.is_ascii() {
        nfc_findings(offset, text, options.max_nonstarters, out);
    }
    first
}

/// The character checks of a valid run (at field offset `offset`) in one pass: the controls,
/// BOM and lookalike checks each flag a few byte values, and the bytes any of them flags are
/// visited once, in order, by each check that flags them. Returns the first lookalike with path
/// syntax in its image (for the traversal check).
#[inline(always)]
pub(super) fn scan_characters(
    part: crate::location::Part,
    offset: usize,
    text: &str,
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Vec<RawFinding>,
) -> Option<(usize, char)> {
    let bytes = text.as_bytes();
    let text_content = part.is_text_content();
    let mut path_syntax = None;
    for_each_flagged(
        bytes,
        |b| controls::flags(b, text_content) | bom::flags(b) | lookalike::may_start(b),
        |at| {
            let b = bytes[at];
            if controls::flags(b, text_content) {
                controls::visit(part, offset, text, at, out);
            }
            if bom::flags(b) {
                bom::visit(offset, text, at, at_body_start, out);
            }
            if lookalike::may_start(b) {
                lookalike::visit(options.lookalikes, offset, text, at, out, &mut path_syntax);
            }
        },
    );
    path_syntax
}

/// The NFC and stream-safe findings of a valid run (at field offset `offset`).
#[inline(always)]
fn nfc_findings(offset: usize, text: &str, max_nonstarters: usize, out: &mut Vec<RawFinding>) {
    let (status, all_inert) = nfc::nfc_scan(text);
    let not_nfc = match status {
        nfc::NfcStatus::NotNfc { offset: first } => Some(first),
        nfc::NfcStatus::Nfc => None,
    };
    let over = if all_inert && nfc::inert_text_is_stream_safe(text, max_nonstarters) {
        None
    } else {
        nfc::nonstarter_run_over(text, max_nonstarters)
    };
    push_nfc_findings(offset, text, not_nfc, over, max_nonstarters, out);
}

/// Pushes the `not_nfc` finding of the character at `not_nfc` and the `excessive_combining` one
/// of the run `over` (offset, length, count), both in the valid run `text` at field offset
/// `offset`.
#[inline(always)]
pub(super) fn push_nfc_findings(
    offset: usize,
    text: &str,
    not_nfc: Option<usize>,
    over: Option<(usize, usize, usize)>,
    max_nonstarters: usize,
    out: &mut Vec<RawFinding>,
) {
    if let Some(first) = not_nfc {
        let end = text[first..]
            .char_indices()
            .nth(1)
            .map_or(text.len(), |(i, _)| first + i);
        out.push(RawFinding::new(
            FindingKind::NotNfc,
            offset + first,
            &text.as_bytes()[first..end],
            Fix::Normalize,
            None,
            "text is not in Normalization Form C".to_string(),
        ));
    }
    if let Some((start, len, count)) = over {
        out.push(RawFinding::new(
            FindingKind::ExcessiveCombining,
            offset + start,
            &text.as_bytes()[start..start + len],
            Fix::None,
            None,
            format!("{count} combining characters in a row (more than {max_nonstarters})"),
        ));
    }
}
