//! Runs of non-starters longer than the Stream-Safe Text Format allows (UAX #15 §13), counted
//! by the stream-safe table with the parent module's block scan.

use super::filter::{Finder, LEADS, PLAIN, SEQUENCES, decode, long_high_stretch, prev_char_start};
use super::tables::{StreamSafeTables, stream_safe_tables};

/// Whether text made only of inert characters certainly has no run of non-starters over
/// `limit`, so that [`nonstarter_run_over`] need not scan it. Only characters with leading
/// non-starters in their NFKD make a run grow; all but a few are not inert, and the few inert
/// ones (U+FF9E and U+FF9F in Unicode 18, listed when the table is built) are searched for.
/// Without them, a run is at most the trailing non-starters of one character, which is not
/// over a `limit` of at least the largest such count.
pub(crate) fn inert_text_is_stream_safe(text: &str, limit: usize) -> bool {
    let tables = stream_safe_tables();
    limit >= usize::from(tables.max_trail)
        && tables.inert_leading.iter().all(|(prefix, lasts)| {
            let bytes = text.as_bytes();
            prefix.find_iter(bytes).all(|at| {
                !bytes
                    .get(at + prefix.needle().len())
                    .is_some_and(|b| lasts.contains(b))
            })
        })
}

/// The most trailing non-starters one character adds in the stream-safe count (of its NFKD):
/// with a limit at least this, a run over the limit needs characters with leading
/// non-starters.
pub(crate) fn max_trailing_nonstarters() -> usize {
    usize::from(stream_safe_tables().max_trail)
}

/// The first run of more than `limit` consecutive non-starters, counted as the Stream-Safe Text
/// Format counts them (UAX #15 §13, the same count as `unicode-normalization`'s `stream_safe()`):
/// on the compatibility decomposition (NFKD) of each character. A character whose NFKD consists
/// only of non-starters (combining marks, and also starters such as U+FF9E HALFWIDTH KATAKANA
/// VOICED SOUND MARK) adds all of them; any other character ends the run with its leading
/// non-starters and starts the next one with its trailing ones (U+00C0 `À` is `A` + U+0300, so
/// it opens a run of 1).
///
/// The run is over the limit when, at some character, the count before it plus its leading
/// non-starters exceeds `limit` (where UAX #15 would insert U+034F).
///
/// Returns `(offset, len, count)`: the byte offset of the run's first character (the one that
/// contributes its first non-starter), the byte length up to the end of the last character that
/// contributes to it, and the number of non-starters counted in it. `count` is the number of
/// characters in the run when none of them decomposes, as with plain combining marks.
pub(crate) fn nonstarter_run_over(text: &str, limit: usize) -> Option<(usize, usize, usize)> {
    let tables = stream_safe_tables();
    let Some(min) = tables.stretch_for_a_run_over(limit) else {
        return run_over(text, limit, tables);
    };
    // Such a run lies in a stretch of `min` non-ASCII bytes or more (ASCII adds no
    // non-starters and ends a run): only those are counted.
    let mut from = 0;
    while let Some((start, end)) = long_high_stretch(text.as_bytes(), from, min) {
        if let Some((s, n, c)) = run_over(&text[start..end], limit, tables) {
            return Some((start + s, n, c));
        }
        from = end;
    }
    None
}

/// [`nonstarter_run_over`] of `text`, counted character by character.
fn run_over(text: &str, limit: usize, tables: &StreamSafeTables) -> Option<(usize, usize, usize)> {
    let bytes = text.as_bytes();
    // With `limit >= max_trail`, a character that adds no leading non-starters can only go over
    // the limit right after one that does, so the scan may jump to the next such character.
    let skip = limit >= usize::from(tables.max_trail);
    let mut run = Run::default();
    let mut idle = true;
    // `i` at each call is never below its value at the call before.
    let mut finder = Finder::default();
    let mut i = 0;
    while i < bytes.len() {
        if skip && idle {
            let found = match tables.leading.filter {
                SEQUENCES => finder.find::<LEADS, SEQUENCES, _>(bytes, i, tables),
                LEADS => finder.find::<LEADS, LEADS, _>(bytes, i, tables),
                _ => finder.find::<PLAIN, PLAIN, _>(bytes, i, tables),
            };
            // No character adds leading non-starters from here on: nothing can go over.
            let p = found?;
            if p > i {
                // Recount from the character before `p`: it adds no leading non-starters, so
                // only its trailing ones matter.
                i = prev_char_start(bytes, p);
                run = Run::default();
            }
        }
        let (cp, len) = decode(bytes, i);
        let props = tables.props(cp);
        let lead = usize::from(props.lead());
        let total = run.count + lead;
        run.over |= total > limit;
        if props.all_nonstarters() {
            if run.count == 0 {
                run.start = i;
            }
            run.count = total;
            run.end = i + len;
            idle = false;
        } else {
            if lead > 0 {
                if run.count == 0 {
                    run.start = i;
                }
                run.end = i + len;
            }
            if run.over {
                return Some((run.start, run.end - run.start, total));
            }
            let trail = usize::from(props.trail());
            run = Run {
                start: i,
                end: i + len,
                count: trail,
                over: false,
            };
            idle = true;
        }
        i += len;
    }
    run.over
        .then_some((run.start, run.end - run.start, run.count))
}

/// The run of non-starters being counted by [`nonstarter_run_over`].
#[derive(Debug, Default, Clone, Copy)]
struct Run {
    /// Byte offset of the character that contributed the run's first non-starter.
    start: usize,
    /// End (exclusive) of the last character that contributed to the run.
    end: usize,
    /// Non-starters counted so far.
    count: usize,
    /// Whether the count went over the limit at some character of this run.
    over: bool,
}
