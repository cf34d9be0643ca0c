//! Every check on one field's bytes, as code inlined into each build of it: the baseline
//! build ([`super::check_field`]) and the AVX2 one ([`super::wide`]); the checks of one valid run
//! are [`super::per_check`]'s and [`super::segmented`]'s.

use super::bytes::{Piece, pieces, printable_ascii_dots};
use super::per_check::{CheckOptions, check_run_per_check};
use super::{clean, segmented, traversal, utf8};
use crate::decide::found::Found;

/// [`super::check_field`]'s body, inlined into each of its builds together with the scans it calls.
#[inline(always)]
pub(super) fn check_field_inlined(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) {
    // Short printable ASCII (most paths, query values and headers) is valid UTF-8 with no
    // control character and nothing any other character check looks for: only the traversal
    // check can find something in it, and only at a `.` (a dot-segment) or a `%` (a lax second
    // decoding): without one, it has nothing to read (most names, values and paths).
    if bytes.len() <= 256
        && let Some(dots) = printable_ascii_dots(bytes)
    {
        if !dots {
            return;
        }
        let known = traversal::Known {
            text: utf8gate_codec::ascii_text(bytes),
            path_lookalike: None,
            malformed: traversal::Malformed::default(),
        };
        traversal::scan_with(part, bytes, options.lookalikes, known, out);
        return;
    }
    // Longer ASCII with nothing any character check looks for: one pass proves it valid
    // UTF-8 and clean (see `clean`), and only the traversal check is left.
    let cx = clean::Context::of(part, options.lookalikes);
    if clean::is_vectorized() && clean::is_clean_ascii(bytes, cx) {
        if traversal::applies_to(part) {
            let known = traversal::Known {
                text: utf8gate_codec::ascii_text(bytes),
                path_lookalike: None,
                malformed: traversal::Malformed::default(),
            };
            traversal::scan_with(part, bytes, options.lookalikes, known, out);
        }
        return;
    }
    check_any_field(part, bytes, at_body_start, options, out)
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
    out: &mut Found,
) {
    check_any_field_with::<true>(part, bytes, at_body_start, options, out)
}

/// [`check_any_field`] with every check run over every whole valid run: the reference the
/// segmented path is tested against.
#[cfg(test)]
pub(super) fn check_any_field_per_check(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
) -> Found {
    let mut out = Found::unbounded();
    check_any_field_with::<false>(part, bytes, at_body_start, options, &mut out);
    out
}

/// The character and NFC checks of one valid run of a field, segmented or per check. A
/// function that is always inlined, not a closure: LLVM leaves a closure this large, called
/// from two places, out of line, compiled once without the AVX2 build's features, and every
/// run's scans then use SSE2 only (docs/BENCHMARKS.md, "the run checks compiled with AVX2").
#[inline(always)]
fn run_checks<const SEGMENTED: bool>(
    part: crate::location::Part,
    offset: usize,
    text: &str,
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) -> Option<(usize, char)> {
    if SEGMENTED {
        segmented::check_run(part, offset, text, at_body_start, options, out)
    } else {
        check_run_per_check(part, offset, text, at_body_start, options, out)
    }
}

/// [`check_any_field`], segmented or per check.
#[inline(always)]
fn check_any_field_with<const SEGMENTED: bool>(
    part: crate::location::Part,
    bytes: &[u8],
    at_body_start: bool,
    options: &CheckOptions,
    out: &mut Found,
) {
    // Valid fields (the usual case) are validated once; only invalid ones are diagnosed.
    // Text of one- and two-byte characters is proven valid by a cheaper pass.
    let validated = match SEGMENTED.then(|| clean::two_byte_text(bytes)).flatten() {
        Some(text) => Ok(text),
        None => utf8gate_codec::validate(bytes),
    };
    let mut path_lookalike = None;
    let mut malformed = traversal::Malformed::default();
    let text = match validated {
        Ok(text) => {
            if !text.is_empty() {
                path_lookalike =
                    run_checks::<SEGMENTED>(part, 0, text, at_body_start, options, out);
            }
            Some(text)
        }
        Err(_) => {
            // Malformations and the valid runs between them, one at a time, in order.
            for piece in pieces(bytes) {
                if out.settled() {
                    out.stopped = true;
                    return;
                }
                match piece {
                    Piece::Run(offset, text) => {
                        let first = run_checks::<SEGMENTED>(
                            part,
                            offset,
                            text,
                            at_body_start,
                            options,
                            out,
                        );
                        path_lookalike = path_lookalike.or(first);
                    }
                    Piece::Malformed(m) => {
                        utf8::findings_of(&m, out);
                        malformed.note(&m);
                    }
                }
            }
            None
        }
    };
    if out.stopped {
        return;
    }
    let known = traversal::Known {
        text,
        path_lookalike,
        malformed,
    };
    traversal::scan_with(part, bytes, options.lookalikes, known, out);
}
