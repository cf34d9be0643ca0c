//! The character and NFC checks of one valid run, each over all of it: what runs on a whole
//! run when the clean-text classifier cannot vouch for it, and on the segments around its
//! candidates when it can (`super::segmented`). A leaf of the checks: the field-level code in
//! `super::run` and the segmented path both call it.

use super::bytes::for_each_flagged;
use super::{bom, controls, lookalike, nfc};
use crate::decide::found::{Found, Report};
use crate::finding::{FindingKind, Fix, RawFinding};

/// What the checks need to know beyond the field's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckOptions {
    /// Which lookalike table to use.
    pub(crate) lookalikes: lookalike::Table,
    /// Longest run of non-starters before `excessive_combining`.
    pub(crate) max_nonstarters: usize,
}

impl CheckOptions {
    /// The options `profile` sets.
    pub(crate) fn of(profile: &crate::profile::Profile) -> CheckOptions {
        CheckOptions {
            lookalikes: profile.lookalikes,
            max_nonstarters: profile.limits.max_nonstarters,
        }
    }
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
    out: &mut Found,
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
    out: &mut Found,
) -> Option<(usize, char)> {
    let bytes = text.as_bytes();
    let text_content = part.is_text_content();
    let mut path_syntax = None;
    let best_fit = options.lookalikes == lookalike::Table::BestFit;
    for_each_flagged(
        bytes,
        |b| controls::flags(b, text_content) | bom::flags(b) | lookalike::may_start(b, best_fit),
        |at| {
            let b = bytes[at];
            if controls::flags(b, text_content) {
                controls::visit(part, offset, text, at, out);
            }
            if bom::flags(b) {
                bom::visit(offset, text, at, at_body_start, out);
            }
            if lookalike::may_start(b, best_fit) {
                lookalike::visit(options.lookalikes, offset, text, at, out, &mut path_syntax);
            }
        },
    );
    path_syntax
}

/// The NFC and stream-safe findings of a valid run (at field offset `offset`).
#[inline(always)]
fn nfc_findings(offset: usize, text: &str, max_nonstarters: usize, out: &mut Found) {
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
    out: &mut Found,
) {
    if let Some(first) = not_nfc {
        let end = text[first..]
            .char_indices()
            .nth(1)
            .map_or(text.len(), |(i, _)| first + i);
        let kind = FindingKind::NotNfc;
        out.report(kind, offset + first, end - first, Fix::Normalize, || {
            RawFinding::new(
                kind,
                offset + first,
                &text.as_bytes()[first..end],
                Fix::Normalize,
                None,
                "text is not in Normalization Form C".to_string(),
            )
        });
    }
    if let Some((start, len, count)) = over {
        let kind = FindingKind::ExcessiveCombining;
        out.report(kind, offset + start, len, Fix::None, || {
            RawFinding::new(
                kind,
                offset + start,
                &text.as_bytes()[start..start + len],
                Fix::None,
                None,
                format!("{count} combining characters in a row (more than {max_nonstarters})"),
            )
        });
    }
}
