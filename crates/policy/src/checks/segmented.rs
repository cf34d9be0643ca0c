//! The character and NFC checks of a valid run, run only where the clean-text classifier
//! ([`super::clean`]) did not prove every character clean.
//!
//! The run is cut into *segments* around the candidates: a segment starts at the clean
//! character before a candidate (or at the candidate, at the start of the run) and ends at the
//! next clean character. Everything between segments is clean, so no check finds anything
//! there, and each check gives on a segment what it gives on the whole run there:
//!
//! * the controls, BOM and lookalike checks look at one character at a time;
//! * a clean character is inert, so it starts a piece that normalizes on its own (the parent's
//!   NFC notes): the NFC regions of a segment are those of the run;
//! * a clean character adds no leading non-starter and is not made only of non-starters, so,
//!   with a limit of at least the longest trailing run of one character, a run of non-starters
//!   over the limit never crosses a segment's first or last clean character.
//!
//! Only the first `not_nfc` and `excessive_combining` of the run are reported, as the
//! per-check path reports them. When candidates are dense (more segments than one per 256
//! bytes, after the first few), the rest of the run is one segment.

use super::clean::{self, Context};
use super::nfc;
use super::per_check::{self, CheckOptions};
use crate::decide::found::Found;
use crate::location::Part;

/// Bytes of a segment scanned between two looks at whether the request is settled.
const STOP_CHECK_BYTES: usize = 64 * 1024;

/// Segments allowed before the density limit applies.
const FREE_SEGMENTS: usize = 8;

/// Bytes per further segment before the rest of the run is checked as one.
const BYTES_PER_SEGMENT: usize = 256;

/// What [`per_check::check_run_per_check`] finds in the valid run `text` (at field offset `offset`),
/// computed segment by segment. Returns the first lookalike with path syntax, as it does.
#[inline(always)]
pub(super) fn check_run(
    part: Part,
    offset: usize,
    text: &str,
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) -> Option<(usize, char)> {
    let max = options.max_nonstarters;
    // With a limit below it a single character can go over the limit: no clean boundaries.
    if max < nfc::max_trailing_nonstarters() || !clean::is_vectorized() {
        return per_check::check_run_per_check(part, offset, text, at_body_start, options, out);
    }
    let cx = Context::of(part, options.lookalikes);
    let bytes = text.as_bytes();
    let mut path_lookalike = None;
    let mut not_nfc = None;
    let mut over = None;
    let mut pos = 0;
    let mut segments = 0;
    while let Some(hit) = clean::first_candidate(bytes, pos, cx) {
        if out.settled() {
            out.stopped = true;
            break;
        }
        let start = if hit > pos {
            char_before(bytes, hit)
        } else {
            hit
        };
        segments += 1;
        let end = if segments > FREE_SEGMENTS + start / BYTES_PER_SEGMENT {
            bytes.len()
        } else {
            clean::next_clean(bytes, hit + 1, cx)
        };
        let segment = &text[start..end];
        // A long segment is scanned a piece at a time, so that a settled request stops.
        let mut at = 0;
        while at < segment.len() {
            let mut cut = (at + STOP_CHECK_BYTES).min(segment.len());
            while !segment.is_char_boundary(cut) {
                cut += 1;
            }
            let piece = &segment[at..cut];
            let o = offset + start + at;
            let first = per_check::scan_characters(part, o, piece, at_body_start, options, out);
            path_lookalike = path_lookalike.or(first);
            if out.settled() {
                out.stopped = true;
                return path_lookalike;
            }
            at = cut;
        }
        if not_nfc.is_none() || over.is_none() {
            let (status, all_inert) = nfc::nfc_scan(segment);
            if let (None, nfc::NfcStatus::NotNfc { offset: k }) = (not_nfc, status) {
                not_nfc = Some(start + k);
            }
            if over.is_none() && !(all_inert && nfc::inert_text_is_stream_safe(segment, max)) {
                over = nfc::nonstarter_run_over(segment, max).map(|(s, n, c)| (start + s, n, c));
            }
        }
        if end == bytes.len() {
            break;
        }
        pos = end;
    }
    per_check::push_nfc_findings(offset, text, not_nfc, over, max, out);
    path_lookalike
}

/// Start of the character that ends just before `p` (`p > 0`, a char boundary).
#[inline(always)]
fn char_before(bytes: &[u8], p: usize) -> usize {
    let mut k = p - 1;
    while k > 0 && bytes[k] & 0xC0 == 0x80 {
        k -= 1;
    }
    k
}
